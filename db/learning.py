"""Learning over time (issue 16): released scores per student and week, with the AI
configuration that drafted each released comment, and the teachers' marks of whether a student
acted on last week's next steps."""
from __future__ import annotations

from sqlite_utils import Database

from db import loads, now

ACTED = ("yes", "partly", "no")


def _place(a: str) -> str:
    """An assignment's week in its course, as growth and "last week" both count it: its week
    number, or without one its place among the course's assignments (created 1st, 2nd...)."""
    return (f"COALESCE({a}.week, (SELECT COUNT(*) FROM assignments b WHERE b.course_id = {a}.course_id "
            f"AND b.id <= {a}.id))")


_RELEASED = """
    SELECT s.id AS submission_id, s.student_id, st.external_id, st.name AS student_name, a.id AS assignment_id,
           {place} AS week, a.week IS NULL AS week_is_position, a.title,
           COALESCE(ri.rubric_id, a.rubric_id) AS rubric_id, ri.scores, ri.comment,
           rel.released_at, d.ai_config
    FROM submissions s
    JOIN assignments a ON a.id = s.assignment_id
    JOIN students st ON st.id = s.student_id
    JOIN release_items ri ON ri.submission_id = s.id
    JOIN releases rel ON rel.id = ri.release_id
    LEFT JOIN reviews r ON r.submission_id = s.id
    LEFT JOIN drafts d ON d.id = r.draft_id
    WHERE a.course_id = ?
      AND ri.release_id = (SELECT MAX(release_id) FROM release_items WHERE submission_id = s.id)
""".replace("{place}", _place("a"))


def released_scores(conn: Database, course_id: int) -> list[dict]:
    """Each released item of the course (its latest release), week order; an assignment without
    a week number counts at its place among the course's assignments (`week_is_position`)."""
    rows = list(conn.query(_RELEASED + " ORDER BY week, s.student_id, s.id", [course_id]))
    for r in rows:
        r["scores"] = loads(r["scores"], {})
    return rows


def previous_released(conn: Database, submission_id: int) -> dict | None:
    """The comment this submission's student was last given before it: among the same student's
    released items of the same course (a student row belongs to one course), those of an
    assignment at an earlier week (`_place`: strictly earlier, so another assignment of the same
    week never counts), the latest week's; of that item its latest release's comment (a
    re-release replaces it). Two released items of that week: the one released last. Nothing
    unreleased, later, from another course or another student is ever returned."""
    return next(conn.query(
        "SELECT p.id AS submission_id, " + _place("pa") + " AS week, pa.title, ri.comment, rel.released_at "
        "FROM submissions s JOIN assignments a ON a.id = s.assignment_id "
        "JOIN submissions p ON p.student_id = s.student_id AND p.id != s.id "
        "JOIN assignments pa ON pa.id = p.assignment_id AND pa.course_id = a.course_id "
        "JOIN release_items ri ON ri.submission_id = p.id JOIN releases rel ON rel.id = ri.release_id "
        "WHERE s.id = ? AND " + _place("pa") + " < " + _place("a") + " "
        "ORDER BY week DESC, ri.release_id DESC LIMIT 1", [submission_id]), None)


def get_mark(conn: Database, submission_id: int) -> dict | None:
    return next(conn.query("SELECT * FROM next_step_marks WHERE submission_id = ?", [submission_id]), None)


def save_mark(conn: Database, submission_id: int, previous_submission_id: int, acted: str, marked_by: str) -> None:
    conn.execute(
        "INSERT INTO next_step_marks (submission_id, previous_submission_id, acted, marked_by, marked_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT(submission_id) DO UPDATE SET previous_submission_id = "
        "excluded.previous_submission_id, acted = excluded.acted, marked_by = excluded.marked_by, "
        "marked_at = excluded.marked_at", [submission_id, previous_submission_id, acted, marked_by, now()])


def marks(conn: Database, course_id: int) -> list[dict]:
    """Every mark of the course: {week (of the submission marked), acted, ai_config (of the
    previous week's feedback the student was acting on)}."""
    return list(conn.query(
        "SELECT m.submission_id, a.week, m.acted, d.ai_config FROM next_step_marks m "
        "JOIN submissions s ON s.id = m.submission_id JOIN assignments a ON a.id = s.assignment_id "
        "LEFT JOIN reviews r ON r.submission_id = m.previous_submission_id LEFT JOIN drafts d ON d.id = r.draft_id "
        "WHERE a.course_id = ? ORDER BY a.week", [course_id]))
