"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m005_review_samples_draft(conn: Database) -> None:
    """The draft each sampled item had when it was drawn: a sample row counts as checked only
    while that draft is still the submission's current one, so a redo run or a regenerate
    needs a fresh sample before bulk approval. Rows drawn before this column (NULL) count as stale."""
    conn.execute("ALTER TABLE review_samples ADD COLUMN draft_id INTEGER REFERENCES drafts(id)")
