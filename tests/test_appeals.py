"""A student's appeal (issue 26) on a real SQLite file: filing it on their own released work, the
review queue's Appeals group, a teacher's blind re-mark, keep or change (a change is an edit with a
reason code and a new release of that item), and the audit log."""
from __future__ import annotations

import pytest

import factories as f
from appeal_items import ADMIN, appealable, released
from core.accounts import access
from core.accounts.access import Forbidden
from core.appeals import deciding, filing
from core.courses import catalogue
from core.errors import ConflictError, FairMarkError
from core.signoff import actions, labels, release, review_view, triage
from db import reviews, submissions
from signoff_items import HIGH, audited, make_item

WHY = "My answer gives an example from my job, which the feedback says is missing."


def _count(conn, table: str) -> int:
    return conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def _filed(conn, course, **kw):
    sid, me = released(conn, course, **kw)
    out = filing.file(conn, sid, {"real_world_application": WHY}, actor=me)
    return sid, me, out["appeal_id"]


def test_a_student_files_on_their_released_work_and_it_is_first_in_the_queue_with_their_words(conn):
    course = appealable(conn)
    sid, me = released(conn, course)
    waiting = make_item(conn, course, status="needs_attention")        # an item that needs attention
    out = filing.file(conn, sid, {"real_world_application": f"  {WHY}  ", "clarity": "It is clear."}, actor=me)
    assert out == {"appeal_id": out["appeal_id"], "status": "open", "criteria": ["clarity", "real_world_application"]}
    queue = review_view.review_queue(conn, course["assignment_id"], actor=ADMIN)["items"]
    assert [(i["submission_id"], i["group"]) for i in queue][:2] == [(sid, "appeals"), (waiting, "needs_attention")]
    assert submissions.get_submission(conn, sid)["status"] == "released"   # still released: nothing else moved
    item = deciding.for_item(conn, sid, actor=ADMIN)
    assert [(c["criterion"], c["reason"], c["released_score"]) for c in item["criteria"]] == [
        ("clarity", "It is clear.", 3), ("real_world_application", WHY, 2)]
    mine = filing.for_student(conn, sid, actor=me)
    assert mine["can_file"] is False and mine["why_not"] == filing.ALREADY_OPEN
    assert [a["status"] for a in mine["appeals"]] == ["open"]
    assert audited(conn, sid)[-1] == "appeal"
    row = conn.execute("SELECT actor, role FROM audit_log WHERE action = 'appeal'").fetchone()
    assert row == (str(me), "student")                                   # a pseudonymous label, never the name


@pytest.mark.parametrize("reasons, message", [
    ({}, "Choose at least one criterion"),
    ({"clarity": "   "}, "the reason is empty"),
    ({"clarity": "x" * 1001}, "has 1,001 characters; shorten it to 1,000 at most"),
    ({"spelling": "Not a criterion."}, "'spelling' is not a criterion of this assignment's rubric"),
    ("clarity", "Choose at least one criterion"),
])
def test_bad_reasons_are_refused_with_what_to_do_and_nothing_is_written(conn, reasons, message):
    course = appealable(conn)
    sid, me = released(conn, course)
    with pytest.raises(FairMarkError, match=message):
        filing.file(conn, sid, reasons, actor=me)
    assert _count(conn, "appeals") == 0 and submissions.get_submission(conn, sid)["priority"] == triage.RELEASED
    filing.file(conn, sid, {"clarity": "x" * 1000}, actor=me)            # exactly the limit is fine


def test_a_student_cannot_file_on_anothers_work_unreleased_work_after_the_deadline_or_twice(conn):
    course = appealable(conn)
    sid, me = released(conn, course)
    theirs, _ = released(conn, course)
    with pytest.raises(Forbidden, match=access.NOT_YOURS):
        filing.file(conn, theirs, {"clarity": WHY}, actor=me)
    drafted = make_item(conn, course)
    own = conn.execute("SELECT student_id FROM submissions WHERE id = ?", [drafted]).fetchone()[0]
    with pytest.raises(FairMarkError, match="has not released this feedback"):
        filing.file(conn, drafted, {"clarity": WHY}, actor=access.student(own, course["course_id"]))
    filing.file(conn, sid, {"clarity": WHY}, actor=me)
    with pytest.raises(ConflictError, match="already have an appeal waiting"):
        filing.file(conn, sid, {"reflection_depth": WHY}, actor=me)
    owner = access.student(conn.execute("SELECT student_id FROM submissions WHERE id = ?", [theirs]).fetchone()[0],
                           course["course_id"])
    catalogue.edit_assignment(conn, course["assignment_id"], actor=ADMIN, appeal_deadline="2020-01-31")
    with pytest.raises(FairMarkError, match=r"deadline for appeals \(2020-01-31 23:59 UTC\) has passed"):
        filing.file(conn, theirs, {"clarity": WHY}, actor=owner)
    catalogue.edit_assignment(conn, course["assignment_id"], actor=ADMIN, appeal_deadline="none")
    with pytest.raises(FairMarkError, match="Appeals are not open for this assignment"):
        filing.file(conn, theirs, {"clarity": WHY}, actor=owner)
    assert _count(conn, "appeals") == 1
    with pytest.raises(Forbidden):                                        # a teacher never files one
        filing.file(conn, sid, {"clarity": WHY}, actor=ADMIN)
    with pytest.raises(Forbidden):
        filing.for_student(conn, sid, actor=ADMIN)


