"""Appeals hold a student's own words: a student's deletion, a course's deletion (and so
retention) and backups cover them (issue 26)."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import db
from appeal_items import ADMIN, appealable, released
from core import data_care
from core.appeals import deciding, filing

WHY = "My own words about my work."


def _count(conn, table: str) -> int:
    return conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def _two_appeals(conn) -> dict:
    course = appealable(conn)
    mine, me = released(conn, course)
    theirs, other = released(conn, course)
    kept = filing.file(conn, mine, {"clarity": WHY, "reflection_depth": WHY}, actor=me)["appeal_id"]
    deciding.decide(conn, kept, actor=ADMIN, outcome="keep", note="It stays.")
    filing.file(conn, mine, {"clarity": WHY}, actor=me)
    filing.file(conn, theirs, {"clarity": WHY}, actor=other)
    return {"course": course, "me": me, "other": other}


def test_deleting_a_student_deletes_their_appeals_and_words_and_no_one_elses(conn):
    made = _two_appeals(conn)
    counts = data_care.delete_student(conn, made["me"].student_id, actor=ADMIN)
    assert counts["appeals"] == 2 and counts["appeal_criteria"] == 3
    assert _count(conn, "appeals") == 1 and _count(conn, "appeal_criteria") == 1
    assert conn.execute("SELECT student_id FROM appeals").fetchone()[0] == made["other"].student_id
    assert conn.execute("SELECT COUNT(*) FROM audit_log WHERE reason LIKE '%' || ? || '%' OR after LIKE '%' || ? "
                        "|| '%'", [WHY, WHY]).fetchone()[0] == 1                   # only the other student's
    assert "2 appeals, 3 appealed criteria" in data_care.deleted_words(counts)


def test_deleting_a_course_and_retention_delete_its_appeals(conn):
    made = _two_appeals(conn)
    data_care.set_retention(conn, 30, actor=ADMIN)
    done = data_care.apply_retention(conn, actor=ADMIN, now=datetime.now(timezone.utc) + timedelta(days=31))
    assert [c["id"] for c in done] == [made["course"]["course_id"]] and done[0]["deleted"]["appeals"] == 3
    assert _count(conn, "appeals") == 0 and _count(conn, "appeal_criteria") == 0


def test_a_backup_holds_the_appeals_and_a_restore_brings_them_back(conn, db_path, tmp_path, sqlite_file):
    _two_appeals(conn)
    out = tmp_path / "backup.db"
    data_care.backup(conn, out, actor=ADMIN)
    copy = db.connect(out)
    try:
        assert _count(copy, "appeals") == 3 and _count(copy, "appeal_criteria") == 4
    finally:
        copy.close()
        db.forget_migrated(out)
    conn.execute("DELETE FROM appeal_criteria")
    conn.execute("DELETE FROM appeals")
    conn.close()
    data_care.restore(db_path, out, actor=ADMIN)
    back = db.connect(db_path)
    try:
        assert _count(back, "appeals") == 3 and _count(back, "appeal_criteria") == 4
    finally:
        back.close()
