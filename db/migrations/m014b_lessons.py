"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m014b_lessons(conn: Database) -> None:
    """Issue 17 (seed 001): lessons of a course, each review (heuristics, the judges' verdicts
    per refinement round, entropy flags, tier), the fixes a teacher accepts or rejects, the
    lesson runs' items, and reference verdicts (experts', teachers') for judge agreement."""
    for stmt in _LESSONS.split(";\n"):
        if stmt.strip():
            conn.execute(stmt)


_LESSONS = """
CREATE TABLE lessons (
    id INTEGER PRIMARY KEY,
    course_id INTEGER NOT NULL REFERENCES courses(id),
    title TEXT NOT NULL,
    text TEXT NOT NULL,                        -- current text (accepted fixes applied)
    original_text TEXT NOT NULL,               -- as uploaded
    text_hash TEXT NOT NULL,                   -- of original_text
    spec TEXT NOT NULL DEFAULT '{}',           -- JSON: target_grade, objectives, archetype, audience, ...
    sources TEXT NOT NULL DEFAULT '',          -- source material the teacher attached
    source_file TEXT NOT NULL DEFAULT '',
    -- uploaded | reviewed | failed | approved
    status TEXT NOT NULL DEFAULT 'uploaded',
    tier TEXT,                                 -- ready | sampled | needs_review (core.lessons.tiers)
    score REAL,                                -- weighted rubric score of the last review
    priority INTEGER NOT NULL DEFAULT 9,       -- queue order, lower = look first
    in_sample INTEGER NOT NULL DEFAULT 0,      -- drawn into the 10 % sample of the sampled tier
    current_review_id INTEGER,
    version INTEGER NOT NULL DEFAULT 1,        -- optimistic lock: bumped by every teacher change
    approved_by TEXT,
    approved_at TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    UNIQUE (course_id, title)
);
CREATE INDEX idx_lessons_queue ON lessons (course_id, priority, id);
CREATE TABLE lesson_reviews (
    id INTEGER PRIMARY KEY,
    lesson_id INTEGER NOT NULL REFERENCES lessons(id),
    run_id INTEGER REFERENCES runs(id),
    provider TEXT NOT NULL,                    -- offline | openai | fake
    is_offline INTEGER NOT NULL DEFAULT 0,
    text_hash TEXT NOT NULL,                   -- the text that was reviewed
    record TEXT NOT NULL DEFAULT '{}',         -- JSON: heuristics, rounds, entropy, notes, spend
    first_verdict TEXT,                        -- publish | revise: the lesson as it was reviewed
    score REAL,
    tier TEXT,
    status TEXT NOT NULL,                      -- reviewed | failed
    error TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE INDEX idx_lesson_reviews_lesson ON lesson_reviews (lesson_id, id);
CREATE TABLE lesson_fixes (
    id INTEGER PRIMARY KEY,
    lesson_id INTEGER NOT NULL REFERENCES lessons(id),
    review_id INTEGER NOT NULL REFERENCES lesson_reviews(id),
    round INTEGER NOT NULL,
    dimension TEXT NOT NULL,
    section TEXT NOT NULL,                     -- the section's heading (or its place)
    before TEXT NOT NULL,
    after TEXT NOT NULL,
    critique TEXT NOT NULL DEFAULT '',
    gain REAL,                                 -- change of the weighted score when re-judged
    -- proposed | accepted | rejected | discarded (the re-judged score did not rise)
    status TEXT NOT NULL DEFAULT 'proposed',
    decided_by TEXT,
    decided_at TEXT
);
CREATE INDEX idx_lesson_fixes_lesson ON lesson_fixes (lesson_id, review_id);
CREATE TABLE lesson_run_items (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    lesson_id INTEGER NOT NULL REFERENCES lessons(id),
    -- pending | done | needs_review | failed | skipped
    status TEXT NOT NULL DEFAULT 'pending',
    error TEXT,
    finished_at TEXT,
    PRIMARY KEY (run_id, lesson_id)
);
CREATE TABLE lesson_references (
    lesson_id INTEGER NOT NULL REFERENCES lessons(id),
    rater TEXT NOT NULL,                       -- expert | teacher:<name>
    verdict TEXT NOT NULL,                     -- publish | revise
    problems TEXT NOT NULL DEFAULT '[]',       -- JSON: planted or found problems
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    PRIMARY KEY (lesson_id, rater)
)
"""
