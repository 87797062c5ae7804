"""The data layer: migrations on a blank database, the import writer, pseudonyms."""
import sqlite3
from pathlib import Path

import pytest

import db as dbmod
from core.ingest.commit import ReadyRow, text_hash
from core.rubric import default_rubric
from db import submissions
from core.accounts.access import Actor

EXPECTED_COLUMNS = {
    "courses": {"id", "name", "description", "is_synthetic", "created_at"},
    "rubrics": {"id", "name", "version", "definition", "content_hash", "created_at"},
    "assignments": {"id", "course_id", "title", "week", "prompt", "key_concepts", "target_grade", "answer_key",
                    "rubric_id", "created_at"},
    "students": {"id", "course_id", "external_id", "name", "email", "pseudonym", "attributes", "created_at"},
    "submissions": {"id", "assignment_id", "student_id", "text", "text_hash", "word_count", "source_file",
                    "source_row", "status", "current_draft_id", "priority", "created_at"},
    "reference_scores": {"id", "submission_id", "rater", "criterion", "score"},
    "runs": {"id", "course_id", "assignment_id", "provider", "config", "prompt_hashes", "status", "total",
             "cancel_requested", "error", "created_by", "heartbeat_at", "created_at", "started_at", "finished_at"},
    "run_items": {"run_id", "subject", "subject_id", "status", "error", "finished_at"},
    "llm_calls": {"id", "run_id", "submission_id", "agent", "model", "prompt_name", "prompt_hash", "input_hash",
                  "temperature", "cache_key", "response", "tokens_in", "tokens_out", "tokens_cached", "latency_ms",
                  "cost_usd", "status", "cache_hit", "error", "request_id", "attempts", "created_at"},
    "drafts": {"id", "submission_id", "run_id", "rubric_id", "provider", "is_offline", "models", "prompt_hashes",
               "scores", "total", "outputs", "comment", "checks", "verdict",
               "revisions", "rounds", "confidence", "flags", "attention_reasons", "status", "error", "created_at"},
    "reviews": {"id", "submission_id", "draft_id", "version", "scores", "comment", "status", "edited",
                "reason_codes", "note", "opened_at", "updated_by", "updated_at", "approved_by", "approved_at"},
    "audit_log": {"id", "at", "actor", "action", "entity", "entity_id", "submission_id", "before", "after", "reason"},
    "releases": {"id", "assignment_id", "released_by", "released_at", "n_items", "note"},
    "release_items": {"release_id", "submission_id", "review_version", "scores", "comment", "is_offline"},
}


def test_migrations_create_every_table_with_its_columns(tmp_path):
    path = tmp_path / "blank.db"
    conn = dbmod.connect(path)
    try:
        for table, columns in EXPECTED_COLUMNS.items():
            got = {c.name for c in conn[table].columns}
            assert columns <= got, f"{table} lacks {columns - got}"
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        applied = [r["name"] for r in conn.query("SELECT name FROM _sqlite_migrations")]
        assert applied[0] == "m001_initial"
    finally:
        conn.close()
        dbmod.forget_migrated(path)


def test_every_migration_module_is_registered_once_under_its_own_name_in_order():
    """A module in db/migrations/ left out of ORDER would never be applied; each registered
    name is its module's, the name the database records."""
    from sqlite_utils import Database

    from db import migrations as package

    modules = sorted(p.stem for p in Path(package.__file__).parent.glob("*.py") if p.stem != "__init__")
    assert sorted(package.ORDER) == modules
    assert [m.name for m in package.migrations.pending(Database(memory=True))] == list(package.ORDER)


