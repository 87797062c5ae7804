"""Schema migrations for the whole data model (see docs/contracts.md).

Each migration is a named function applied once, inside a transaction, and recorded in
`_sqlite_migrations`. Never edit an applied migration: add a new one.

JSON columns hold small documents (scores by criterion, check results, agent outputs);
everything a query filters or sorts on is a real column with an index.
"""
import json

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

migrations = Migrations("fairmark")


@migrations()
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


@migrations()
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


@migrations()
def m003_llm_calls_note_mode(conn: Database) -> None:
    """Issue #3 (LLM boundary): a note per call (e.g. "no price for model X: cost counted as 0",
    "served from cache (call #12)") and the structured-output mode the server accepted."""
    conn.execute("ALTER TABLE llm_calls ADD COLUMN note TEXT NOT NULL DEFAULT ''")
    conn.execute("ALTER TABLE llm_calls ADD COLUMN response_mode TEXT")


@migrations()
def m004_metrics_data_version(conn: Database) -> None:
    """A counter bumped by every change to the data the dashboards read (issue #5).

    db.analytics caches its aggregate queries under this number, so a dashboard rerun on an
    unchanged database costs no scan even at 100,000 submissions, and any write (a new draft,
    an approval, an upload) makes the next read recompute.
    """
    conn.execute("CREATE TABLE analytics_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)")
    conn.execute("INSERT INTO analytics_version (id, version) VALUES (1, 0)")
    for table in ("courses", "assignments", "students", "submissions", "reference_scores", "runs", "drafts",
                  "reviews", "llm_calls", "rubrics"):
        for op in ("INSERT", "UPDATE", "DELETE"):
            conn.execute(f"CREATE TRIGGER analytics_bump_{table}_{op.lower()} AFTER {op} ON {table} "
                       f"BEGIN UPDATE analytics_version SET version = version + 1 WHERE id = 1; END")


@migrations()
def m005_review_samples_draft(conn: Database) -> None:
    """The draft each sampled item had when it was drawn: a sample row counts as checked only
    while that draft is still the submission's current one, so a redo run or a regenerate
    needs a fresh sample before bulk approval. Rows drawn before this column (NULL) count as stale."""
    conn.execute("ALTER TABLE review_samples ADD COLUMN draft_id INTEGER REFERENCES drafts(id)")


@migrations()
def m006_release_items_rubric(conn: Database) -> None:
    """The rubric a released version was scored under, so a later rubric switch on the
    assignment never changes released totals. NULL (released before this column): exports fall
    back to the assignment's rubric."""
    conn.execute("ALTER TABLE release_items ADD COLUMN rubric_id INTEGER REFERENCES rubrics(id)")


@migrations()
def m007_draft_outputs(conn: Database) -> None:
    """Issue #9: each agent role's answer in one JSON column keyed by role (core.agents.registry),
    so a new role needs no migration. The four per-role columns are folded in and dropped; a
    role whose column was empty ('{}': it failed or never ran) is left out."""
    conn.execute("ALTER TABLE drafts ADD COLUMN outputs TEXT NOT NULL DEFAULT '{}'")
    conn.execute("""
        UPDATE drafts SET outputs = COALESCE((
            SELECT json_group_object(role, json(answer)) FROM (
                SELECT 'evaluator' AS role, evaluation AS answer UNION ALL SELECT 'equity', equity
                UNION ALL SELECT 'coach', coach UNION ALL SELECT 'reviewer', reviewer)
            WHERE answer NOT IN ('', '{}')), '{}')""")
    for column in ("evaluation", "equity", "coach", "reviewer"):
        conn.execute(f"ALTER TABLE drafts DROP COLUMN {column}")


@migrations()
def m008_judge_votes(conn: Database) -> None:
    """Every judge's vote per criterion (seed 001's cascade, core.judging): who judged, at which
    tier, the score and its confidence. `subject` says what was judged ('submission' now; the
    lesson review adds 'lesson'), so one table serves every workflow that votes."""
    conn.execute(
        "CREATE TABLE judge_votes ("
        " id INTEGER PRIMARY KEY,"
        " subject TEXT NOT NULL,"                  # submission | lesson | ...
        " subject_id INTEGER NOT NULL,"
        " draft_id INTEGER,"                       # the draft (or review round) the votes decided
        " run_id INTEGER REFERENCES runs(id),"
        " criterion TEXT NOT NULL,"
        " judge TEXT NOT NULL,"                    # model alias
        " tier INTEGER NOT NULL,"                  # 1 first judge, 2 consensus step
        " score REAL NOT NULL,"
        " confidence REAL,"                        # 0..1 when known
        " weight REAL NOT NULL DEFAULT 1,"
        " created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))")
    conn.execute("CREATE INDEX idx_judge_votes_subject ON judge_votes (subject, subject_id, draft_id)")


