"""Students' private links and the student cookie's sessions (issue 26) are a student's data: a
student's deletion, a course's deletion (and so retention) and backups cover them; a restore
ends every student session too."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import db
import factories as f
from core import data_care
from core.accounts import access
from core.students import links, sessions
from student_support import classroom, token_of
from stored import broken_foreign_keys

ADMIN = f.actor("admin")


def _count(conn, sql, *args) -> int:
    return conn.execute(sql, args).fetchone()[0]


def _with_visits(conn) -> dict:
    """The classroom, each released item's link opened once, and a Learner launch's cookie for Sam."""
    c = classroom(conn)
    c["cookies"] = {sid: links.open_link(conn, token_of(url), client="test").token for sid, url in c["links"].items()}
    c["lti_cookie"] = sessions.open_for(conn, actor=access.student(c["sam"], c["course_id"], via="lti"))[0]
    return c


def test_deleting_a_student_deletes_their_links_and_student_sessions_only(conn):
    c = _with_visits(conn)
    counts = data_care.delete_student(conn, c["sam"], actor=ADMIN)
    assert counts["student_links"] == 1 and counts["student_sessions"] == 2
    assert _count(conn, "SELECT COUNT(*) FROM student_links WHERE student_id = ?", c["sam"]) == 0
    assert _count(conn, "SELECT COUNT(*) FROM student_sessions WHERE student_id = ?", c["sam"]) == 0
    assert sessions.resume(conn, c["lti_cookie"]) is None
    assert sessions.resume(conn, c["cookies"][c["kim1"]]).student_id == c["kim"]        # Kim's stay
    assert "private link to a student's feedback" in data_care.deleted_words(counts)
    assert broken_foreign_keys(conn) == []


def test_deleting_a_course_and_retention_delete_its_links_and_sessions(conn):
    c = _with_visits(conn)
    elsewhere = f.course(conn, "Elsewhere")
    kept = f.student(conn, elsewhere["course_id"])
    other_cookie = sessions.open_for(conn, actor=access.student(kept, elsewhere["course_id"], via="lti"))[0]
    data_care.set_retention(conn, 30, actor=ADMIN)
    later = datetime.now(timezone.utc) + timedelta(days=31)
    conn.execute("UPDATE courses SET created_at = '2999-01-01' WHERE id = ?", [elsewhere["course_id"]])
    done = data_care.apply_retention(conn, actor=ADMIN, now=later)
    assert [d["id"] for d in done] == [c["course_id"]]
    assert done[0]["deleted"]["student_links"] == 2 and done[0]["deleted"]["student_sessions"] == 3
    assert _count(conn, "SELECT COUNT(*) FROM student_links") == 0
    assert sessions.resume(conn, other_cookie).student_id == kept
    assert broken_foreign_keys(conn) == []


def test_a_backup_holds_the_links_and_a_restore_ends_every_student_session(conn, db_path, tmp_path, sqlite_file):
    c = _with_visits(conn)
    out = tmp_path / "backup.db"
    data_care.backup(conn, out, actor=ADMIN)
    copy = db.connect(out)
    try:
        for table in ("student_links", "student_sessions"):
            assert _count(copy, f"SELECT COUNT(*) FROM {table}") == _count(conn, f"SELECT COUNT(*) FROM {table}") > 0
    finally:
        copy.close()
        db.forget_migrated(out)
    conn.execute("DELETE FROM student_sessions")
    conn.execute("DELETE FROM student_links")
    conn.close()
    data_care.restore(db_path, out, actor=ADMIN)
    back = db.connect(db_path)
    try:
        assert _count(back, "SELECT COUNT(*) FROM student_links") == 2
        assert sessions.resume(back, c["lti_cookie"]) is None                   # the backup's sessions: ended
        again = links.open_link(back, token_of(c["links"][c["sam1"]]), client="test")   # the links still open
        assert sessions.resume(back, again.token).student_id == c["sam"]
    finally:
        back.close()
