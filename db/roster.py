"""The course's students as masking needs them (core.privacy.pseudonym): every name, e-mail and
pseudonym of the course a submission belongs to, so no classmate's name reaches a model."""
from __future__ import annotations

from sqlite_utils import Database


def of_submission(conn: Database, submission_id: int) -> list[dict]:
    """[{name, email, pseudonym}] of every student of the submission's course, in id order."""
    return list(conn.query(
        "SELECT st.name, st.email, st.pseudonym FROM students st WHERE st.course_id = ("
        "SELECT a.course_id FROM submissions s JOIN assignments a ON a.id = s.assignment_id WHERE s.id = ?) "
        "ORDER BY st.id", [submission_id]))
