"""db.submissions.set_status / set_status_many: the one writer of a submission's status and priority."""
from __future__ import annotations

import factories as f
from core.signoff import triage
from db import submissions


def _row(conn, sid):
    return conn.execute("SELECT status, priority, current_draft_id FROM submissions WHERE id = ?", [sid]).fetchone()


def test_set_status_writes_status_and_priority_together(conn):
    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]))
    assert submissions.set_status(conn, sid, "approved", triage.APPROVED) == 1
    assert _row(conn, sid) == ("approved", triage.APPROVED, None)


def test_only_from_guards_the_write_and_current_draft_moves_with_it(conn):
    """The pipeline's guarded write: status, priority and current draft change only while the
    row is in a status the caller owns; a teacher's approval in between wins."""
    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]))
    did = f.draft(conn, sid, dict.fromkeys(("concept_understanding", "real_world_application",
                                            "reflection_depth", "clarity"), 3))
    owned = ("uploaded", "drafted", "needs_attention", "failed")
    assert submissions.set_status(conn, sid, "needs_attention", triage.NEEDS_ATTENTION, only_from=owned,
                                  current_draft_id=did) == 1
    assert _row(conn, sid) == ("needs_attention", triage.NEEDS_ATTENTION, did)
    submissions.set_status(conn, sid, "approved", triage.APPROVED)
    assert submissions.set_status(conn, sid, "drafted", triage.REST, only_from=owned, current_draft_id=None) == 0
    assert _row(conn, sid) == ("approved", triage.APPROVED, did)


def test_set_status_many_sets_one_status_for_a_set(conn):
    c = f.course(conn)
    ids = [f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), text=f"text {i}")
           for i in range(3)]
    assert submissions.set_status_many(conn, ids[:2], "released", triage.RELEASED) == 2
    assert [_row(conn, i)[:2] for i in ids] == [("released", triage.RELEASED)] * 2 + [("uploaded", triage.NOT_DRAFTED)]
    assert submissions.set_status_many(conn, [], "released", triage.RELEASED) == 0


def _progress_course(conn):
    """Issue 21 item 5: five reflections in two weeks: drafted, flagged, flagged but waiting for its blind
    calibration score, one not drafted yet; in week 2 one approved and released."""
    c = f.course(conn, weeks=2)
    scores = dict.fromkeys(c["rubric"].keys, 2)
    aid = c["assignment_id"]
    sids = [f.submission(conn, aid, f.student(conn, c["course_id"])) for _ in range(4)]
    f.draft(conn, sids[0], scores)
    f.draft(conn, sids[1], scores, status="needs_attention")
    hidden = f.draft(conn, sids[2], scores, status="needs_attention")
    conn.execute("INSERT INTO calibration_items (assignment_id, submission_id, stratum, draft_id, drawn_by, drawn_at) "
                 "VALUES (?, ?, 'low band', ?, 'ann', '2026-01-01T00:00:00Z')", [aid, sids[2], hidden])
    week2 = f.submission(conn, c["assignment_ids"][1], f.student(conn, c["course_id"]))
    f.draft(conn, week2, scores, status="released")
    return c, sids


def test_progress_counts_have_one_definition_each(conn):
    from core.courses import browse
    from core.accounts.access import Actor

    c, _ = _progress_course(conn)
    me = Actor("ann", role="admin")
    week1 = browse.progress_counts(conn, assignment_id=c["assignment_id"], actor=me)
    assert week1["uploaded"] == 4 and week1["drafted"] == 3         # every upload, not only the undrafted one
    # the hidden calibration item is left out, as the Review queue leaves it out of its first group
    assert week1["needs_attention"] == 1 == browse.queue_group_counts(conn, c["assignment_id"], actor=me)[0]
    course = browse.progress_counts(conn, course_id=c["course_id"], actor=me)
    assert (course["uploaded"], course["needs_attention"], course["approved"], course["released"]) == (5, 1, 1, 1)
