"""The LMS roster (issue 25, Names and Role Provisioning): each student's LMS identity in
lti_roster, and how an LMS member or an uploaded row finds its student. Every statement about
lti_roster is here; core.lti.roster decides who is a student and what changes."""
from __future__ import annotations

from sqlite_utils import Database


def match_member(conn: Database, course_id: int, platform_id: int, *, lms_user_id: str, email: str,
                 sis_id: str) -> int | None:
    """The course's student an LMS member is: the one linked to that LMS user, else an unlinked
    student with that e-mail, else one with that SIS id as their student id."""
    row = conn.execute("SELECT student_id FROM lti_roster WHERE course_id = ? AND platform_id = ? AND lms_user_id = ?",
                       [course_id, platform_id, lms_user_id]).fetchone()
    if row:
        return row[0]
    unlinked = "NOT EXISTS (SELECT 1 FROM lti_roster r WHERE r.student_id = st.id)"
    if email:
        row = conn.execute(f"SELECT id FROM students st WHERE course_id = ? AND email != '' AND lower(email) = ? "
                           f"AND {unlinked} ORDER BY id", [course_id, email.lower()]).fetchone()
        if row:
            return row[0]
    if sis_id:
        row = conn.execute(f"SELECT id FROM students st WHERE course_id = ? AND external_id = ? AND {unlinked} "
                           f"ORDER BY id", [course_id, sis_id]).fetchone()
        if row:
            return row[0]
    return None


def student_of_learner(conn: Database, course_id: int, platform_id: int, *, lms_user_id: str,
                       sis_id: str) -> int | None:
    """The course's student a learner's launch is about: the one the roster linked to that LMS
    user, else an unlinked student whose student id is the learner's SIS id."""
    row = conn.execute("SELECT student_id FROM lti_roster WHERE course_id = ? AND platform_id = ? AND lms_user_id = ?",
                       [course_id, platform_id, lms_user_id]).fetchone()
    if row is None and sis_id:
        row = conn.execute("SELECT id FROM students st WHERE course_id = ? AND external_id = ? AND NOT EXISTS "
                           "(SELECT 1 FROM lti_roster r WHERE r.student_id = st.id) ORDER BY id",
                           [course_id, sis_id]).fetchone()
    return row[0] if row else None


def upload_match(conn: Database, course_id: int, student_key: str, email: str) -> int | None:
    """The LMS-rostered student an uploaded row is about: by LMS user id (the row's student
    id), then e-mail, then SIS id; None when no rostered student matches (the upload then
    matches on its student id as always)."""
    for sql, value in (
            ("SELECT student_id FROM lti_roster WHERE course_id = ? AND lms_user_id = ? ORDER BY student_id", student_key),
            ("SELECT r.student_id FROM lti_roster r JOIN students st ON st.id = r.student_id WHERE r.course_id = ? "
             "AND st.email != '' AND lower(st.email) = ? ORDER BY r.student_id", (email or "").lower()),
            ("SELECT student_id FROM lti_roster WHERE course_id = ? AND sis_id != '' AND sis_id = ? ORDER BY student_id",
             student_key)):
        if value and (row := conn.execute(sql, [course_id, value]).fetchone()):
            return row[0]
    return None


def student_with_id(conn: Database, course_id: int, external_id: str) -> tuple[int, bool] | None:
    """(id, linked to an LMS user already) of the course's student with that student id."""
    row = conn.execute("SELECT id, EXISTS (SELECT 1 FROM lti_roster r WHERE r.student_id = st.id) FROM students st "
                       "WHERE course_id = ? AND external_id = ?", [course_id, external_id]).fetchone()
    return (row[0], bool(row[1])) if row else None


def add_student(conn: Database, course_id: int, *, external_id: str, name: str, email: str, pseudonym: str) -> int:
    """A new student from the LMS roster, with their random pseudonym (db.submissions.new_pseudonym)."""
    return conn.execute("INSERT INTO students (course_id, external_id, name, email, pseudonym) VALUES (?, ?, ?, ?, ?)",
                        [course_id, external_id, name, email, pseudonym]).lastrowid


def update_student(conn: Database, student_id: int, *, name: str, email: str) -> bool:
    """The LMS's name and e-mail (empty values keep what FairMark has); True when one changed."""
    return conn.execute(
        "UPDATE students SET name = CASE WHEN ? != '' THEN ? ELSE name END, "
        "email = CASE WHEN ? != '' THEN ? ELSE email END WHERE id = ? "
        "AND ((? != '' AND name != ?) OR (? != '' AND email != ?))",
        [name, name, email, email, student_id, name, name, email, email]).rowcount == 1


def link_student(conn: Database, student_id: int, course_id: int, platform_id: int, *, lms_user_id: str, sis_id: str,
                 status: str, at: str) -> None:
    conn.execute(
        "INSERT INTO lti_roster (student_id, course_id, platform_id, lms_user_id, sis_id, lms_status, synced_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (student_id) DO UPDATE SET platform_id = excluded.platform_id, "
        "lms_user_id = excluded.lms_user_id, sis_id = CASE WHEN excluded.sis_id != '' THEN excluded.sis_id "
        "ELSE lti_roster.sis_id END, lms_status = excluded.lms_status, synced_at = excluded.synced_at",
        [student_id, course_id, platform_id, lms_user_id, sis_id, status, at])


def of_course(conn: Database, course_id: int) -> list[dict]:
    """The course's rostered students: {student_id, lms_user_id, sis_id, lms_status, synced_at}."""
    return list(conn.query("SELECT student_id, lms_user_id, sis_id, lms_status, synced_at FROM lti_roster "
                           "WHERE course_id = ? ORDER BY student_id", [course_id]))