def test_draft_outputs_migration_folds_the_per_role_columns_into_one_without_losing_a_draft(tmp_path):
    from sqlite_utils import Database

    from db.schema import migrations

    path = tmp_path / "old.db"
    conn = Database(sqlite3.connect(path))
    migrations.apply(conn, stop_before="m007_draft_outputs")
    conn.execute("INSERT INTO courses (name) VALUES ('c')")
    conn.execute("INSERT INTO rubrics (name, version, definition, content_hash) VALUES ('r', 1, '{}', 'h')")
    conn.execute("INSERT INTO assignments (course_id, title, rubric_id) VALUES (1, 'a', 1)")
    conn.execute("INSERT INTO students (course_id, external_id, pseudonym) VALUES (1, 's', 'Student-X')")
    conn.execute("INSERT INTO submissions (assignment_id, student_id, text, text_hash, word_count) "
                 "VALUES (1, 1, 't', 'h', 1)")
    ev = {"clarity": {"score": 2, "reasoning": "ok", "areas_for_improvement": ["x"], "evidence_quote": ""}}
    conn.execute("INSERT INTO drafts (submission_id, rubric_id, provider, scores, evaluation, equity, coach, "
                 "reviewer, comment, status) VALUES (1, 1, 'fake', '{\"clarity\": 2}', ?, ?, ?, '{}', 'c', "
                 "'needs_attention')", [dbmod.dumps(ev), dbmod.dumps({"flags": []}), dbmod.dumps({"questions": ["Why?"]})])
    conn.execute("INSERT INTO drafts (submission_id, rubric_id, provider, scores, status) "
                 "VALUES (1, 1, 'fake', '{}', 'failed')")
    conn.conn.commit()
    migrations.apply(conn)
    outputs = [dbmod.loads(r[0]) for r in conn.execute("SELECT outputs FROM drafts ORDER BY id")]
    # The Reviewer had failed ('{}'): left out, as the pipeline now stores it.
    assert outputs == [{"evaluator": ev, "equity": {"flags": []}, "coach": {"questions": ["Why?"]}}, {}]
    assert not {"evaluation", "equity", "coach", "reviewer"} & {c.name for c in conn["drafts"].columns}
    conn.close()


def test_one_run_items_table_takes_the_lesson_run_items_in_their_order(tmp_path):
    """m018b: lesson runs' items move into run_items (subject 'lesson'); a reflection run's stay
    (subject 'submission'); the queue order (rowid) of each run is kept."""
    from sqlite_utils import Database

    from db import runs as runs_db
    from db.schema import migrations

    path = tmp_path / "old.db"
    conn = Database(sqlite3.connect(path))
    migrations.apply(conn, stop_before="m018b_run_items")
    conn.execute("PRAGMA foreign_keys = OFF")    # items only; the rows they name do not matter here
    conn.execute("INSERT INTO courses (name) VALUES ('c')")
    conn.execute("INSERT INTO runs (id, course_id, provider, config, prompt_hashes, status, total) "
                 "VALUES (1, 1, 'offline', '{}', '{}', 'failed', 3)")
    conn.execute("INSERT INTO runs (id, course_id, kind, provider, config, prompt_hashes, status, total) "
                 "VALUES (2, 1, 'lessons', 'offline', '{}', '{}', 'failed', 3)")
    for sid, status in ((9, "done"), (4, "pending"), (7, "pending")):
        conn.execute("INSERT INTO run_items (run_id, submission_id, status) VALUES (1, ?, ?)", [sid, status])
    for lid, status in ((5, "pending"), (2, "needs_review"), (8, "pending")):
        conn.execute("INSERT INTO lesson_run_items (run_id, lesson_id, status) VALUES (2, ?, ?)", [lid, status])
    conn.conn.commit()
    migrations.apply(conn)
    assert "lesson_run_items" not in conn.table_names()
    assert runs_db.pending_items(conn, 1) == [4, 7] and runs_db.pending_items(conn, 2) == [5, 8]
    assert runs_db.item_counts(conn, 2) == {"pending": 2, "done": 0, "needs_review": 1, "failed": 0, "skipped": 0}
    assert {r[0]: r[1] for r in conn.execute("SELECT run_id, subject FROM run_items")} == {1: "submission",
                                                                                           2: "lesson"}
    conn.close()


def test_migrations_are_applied_once(tmp_path):
    path = tmp_path / "twice.db"
    dbmod.connect(path).close()
    dbmod.forget_migrated(path)
    conn = dbmod.connect(path)  # a second process opening the same file
    names = [r["name"] for r in conn.query("SELECT name FROM _sqlite_migrations")]
    assert len(names) == len(set(names))
    conn.close()
    dbmod.forget_migrated(path)


def _row(sid="s1", text="I learned how temperature changes sampling.", scores=None, assignment="Week 1"):
    return ReadyRow("f.csv", 2, assignment, sid, "Ada Lovelace", "ada@example.edu", {"section": "A"}, text,
                    text_hash(text), len(text.split()), scores or {})


def _write(conn, rows):
    rubric = default_rubric()
    return submissions.write_import(conn, actor=Actor("t", role="admin"), course_name="C", new_assignments={"Week 1": 1},
                                    rubric_by_assignment={"Week 1": rubric}, rows=rows, summary={"files": ["f.csv"]})


