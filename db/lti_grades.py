"""Grade passback (issue 25): the LMS line item of an assignment and one passback row per
released version to send. Every statement about lti_line_items and lti_passbacks is here;
core.lti.grades decides what is sent and when."""
from __future__ import annotations

from sqlite_utils import Database

from db import loads


def queue(conn: Database, assignment_id: int, submission_ids: list[int], *, at: str) -> int:
    """One pending passback for the latest released version of each submission of the
    assignment (a version already queued is left alone: UNIQUE; another assignment's ids are ignored); an older version not yet sent is superseded, since
    the LMS should receive the newer one only. Returns the number queued. Call in a transaction."""
    ids = [int(i) for i in submission_ids]
    if not ids:
        return 0
    marks = ", ".join("?" * len(ids))
    n = conn.execute(
        f"INSERT OR IGNORE INTO lti_passbacks (submission_id, assignment_id, release_id, review_version, status, "
        f"created_at) SELECT ri.submission_id, s.assignment_id, ri.release_id, ri.review_version, 'pending', ? "
        f"FROM release_items ri JOIN submissions s ON s.id = ri.submission_id "
        f"WHERE ri.submission_id IN ({marks}) AND s.assignment_id = ? AND ri.release_id = "
        f"(SELECT MAX(release_id) FROM release_items WHERE submission_id = ri.submission_id)",
        [at, *ids, assignment_id]).rowcount
    conn.execute(
        f"UPDATE lti_passbacks SET status = 'superseded' WHERE submission_id IN ({marks}) "
        f"AND status IN ('pending', 'failed') AND review_version < "
        f"(SELECT MAX(p.review_version) FROM lti_passbacks p WHERE p.submission_id = lti_passbacks.submission_id)",
        ids)
    return n


def to_send(conn: Database, assignment_id: int, *, due_by: str | None, stale_before: str) -> list[int]:
    """Passbacks waiting to be sent: pending ones, failed ones whose next try is due (every
    failed one when `due_by` is None: a teacher's "send now"), and posts a crashed process left
    in 'posting' since before `stale_before`."""
    return [r[0] for r in conn.execute(
        "SELECT id FROM lti_passbacks WHERE assignment_id = ? AND (status = 'pending' "
        "OR (status = 'failed' AND (CAST(? AS TEXT) IS NULL OR next_try <= ?)) OR (status = 'posting' AND claimed_at < ?)) "
        "ORDER BY id", [assignment_id, due_by, due_by, stale_before]).fetchall()]


def due_assignments(conn: Database, *, due_by: str, stale_before: str) -> list[int]:
    """The assignments with a passback `to_send` would give (the automatic retry's round)."""
    return [r[0] for r in conn.execute(
        "SELECT DISTINCT assignment_id FROM lti_passbacks WHERE status = 'pending' "
        "OR (status = 'failed' AND next_try <= ?) OR (status = 'posting' AND claimed_at < ?) "
        "ORDER BY assignment_id", [due_by, stale_before]).fetchall()]


def claim(conn: Database, passback_id: int, *, at: str, due_by: str | None, stale_before: str) -> bool:
    """Take one passback for sending (status 'posting'); False when another process has it or
    it was sent meanwhile. The condition is in the UPDATE itself."""
    return conn.execute(
        "UPDATE lti_passbacks SET status = 'posting', claimed_at = ? WHERE id = ? AND (status = 'pending' "
        "OR (status = 'failed' AND (CAST(? AS TEXT) IS NULL OR next_try <= ?)) OR (status = 'posting' AND claimed_at < ?))",
        [at, passback_id, due_by, due_by, stale_before]).rowcount == 1


def item(conn: Database, passback_id: int) -> dict:
    """What one post sends: the released version (scores, comment, rubric), when it was
    released, and the student's LMS id ('' when the student is not on the LMS roster)."""
    return next(iter(conn.query(
        "SELECT p.id, p.submission_id, p.assignment_id, p.release_id, p.review_version, p.attempts, ri.scores, "
        "ri.comment, "
        "COALESCE(ri.rubric_id, a.rubric_id) AS rubric_id, rel.released_at, s.student_id, "
        "COALESCE(r.lms_user_id, '') AS lms_user_id FROM lti_passbacks p "
        "JOIN release_items ri ON ri.release_id = p.release_id AND ri.submission_id = p.submission_id "
        "JOIN releases rel ON rel.id = p.release_id JOIN submissions s ON s.id = p.submission_id "
        "JOIN assignments a ON a.id = p.assignment_id LEFT JOIN lti_roster r ON r.student_id = s.student_id "
        "WHERE p.id = ?", [passback_id])), {})


