"""Judge agreement (core.judging.agreement): alpha per assignment and criterion on the items with
two or more votes, the seed's rule after a run, judges against reference scores, the page."""
import pytest

import factories
from core import reports
from core.runs import reflections as runs
from core.signoff import triage
from core.judging import agreement
from core.signoff import bulk
from db import analytics, drafts, votes
from core.accounts.access import Actor

KEYS = ("concept_understanding", "real_world_application", "reflection_depth", "clarity")


def voted_assignment(conn, pairs, *, run_id=None):
    """One assignment; per item a current draft (score = the first vote) and two votes on clarity
    (and agreeing votes on the other criteria)."""
    c = factories.course(conn)
    subs = []
    for first, second in pairs:
        sid = factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]),
                                   f"Reflection {len(subs)} about temperature.")
        did = factories.draft(conn, sid, dict.fromkeys(KEYS, 2) | {"clarity": first}, run_id=run_id)
        rows = [{"criterion": k, "judge": j, "tier": t, "score": 2} for k in KEYS[:3]
                for j, t in (("model-a", 1), ("model-b", 2))]
        rows += [{"criterion": "clarity", "judge": "model-a", "tier": 1, "score": first},
                 {"criterion": "clarity", "judge": "model-b", "tier": 2, "score": second}]
        with conn.atomic():
            votes.save(conn, "submission", sid, rows, draft_id=did, run_id=run_id)
        subs.append(sid)
    return c, subs


def status(conn, sid):
    return tuple(next(conn.query("SELECT status, priority FROM submissions WHERE id = ?", [sid])).values())


def test_poor_agreement_sends_every_disagreeing_item_to_a_teacher_and_marks_the_assignment(conn):
    c, subs = voted_assignment(conn, [(0, 3), (3, 0), (1, 2), (2, 1), (3, 1), (1, 1)])
    mark = agreement.review_assignment(conn, c["assignment_id"], actor=Actor("test", role="admin"))
    assert mark["verdict"] == "poor" and mark["alpha"]["clarity"] < 0.67 and mark["items"] == 6
    assert mark["sent_to_teacher"] == 5 and mark["alpha"]["clarity"] == pytest.approx(mark["alpha"]["clarity"])
    for sid in subs[:5]:
        assert status(conn, sid) == ("needs_attention", triage.NEEDS_ATTENTION)
        d = drafts.get_draft(conn, drafts.latest_draft_id(conn, sid))
        assert d["status"] == "needs_attention" and "agree poorly on Clarity" in d["attention_reasons"][-1]
    assert status(conn, subs[5])[0] == "drafted"                   # its judges agreed
    assert bulk.sample_state(conn, c["assignment_id"], actor=Actor("test", role="admin")).candidates == 1
    stored = votes.agreement_marks(conn, analytics.Scope("assignment", assignment_id=c["assignment_id"]))
    assert stored[0]["verdict"] == "poor" and stored[0]["sent_to_teacher"] == 5
    # Applying the rule again changes nothing more (the items already went to a teacher).
    assert agreement.review_assignment(conn, c["assignment_id"], actor=Actor("test", role="admin"))["sent_to_teacher"] == 0


def test_good_agreement_changes_nothing(conn):
    c, subs = voted_assignment(conn, [(0, 0), (1, 1), (2, 2), (3, 3), (2, 3), (1, 1)])
    mark = agreement.review_assignment(conn, c["assignment_id"], actor=Actor("test", role="admin"))
    assert mark["verdict"] == "fine" and mark["alpha"]["clarity"] >= 0.8 and mark["sent_to_teacher"] == 0
    assert all(status(conn, s)[0] == "drafted" for s in subs)


def test_too_few_items_get_no_verdict_and_items_with_one_vote_do_not_count(conn):
    c, subs = voted_assignment(conn, [(0, 3), (3, 0)])
    lone = factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]), "Alone here.")
    did = factories.draft(conn, lone, dict.fromkeys(KEYS, 1))
    with conn.atomic():
        votes.save(conn, "submission", lone, [{"criterion": "clarity", "judge": "model-a", "tier": 1, "score": 1}],
                   draft_id=did)
    mark = agreement.review_assignment(conn, c["assignment_id"], actor=Actor("test", role="admin"))
    assert mark["items"] == 2 and mark["verdict"] == "too_few_items" and mark["sent_to_teacher"] == 0


def test_a_finished_run_applies_the_rule(conn, db_path):
    c = factories.course(conn)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    c2, subs = voted_assignment(conn, [(0, 3), (3, 0), (1, 2), (2, 1), (3, 1)], run_id=None)
    # Make the run cover the voted assignment's submissions.
    for sid in subs:
        conn.execute("INSERT INTO run_items (run_id, subject, subject_id, status) VALUES (?, 'submission', ?, 'done')", [run_id, sid])
    runs.execute(db_path, run_id, actor=Actor("test", role="admin"))
    assert all(status(conn, s)[0] == "needs_attention" for s in subs)


def test_judges_are_compared_with_expert_scores_and_blind_scores_are_awaited(conn):
    """With no blind calibration score in scope yet, that column is empty and a note says why."""
    c, subs = voted_assignment(conn, [(2, 3), (1, 1), (0, 0), (3, 3), (2, 2)])
    factories.reference(conn, subs[0], {"clarity": 3.0})
    view = reports.judge_agreement_view(conn, analytics.Scope("assignment", assignment_id=c["assignment_id"]), actor=Actor("test", role="admin"))
    judges = view["judges"].set_index("judge")
    assert judges.loc["model-a", "expert_n"] == 1 and judges.loc["model-a", "expert_exact"] == 0.0
    assert judges.loc["model-b", "expert_exact"] == 1.0 and judges.loc["model-b", "blind_n"] == 0
    assert any("two or more votes (20 criterion scores here)" in n for n in view["notes"])
    assert any("No blind calibration scores in this scope yet" in n for n in view["notes"])
    clarity = view["alpha"].set_index("criterion").loc["clarity"]
    assert clarity["items"] == 5 and clarity["verdict"].startswith("fine")


def test_judges_are_compared_with_the_teachers_blind_scores(conn):
    from db import calibration

    c, subs = voted_assignment(conn, [(2, 3)])
    for rater, score in (("Ms A", 3), ("Mr B", 2)):
        calibration.save_scores(conn, subs[0], rater, {"clarity": score}, source="blind", actor=rater,
                                at="2026-11-30T10:00:00.000000Z")
    scope = analytics.Scope("assignment", assignment_id=c["assignment_id"])
    assert votes.blind_scores(conn, scope) == [{"submission_id": subs[0], "criterion": "clarity", "score": 2.5}]
    judges = reports.judge_agreement_view(conn, scope, actor=Actor("test", role="admin"))["judges"].set_index("judge")
    assert judges.loc["model-a", "blind_n"] == 1


def test_the_agreement_page_shows_the_judges_section(conn, app_test):
    c, subs = voted_assignment(conn, [(0, 3), (3, 0), (1, 2), (2, 1), (3, 1), (1, 1)])
    agreement.review_assignment(conn, c["assignment_id"], actor=Actor("test", role="admin"))
    at = app_test("pages/agreement.py").run()
    assert not at.exception
    assert "Agreement between judges" in [h.value for h in at.subheader]
    assert any("agree poorly" in w.value and "5 item(s)" in w.value for w in at.warning)
    assert any("two or more votes" in cap.value for cap in at.caption)
