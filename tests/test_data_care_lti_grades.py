"""The LMS tables about a person (issue 25: the grades for the LMS, the roster's LMS ids, the
gradebook columns) join data care: a student's deletion, a course's deletion and retention, and
backups."""
from __future__ import annotations

import sqlite3

import pytest

import factories as f
from core import data_care
from core.accounts.access import Actor
from core.signoff import actions, release
from lti_support import client, launched, lti_env, member, platform  # noqa: F401  (fixtures)
from stored import broken_foreign_keys

ADMIN = Actor("ann", role="admin")
HIGH = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 2}
LMS_TABLES = ("lti_passbacks", "lti_roster", "lti_line_items")


@pytest.fixture
def lms_course(conn, platform, client):
    """A course made by its instructor's launch from the test platform, which read the roster of
    two students; a released result each, sent to the LMS (the gradebook column it made)."""
    platform.services.members = [member(f"u{n}", f"Pupil {n}", sis=f"SIS-{n}") for n in range(2)]
    c = launched(client, platform, context_title="Biology", link_title="Week 1")
    people = []
    for n in range(2):
        st = conn.execute("SELECT id FROM students WHERE course_id = ? AND external_id = ?",
                          [c["course_id"], f"SIS-{n}"]).fetchone()[0]
        sid = f.submission(conn, c["assignment_id"], st, text=f"Reflection {n}.")
        f.draft(conn, sid, HIGH)
        review = actions.open_item(conn, sid, actor=ADMIN)
        actions.approve(conn, sid, version=review["version"], actor=ADMIN)
        people.append((st, sid))
    assert release.release(conn, c["assignment_id"], actor=ADMIN)["lms"]["posted"] == 2
    return c, people


def count(conn, table, **where):
    sql = f"SELECT COUNT(*) FROM {table}" + (" WHERE " + " AND ".join(f"{k} = ?" for k in where) if where else "")
    return conn.execute(sql, list(where.values())).fetchone()[0]


def test_deleting_a_student_deletes_their_lms_grades_and_roster_entry(conn, lms_course):
    c, people = lms_course
    (st, sid), (other, other_sid) = people
    counts = data_care.delete_student(conn, st, actor=ADMIN)
    assert counts["lti_passbacks"] == 1 and counts["lti_roster"] == 1
    assert count(conn, "lti_passbacks", submission_id=sid) == 0 and count(conn, "lti_roster", student_id=st) == 0
    assert count(conn, "lti_passbacks", submission_id=other_sid) == 1 and count(conn, "lti_roster", student_id=other) == 1
    words = data_care.deleted_words(counts)
    assert "1 grade record for the LMS" in words and "1 LMS roster entry" in words


def test_deleting_a_course_and_retention_leave_no_lms_rows(conn, lms_course):
    c, _ = lms_course
    counts = data_care.delete_course(conn, c["course_id"], actor=ADMIN)
    assert (counts["lti_passbacks"], counts["lti_roster"], counts["lti_line_items"]) == (2, 2, 1)
    assert all(count(conn, t) == 0 for t in LMS_TABLES)
    assert broken_foreign_keys(conn) == []


def test_retention_deletes_an_expired_courses_lms_rows(conn, lms_course):
    c, _ = lms_course
    for table, column in (("courses", "created_at"), ("submissions", "created_at"), ("releases", "released_at")):
        conn.execute(f"UPDATE {table} SET {column} = '2019-01-01T00:00:00.000Z'")
    data_care.set_retention(conn, 365, actor=ADMIN)
    done = data_care.apply_retention(conn, actor=ADMIN)
    assert done[0]["deleted"]["lti_line_items"] == 1 and all(count(conn, t) == 0 for t in LMS_TABLES)


def test_a_backup_holds_the_lms_rows(conn, lms_course, tmp_path, sqlite_file):
    data_care.backup(conn, tmp_path / "b.db", actor=ADMIN)
    copy = sqlite3.connect(tmp_path / "b.db")
    assert [copy.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in LMS_TABLES] == [2, 2, 1]
    copy.close()
