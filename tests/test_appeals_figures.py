"""Appeal and upheld rates (core.appeals.figures) on the Agreement and Fairness pages' reads, and
the rule that an appeal's re-mark is never a reference for agreement or fairness."""
from __future__ import annotations

import pytest

import factories as f
from appeal_items import ADMIN, appealable, released
from core import reports
from core.accounts.access import Forbidden
from core.appeals import deciding, figures, filing
from core.metrics.proportion import share, wilson
from db import analytics
from db.analytics import Scope
from signoff_items import HIGH, LOW

WHY = "I gave an example from my job."


def test_wilson_matches_the_published_interval_and_stays_within_0_and_1():
    lo, hi = wilson(3, 40)
    assert (round(lo, 3), round(hi, 3)) == (0.026, 0.199)
    assert wilson(0, 5)[0] == 0.0 and wilson(5, 5)[1] == 1.0 and wilson(0, 0) is None
    assert share(3, 40, "student", "appealed")["text"] == "3 of 40 students appealed (7.5 %, 95 % interval 2.6–19.9 %)"
    assert share(1, 1, "student", "appealed")["text"].startswith("1 of 1 student appealed (")   # one: singular


def _course_with_appeals(conn):
    """Week 1: 6 released students (3 low band, 3 high; sections A/B), 2 appealed: one upheld, one
    kept. Week 2: 2 released, none appealed."""
    course = appealable(conn, weeks=2)
    w1, w2 = course["assignment_ids"]
    items = []
    for k in range(6):
        items.append(released(conn, course, LOW if k < 3 else HIGH, assignment_id=w1,
                              attributes={"section": "AB"[k % 2]}))
    for k in range(2):
        released(conn, course, HIGH, assignment_id=w2, attributes={"section": "A"})
    (low_sid, low_me), (high_sid, high_me) = items[0], items[3]
    up = filing.file(conn, low_sid, {"clarity": WHY}, actor=low_me)["appeal_id"]
    kept = filing.file(conn, high_sid, {"clarity": WHY}, actor=high_me)["appeal_id"]
    deciding.decide(conn, up, actor=ADMIN, outcome="change", scores={"clarity": 3}, reason_code="too_harsh",
                    note="Upheld.")
    deciding.decide(conn, kept, actor=ADMIN, outcome="keep", note="It stays.")
    return course, low_sid


def test_rates_per_assignment_band_and_group_say_what_they_count(conn):
    course, _ = _course_with_appeals(conn)
    rates = figures.appeal_rates(conn, Scope("course", course["course_id"]), actor=ADMIN)
    assert rates["any"] and rates["unit"] == "released result"
    week1, week2 = rates["by_assignment"]
    assert (week1["title"], week1["released"], week1["appealed"], week1["decided"], week1["upheld"]) == (
        "Week 1", 6, 2, 2, 1)
    assert week1["appeal_rate"]["text"] == "2 of 6 students appealed (33.3 %, 95 % interval 9.7–70.0 %)"
    assert week1["upheld_rate"]["text"].startswith("1 of 2 decided appeals upheld (50.0 %")
    assert week2["appeal_rate"]["k"] == 0 and week2["upheld_rate"]["text"] == figures.NO_DECISION
    low, high = rates["by_band"]["low"], rates["by_band"]["high"]
    assert (low["released"], low["appealed"], low["upheld"]) == (3, 1, 1)
    assert (high["released"], high["appealed"], high["upheld"]) == (5, 1, 0)   # the band before the appeal
    section = {g["group"]: g for g in rates["by_group"]["section"]}
    assert (section["A"]["released"], section["A"]["appealed"], section["B"]["appealed"]) == (5, 1, 1)
    one = figures.appeal_rates(conn, Scope("assignment", assignment_id=course["assignment_ids"][0]), actor=ADMIN)
    assert one["unit"] == "student" and len(one["by_assignment"]) == 1


def test_the_agreement_and_fairness_pages_read_the_rates_in_their_one_call(conn):
    course, _ = _course_with_appeals(conn)
    scope = Scope("course", course["course_id"])
    for page in (reports.agreement_page, reports.fairness_page):
        data = page(conn, scope, actor=ADMIN)
        assert data["appeals"]["by_assignment"][0]["appealed"] == 2
    outsider = f.user(conn, "otto", "instructor", courses=[f.course(conn, "Other")["course_id"]])
    with pytest.raises(Forbidden):
        figures.appeal_rates(conn, scope, actor=outsider)


def test_an_appeals_changed_score_is_never_a_reference(conn):
    """The teacher reference keeps the score released before the appeal; the blind re-mark is no
    blind calibration score; no expert score appears."""
    course = appealable(conn)
    sid, me = released(conn, course, LOW)
    appeal = filing.file(conn, sid, {"clarity": WHY}, actor=me)["appeal_id"]
    deciding.remark(conn, appeal, {"clarity": 3}, actor=ADMIN)
    deciding.decide(conn, appeal, actor=ADMIN, outcome="change", scores={"clarity": 3}, reason_code="too_harsh",
                    note="Upheld.")
    scope = Scope("course", course["course_id"])
    teacher = analytics.pair_counts(conn, scope, reference="teacher")
    clarity = teacher[teacher["criterion"] == "clarity"]
    assert clarity["reference"].tolist() == [LOW["clarity"]]                 # 1, not the re-mark's 3
    others = teacher[teacher["criterion"] == "concept_understanding"]
    assert others["reference"].tolist() == [LOW["concept_understanding"]]
    for reference in ("blind", "expert", "auto"):
        assert analytics.pair_counts(conn, scope, reference=reference).empty, reference
    # Without an appeal, a teacher's own later edit does count (the rule is about appeals only).
    plain, _ = released(conn, course, LOW)
    from core.signoff import actions, release
    review = actions.open_item(conn, plain, actor=ADMIN)
    actions.approve(conn, plain, version=review["version"], actor=ADMIN, scores={**LOW, "clarity": 3},
                    comment=review["comment"], reasons=["too_harsh"])
    release.release(conn, course["assignment_id"], actor=ADMIN)
    teacher = analytics.pair_counts(conn, scope, reference="teacher")
    assert sorted(teacher[teacher["criterion"] == "clarity"]["reference"].tolist()) == [1, 3]