def test_appeals_are_off_by_default(conn):
    course = f.course(conn)
    sid, me = released(conn, course)
    assert filing.for_student(conn, sid, actor=me)["why_not"] == "Appeals are not open for this assignment."
    with pytest.raises(FairMarkError, match="not open"):
        filing.file(conn, sid, {"clarity": WHY}, actor=me)


def test_a_teaching_assistant_keeps_the_score_with_a_note_and_the_student_sees_it(conn):
    course = appealable(conn)
    sid, me, appeal = _filed(conn, course)
    ta = f.user(conn, "tom", "ta", courses=[course["course_id"]])
    with pytest.raises(FairMarkError, match="Write a note to the student"):
        deciding.decide(conn, appeal, actor=ta, outcome="keep", note="  ")
    with pytest.raises(FairMarkError, match="keep or change"):
        deciding.decide(conn, appeal, actor=ta, outcome="maybe", note="x")
    out = deciding.decide(conn, appeal, actor=ta, outcome="keep", note="Your example is general; 2 stays.")
    assert out["status"] == "kept" and not out["released"]
    assert submissions.get_submission(conn, sid)["priority"] == triage.RELEASED
    assert _count(conn, "releases") == 1                                 # nothing new goes out
    shown = filing.for_student(conn, sid, actor=me)["appeals"][0]
    assert (shown["status"], shown["note"], shown["criteria"][0]["new_score"]) == (
        "kept", "Your example is general; 2 stays.", None)
    with pytest.raises(ConflictError, match="already decided"):
        deciding.decide(conn, appeal, actor=ADMIN, outcome="keep", note="again")
    assert audited(conn, sid)[-1] == "appeal_keep"
    assert filing.for_student(conn, sid, actor=me)["can_file"] is True    # decided: a new one may be filed


def test_an_instructors_change_is_an_edit_with_a_reason_and_goes_out_as_a_release_of_that_item(conn):
    course = appealable(conn)
    sid, me, appeal = _filed(conn, course)
    other = make_item(conn, course)
    actions.open_item(conn, other, actor=ADMIN)
    actions.approve(conn, other, version=1, actor=ADMIN)                 # approved, not to be released by it
    teacher = f.user(conn, "ines", "instructor", courses=[course["course_id"]])
    with pytest.raises(FairMarkError, match="pick the reason"):
        deciding.decide(conn, appeal, actor=teacher, outcome="change", scores={"real_world_application": 3},
                        note="You are right.")
    with pytest.raises(FairMarkError, match="does not cover clarity"):
        deciding.decide(conn, appeal, actor=teacher, outcome="change", scores={"real_world_application": 3,
                        "clarity": 0}, reason_code="too_harsh", note="You are right.")
    with pytest.raises(FairMarkError, match="the scores the student has"):
        deciding.decide(conn, appeal, actor=teacher, outcome="change", scores={"real_world_application": 2},
                        reason_code="too_harsh", note="You are right.")
    with pytest.raises(FairMarkError, match="whole number from 0 to 3"):
        deciding.decide(conn, appeal, actor=teacher, outcome="change", scores={"real_world_application": 7},
                        reason_code="too_harsh", note="You are right.")
    seen = reviews.get_review(conn, sid)["version"]
    with pytest.raises(ConflictError, match="since you opened it"):     # a version the teacher did not see
        deciding.decide(conn, appeal, actor=teacher, outcome="change", scores={"real_world_application": 3},
                        reason_code="too_harsh", note="You are right.", version=seen - 1)
    assert reviews.get_review(conn, sid)["version"] == seen                  # nothing written
    out = deciding.decide(conn, appeal, actor=teacher, outcome="change", scores={"real_world_application": 3},
                          reason_code="too_harsh", note="You are right: your job example counts.", version=seen)
    assert out["status"] == "changed" and out["released"] and out["waiting"] is None
    locked = conn.execute("SELECT submission_id, scores FROM release_items WHERE release_id = ?",
                          [out["release_id"]]).fetchall()
    assert [s for s, _ in locked] == [sid] and '"real_world_application": 3' in locked[0][1]
    assert submissions.get_submission(conn, other)["status"] == "approved"   # only the appealed item went out
    review = reviews.get_review(conn, sid)
    assert review["reason_codes"] == ["too_harsh"] and review["scores"]["real_world_application"] == 3
    trail = audited(conn, sid)
    assert trail[trail.index("appeal"):] == ["appeal", "edit", "approve", "appeal_change", "release"]
    rows = labels.history_rows(reviews.history(conn, sid), course["rubric"])
    said = {r["Action"]: r for r in rows}
    assert "Real world application: My answer gives" in said["The student appealed"]["Change"]   # words, not a dict
    assert said["Appeal decided: score changed"]["Reason"] == "Too harsh: You are right: your job example counts."
    shown = filing.for_student(conn, sid, actor=me)["appeals"][0]
    assert shown["status"] == "changed" and shown["criteria"][0]["new_score"] == 3
    assert shown["note"] == "You are right: your job example counts."
    assert submissions.get_submission(conn, sid)["priority"] == triage.RELEASED