@migrations()
def m009_run_worker(conn: Database) -> None:
    """Issue #10: which worker process holds a run (a token per execution, its pid and host),
    written when it claims the run and checked by every heartbeat. Two workers never process one
    run at once, and a run whose worker process is gone (same host, pid dead) resumes at once
    instead of after the 60-second heartbeat timeout."""
    conn.execute("ALTER TABLE runs ADD COLUMN worker TEXT")
    conn.execute("ALTER TABLE runs ADD COLUMN worker_pid INTEGER")
    conn.execute("ALTER TABLE runs ADD COLUMN worker_host TEXT")


@migrations()
def m010_run_active_time(conn: Database) -> None:
    """A run's working time without the time it stood stopped (issue 11): `active_s` adds up the
    closed working periods, `resumed_at` starts the open one (db.runs). Finished runs keep the
    span they had; one that was stopped and resumed before this column cannot be told apart."""
    conn.execute("ALTER TABLE runs ADD COLUMN active_s REAL NOT NULL DEFAULT 0")
    conn.execute("ALTER TABLE runs ADD COLUMN resumed_at TEXT")
    conn.execute("UPDATE runs SET active_s = MAX(0, (julianday(finished_at) - julianday(started_at)) * 86400) "
                 "WHERE started_at IS NOT NULL AND finished_at IS NOT NULL")


@migrations()
def m011_calibration(conn: Database) -> None:
    """Issue #12: calibration. `calibration_items` is the stratified set a teacher scores blind
    per assignment (an item's AI draft stays hidden until a blind score is saved);
    `calibration_scores` holds the blind scores per (submission, criterion, rater), from the
    Calibrate page ('blind') or an upload declared as calibration ('upload'). Both tables bump
    the dashboards' data version, like every table the dashboards read."""
    conn.execute(
        "CREATE TABLE calibration_items ("
        " assignment_id INTEGER NOT NULL REFERENCES assignments(id),"
        " submission_id INTEGER NOT NULL REFERENCES submissions(id),"
        " stratum TEXT NOT NULL,"                  # e.g. "low band · shorter half · section A"
        " draft_id INTEGER REFERENCES drafts(id),"  # the draft whose predicted band placed it
        " drawn_by TEXT NOT NULL,"
        " drawn_at TEXT NOT NULL,"
        " PRIMARY KEY (assignment_id, submission_id))")
    conn.execute("CREATE INDEX idx_calibration_items_submission ON calibration_items (submission_id)")
    conn.execute(
        "CREATE TABLE calibration_scores ("
        " id INTEGER PRIMARY KEY,"
        " submission_id INTEGER NOT NULL REFERENCES submissions(id),"
        " criterion TEXT NOT NULL,"
        " rater TEXT NOT NULL,"                    # who scored (a teacher, or an uploaded rater column)
        " score REAL NOT NULL,"
        " source TEXT NOT NULL DEFAULT 'blind',"   # blind (Calibrate page) | upload (declared at import)
        " scored_by TEXT NOT NULL,"                # who saved or uploaded it
        " scored_at TEXT NOT NULL,"
        " UNIQUE (submission_id, criterion, rater))")
    for table in ("calibration_items", "calibration_scores"):
        for op in ("INSERT", "UPDATE", "DELETE"):
            conn.execute(f"CREATE TRIGGER analytics_bump_{table}_{op.lower()} AFTER {op} ON {table} "
                         f"BEGIN UPDATE analytics_version SET version = version + 1 WHERE id = 1; END")


@migrations()
def m012_judging(conn: Database) -> None:
    """Issue 14 (seed 001's cascade on the scores):
    - llm_calls.tier: which tier of the judge cascade a scoring call belonged to (1 the first
      judge and its self-consistency samples, 2 the consensus step; NULL for other roles), so
      the Costs page can show calls and dollars per tier;
    - llm_calls.score_probs: the score labels' probabilities from the call's logprobs (JSON
      {field path: {label: p}}), so an answer served from the cache keeps its confidence;
    - drafts.judging: how the scores were judged (JSON: tier, per-criterion distribution,
      expected score and entropy, unsure criteria, vetoes, notes; core.judging.scoring);
    - judge_agreement: the agreement rule's mark on an assignment's judge agreement (Krippendorff's alpha
      per criterion over the items with two or more votes), written after each run."""
    conn.execute("ALTER TABLE llm_calls ADD COLUMN tier INTEGER")
    conn.execute("ALTER TABLE llm_calls ADD COLUMN score_probs TEXT")
    conn.execute("ALTER TABLE drafts ADD COLUMN judging TEXT NOT NULL DEFAULT '{}'")
    conn.execute(
        "CREATE TABLE judge_agreement ("
        " assignment_id INTEGER PRIMARY KEY REFERENCES assignments(id),"
        " verdict TEXT NOT NULL,"                  # fine | flagged | poor | not_enough_votes
        " alpha TEXT NOT NULL DEFAULT '{}',"       # JSON: criterion -> alpha (null: not computable)
        " items INTEGER NOT NULL DEFAULT 0,"       # items with two or more votes
        " sent_to_teacher INTEGER NOT NULL DEFAULT 0,"
        " computed_at TEXT NOT NULL)")
    # The dashboards' cache (m004) is invalidated by every write they read, these tables included.
    for table in ("judge_votes", "judge_agreement"):
        for op in ("INSERT", "UPDATE", "DELETE"):
            conn.execute(f"CREATE TRIGGER analytics_bump_{table}_{op.lower()} AFTER {op} ON {table} "
                         f"BEGIN UPDATE analytics_version SET version = version + 1 WHERE id = 1; END")


