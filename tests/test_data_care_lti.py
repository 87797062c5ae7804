"""The LMS links hold people's data (an LMS user's id, name, e-mail, SIS id): a student's
deletion, a course's deletion (and so retention) and backups cover them."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import db
import factories as f
from core import data_care
from lti_platform.launch import LEARNER, TA
from lti_support import client, launch, launch_claims, lti_env, platform, signed_in  # noqa: F401


def _linked_course(conn, client, platform) -> dict:
    """An instructor, a TA and a learner (on the roster by SIS id) launched into one course."""
    teacher, _ = launch(client, platform)
    course_id = conn.execute("SELECT id FROM courses").fetchone()[0]
    student = f.student(conn, course_id, external_id="sis-stu-1", name="Sam Student")
    f.submission(conn, conn.execute("SELECT id FROM assignments").fetchone()[0], student)
    platform.launches["ta"] = launch_claims(platform, sub="ta-1", roles=[TA], name="Tom TA")
    platform.launches["learner"] = launch_claims(platform, sub="stu-1", roles=[LEARNER], name="Sam Student")
    ta, _ = launch(client, platform, "ta")
    assert launch(client, platform, "learner")[0].status_code == 303   # the student page (matched by SIS id)
    return {"course_id": course_id, "student": student, "teacher": signed_in(conn, teacher), "ta": signed_in(conn, ta)}


def _count(conn, sql, *args) -> int:
    return conn.execute(sql, args).fetchone()[0]


def test_deleting_a_student_deletes_their_lms_link_and_its_audit_rows(conn, platform, client):
    linked = _linked_course(conn, client, platform)
    row = conn.execute("SELECT id FROM lti_users WHERE student_id = ?", [linked["student"]]).fetchone()[0]
    assert _count(conn, "SELECT COUNT(*) FROM audit_log WHERE entity = 'lti_users' AND entity_id = ?", row) == 2
    counts = data_care.delete_student(conn, linked["student"], actor=f.actor("admin"))
    assert counts["lti_users"] == 1 and counts["audit_log"] >= 2
    assert _count(conn, "SELECT COUNT(*) FROM lti_users WHERE sub = 'stu-1'") == 0
    assert _count(conn, "SELECT COUNT(*) FROM audit_log WHERE entity = 'lti_users' AND entity_id = ?", row) == 0
    assert _count(conn, "SELECT COUNT(*) FROM lti_users") == 2          # the staff's links stay
    assert "LMS person link" in data_care.deleted_words(counts)


def test_deleting_a_course_deletes_its_lms_links_and_retires_the_accounts_launches_made(conn, platform, client):
    linked = _linked_course(conn, client, platform)
    counts = data_care.delete_course(conn, linked["course_id"], actor=f.actor("admin"))
    assert counts["lti_users"] == 3 and counts["lti_links"] == 1 and counts["lti_contexts"] == 1
    for table in ("lti_users", "lti_links", "lti_contexts", "courses"):
        assert _count(conn, f"SELECT COUNT(*) FROM {table}") == 0, table
    for who in (linked["teacher"], linked["ta"]):
        assert conn.execute("SELECT active, display_name FROM users WHERE id = ?", [who.user_id]).fetchone() == (0, "")
        assert _count(conn, "SELECT COUNT(*) FROM sessions WHERE user_id = ? AND ended_at IS NULL", who.user_id) == 0
    # A launch afterwards makes the course again from scratch, with new accounts.
    again, _ = launch(client, platform)
    assert again.status_code == 303 and signed_in(conn, again).user_id != linked["teacher"].user_id


def test_retention_deletes_an_lms_linked_course_with_its_links(conn, platform, client):
    linked = _linked_course(conn, client, platform)
    data_care.set_retention(conn, 30, actor=f.actor("admin"))
    later = datetime.now(timezone.utc) + timedelta(days=31)
    done = data_care.apply_retention(conn, actor=f.actor("admin"), now=later)
    assert [c["id"] for c in done] == [linked["course_id"]] and done[0]["deleted"]["lti_users"] == 3
    assert _count(conn, "SELECT COUNT(*) FROM lti_contexts") == 0


def test_a_backup_holds_the_lms_links_and_the_sealed_key_and_restores_them(conn, db_path, tmp_path, platform, client, sqlite_file):
    _linked_course(conn, client, platform)
    out = tmp_path / "backup.db"
    data_care.backup(conn, out, actor=f.actor("admin"))
    copy = db.connect(out)
    try:
        for table in ("lti_platforms", "lti_deployments", "lti_contexts", "lti_users", "lti_links"):
            assert _count(copy, f"SELECT COUNT(*) FROM {table}") == _count(conn, f"SELECT COUNT(*) FROM {table}") > 0
    finally:
        copy.close()
        db.forget_migrated(out)
    conn.execute("DELETE FROM lti_links")
    conn.close()
    data_care.restore(db_path, out, actor=f.actor("admin"))
    back = db.connect(db_path)
    try:
        assert _count(back, "SELECT COUNT(*) FROM lti_links") == 1
    finally:
        back.close()
