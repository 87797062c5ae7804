"""Blind pairwise comparisons of two AI configurations (issue 16): the comparison, its pairs
(one submission drafted by A and by B, with the side B is shown on) and the teachers' choices.

Nothing here tells a page which side is A: `pair_for_teacher` returns the pair as left/right
text only; `save_choices` receives left/right and translates with the stored `b_on_left`.

Drafting the pairs is a run (runs.kind 'comparisons', core.runs.engine): the comparison's
`run_id`; its items are the pairs, named by their submission (pending: not drafted, no error).
A comparison's status follows its run: drafting while the run is queued or running, ready when
it is done, failed when it stopped (resumable).
"""
from __future__ import annotations

from sqlite_utils import Database

from db import dumps, loads, now
from db.calibration import BLIND_PENDING

# A drafted pair whose two comments are the same (SQL on comparison_pairs `p`): skipped, nothing
# to choose between. It counts as drafted for the run, never as a pair for teachers.
# Spaces, tabs and line breaks at either end do not count (core.evals.comparison_runs.same_comment).
WHITESPACE = " \t\n\r"
DRAFTED = "p.comment_a IS NOT NULL AND p.comment_b IS NOT NULL"
_TRIM = "trim(p.comment_{}, char(32) || char(9) || char(10) || char(13))"
SAME = f"({DRAFTED} AND {_TRIM.format('a')} = {_TRIM.format('b')})"
TO_JUDGE = f"{DRAFTED} AND {_TRIM.format('a')} != {_TRIM.format('b')}"


def candidates(conn: Database, course_id: int, assignment_id: int | None) -> list[dict]:
    """Submissions a comparison may sample (with text), with their current draft's total and
    the rubric's scale, for stratification: {submission_id, total, n_criteria, status}. A
    calibration item nobody has scored blind is left out: configuration A's comment on it would
    be its hidden draft (the same cached calls)."""
    sql = ("SELECT s.id AS submission_id, d.total, s.status FROM submissions s "
           "JOIN assignments a ON a.id = s.assignment_id LEFT JOIN drafts d ON d.id = s.current_draft_id "
           f"WHERE a.course_id = ? AND s.word_count > 0 AND NOT {BLIND_PENDING}")
    args: list = [course_id]
    if assignment_id is not None:
        sql += " AND s.assignment_id = ?"
        args.append(assignment_id)
    return list(conn.query(sql + " ORDER BY s.id", args))


def create(conn: Database, *, course_id: int, assignment_id: int | None, config_a: str, config_b: str,
           variant_b: str, seed: int, pairs: list[dict], created_by: str, provider: str, run_config: dict) -> int:
    """The comparison, its drafting run (queued) and its pairs ({submission_id, stratum, position,
    b_on_left}) in one transaction."""
    with conn.atomic():
        cid = conn.execute(
            "INSERT INTO comparisons (course_id, assignment_id, config_a, config_b, variant_b, sample_size, seed, "
            "status, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'drafting', ?, ?)",
            [course_id, assignment_id, config_a, config_b, variant_b, len(pairs), seed, created_by, now()]).lastrowid
        run_id = conn.execute(
            "INSERT INTO runs (course_id, assignment_id, provider, config, status, total, created_by, kind) "
            "VALUES (?, ?, ?, ?, 'queued', ?, ?, 'comparisons')",
            [course_id, assignment_id, provider, dumps({**run_config, "comparison_id": cid}), len(pairs),
             created_by]).lastrowid
        conn.execute("UPDATE comparisons SET run_id = ? WHERE id = ?", [run_id, cid])
        conn.conn.executemany(
            "INSERT INTO comparison_pairs (comparison_id, submission_id, stratum, position, b_on_left) "
            "VALUES (?, ?, ?, ?, ?)",
            [(cid, p["submission_id"], p["stratum"], p["position"], int(p["b_on_left"])) for p in pairs])
    return cid


# The comparison's status and error as its drafting run says (a comparison older than its run
# keeps its own columns).
_WITH_RUN = ("SELECT c.id, c.course_id, c.assignment_id, c.config_a, c.config_b, c.variant_b, c.sample_size, c.seed, "
             "c.created_by, c.created_at, c.run_id, "
             "CASE WHEN ru.id IS NULL THEN c.status WHEN ru.status = 'done' THEN 'ready' "
             "WHEN ru.status IN ('failed', 'cancelled') THEN 'failed' ELSE 'drafting' END AS status, "
             "CASE WHEN ru.id IS NULL THEN c.error ELSE ru.error END AS error "
             "FROM comparisons c LEFT JOIN runs ru ON ru.id = c.run_id")