@migrations()
def m013a_answer_keys(conn: Database) -> None:
    """Issue 16: an assignment's answer key as the leakage rule needs it (core.leakage): its kind
    (number | text; NULL with an answer_key set means "infer": a plain number is numeric), the
    relative tolerance of a numeric key (NULL: 1 %), and the source or lesson text the grounding
    judge checks the feedback against. Each draft records the AI configuration that wrote it."""
    conn.execute("ALTER TABLE assignments ADD COLUMN answer_kind TEXT")
    conn.execute("ALTER TABLE assignments ADD COLUMN answer_tolerance REAL")
    conn.execute("ALTER TABLE assignments ADD COLUMN source_text TEXT NOT NULL DEFAULT ''")
    conn.execute("ALTER TABLE drafts ADD COLUMN ai_config TEXT")   # ai_configs.hash


@migrations()
def m013b_ai_configs(conn: Database) -> None:
    """Issue 16: AI configurations (prompt hash, model and temperature per role), recorded when
    first used; each eval-suite run of one; and the admin overrides that let an unevaluated or
    failed configuration run anyway (each also in the audit log)."""
    conn.execute(
        "CREATE TABLE ai_configs ("
        " hash TEXT PRIMARY KEY,"
        " provider TEXT NOT NULL,"
        " definition TEXT NOT NULL,"               # JSON {provider, roles: {role: {model, temperature, prompt_hash}}}
        " variant TEXT NOT NULL DEFAULT '',"       # prompts/variants/<name> it came from ('' = standard)
        " first_used_at TEXT NOT NULL,"
        " first_used_by TEXT NOT NULL DEFAULT '',"
        " first_used_for TEXT NOT NULL DEFAULT '')")   # "run 12", "eval suite", "comparison 3"
    conn.execute(
        "CREATE TABLE eval_runs ("
        " id INTEGER PRIMARY KEY,"
        " config_hash TEXT NOT NULL REFERENCES ai_configs(hash),"
        " suite_version TEXT NOT NULL,"            # hash of the case files
        " suite TEXT NOT NULL,"
        " provider TEXT NOT NULL,"
        " cases INTEGER NOT NULL, passed INTEGER NOT NULL, failed INTEGER NOT NULL, not_run INTEGER NOT NULL,"
        " blocking_failed INTEGER NOT NULL, blocking_not_run INTEGER NOT NULL,"
        " report TEXT NOT NULL,"                   # JSON: what `python -m core evals run` printed
        " created_by TEXT NOT NULL DEFAULT '',"
        " created_at TEXT NOT NULL)")
    conn.execute("CREATE INDEX idx_eval_runs_config ON eval_runs (config_hash, id)")
    conn.execute(
        "CREATE TABLE ai_config_overrides ("
        " id INTEGER PRIMARY KEY,"
        " config_hash TEXT NOT NULL REFERENCES ai_configs(hash),"
        " actor TEXT NOT NULL,"
        " reason TEXT NOT NULL,"
        " created_at TEXT NOT NULL)")
    conn.execute(
        "CREATE TABLE saved_eval_cases ("
        " id INTEGER PRIMARY KEY,"
        " submission_id INTEGER NOT NULL REFERENCES submissions(id),"
        " draft_id INTEGER REFERENCES drafts(id),"
        " dimension TEXT NOT NULL,"                # leakage | grounding | level | pedagogy
        " reason TEXT NOT NULL,"
        " case_json TEXT NOT NULL,"                # pseudonymised, in the suite's format
        " saved_by TEXT NOT NULL,"
        " saved_at TEXT NOT NULL)")


