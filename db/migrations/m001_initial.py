"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m001_initial(conn: Database) -> None:
    # executescript() would COMMIT mid-migration; run statements one by one instead.
    for stmt in _INITIAL.split(";\n"):
        if stmt.strip():
            conn.execute(stmt)


_INITIAL = """
CREATE TABLE courses (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    is_synthetic INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE TABLE rubrics (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    version INTEGER NOT NULL,
    definition TEXT NOT NULL,          -- Rubric JSON (core.rubric)
    content_hash TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    UNIQUE (name, version)
);
CREATE TABLE assignments (
    id INTEGER PRIMARY KEY,
    course_id INTEGER NOT NULL REFERENCES courses(id),
    title TEXT NOT NULL,
    week INTEGER,
    prompt TEXT NOT NULL DEFAULT '',
    key_concepts TEXT NOT NULL DEFAULT '[]',   -- JSON list of strings
    target_grade REAL NOT NULL DEFAULT 10,     -- Flesch-Kincaid grade the feedback should read at
    answer_key TEXT,
    rubric_id INTEGER NOT NULL REFERENCES rubrics(id),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    UNIQUE (course_id, title)
);
CREATE TABLE students (
    id INTEGER PRIMARY KEY,
    course_id INTEGER NOT NULL REFERENCES courses(id),
    external_id TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    email TEXT NOT NULL DEFAULT '',
    pseudonym TEXT NOT NULL,                   -- what any LLM sees instead of the name
    attributes TEXT NOT NULL DEFAULT '{}',     -- JSON: group attributes (section, ell, ...)
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    UNIQUE (course_id, external_id)
);
CREATE TABLE submissions (
    id INTEGER PRIMARY KEY,
    assignment_id INTEGER NOT NULL REFERENCES assignments(id),
    student_id INTEGER NOT NULL REFERENCES students(id),
    text TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    word_count INTEGER NOT NULL,
    source_file TEXT NOT NULL DEFAULT '',
    source_row INTEGER,
    -- uploaded | drafted | needs_attention | failed | approved | rejected | released
    status TEXT NOT NULL DEFAULT 'uploaded',
    current_draft_id INTEGER,                  -- latest AI draft (drafts.id)
    priority INTEGER NOT NULL DEFAULT 9,       -- review-queue group, lower = look first (core.triage)
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    UNIQUE (assignment_id, student_id, text_hash)
);
CREATE INDEX idx_submissions_queue ON submissions (assignment_id, priority, id);
CREATE INDEX idx_submissions_status ON submissions (assignment_id, status);
CREATE INDEX idx_submissions_student ON submissions (student_id);
CREATE TABLE reference_scores (
    id INTEGER PRIMARY KEY,
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    rater TEXT NOT NULL,
    criterion TEXT NOT NULL,
    score REAL NOT NULL,
    UNIQUE (submission_id, rater, criterion)
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    course_id INTEGER NOT NULL REFERENCES courses(id),
    assignment_id INTEGER REFERENCES assignments(id),
    provider TEXT NOT NULL,                    -- offline | openai
    config TEXT NOT NULL DEFAULT '{}',         -- JSON: models, temperature, concurrency (never the key)
    prompt_hashes TEXT NOT NULL DEFAULT '{}',  -- JSON: role -> prompt content hash
    -- queued | running | done | cancelled | failed
    status TEXT NOT NULL DEFAULT 'queued',
    total INTEGER NOT NULL DEFAULT 0,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    created_by TEXT NOT NULL DEFAULT '',
    heartbeat_at TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    started_at TEXT,
    finished_at TEXT
);
CREATE INDEX idx_runs_course ON runs (course_id, id);
CREATE TABLE run_items (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    -- pending | done | needs_attention | failed | skipped
    status TEXT NOT NULL DEFAULT 'pending',
    error TEXT,
    finished_at TEXT,
    PRIMARY KEY (run_id, submission_id)
);
CREATE INDEX idx_run_items_status ON run_items (run_id, status);
CREATE TABLE llm_calls (
    id INTEGER PRIMARY KEY,
    run_id INTEGER REFERENCES runs(id),
    submission_id INTEGER REFERENCES submissions(id),
    agent TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_name TEXT NOT NULL,
    prompt_hash TEXT NOT NULL,
    input_hash TEXT NOT NULL,
    temperature REAL NOT NULL,
    cache_key TEXT NOT NULL,
    response TEXT,                             -- validated JSON answer (what the cache serves)
    tokens_in INTEGER NOT NULL DEFAULT 0,
    tokens_out INTEGER NOT NULL DEFAULT 0,
    tokens_cached INTEGER NOT NULL DEFAULT 0,
    latency_ms REAL NOT NULL DEFAULT 0,
    cost_usd REAL NOT NULL DEFAULT 0,
    status TEXT NOT NULL,                      -- ok | cache_hit | error
    cache_hit INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    request_id TEXT,
    attempts INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE INDEX idx_llm_calls_cache ON llm_calls (cache_key, status);
CREATE INDEX idx_llm_calls_run ON llm_calls (run_id, agent);
CREATE INDEX idx_llm_calls_submission ON llm_calls (submission_id);
CREATE TABLE drafts (
    id INTEGER PRIMARY KEY,
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    run_id INTEGER REFERENCES runs(id),
    rubric_id INTEGER NOT NULL REFERENCES rubrics(id),
    provider TEXT NOT NULL,                    -- offline | openai
    is_offline INTEGER NOT NULL DEFAULT 0,     -- "offline baseline - no LLM"
    models TEXT NOT NULL DEFAULT '{}',         -- JSON: role -> model
    prompt_hashes TEXT NOT NULL DEFAULT '{}',  -- JSON: role -> prompt hash
    scores TEXT NOT NULL,                      -- JSON: criterion -> int (AI, before any edit)
    total REAL NOT NULL DEFAULT 0,
    evaluation TEXT NOT NULL DEFAULT '{}',     -- JSON: Evaluator output per criterion
    equity TEXT NOT NULL DEFAULT '{}',         -- JSON: Equity Monitor output
    coach TEXT NOT NULL DEFAULT '{}',          -- JSON: Coach output
    comment TEXT NOT NULL DEFAULT '',          -- student-facing feedback draft
    checks TEXT NOT NULL DEFAULT '[]',         -- JSON: deterministic check results
    reviewer TEXT NOT NULL DEFAULT '{}',       -- JSON: Reviewer verdict and fixes
    verdict TEXT,                              -- CONFIDENT | REVISE
    revisions TEXT NOT NULL DEFAULT '[]',      -- JSON: comment history across revise rounds
    rounds INTEGER NOT NULL DEFAULT 0,
    confidence REAL,                           -- 0..1 when known (logprobs / judge agreement)
    flags TEXT NOT NULL DEFAULT '[]',          -- JSON: short_text, injection, code, empty, ...
    attention_reasons TEXT NOT NULL DEFAULT '[]',
    status TEXT NOT NULL,                      -- drafted | needs_attention | failed
    error TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE INDEX idx_drafts_submission ON drafts (submission_id, id);
CREATE INDEX idx_drafts_run ON drafts (run_id);
CREATE TABLE reviews (
    id INTEGER PRIMARY KEY,
    submission_id INTEGER NOT NULL UNIQUE REFERENCES submissions(id),
    draft_id INTEGER REFERENCES drafts(id),    -- the draft the teacher's version started from
    version INTEGER NOT NULL DEFAULT 1,        -- optimistic lock: bumped by every save
    scores TEXT NOT NULL,                      -- JSON: criterion -> int (teacher's current)
    comment TEXT NOT NULL DEFAULT '',
    -- in_review | approved | rejected
    status TEXT NOT NULL DEFAULT 'in_review',
    edited INTEGER NOT NULL DEFAULT 0,         -- teacher changed scores or comment
    reason_codes TEXT NOT NULL DEFAULT '[]',
    note TEXT NOT NULL DEFAULT '',
    opened_at TEXT,                            -- first time a teacher opened the item
    updated_by TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    approved_by TEXT,
    approved_at TEXT
);
CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    actor TEXT NOT NULL,
    action TEXT NOT NULL,                      -- e.g. import, edit, approve, reject, release
    entity TEXT NOT NULL,                      -- table name
    entity_id INTEGER,
    submission_id INTEGER,
    before TEXT,
    after TEXT,
    reason TEXT NOT NULL DEFAULT ''
);
CREATE INDEX idx_audit_submission ON audit_log (submission_id, id);
CREATE TABLE releases (
    id INTEGER PRIMARY KEY,
    assignment_id INTEGER NOT NULL REFERENCES assignments(id),
    released_by TEXT NOT NULL,
    released_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    n_items INTEGER NOT NULL DEFAULT 0,
    note TEXT NOT NULL DEFAULT ''
);
CREATE TABLE release_items (
    release_id INTEGER NOT NULL REFERENCES releases(id),
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    review_version INTEGER NOT NULL,           -- the locked version
    scores TEXT NOT NULL,
    comment TEXT NOT NULL,
    is_offline INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (release_id, submission_id)
);
CREATE INDEX idx_release_items_submission ON release_items (submission_id);
CREATE TABLE prices (
    model TEXT PRIMARY KEY,
    input_per_mtok REAL NOT NULL,
    cached_input_per_mtok REAL NOT NULL DEFAULT 0,
    output_per_mtok REAL NOT NULL
);
INSERT INTO prices VALUES ('gpt-4o-mini', 0.15, 0.075, 0.60);
INSERT INTO prices VALUES ('gpt-4o', 2.50, 1.25, 10.00);
INSERT INTO prices VALUES ('gpt-4.1-mini', 0.40, 0.10, 1.60);
INSERT INTO prices VALUES ('offline', 0, 0, 0);
CREATE TABLE app_settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL                        -- JSON
)
"""
