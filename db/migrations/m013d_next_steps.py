"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m013d_next_steps(conn: Database) -> None:
    """Issue 16: whether a student acted on last week's next steps, as the teacher marks it on
    this week's item (yes | partly | no)."""
    conn.execute(
        "CREATE TABLE next_step_marks ("
        " submission_id INTEGER PRIMARY KEY REFERENCES submissions(id),"
        " previous_submission_id INTEGER NOT NULL REFERENCES submissions(id),"
        " acted TEXT NOT NULL,"
        " marked_by TEXT NOT NULL,"
        " marked_at TEXT NOT NULL)")