@migrations()
def m013c_comparisons(conn: Database) -> None:
    """Issue 16: blind pairwise comparison of two AI configurations. A pair is one submission
    drafted by A and by B; `b_on_left` is drawn at random when the pair is made, so teachers
    never learn which side is which. One choice per teacher, pair and dimension."""
    conn.execute(
        "CREATE TABLE comparisons ("
        " id INTEGER PRIMARY KEY,"
        " course_id INTEGER NOT NULL REFERENCES courses(id),"
        " assignment_id INTEGER REFERENCES assignments(id),"
        " config_a TEXT NOT NULL REFERENCES ai_configs(hash),"
        " config_b TEXT NOT NULL REFERENCES ai_configs(hash),"
        " variant_b TEXT NOT NULL DEFAULT '',"
        " sample_size INTEGER NOT NULL,"
        " seed INTEGER NOT NULL,"
        " status TEXT NOT NULL DEFAULT 'drafting',"   # drafting | ready | failed
        " error TEXT,"
        " created_by TEXT NOT NULL DEFAULT '',"
        " created_at TEXT NOT NULL)")
    conn.execute(
        "CREATE TABLE comparison_pairs ("
        " id INTEGER PRIMARY KEY,"
        " comparison_id INTEGER NOT NULL REFERENCES comparisons(id),"
        " submission_id INTEGER NOT NULL REFERENCES submissions(id),"
        " stratum TEXT NOT NULL,"                  # low | high | undrafted: the sample's strata
        " position INTEGER NOT NULL,"              # the order teachers see the pairs in
        " b_on_left INTEGER NOT NULL,"
        " comment_a TEXT, comment_b TEXT,"
        " draft_a TEXT, draft_b TEXT,"             # JSON: the drafts (outputs, checks), never shown as A/B
        " judge_a TEXT, judge_b TEXT,"             # JSON: the pedagogy judge on each comment
        " judge_choice TEXT,"                      # A | B | tie | NULL (not run)
        " error TEXT,"
        " UNIQUE (comparison_id, submission_id))")
    conn.execute(
        "CREATE TABLE pair_choices ("
        " id INTEGER PRIMARY KEY,"
        " pair_id INTEGER NOT NULL REFERENCES comparison_pairs(id),"
        " comparison_id INTEGER NOT NULL REFERENCES comparisons(id),"
        " teacher TEXT NOT NULL,"
        " dimension TEXT NOT NULL,"                # level | pedagogy
        " choice TEXT NOT NULL,"                   # A | B | tie (translated from left/right on save)
        " created_at TEXT NOT NULL,"
        " UNIQUE (pair_id, teacher, dimension))")
    conn.execute("CREATE INDEX idx_pair_choices_comparison ON pair_choices (comparison_id, teacher)")


@migrations()
def m013d_next_steps(conn: Database) -> None:
    """Issue 16: whether a student acted on last week's next steps, as the teacher marks it on
    this week's item (yes | partly | no)."""
    conn.execute(
        "CREATE TABLE next_step_marks ("
        " submission_id INTEGER PRIMARY KEY REFERENCES submissions(id),"
        " previous_submission_id INTEGER NOT NULL REFERENCES submissions(id),"
        " acted TEXT NOT NULL,"
        " marked_by TEXT NOT NULL,"
        " marked_at TEXT NOT NULL)")


@migrations()
def m014a_lesson_runs(conn: Database) -> None:
    """Issue 17: lesson review shares the runs table and the call log with the reflections.
    `runs.kind` says which workflow a run belongs to (its items: run_items, since m018b; at
    first lesson_run_items); `llm_calls.lesson_id` ties a call to the lesson
    it judged or fixed, so costs per lesson and per course come from the call log."""
    conn.execute("ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'reflections'")
    conn.execute("ALTER TABLE llm_calls ADD COLUMN lesson_id INTEGER")
    conn.execute("CREATE INDEX idx_llm_calls_lesson ON llm_calls (lesson_id)")


@migrations()
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


@migrations()
def m016_offline_scorer(conn: Database) -> None:
    """Issue 15: the learned offline scorer.
    - offline_models: every trained version per assignment, stored with the data it was trained
      on (`training`: submission, criterion, score and source of every score it learned from;
      `data_hash` of them), the teacher's options at the time, the cross-validated agreement of
      the model and of word count alone (`agreement`), and the model itself (`model`: a numpy
      .npz of numbers and words, never a pickle). A version with too few scores for a criterion
      keeps the heuristic there, calibrated on the scores that exist (`calibration`).
    - offline_scorer_options: per assignment, the teacher's choices (the minimum of scores per
      criterion, whether teachers' one-by-one approvals and edits count, whether assignments of
      the course that share the rubric pool their scores)."""
    conn.execute(
        "CREATE TABLE offline_models ("
        " id INTEGER PRIMARY KEY,"
        " assignment_id INTEGER NOT NULL REFERENCES assignments(id),"
        " rubric_id INTEGER NOT NULL REFERENCES rubrics(id),"
        " version INTEGER NOT NULL,"               # 1, 2, ... per assignment
        " options TEXT NOT NULL DEFAULT '{}',"     # JSON: min_per_criterion, use_edits, pool
        " training TEXT NOT NULL DEFAULT '[]',"    # JSON: [{submission_id, assignment_id, criterion, score, source}]
        " data_hash TEXT NOT NULL,"                # of options + training: same data, same model
        " criteria TEXT NOT NULL DEFAULT '{}',"    # JSON: criterion -> {kind: learned | calibrated | heuristic, scores}
        " agreement TEXT NOT NULL DEFAULT '{}',"   # JSON: criterion -> cross-validated figures, model and word count
        " calibration TEXT NOT NULL DEFAULT '{}',"  # JSON: criterion -> the heuristic's cut points
        " model BLOB,"                             # core.offline.model.Model.to_bytes (NULL: no criterion learned)
        " seconds REAL NOT NULL DEFAULT 0,"        # training time
        " trained_by TEXT NOT NULL,"
        " trained_at TEXT NOT NULL,"
        " UNIQUE (assignment_id, version))")
    conn.execute(
        "CREATE TABLE offline_scorer_options ("
        " assignment_id INTEGER PRIMARY KEY REFERENCES assignments(id),"
        " min_per_criterion INTEGER NOT NULL,"
        " use_edits INTEGER NOT NULL DEFAULT 0,"
        " pool INTEGER NOT NULL DEFAULT 0,"
        " updated_by TEXT NOT NULL,"
        " updated_at TEXT NOT NULL)")


