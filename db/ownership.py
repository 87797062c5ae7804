"""Which course an id belongs to: one query per kind of id, so core/accounts/access.py can check a
grant before anything else is read. None when the id does not exist."""
from __future__ import annotations

from sqlite_utils import Database

_COURSE_OF = {
    "course": "SELECT id FROM courses WHERE id = ?",
    "assignment": "SELECT course_id FROM assignments WHERE id = ?",
    "submission": "SELECT a.course_id FROM submissions s JOIN assignments a ON a.id = s.assignment_id WHERE s.id = ?",
    "student": "SELECT course_id FROM students WHERE id = ?",
    "draft": "SELECT a.course_id FROM drafts d JOIN submissions s ON s.id = d.submission_id "
             "JOIN assignments a ON a.id = s.assignment_id WHERE d.id = ?",
    "run": "SELECT course_id FROM runs WHERE id = ?",
    "lesson": "SELECT course_id FROM lessons WHERE id = ?",
    "fix": "SELECT l.course_id FROM lesson_fixes f JOIN lessons l ON l.id = f.lesson_id WHERE f.id = ?",
    "comparison": "SELECT course_id FROM comparisons WHERE id = ?",
    "pair": "SELECT c.course_id FROM comparison_pairs p JOIN comparisons c ON c.id = p.comparison_id WHERE p.id = ?",
    "rubric_draft": "SELECT course_id FROM rubric_drafts WHERE id = ?",
    "bank_comment": "SELECT course_id FROM bank_comments WHERE id = ?",
    "appeal": "SELECT a.course_id FROM appeals ap JOIN assignments a ON a.id = ap.assignment_id WHERE ap.id = ?",
    "anchored_note": "SELECT a.course_id FROM anchored_notes n JOIN submissions s ON s.id = n.submission_id "
                     "JOIN assignments a ON a.id = s.assignment_id WHERE n.id = ?",
}
KINDS = tuple(_COURSE_OF)


def course_of(conn: Database, kind: str, ident: int) -> int | None:
    """The course of a course, assignment, submission, student, draft, run, lesson, lesson fix,
    comparison, comparison pair, rubric draft, bank comment, appeal or anchored note; None when there is no such row."""
    row = conn.execute(_COURSE_OF[kind], [int(ident)]).fetchone()
    return row[0] if row else None


def courses_of(conn: Database, kind: str, idents) -> set[int | None]:
    """The courses of several ids of one kind (None stands for an id that does not exist)."""
    return {course_of(conn, kind, i) for i in dict.fromkeys(int(i) for i in idents)}


def submission_owner(conn: Database, submission_id: int) -> tuple[int, int, int] | None:
    """(student id, assignment id, course id) of a submission; None when there is no such row."""
    row = conn.execute("SELECT s.student_id, s.assignment_id, a.course_id FROM submissions s "
                       "JOIN assignments a ON a.id = s.assignment_id WHERE s.id = ?", [int(submission_id)]).fetchone()
    return tuple(row) if row else None
