"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m027b_comment_bank(conn: Database) -> None:
    """Issue 27, the Comment bank. bank_comments: short reusable comments of a course, in the course
    bank (owner NULL: instructors and admins edit it, coordinators curate it) or in one teacher's
    own bank for that course (owner: their username; only they edit it). Optionally tied to a
    rubric criterion (its key) and level; `uses` counts insertions. Teacher text: deleted with
    the course (data care), backed up with the database."""
    conn.executescript("""
    CREATE TABLE bank_comments (
        id INTEGER PRIMARY KEY,
        course_id INTEGER NOT NULL REFERENCES courses(id),
        owner TEXT,                              -- NULL: the course bank
        text TEXT NOT NULL,
        criterion TEXT,
        level INTEGER,
        uses INTEGER NOT NULL DEFAULT 0,
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
    );
    CREATE INDEX idx_bank_comments_course ON bank_comments (course_id, owner);
    """)
