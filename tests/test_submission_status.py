"""db.submissions.set_status / set_status_many: the one writer of a submission's status and priority."""
from __future__ import annotations

import factories as f
from core import triage
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
