"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


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
