"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m003_llm_calls_note_mode(conn: Database) -> None:
    """Issue #3 (LLM boundary): a note per call (e.g. "no price for model X: cost counted as 0",
    "served from cache (call #12)") and the structured-output mode the server accepted."""
    conn.execute("ALTER TABLE llm_calls ADD COLUMN note TEXT NOT NULL DEFAULT ''")
    conn.execute("ALTER TABLE llm_calls ADD COLUMN response_mode TEXT")
