"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m027c_anchored_notes(conn: Database) -> None:
    """Issue 27, comments anchored to the student's text. anchored_notes: a short note on a
    passage of a submission (characters start_char..end_char, the quote as it stands there),
    optionally tied to a rubric criterion (its key). A teacher's note is kept as written; a note
    the AI proposed (from the Evaluator's evidence quote of `criterion` in draft `draft_id`) gets
    a row only once a teacher decides it: kept (perhaps edited) or dropped. released_notes: the
    kept notes of an item as one release locked them (what the student, the exports and the LMS
    get). Both hold a student's words: deleted with the student and the course (data care)."""
    conn.executescript("""
    CREATE TABLE anchored_notes (
        id INTEGER PRIMARY KEY,
        submission_id INTEGER NOT NULL REFERENCES submissions(id),
        start_char INTEGER NOT NULL,
        end_char INTEGER NOT NULL,
        quote TEXT NOT NULL,
        criterion TEXT,
        note TEXT NOT NULL,
        origin TEXT NOT NULL CHECK (origin IN ('teacher', 'ai')),
        draft_id INTEGER REFERENCES drafts(id),       -- the AI's proposal it came from
        state TEXT NOT NULL CHECK (state IN ('kept', 'dropped')),
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
        updated_by TEXT,
        updated_at TEXT
    );
    CREATE INDEX idx_anchored_notes_submission ON anchored_notes (submission_id, start_char);
    CREATE UNIQUE INDEX idx_anchored_notes_proposal ON anchored_notes (draft_id, criterion) WHERE draft_id IS NOT NULL;
    CREATE TABLE released_notes (
        id INTEGER PRIMARY KEY,
        release_id INTEGER NOT NULL REFERENCES releases(id),
        submission_id INTEGER NOT NULL REFERENCES submissions(id),
        start_char INTEGER NOT NULL,
        end_char INTEGER NOT NULL,
        quote TEXT NOT NULL,
        criterion TEXT,
        note TEXT NOT NULL
    );
    CREATE INDEX idx_released_notes_item ON released_notes (submission_id, release_id);
    """)
