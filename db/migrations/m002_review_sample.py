"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m002_review_sample(conn: Database) -> None:
    """Issue #4: the stratified sample a teacher must open before bulk approval, and which
    approvals were bulk ones (the release gate re-checks their sample)."""
    conn.execute(
        "CREATE TABLE review_samples ("
        " assignment_id INTEGER NOT NULL REFERENCES assignments(id),"
        " submission_id INTEGER NOT NULL REFERENCES submissions(id),"
        " band TEXT NOT NULL,"  # low | high: predicted band of the draft's mean score
        " drawn_by TEXT NOT NULL,"
        " drawn_at TEXT NOT NULL,"
        " PRIMARY KEY (assignment_id, submission_id))"
    )
    conn.execute("ALTER TABLE reviews ADD COLUMN approved_in_bulk INTEGER NOT NULL DEFAULT 0")