def mark_posted(conn: Database, passback_id: int, *, at: str, line_item_url: str) -> None:
    conn.execute("UPDATE lti_passbacks SET status = 'posted', attempts = attempts + 1, posted_at = ?, "
                 "line_item_url = ?, last_error = '', next_try = NULL WHERE id = ?", [at, line_item_url, passback_id])


def mark_failed(conn: Database, passback_id: int, *, error: str, next_try: str) -> None:
    conn.execute("UPDATE lti_passbacks SET status = 'failed', attempts = attempts + 1, last_error = ?, next_try = ? "
                 "WHERE id = ?", [error, next_try, passback_id])


def status_of(conn: Database, assignment_id: int) -> list[dict]:
    """Every passback of the assignment that still counts (not superseded), with its student."""
    return list(conn.query(
        "SELECT p.id, p.submission_id, p.status, p.attempts, p.next_try, p.last_error, p.posted_at, "
        "p.review_version, st.name, st.pseudonym FROM lti_passbacks p JOIN submissions s ON s.id = p.submission_id "
        "JOIN students st ON st.id = s.student_id WHERE p.assignment_id = ? AND p.status != 'superseded' "
        "ORDER BY p.status, st.name, p.id", [assignment_id]))


def waiting(conn: Database) -> list[dict]:
    """Every passback not yet accepted by the LMS (pending, being sent or failed), of every course."""
    return list(conn.query(
        "SELECT c.name AS course, a.title AS assignment, p.submission_id, p.status, p.attempts, p.last_error, "
        "p.next_try FROM lti_passbacks p JOIN assignments a ON a.id = p.assignment_id "
        "JOIN courses c ON c.id = a.course_id WHERE p.status IN ('pending', 'posting', 'failed') "
        "ORDER BY c.name, a.title, p.submission_id"))


# --- the line item ------------------------------------------------------------------------
def line_item(conn: Database, assignment_id: int, platform_id: int) -> dict | None:
    row = conn.execute("SELECT url, claimed_at, created_by_fairmark FROM lti_line_items "
                       "WHERE assignment_id = ? AND platform_id = ?", [assignment_id, platform_id]).fetchone()
    return {"url": row[0], "claimed_at": row[1], "created_by_fairmark": row[2]} if row else None


def claim_line_item(conn: Database, assignment_id: int, platform_id: int, *, at: str, stale_before: str) -> bool:
    """Take the creation of the assignment's line item: True for the one caller that may create
    it (no row yet, or a claim a crashed process left since before `stale_before`)."""
    if conn.execute("INSERT OR IGNORE INTO lti_line_items (assignment_id, platform_id, claimed_at, created_at) "
                    "VALUES (?, ?, ?, ?)", [assignment_id, platform_id, at, at]).rowcount:
        return True
    return conn.execute("UPDATE lti_line_items SET claimed_at = ? WHERE assignment_id = ? AND platform_id = ? "
                        "AND url IS NULL AND claimed_at < ?", [at, assignment_id, platform_id, stale_before]).rowcount == 1


def drop_line_item_claim(conn: Database, assignment_id: int, platform_id: int) -> None:
    """A creation that failed: its claim is left stale at once (the next caller takes it and
    first looks for a line item the LMS may have made anyway)."""
    conn.execute("UPDATE lti_line_items SET claimed_at = '' WHERE assignment_id = ? AND platform_id = ? AND url IS NULL",
                 [assignment_id, platform_id])


def set_line_item(conn: Database, assignment_id: int, platform_id: int, url: str, *, created: bool, at: str) -> None:
    conn.execute("INSERT INTO lti_line_items (assignment_id, platform_id, url, created_by_fairmark, created_at) "
                 "VALUES (?, ?, ?, ?, ?) ON CONFLICT (assignment_id, platform_id) DO UPDATE SET url = excluded.url, "
                 "created_by_fairmark = excluded.created_by_fairmark, claimed_at = NULL",
                 [assignment_id, platform_id, url, int(created), at])


def scores_of(row: dict) -> dict:
    return loads(row.get("scores"), {})
