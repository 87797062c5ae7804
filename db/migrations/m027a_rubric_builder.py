"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m027a_rubric_builder(conn: Database) -> None:
    """Issue 27, the Rubric builder. rubric_drafts: what the builder drafted for a course (from a
    description, scored examples, or a template offline), editable until an instructor or admin
    saves it as a rubric version (saved_rubric_id). rubric_draft_examples: the scored example
    texts a draft was built from (student text: deleted with the draft's course, with the student
    it is linked to, and as soon as the draft is saved). llm_calls.rubric_draft_id ties the
    builder's calls to their draft, so data care deletes them too. rubrics.restores: the version
    a rollback brought back (a rollback is a new version with that version's content)."""
    conn.executescript("""
    CREATE TABLE rubric_drafts (
        id INTEGER PRIMARY KEY,
        course_id INTEGER NOT NULL REFERENCES courses(id),
        description TEXT NOT NULL DEFAULT '',
        source TEXT NOT NULL,                 -- model | template
        note TEXT NOT NULL DEFAULT '',        -- said to the teacher (e.g. why a template)
        definition TEXT NOT NULL,             -- the drafted rubric (JSON), as last edited
        based_on INTEGER REFERENCES rubrics(id),
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
        saved_rubric_id INTEGER REFERENCES rubrics(id),
        saved_by TEXT,
        saved_at TEXT
    );
    CREATE INDEX idx_rubric_drafts_course ON rubric_drafts (course_id, id);
    CREATE TABLE rubric_draft_examples (
        id INTEGER PRIMARY KEY,
        draft_id INTEGER NOT NULL REFERENCES rubric_drafts(id),
        student_id INTEGER REFERENCES students(id),   -- the course's student it is by or names
        score INTEGER NOT NULL,
        text TEXT NOT NULL
    );
    CREATE INDEX idx_rubric_draft_examples ON rubric_draft_examples (draft_id);
    CREATE INDEX idx_rubric_draft_examples_student ON rubric_draft_examples (student_id);
    ALTER TABLE llm_calls ADD COLUMN rubric_draft_id INTEGER REFERENCES rubric_drafts(id);
    ALTER TABLE rubrics ADD COLUMN restores INTEGER;
    """)
