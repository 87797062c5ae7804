"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m014a_lesson_runs(conn: Database) -> None:
    """Issue 17: lesson review shares the runs table and the call log with the reflections.
    `runs.kind` says which workflow a run belongs to (its items: run_items, since m018b; at
    first lesson_run_items); `llm_calls.lesson_id` ties a call to the lesson
    it judged or fixed, so costs per lesson and per course come from the call log."""
    conn.execute("ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'reflections'")
    conn.execute("ALTER TABLE llm_calls ADD COLUMN lesson_id INTEGER")
    conn.execute("CREATE INDEX idx_llm_calls_lesson ON llm_calls (lesson_id)")