@migrations()
def m017a_aggregates(conn: Database) -> None:
    """Issue 18: the dashboards' counts kept up to date instead of recomputed (db/aggregates.py).

    - agg_pairs: one row per (submission, criterion) with the AI score, each reference (expert
      mean, blind mean, the teacher's after seeing the draft, each uploaded rater) and the
      dimensions (course, assignment, student, week, version, word count, attributes): what the
      intervals resample, per student;
    - agg_subs: what each submission adds to the counts (its cells, JSON), so a change subtracts
      exactly what it had added; `state` tells whether anything changed;
    - agg_cells: the summed counts per scope ('all', 'c<course id>', 'a<assignment id>'),
      reference and dimension: what every figure and point estimate reads;
    - agg_dirty: submissions whose data changed since their contribution was counted, filled by
      triggers (mark: a random number per change, so a refresh that read an older state leaves
      a newer change dirty) and emptied by the refresh at read time.
    Every submission starts dirty: the first dashboard read counts them (once).

    The dashboards' whole-view cache is keyed by `analytics_topics.aggregates` (bumped by a
    refresh that changed something) instead of the data version, and the call log and the
    runs' heartbeats no longer bump the data version: they bump `analytics_topics.calls` (the
    Costs page), so a run in progress no longer empties the Agreement and Fairness cache.
    """
    for stmt in _AGGREGATES.split(";\n"):
        if stmt.strip():
            conn.execute(stmt)
    mark = "INSERT OR REPLACE INTO agg_dirty (submission_id, mark) VALUES ({}, random())"
    each = "INSERT OR REPLACE INTO agg_dirty (submission_id, mark) SELECT id, random() FROM submissions WHERE {}"
    triggers = {
        "drafts_insert": ("AFTER INSERT ON drafts", [mark.format("NEW.submission_id")]),
        "drafts_update": ("AFTER UPDATE OF scores, status, provider, is_offline, models, prompt_hashes, "
                          "submission_id ON drafts", [mark.format("OLD.submission_id"),
                                                      mark.format("NEW.submission_id")]),
        "drafts_delete": ("AFTER DELETE ON drafts", [mark.format("OLD.submission_id")]),
        "reviews_insert": ("AFTER INSERT ON reviews", [mark.format("NEW.submission_id")]),
        "reviews_update": ("AFTER UPDATE OF draft_id, scores, comment, status, reason_codes, approved_in_bulk, "
                           "updated_at, submission_id ON reviews", [mark.format("OLD.submission_id"),
                                                                   mark.format("NEW.submission_id")]),
        "reviews_delete": ("AFTER DELETE ON reviews", [mark.format("OLD.submission_id")]),
        "submissions_insert": ("AFTER INSERT ON submissions", [mark.format("NEW.id")]),
        "submissions_update": ("AFTER UPDATE OF current_draft_id, status, word_count, student_id, assignment_id "
                               "ON submissions", [mark.format("NEW.id")]),
        "submissions_delete": ("AFTER DELETE ON submissions", [mark.format("OLD.id")]),
        "students_update": ("AFTER UPDATE OF attributes, course_id ON students", [each.format("student_id = NEW.id")]),
        "assignments_update": ("AFTER UPDATE OF week, rubric_id, course_id ON assignments",
                               [each.format("assignment_id = NEW.id")]),
    }
    for table in ("reference_scores", "calibration_scores"):
        triggers[f"{table}_insert"] = (f"AFTER INSERT ON {table}", [mark.format("NEW.submission_id")])
        triggers[f"{table}_update"] = (f"AFTER UPDATE ON {table}", [mark.format("OLD.submission_id"),
                                                                    mark.format("NEW.submission_id")])
        triggers[f"{table}_delete"] = (f"AFTER DELETE ON {table}", [mark.format("OLD.submission_id")])
    for name, (when, body) in triggers.items():
        conn.execute(f"CREATE TRIGGER agg_dirty_{name} {when} BEGIN {'; '.join(body)}; END")
    conn.execute("INSERT INTO agg_dirty (submission_id, mark) SELECT id, random() FROM submissions")
    # The call log and the runs (heartbeats every few seconds) feed only the Costs page.
    for table in ("llm_calls", "runs"):
        for op in ("INSERT", "UPDATE", "DELETE"):
            conn.execute(f"DROP TRIGGER IF EXISTS analytics_bump_{table}_{op.lower()}")
            conn.execute(f"CREATE TRIGGER analytics_calls_{table}_{op.lower()} AFTER {op} ON {table} "
                         "BEGIN UPDATE analytics_topics SET version = version + 1 WHERE topic = 'calls'; END")


