"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m018b_run_items(conn: Database) -> None:
    """One table of run items for every kind of run: lesson runs kept theirs in a copy of
    run_items (lesson_run_items, the same columns and queries). `subject` says what an item is
    ('submission' for a reflection run, 'lesson' for a lesson run: runs.kind decides, as
    judge_votes.subject does for votes) and `subject_id` which one. Rows keep their order."""
    for stmt in _ONE_RUN_ITEMS.split(";\n"):
        if stmt.strip():
            conn.execute(stmt)


_ONE_RUN_ITEMS = """
CREATE TABLE run_items_all (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    subject TEXT NOT NULL,                     -- submission | lesson
    subject_id INTEGER NOT NULL,
    -- pending | done | needs_attention (reflections) | needs_review (lessons) | failed | skipped
    status TEXT NOT NULL DEFAULT 'pending',
    error TEXT,
    finished_at TEXT,
    PRIMARY KEY (run_id, subject, subject_id)
);
INSERT INTO run_items_all (run_id, subject, subject_id, status, error, finished_at)
    SELECT run_id, 'submission', submission_id, status, error, finished_at FROM run_items ORDER BY rowid;
INSERT INTO run_items_all (run_id, subject, subject_id, status, error, finished_at)
    SELECT run_id, 'lesson', lesson_id, status, error, finished_at FROM lesson_run_items ORDER BY rowid;
DROP TABLE run_items;
DROP TABLE lesson_run_items;
ALTER TABLE run_items_all RENAME TO run_items;
CREATE INDEX idx_run_items_status ON run_items (run_id, status);
CREATE INDEX idx_run_items_subject ON run_items (subject, subject_id)
"""
