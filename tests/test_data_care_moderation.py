"""Moderation's tables (m028a) hold people's marks: a student's deletion, a course's deletion
(and so retention) and backups cover them."""
from __future__ import annotations

import db
import factories as f
from core import data_care
from core.moderation import marking, markers, sample
from core.signoff import actions
from db import reviews

LOW = {"concept_understanding": 1, "real_world_application": 1, "reflection_depth": 1, "clarity": 1}
HIGH = {"concept_understanding": 3, "real_world_application": 3, "reflection_depth": 3, "clarity": 3}
TABLES = ("marker_assignments", "moderation_items", "moderation_marks", "moderation_settlements")


def _moderated(conn) -> dict:
    """One student's item first-marked by ivy, second-marked blind by tina, and settled."""
    c = f.course(conn, name="Course M")
    student = f.student(conn, c["course_id"], external_id="s1")
    sid = f.submission(conn, c["assignment_id"], student)
    f.draft(conn, sid, LOW)
    ivy = f.user(conn, "ivy", "instructor", courses=[c["course_id"]])
    tina = f.user(conn, "tina", "ta", courses=[c["course_id"]])
    admin = f.actor()
    markers.assign(conn, c["assignment_id"], how="random", markers=["ivy"], actor=admin)
    actions.open_item(conn, sid, actor=ivy)
    actions.approve(conn, sid, version=reviews.get_review(conn, sid)["version"], actor=ivy)
    sample.draw(conn, c["assignment_id"], size=1, actor=admin)
    marking.mark(conn, sid, HIGH, actor=tina)
    marking.settle(conn, sid, {**LOW, "clarity": 2}, note="clarity is fine", actor=admin)
    return {"course_id": c["course_id"], "student": student}


def _counts(conn) -> dict:
    return {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}


def test_deleting_a_student_deletes_their_moderation_rows(conn):
    m = _moderated(conn)
    assert all(_counts(conn).values())
    counts = data_care.delete_student(conn, m["student"], actor=f.actor())
    assert _counts(conn) == {t: 0 for t in TABLES}
    assert counts["moderation_marks"] == 4 and counts["moderation_settlements"] == 4
    assert "4 blind second marks" in data_care.deleted_words(counts)


def test_deleting_a_course_deletes_its_moderation_rows(conn):
    m = _moderated(conn)
    data_care.delete_course(conn, m["course_id"], actor=f.actor())
    assert _counts(conn) == {t: 0 for t in TABLES}


def test_a_backup_holds_the_moderation_rows(conn, tmp_path, sqlite_file):
    _moderated(conn)
    before = _counts(conn)
    data_care.backup(conn, tmp_path / "copy.db", actor=f.actor())
    back = db.connect(tmp_path / "copy.db")
    try:
        assert _counts(back) == before
    finally:
        back.close()