_AGGREGATES = """
CREATE TABLE agg_dirty (
    submission_id INTEGER PRIMARY KEY,
    mark INTEGER NOT NULL
);
CREATE TABLE agg_subs (
    submission_id INTEGER PRIMARY KEY,
    course_id INTEGER NOT NULL,
    assignment_id INTEGER NOT NULL,
    cells TEXT NOT NULL DEFAULT '[]',          -- JSON: [[ref, dim, value, rubric_id, criterion, source, ai, reference]]
    multi_version INTEGER NOT NULL DEFAULT 0,  -- scored by two or more model/prompt versions (judge_view)
    comment_edited_at TEXT,                    -- a decision one by one that changed the comment
    state TEXT NOT NULL                        -- hash of everything above and of its agg_pairs rows
);
CREATE INDEX idx_agg_subs_versions ON agg_subs (course_id, assignment_id, submission_id) WHERE multi_version = 1;
CREATE INDEX idx_agg_subs_edited ON agg_subs (comment_edited_at) WHERE comment_edited_at IS NOT NULL;
CREATE INDEX idx_agg_subs_edited_course ON agg_subs (course_id, comment_edited_at) WHERE comment_edited_at IS NOT NULL;
CREATE INDEX idx_agg_subs_edited_assignment ON agg_subs (assignment_id, comment_edited_at)
    WHERE comment_edited_at IS NOT NULL;
CREATE TABLE agg_pairs (
    submission_id INTEGER NOT NULL,
    criterion TEXT NOT NULL,
    course_id INTEGER NOT NULL,
    assignment_id INTEGER NOT NULL,
    student_id INTEGER NOT NULL,
    rubric_id INTEGER NOT NULL,
    week TEXT NOT NULL,
    version TEXT NOT NULL,
    word_count INTEGER NOT NULL,
    attributes TEXT NOT NULL,
    ai INTEGER NOT NULL,
    expert REAL,                               -- mean of the uploaded raters
    blind REAL,                                -- mean of the blind calibration scores
    teacher REAL,                              -- approved one by one (or released), after seeing the draft
    raters TEXT,                               -- JSON {rater: score} of the uploaded raters
    PRIMARY KEY (submission_id, criterion)
);
CREATE INDEX idx_agg_pairs_course ON agg_pairs (course_id);
CREATE INDEX idx_agg_pairs_assignment ON agg_pairs (assignment_id);
CREATE TABLE agg_cells (
    scope TEXT NOT NULL,                       -- all | c<course id> | a<assignment id>
    ref TEXT NOT NULL,                         -- auto | expert | blind | teacher | rater:NAME | edit
    dim TEXT NOT NULL,                         -- '' | week | version | word_count | attr:NAME | outcome | ...
    value TEXT NOT NULL,
    rubric_id INTEGER NOT NULL,
    criterion TEXT NOT NULL,
    source TEXT NOT NULL,
    ai REAL NOT NULL,
    reference REAL NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (scope, ref, dim, value, rubric_id, criterion, source, ai, reference)
) WITHOUT ROWID;
CREATE TABLE analytics_topics (
    topic TEXT PRIMARY KEY,
    version INTEGER NOT NULL
);
INSERT INTO analytics_topics (topic, version) VALUES ('aggregates', 0);
INSERT INTO analytics_topics (topic, version) VALUES ('calls', 0)
"""


@migrations()
def m017b_llm_batches(conn: Database) -> None:
    """Issue 18: batch mode. Each batch a run submitted to the endpoint's /v1/batches (its id,
    input file, status and output files), and per request the hash of the chat request it
    carried and, once the batch completed, the answer line. A run resumed after a restart waits
    for its batches still running instead of paying for their requests again, and takes the
    answers of completed ones from here; the call log then records them as usual."""
    conn.execute(
        "CREATE TABLE llm_batches ("
        " id INTEGER PRIMARY KEY,"
        " run_id INTEGER REFERENCES runs(id),"
        " batch_id TEXT NOT NULL UNIQUE,"          # the endpoint's id
        " input_file_id TEXT NOT NULL,"
        " status TEXT NOT NULL,"                   # validating | in_progress | ... | completed | failed | expired
        " requests INTEGER NOT NULL,"
        " output_file_id TEXT, error_file_id TEXT, error TEXT,"
        " created_at TEXT NOT NULL,"
        " finished_at TEXT)")
    conn.execute("CREATE INDEX idx_llm_batches_open ON llm_batches (status)")
    conn.execute(
        "CREATE TABLE llm_batch_requests ("
        " batch INTEGER NOT NULL REFERENCES llm_batches(id),"
        " custom_id TEXT NOT NULL,"
        " request_hash TEXT NOT NULL,"             # sha256 of the chat request (model, messages, format, ...)
        " status_code INTEGER,"                    # of the answer line, once the batch completed
        " response TEXT,"                          # the answer line (JSON)
        " PRIMARY KEY (batch, custom_id))")
    conn.execute("CREATE INDEX idx_llm_batch_requests_hash ON llm_batch_requests (request_hash, status_code)")