def get(conn: Database, comparison_id: int) -> dict | None:
    return next(conn.query(f"{_WITH_RUN} WHERE c.id = ?", [comparison_id]), None)


def of_run(conn: Database, run_id: int) -> dict | None:
    return next(conn.query(f"{_WITH_RUN} WHERE c.run_id = ?", [run_id]), None)


def list_for_course(conn: Database, course_id: int) -> list[dict]:
    return list(conn.query(
        f"SELECT x.*, (SELECT COUNT(*) FROM comparison_pairs p WHERE p.comparison_id = x.id AND {TO_JUDGE}) AS drafted, "
        f"(SELECT COUNT(*) FROM comparison_pairs p WHERE p.comparison_id = x.id AND {SAME}) AS skipped, "
        f"(SELECT COUNT(*) FROM comparison_pairs p WHERE p.comparison_id = x.id AND p.error IS NOT NULL) AS failed "
        f"FROM ({_WITH_RUN} WHERE c.course_id = ?) x ORDER BY x.id DESC", [course_id]))


# --- the drafting run's items: the pairs, named by their submission ------------------------------
_OF_RUN = "comparison_id = (SELECT id FROM comparisons WHERE run_id = ?)"


def pending_items(conn: Database, run_id: int) -> list[int]:
    """Submissions whose pair is not drafted yet and did not fail, in the teachers' order."""
    return [r[0] for r in conn.execute(
        f"SELECT submission_id FROM comparison_pairs WHERE {_OF_RUN} AND comment_b IS NULL AND error IS NULL "
        "ORDER BY position", [run_id])]


def pair_to_draft(conn: Database, run_id: int, submission_id: int) -> int | None:
    """The id of this submission's pair while it still waits for its drafts."""
    row = conn.execute(f"SELECT id FROM comparison_pairs WHERE {_OF_RUN} AND submission_id = ? "
                       "AND comment_b IS NULL AND error IS NULL", [run_id, submission_id]).fetchone()
    return None if row is None else row[0]


def item_counts(conn: Database, run_id: int) -> dict[str, int]:
    row = conn.execute(
        "SELECT COALESCE(SUM(comment_b IS NULL AND error IS NULL), 0), COALESCE(SUM(comment_b IS NOT NULL), 0), "
        f"COALESCE(SUM(error IS NOT NULL), 0) FROM comparison_pairs WHERE {_OF_RUN}", [run_id]).fetchone()
    return {"pending": row[0], "done": row[1], "failed": row[2]}


def reopen_items(conn: Database, run_id: int, submission_ids: list[int]) -> int:
    """Pairs a configuration fault failed before it was recognised wait again (the resume retries them)."""
    if not submission_ids:
        return 0
    return conn.execute(
        f"UPDATE comparison_pairs SET error = NULL WHERE {_OF_RUN} AND comment_b IS NULL AND submission_id IN "
        f"({', '.join('?' for _ in submission_ids)})", [run_id, *submission_ids]).rowcount


def save_drafts(conn: Database, pair_id: int, *, draft_a: dict, draft_b: dict, judge_a: dict | None,
                judge_b: dict | None, judge_choice: str | None) -> None:
    conn.execute(
        "UPDATE comparison_pairs SET comment_a = ?, comment_b = ?, draft_a = ?, draft_b = ?, judge_a = ?, "
        "judge_b = ?, judge_choice = ?, error = NULL WHERE id = ?",
        [draft_a.get("comment") or "", draft_b.get("comment") or "", dumps(draft_a), dumps(draft_b),
         None if judge_a is None else dumps(judge_a), None if judge_b is None else dumps(judge_b), judge_choice,
         pair_id])


def save_error(conn: Database, pair_id: int, error: str) -> None:
    conn.execute("UPDATE comparison_pairs SET error = ? WHERE id = ?", [error[:2000], pair_id])


