"""Students' private links, their cookie's sessions, the rate limit's failed tries, and what the
student page reads (migration m026b_student_links). Only hashes of the tokens are ever stored;
the rules (expiry, revocation, who may mint) are core.students'."""
from __future__ import annotations

from sqlite_utils import Database

from db import loads


# --- links --------------------------------------------------------------------------------
def released_items(conn: Database, assignment_id: int, submission_ids=None) -> list[dict]:
    """The assignment's items that have a released version: [{submission_id, student_id}]
    (`submission_ids`: only those)."""
    rows = list(conn.query(
        "SELECT s.id AS submission_id, s.student_id FROM submissions s WHERE s.assignment_id = ? "
        "AND EXISTS (SELECT 1 FROM release_items ri WHERE ri.submission_id = s.id) ORDER BY s.id", [assignment_id]))
    if submission_ids is not None:
        wanted = {int(i) for i in submission_ids}
        rows = [r for r in rows if r["submission_id"] in wanted]
    return rows


def revoke(conn: Database, submission_ids, *, at: str, by: str) -> int:
    """Revoke every live link of these submissions; returns how many."""
    ids = [int(i) for i in submission_ids]
    if not ids:
        return 0
    marks = ", ".join("?" * len(ids))
    return conn.execute(f"UPDATE student_links SET revoked_at = ?, revoked_by = ? WHERE revoked_at IS NULL "
                        f"AND submission_id IN ({marks})", [at, by, *ids]).rowcount


def insert_link(conn: Database, *, token_hash: str, student_id: int, assignment_id: int, submission_id: int,
                release_id: int | None, created_at: str, created_by: str, expires_at: str) -> int:
    return conn.execute(
        "INSERT INTO student_links (token_hash, student_id, assignment_id, submission_id, release_id, created_at, "
        "created_by, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [token_hash, student_id, assignment_id, submission_id, release_id, created_at, created_by,
         expires_at]).lastrowid


def link(conn: Database, token_hash: str) -> dict | None:
    """The link stored under this hash, with its course; None when there is none."""
    return next(conn.query(
        "SELECT l.*, a.course_id FROM student_links l JOIN assignments a ON a.id = l.assignment_id "
        "WHERE l.token_hash = ?", [token_hash]), None)


def links_of(conn: Database, submission_id: int) -> list[dict]:
    return list(conn.query("SELECT * FROM student_links WHERE submission_id = ? ORDER BY id", [submission_id]))


# --- the student cookie's sessions -------------------------------------------------------
def open_session(conn: Database, *, token_hash: str, student_id: int, course_id: int, assignment_id: int | None,
                 link_id: int | None, via: str, created_at: str, expires_at: str, purge_before: str) -> None:
    """A new student session; sessions that expired before `purge_before` are deleted first."""
    conn.execute("DELETE FROM student_sessions WHERE expires_at < ?", [purge_before])
    conn.execute(
        "INSERT INTO student_sessions (token_hash, student_id, course_id, assignment_id, link_id, via, created_at, "
        "expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [token_hash, student_id, course_id, assignment_id, link_id, via, created_at, expires_at])


def session(conn: Database, token_hash: str) -> dict | None:
    """A student session with its link's state (`link_revoked_at`, `link_expires_at`; None for a
    Learner launch's); None when unknown or its student is gone."""
    return next(conn.query(
        "SELECT ss.*, l.revoked_at AS link_revoked_at, l.expires_at AS link_expires_at FROM student_sessions ss "
        "JOIN students st ON st.id = ss.student_id AND st.course_id = ss.course_id "
        "LEFT JOIN student_links l ON l.id = ss.link_id WHERE ss.token_hash = ?", [token_hash]), None)


def end_session(conn: Database, token_hash: str, *, at: str) -> None:
    conn.execute("UPDATE student_sessions SET ended_at = ? WHERE token_hash = ? AND ended_at IS NULL",
                 [at, token_hash])


def end_all_sessions(conn: Database, *, at: str) -> int:
    return conn.execute("UPDATE student_sessions SET ended_at = ? WHERE ended_at IS NULL", [at]).rowcount


# --- the rate limit of failed look-ups ---------------------------------------------------
def failed_tries(conn: Database, client_hash: str, *, since: str) -> tuple[int, str | None]:
    """(failed tries of this client since `since`, the oldest of them)."""
    n, first = conn.execute("SELECT COUNT(*), MIN(at) FROM student_link_tries WHERE client_hash = ? AND at >= ?",
                            [client_hash, since]).fetchone()
    return n, first


def forget_tries(conn: Database, *, before: str) -> None:
    """Failed tries older than the window count for nothing: they are not kept."""
    conn.execute("DELETE FROM student_link_tries WHERE at < ?", [before])


def add_failed_try(conn: Database, client_hash: str, *, at: str) -> None:
    conn.execute("INSERT INTO student_link_tries (client_hash, at) VALUES (?, ?)", [client_hash, at])


# --- what the student page shows ---------------------------------------------------------
def released_for(conn: Database, student_id: int, course_id: int, assignment_id: int | None = None) -> list[dict]:
    """The student's latest released version per submission in this course (one assignment when
    given), in week order: the locked scores and comment, the rubric locked with them, who
    approved and who released it, whether the draft came from the offline baseline. Nothing
    but release_items is read for the feedback: no draft, no AI reasoning."""
    rows = list(conn.query(
        """
        SELECT s.id AS submission_id, a.id AS assignment_id, a.title, a.week,
               COALESCE(ri.rubric_id, a.rubric_id) AS rubric_id, ri.scores, ri.comment, ri.is_offline,
               ri.approved_by, ri.approved_in_bulk, rel.released_by, rel.released_at, ri.review_version
        FROM submissions s
        JOIN assignments a ON a.id = s.assignment_id
        JOIN release_items ri ON ri.submission_id = s.id
             AND ri.release_id = (SELECT MAX(release_id) FROM release_items WHERE submission_id = s.id)
        JOIN releases rel ON rel.id = ri.release_id
        WHERE s.student_id = :student AND a.course_id = :course AND (CAST(:assignment AS INTEGER) IS NULL OR a.id = :assignment)
        ORDER BY a.week, a.title, s.id
        """, {"student": student_id, "course": course_id, "assignment": assignment_id}))
    for r in rows:
        r["scores"] = loads(r["scores"], {})
    return rows


def course_name(conn: Database, course_id: int) -> str:
    row = conn.execute("SELECT name FROM courses WHERE id = ?", [course_id]).fetchone()
    return row[0] if row else ""