@migrations()
def m017c_queue_counts(conn: Database) -> None:
    """Issue 18: submissions per (assignment, queue group), kept by triggers, so the review
    queue's group counts read a few rows instead of counting an assignment of 25,000 submissions
    on every page (db.queue.group_counts subtracts the few calibration items still hidden)."""
    conn.execute("CREATE TABLE queue_counts (assignment_id INTEGER NOT NULL, priority INTEGER NOT NULL, "
                 "n INTEGER NOT NULL, PRIMARY KEY (assignment_id, priority)) WITHOUT ROWID")
    conn.execute("INSERT INTO queue_counts SELECT assignment_id, priority, COUNT(*) FROM submissions GROUP BY 1, 2")
    add = ("INSERT INTO queue_counts (assignment_id, priority, n) VALUES ({0}.assignment_id, {0}.priority, 1) "
           "ON CONFLICT DO UPDATE SET n = n + 1")
    sub = "UPDATE queue_counts SET n = n - 1 WHERE assignment_id = {0}.assignment_id AND priority = {0}.priority"
    conn.execute(f"CREATE TRIGGER queue_counts_insert AFTER INSERT ON submissions BEGIN {add.format('NEW')}; END")
    conn.execute(f"CREATE TRIGGER queue_counts_delete AFTER DELETE ON submissions BEGIN {sub.format('OLD')}; END")
    conn.execute("CREATE TRIGGER queue_counts_update AFTER UPDATE OF priority, assignment_id ON submissions "
                 "WHEN OLD.priority IS NOT NEW.priority OR OLD.assignment_id IS NOT NEW.assignment_id "
                 f"BEGIN {sub.format('OLD')}; {add.format('NEW')}; END")


@migrations()
def m018a_comparison_runs(conn: Database) -> None:
    """Drafting a blind comparison is a run (core.run_engine, runs.kind 'comparisons'), so it
    resumes after a restart and its calls carry the run (costs apart from the reflections).
    `comparisons.run_id` links the two; the run's items are the comparison's pairs. A comparison
    still drafting before this migration had no worker left: it gets a stopped run to resume."""
    conn.execute("ALTER TABLE comparisons ADD COLUMN run_id INTEGER REFERENCES runs(id)")
    stuck = list(conn.query(
        "SELECT c.id, c.course_id, c.assignment_id, c.created_by, c.config_a, c.config_b, c.variant_b, "
        "COALESCE(ac.provider, 'openai') AS provider, "
        "(SELECT COUNT(*) FROM comparison_pairs p WHERE p.comparison_id = c.id) AS total "
        "FROM comparisons c LEFT JOIN ai_configs ac ON ac.hash = c.config_a WHERE c.status = 'drafting'"))
    for c in stuck:
        config = {"comparison_id": c["id"], "config_a": c["config_a"], "config_b": c["config_b"],
                  "variant_b": c["variant_b"], "concurrency": 4}
        run_id = conn.execute(
            "INSERT INTO runs (course_id, assignment_id, provider, config, status, total, error, created_by, kind) "
            "VALUES (?, ?, ?, ?, 'failed', ?, 'stopped: interrupted (drafting had no worker after a restart); "
            "resume it', ?, 'comparisons')",
            [c["course_id"], c["assignment_id"], c["provider"], json.dumps(config), c["total"],
             c["created_by"]]).lastrowid
        conn.execute("UPDATE comparisons SET run_id = ? WHERE id = ?", [run_id, c["id"]])


@migrations()
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


@migrations()
def m015a_accounts(conn: Database) -> None:
    """Issue 13: who may do what. Local accounts (an Argon2id hash, never the password), their
    server-side sessions (only a hash of the cookie's random token), failed sign-ins per typed
    name (so an unknown name is slowed down like a known one), grants of courses or departments,
    and the audit log's signed-in user and role beside the name it already keeps."""
    for stmt in _ACCOUNTS.split(";\n"):
        if stmt.strip():
            conn.execute(stmt)


_ACCOUNTS = """
CREATE TABLE users (
    id INTEGER PRIMARY KEY,
    username TEXT NOT NULL UNIQUE COLLATE NOCASE,
    display_name TEXT NOT NULL DEFAULT '',
    email TEXT UNIQUE COLLATE NOCASE,          -- institutional sign-in (OIDC) matches on it
    role TEXT NOT NULL CHECK (role IN ('admin', 'coordinator', 'instructor', 'ta')),
    password_hash TEXT,                        -- Argon2id; NULL: institutional sign-in only
    active INTEGER NOT NULL DEFAULT 1,
    created_by TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    last_signin_at TEXT
);
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,               -- SHA-256 of the cookie's token (never the token)
    user_id INTEGER NOT NULL REFERENCES users(id),
    via TEXT NOT NULL DEFAULT 'password',      -- password | oidc
    created_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    ended_at TEXT
);
CREATE INDEX idx_sessions_user ON sessions (user_id);
CREATE TABLE signin_failures (
    username TEXT PRIMARY KEY COLLATE NOCASE,  -- as typed: unknown names count too
    failures INTEGER NOT NULL DEFAULT 0,
    last_failed_at TEXT NOT NULL,
    locked_until TEXT
);
CREATE TABLE grants (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),
    course_id INTEGER REFERENCES courses(id),
    department TEXT,
    sees_names INTEGER NOT NULL DEFAULT 0,     -- coordinators: student names instead of pseudonyms
    granted_by TEXT NOT NULL DEFAULT '',
    granted_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    CHECK ((course_id IS NULL) <> (department IS NULL))
);
CREATE UNIQUE INDEX idx_grants_course ON grants (user_id, course_id) WHERE course_id IS NOT NULL;
CREATE UNIQUE INDEX idx_grants_department ON grants (user_id, department) WHERE department IS NOT NULL;
ALTER TABLE courses ADD COLUMN department TEXT;
ALTER TABLE audit_log ADD COLUMN user_id INTEGER;
ALTER TABLE audit_log ADD COLUMN role TEXT
"""


