"""AI configurations, eval-suite runs, admin overrides and saved eval cases (issue 16).

A configuration row is written once, the first time it is used (INSERT OR IGNORE), so
`first_used_*` stays true; eval runs and overrides only ever add rows.
"""
from __future__ import annotations

from sqlite_utils import Database

from db import dumps, loads, now


# --- configurations ---------------------------------------------------------------------
def record_config(conn: Database, config_hash: str, definition: dict, *, variant: str = "", used_by: str = "",
                  used_for: str = "") -> bool:
    """Record a configuration when first used; True when this call recorded it."""
    return conn.execute(
        "INSERT OR IGNORE INTO ai_configs (hash, provider, definition, variant, first_used_at, first_used_by, "
        "first_used_for) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [config_hash, definition.get("provider", ""), dumps(definition), variant, now(), used_by, used_for],
    ).rowcount == 1


def get_config(conn: Database, config_hash: str) -> dict | None:
    row = next(conn.query("SELECT * FROM ai_configs WHERE hash = ?", [config_hash]), None)
    if row:
        row["definition"] = loads(row["definition"], {})
    return row


def list_configs(conn: Database, limit: int = 50) -> list[dict]:
    """Configurations, newest first, with their latest eval run's outcome (NULL when none)."""
    return list(conn.query(
        "SELECT c.hash, c.provider, c.variant, c.first_used_at, c.first_used_by, c.first_used_for, "
        " e.id AS eval_run, e.blocking_failed, e.blocking_not_run, e.cases, e.suite_version, "
        " e.created_at AS evaluated_at, "
        " (SELECT COUNT(*) FROM ai_config_overrides o WHERE o.config_hash = c.hash) AS overrides "
        "FROM ai_configs c LEFT JOIN eval_runs e ON e.id = "
        " (SELECT MAX(id) FROM eval_runs WHERE config_hash = c.hash) "
        "ORDER BY c.first_used_at DESC LIMIT ?", [limit]))


# --- eval runs ----------------------------------------------------------------------------
def save_eval_run(conn: Database, config_hash: str, report: dict, *, suite: str, created_by: str = "") -> int:
    blocking_not_run = sum(1 for r in report["results"] if r["blocking"] and r["status"] == "not_run")
    return conn.execute(
        "INSERT INTO eval_runs (config_hash, suite_version, suite, provider, cases, passed, failed, not_run, "
        "blocking_failed, blocking_not_run, report, created_by, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [config_hash, report["suite_version"], suite, report["provider"], report["cases"], report["passed"],
         report["failed"], report["not_run"], len(report["blocking_failed"]), blocking_not_run, dumps(report),
         created_by, now()]).lastrowid


def latest_eval_run(conn: Database, config_hash: str) -> dict | None:
    row = next(conn.query("SELECT * FROM eval_runs WHERE config_hash = ? ORDER BY id DESC LIMIT 1",
                          [config_hash]), None)
    if row:
        row["report"] = loads(row["report"], {})
    return row


def eval_runs(conn: Database, limit: int = 20) -> list[dict]:
    """Recent eval runs without their reports (what a list shows)."""
    return list(conn.query(
        "SELECT id, config_hash, suite_version, suite, provider, cases, passed, failed, not_run, blocking_failed, "
        "blocking_not_run, created_by, created_at FROM eval_runs ORDER BY id DESC LIMIT ?", [limit]))


# --- overrides ----------------------------------------------------------------------------
def add_override(conn: Database, config_hash: str, *, actor: str, reason: str) -> int:
    return conn.execute(
        "INSERT INTO ai_config_overrides (config_hash, actor, reason, created_at) VALUES (?, ?, ?, ?)",
        [config_hash, actor, reason, now()]).lastrowid


def latest_override(conn: Database, config_hash: str) -> dict | None:
    return next(conn.query("SELECT * FROM ai_config_overrides WHERE config_hash = ? ORDER BY id DESC LIMIT 1",
                           [config_hash]), None)


# --- saved eval cases -----------------------------------------------------------------------
def save_case(conn: Database, *, submission_id: int, draft_id: int | None, dimension: str, reason: str,
              case: dict, saved_by: str) -> int:
    return conn.execute(
        "INSERT INTO saved_eval_cases (submission_id, draft_id, dimension, reason, case_json, saved_by, saved_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [submission_id, draft_id, dimension, reason, dumps(case), saved_by, now()]).lastrowid


def saved_cases(conn: Database, course_ids: list[int] | None = None) -> list[dict]:
    """Every saved case, or those of these courses' submissions (one condition in SQL)."""
    if course_ids is None:
        rows = list(conn.query("SELECT * FROM saved_eval_cases ORDER BY id"))
    else:
        rows = list(conn.query(
            "SELECT c.* FROM saved_eval_cases c JOIN submissions s ON s.id = c.submission_id "
            "JOIN assignments a ON a.id = s.assignment_id "
            f"WHERE a.course_id IN ({', '.join('?' * len(course_ids))}) ORDER BY c.id", list(course_ids)))
    for r in rows:
        r["case"] = loads(r.pop("case_json"), {})
    return rows


def saved_case_ids_of(conn: Database, submission_id: int) -> list[int]:
    return [r[0] for r in conn.execute("SELECT id FROM saved_eval_cases WHERE submission_id = ? ORDER BY id",
                                       [submission_id]).fetchall()]


def case_source(conn: Database, submission_id: int) -> dict | None:
    """What a saved eval case is built from: the submission, its student (to pseudonymise), its
    assignment, the current AI draft's comment and the teacher's version."""
    row = next(conn.query(
        "SELECT s.id, s.text, s.current_draft_id, st.name AS student_name, st.email AS student_email, st.pseudonym, "
        "a.prompt, a.key_concepts, a.target_grade, a.answer_key, a.answer_kind, a.answer_tolerance, a.source_text, "
        "d.comment AS draft_comment, r.comment AS review_comment, r.edited "
        "FROM submissions s JOIN students st ON st.id = s.student_id JOIN assignments a ON a.id = s.assignment_id "
        "LEFT JOIN drafts d ON d.id = s.current_draft_id LEFT JOIN reviews r ON r.submission_id = s.id "
        "WHERE s.id = ?", [submission_id]), None)
    if row:
        row["key_concepts"] = loads(row["key_concepts"], [])
    return row