def test_write_import_writes_everything_and_audits(conn):
    out = _write(conn, [_row(scores={"expert": {"clarity": 2}}), _row("s2", "Another reflection text.")])
    assert out["imported"] == 2 and out["new_students"] == 2
    counts = submissions.table_counts(conn)
    assert counts["submissions"] == 2 and counts["students"] == 2 and counts["reference_scores"] == 1
    actions = [(r["action"], r["entity"]) for r in conn.query("SELECT action, entity FROM audit_log")]
    assert actions.count(("import", "submissions")) == 2 and ("import", "imports") in actions
    assert submissions.recent_imports(conn)[0]["after"]["imported"] == 2


def test_write_import_is_all_or_nothing_on_a_database_error(conn):
    before = submissions.table_counts(conn)
    bad = _row("s2", scores={"expert": {"clarity": None}})  # NOT NULL violation half way through
    with pytest.raises(sqlite3.IntegrityError):
        _write(conn, [_row(), bad])
    assert submissions.table_counts(conn) == before


def test_duplicate_rows_are_skipped_and_counted(conn):
    _write(conn, [_row()])
    again = _write(conn, [_row()])
    assert again["imported"] == 0 and again["duplicates"] == 1
    assert submissions.table_counts(conn)["submissions"] == 1


def test_pseudonym_is_random_and_unrelated_to_the_name(conn):
    _write(conn, [_row("s1"), _row("s2", "Second text here.")])
    rows = list(conn.query("SELECT name, pseudonym FROM students"))
    pseudonyms = {r["pseudonym"] for r in rows}
    assert len(pseudonyms) == 2
    for r in rows:
        assert r["pseudonym"].startswith("Student-")
        assert not any(part.lower() in r["pseudonym"].lower() for part in r["name"].split())


def test_existing_student_keeps_values_and_gains_new_attributes(conn):
    _write(conn, [_row()])
    row = _row(text="A later reflection.")
    row.attributes = {"section": "B", "ell": "yes"}
    _write(conn, [row])
    attrs = dbmod.loads(conn.execute("SELECT attributes FROM students").fetchone()[0])
    assert attrs == {"section": "A", "ell": "yes"}


def test_bulk_holds_migration_holds_back_older_drafts_on_what_their_record_says(tmp_path):
    """m022a: drafts stored before issue 22 get drafts.held_back from their votes and judging: a
    split vote, an unsure or unknown confidence, a veto, the offline baseline; a settled draft
    whose judges agreed stays eligible."""
    from sqlite_utils import Database

    from db.schema import migrations

    conn = Database(sqlite3.connect(tmp_path / "old.db"))
    migrations.apply(conn, stop_before="m022a_bulk_holds")
    conn.execute("PRAGMA foreign_keys = OFF")    # drafts only; the rows they name do not matter here
    settled = dbmod.dumps({"route": "consensus", "unsure": [], "vetoed": []})
    rows = {"agreed": ("openai", 0, settled), "split": ("openai", 0, settled),
            "unsure": ("openai", 0, dbmod.dumps({"route": "low_confidence", "unsure": ["clarity"], "vetoed": []})),
            "unknown": ("openai", 0, "{}"), "veto": ("openai", 0, dbmod.dumps({"route": "confident", "vetoed": ["clarity"]})),
            "offline": ("offline", 1, dbmod.dumps({"route": "offline"}))}
    ids = {}
    for name, (provider, offline, judging) in rows.items():
        ids[name] = conn.execute("INSERT INTO drafts (submission_id, rubric_id, provider, is_offline, scores, status, "
                                 "judging) VALUES (1, 1, ?, ?, '{\"clarity\": 2}', 'drafted', ?)",
                                 [provider, offline, judging]).lastrowid
    for name, scores in (("agreed", (2, 2)), ("split", (2, 3))):
        for tier, score in enumerate(scores, start=1):
            conn.execute("INSERT INTO judge_votes (subject, subject_id, draft_id, criterion, judge, tier, score) "
                         "VALUES ('submission', 1, ?, 'clarity', ?, ?, ?)", [ids[name], f"j{tier}", tier, score])
    conn.conn.commit()
    migrations.apply(conn)
    held = {name: [r["code"] for r in dbmod.loads(conn.execute("SELECT held_back FROM drafts WHERE id = ?",
                                                                [did]).fetchone()[0])] for name, did in ids.items()}
    assert held == {"agreed": [], "split": ["votes_split"], "unsure": ["unsure"], "unknown": ["unsure"],
                    "veto": ["veto"], "offline": ["offline_only"]}
    conn.close()