@migrations()
def m022a_bulk_holds(conn: Database) -> None:
    """Issue 22: why a draft may not be approved in bulk, decided once when it is stored
    (core.signoff.eligibility): drafts.held_back, a JSON list of {code, text, criteria}. The
    bulk query (db.samples) reads it in SQL, so it stays one statement at any size.

    Drafts stored before this are held back on what their record still says: LLM judges'
    votes that differ from the final score, an unsure or unknown confidence, a veto, the
    offline baseline (which has no confidence per item)."""
    conn.execute("ALTER TABLE drafts ADD COLUMN held_back TEXT NOT NULL DEFAULT '[]'")
    conn.execute("""
        UPDATE drafts SET held_back = (SELECT json_group_array(json_object('code', code, 'text', text,
                                                                       'criteria', json('[]')))
          FROM (SELECT 'votes_split' AS code, 'The judges gave different scores: check them before approving.' AS text
                WHERE EXISTS (SELECT 1 FROM judge_votes v WHERE v.subject = 'submission' AND v.draft_id = drafts.id
                              AND v.tier >= 1 AND v.score <> json_extract(drafts.scores, '$.' || v.criterion))
                UNION ALL SELECT 'unsure', 'The AI was not sure of its scores and no other judge settled them.'
                WHERE drafts.is_offline = 0 AND (drafts.judging IN ('', '{}')
                      OR json_array_length(json_extract(drafts.judging, '$.unsure')) > 0
                      OR json_extract(drafts.judging, '$.route') IN
                         ('low_confidence', 'confidence_unknown', 'judges_failed', 'judges_disagree'))
                UNION ALL SELECT 'veto', 'A criterion scored below the rubric''s veto level.'
                WHERE json_array_length(json_extract(drafts.judging, '$.vetoed')) > 0
                UNION ALL SELECT 'offline_only', 'Drafted by the offline baseline, which says nothing about how sure '
                       || 'it is of one item: it can be approved in bulk only once the baseline''s own blind agreement '
                       || 'on this assignment clears the readiness bar.'
                WHERE drafts.is_offline = 1))""")


@migrations()
def m022f_llm_calls_answer_logprobs(conn: Database) -> None:
    """Issue 22 (one meaning of "unsure"): llm_calls.answer_logprobs keeps an answer's own token
    logprobs with the raw text they align to (JSON {raw, tokens}), for schemas whose confidence
    is read from them (the lesson judge), so a cached answer keeps the first answer's confidence
    instead of becoming "unknown"."""
    conn.execute("ALTER TABLE llm_calls ADD COLUMN answer_logprobs TEXT")


@migrations()
def m023p_dashboard_scopes(conn: Database) -> None:
    """Issue 23 (scale since sign-in): what keeps a dashboard's cost flat for every role.

    - agg_groups: the courses of each group scope of agg_cells ('g<hash>', db.aggregates.
      ensure_group): a user's granted courses summed once and kept up to date by the refresh,
      so "all courses" for a coordinator granted 250 courses reads one scope's rows, not 250;
    - the newest submissions two or more versions scored, in every course (judge_view), by an
      index walk instead of a scan of agg_subs;
    - the students with a teacher's score (anchored_view), per course or looked up student by
      student, from an index of those pairs only."""
    conn.execute("CREATE TABLE agg_groups (scope TEXT NOT NULL, course_id INTEGER NOT NULL, "
                 "PRIMARY KEY (scope, course_id)) WITHOUT ROWID")
    conn.execute("CREATE INDEX idx_agg_groups_course ON agg_groups (course_id, scope)")
    conn.execute("CREATE INDEX idx_agg_subs_versions_all ON agg_subs (submission_id) WHERE multi_version = 1")
    conn.execute("CREATE INDEX idx_agg_pairs_teacher ON agg_pairs (student_id, rubric_id) WHERE teacher IS NOT NULL")
    conn.execute("CREATE INDEX idx_agg_pairs_teacher_course ON agg_pairs (course_id, rubric_id, student_id) "
                 "WHERE teacher IS NOT NULL")