def test_a_teaching_assistants_change_waits_approved_and_the_student_sees_it_once_released(conn):
    course = appealable(conn)
    sid, me, appeal = _filed(conn, course)
    ta = f.user(conn, "tom", "ta", courses=[course["course_id"]])
    out = deciding.decide(conn, appeal, actor=ta, outcome="change", scores={"real_world_application": 3},
                          reason_code="too_harsh", note="Upheld.")
    assert out["status"] == "changed" and not out["released"] and "waits for someone who may release" in out["waiting"]
    assert submissions.get_submission(conn, sid)["status"] == "approved"
    shown = filing.for_student(conn, sid, actor=me)["appeals"][0]
    assert (shown["status"], shown["note"], shown["criteria"][0]["new_score"]) == ("open", "", None)  # unreleased
    release.release(conn, course["assignment_id"], actor=ADMIN)            # the Release page, later
    shown = filing.for_student(conn, sid, actor=me)["appeals"][0]
    assert (shown["status"], shown["note"], shown["criteria"][0]["new_score"]) == ("changed", "Upheld.", 3)


def test_a_change_the_release_gates_refuse_waits_and_the_decision_stands(conn):
    course = appealable(conn)
    sid, me, appeal = _filed(conn, course)
    make_item(conn, course, status="needs_attention", attention_reasons=["REVISE after 2 rounds"])
    out = deciding.decide(conn, appeal, actor=ADMIN, outcome="change", scores={"real_world_application": 3},
                          reason_code="too_harsh", note="Upheld.")
    assert not out["released"] and "needing attention" in out["waiting"]
    assert deciding.listed(conn, course["course_id"], actor=ADMIN)[0]["status"] == "changed"
    assert filing.for_student(conn, sid, actor=me)["appeals"][0]["status"] == "open"


def test_a_blind_re_mark_hides_the_released_score_until_committed_and_is_no_calibration_score(conn):
    course = appealable(conn)
    sid, _, appeal = _filed(conn, course)
    hidden = deciding.for_item(conn, sid, actor=ADMIN, blind=True)
    assert hidden["blind"] and [c["released_score"] for c in hidden["criteria"]] == [None]
    view = review_view.review_page(conn, course["assignment_id"], actor=ADMIN, item=sid, appeal_blind=True)
    assert view["item"]["blind"]["criteria"][0]["released_score"] is None and "data" not in view["item"]
    ta = f.user(conn, "tom", "ta", courses=[course["course_id"]])
    with pytest.raises(FairMarkError, match="whole number"):
        deciding.remark(conn, appeal, {"real_world_application": "3"}, actor=ta)
    after = deciding.remark(conn, appeal, {"real_world_application": 3}, actor=ta)
    assert after["blind_scores"] == {"real_world_application": 3} and after["criteria"][0]["released_score"] == 2
    with pytest.raises(ConflictError, match="already committed"):
        deciding.remark(conn, appeal, {"real_world_application": 1}, actor=ta)
    shown = deciding.for_item(conn, sid, actor=ADMIN, blind=True)           # committed: nothing hidden now
    assert not shown["blind"] and shown["criteria"][0]["released_score"] == 2
    view = review_view.review_page(conn, course["assignment_id"], actor=ADMIN, item=sid, appeal_blind=True)
    assert view["item"]["appeal"]["blind_scores"] == {"real_world_application": 3}
    assert _count(conn, "calibration_scores") == 0 and _count(conn, "reference_scores") == 0
    assert audited(conn, sid)[-1] == "appeal_remark"


def test_teacher_functions_refuse_an_outsider_and_a_student(conn):
    course = appealable(conn)
    sid, me, appeal = _filed(conn, course)
    outsider = f.user(conn, "otto", "instructor", courses=[f.course(conn, "Other")["course_id"]])
    coordinator = f.user(conn, "cora", "coordinator", courses=[course["course_id"]])
    for who in (outsider, me, coordinator):
        with pytest.raises(Forbidden):
            deciding.decide(conn, appeal, actor=who, outcome="keep", note="no")
        with pytest.raises(Forbidden):
            deciding.remark(conn, appeal, {"real_world_application": 3}, actor=who)
    with pytest.raises(Forbidden):
        deciding.listed(conn, course["course_id"], actor=me)
    assert deciding.listed(conn, course["course_id"], actor=coordinator)[0]["status"] == "open"  # reads only