def pair_for_teacher(conn: Database, comparison_id: int, teacher: str) -> dict | None:
    """The next drafted pair this teacher has not judged, as left/right text (never A/B)."""
    row = next(conn.query(
        "SELECT p.id AS pair_id, p.position, p.submission_id, s.text AS submission, "
        "CASE WHEN p.b_on_left = 1 THEN p.comment_b ELSE p.comment_a END AS left_comment, "
        "CASE WHEN p.b_on_left = 1 THEN p.comment_a ELSE p.comment_b END AS right_comment "
        "FROM comparison_pairs p JOIN submissions s ON s.id = p.submission_id "
        f"WHERE p.comparison_id = ? AND {TO_JUDGE} "
        "AND NOT EXISTS (SELECT 1 FROM pair_choices c WHERE c.pair_id = p.id AND c.teacher = ?) "
        "ORDER BY p.position LIMIT 1", [comparison_id, teacher]), None)
    return row


def progress(conn: Database, comparison_id: int, teacher: str) -> dict:
    """{pairs drafted to judge, skipped (the same comment twice), judged by this teacher}."""
    drafted, skipped = conn.execute(f"SELECT COALESCE(SUM({TO_JUDGE}), 0), COALESCE(SUM({SAME}), 0) "
                                    "FROM comparison_pairs p WHERE p.comparison_id = ?", [comparison_id]).fetchone()
    judged = conn.execute("SELECT COUNT(DISTINCT pair_id) FROM pair_choices WHERE comparison_id = ? AND teacher = ?",
                          [comparison_id, teacher]).fetchone()[0]
    return {"pairs": drafted, "skipped": skipped, "judged": judged}


def save_choices(conn: Database, pair_id: int, teacher: str, choices: dict[str, str]) -> dict[str, str]:
    """Store {dimension: left|right|tie} as A|B|tie (the caller's transaction); returns what was stored.
    A second choice by the same teacher on the same pair and dimension violates the unique key."""
    row = conn.execute("SELECT comparison_id, b_on_left FROM comparison_pairs WHERE id = ?", [pair_id]).fetchone()
    comparison_id, b_on_left = row
    side = {"left": "B" if b_on_left else "A", "right": "A" if b_on_left else "B", "tie": "tie"}
    stored = {dim: side[choice] for dim, choice in choices.items()}
    conn.conn.executemany(
        "INSERT INTO pair_choices (pair_id, comparison_id, teacher, dimension, choice, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?)", [(pair_id, comparison_id, teacher, dim, c, now()) for dim, c in stored.items()])
    return stored


def choices(conn: Database, comparison_id: int) -> list[dict]:
    """Every teacher choice with the pair's judge verdict: {pair_id, teacher, dimension, choice, judge_choice}."""
    return list(conn.query(
        "SELECT c.pair_id, c.teacher, c.dimension, c.choice, p.judge_choice FROM pair_choices c "
        "JOIN comparison_pairs p ON p.id = c.pair_id WHERE c.comparison_id = ? ORDER BY c.id", [comparison_id]))


def pairs(conn: Database, comparison_id: int) -> list[dict]:
    rows = list(conn.query(f"SELECT id, submission_id, stratum, position, b_on_left, judge_choice, error, "
                           f"judge_a, judge_b, {SAME} AS same FROM comparison_pairs p WHERE comparison_id = ? "
                           "ORDER BY position", [comparison_id]))
    for r in rows:
        r["judge_a"], r["judge_b"] = loads(r["judge_a"], None), loads(r["judge_b"], None)
    return rows


# --- the pedagogy judge's trust threshold (an admin's setting) -------------------------------
TRUST_KEY = "pedagogy_judge_min_agreement"


def get_trust_threshold(conn: Database, default: float) -> float:
    row = conn.execute("SELECT value FROM app_settings WHERE key = ?", [TRUST_KEY]).fetchone()
    return default if row is None else float(loads(row[0], default))


def set_trust_threshold(conn: Database, value: float) -> None:
    conn.execute("INSERT INTO app_settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET "
                 "value = excluded.value", [TRUST_KEY, dumps(value)])


def latest_ready(conn: Database) -> list[int]:
    """Ids of comparisons with teacher choices, newest first (for the judge's trust)."""
    return [r[0] for r in conn.execute(
        "SELECT DISTINCT comparison_id FROM pair_choices ORDER BY comparison_id DESC").fetchall()]
