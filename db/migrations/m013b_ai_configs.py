"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


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
