"""Queries behind the Agreement, Fairness and Costs dashboards: SQL and the counts it returns.

SQL does the heavy lifting: each query turns the submissions in scope into a small table of
counts — one row per distinct (criterion, ai, reference[, week, model version, group, word
count]) — and `core.reports` computes every figure and bootstrap CI from those counts. So a
page costs one scan of the data plus a fixed amount of arithmetic, at 100 or 100,000
submissions.

Which scores are compared:
- AI = the draft's own scores before any teacher edit: the draft the teacher's review started
  from, else the submission's current draft.
- reference, per (submission, criterion), by `reference` — honest references first:
  "auto"    uploaded expert scores where present (mean of the raters), else blind calibration
            scores (mean of the raters; scored before seeing the AI's draft);
  "expert"  uploaded expert scores only (mean of the raters);
  "rater:NAME" one uploaded rater;
  "blind"   blind calibration scores only (Calibrate page, or uploads declared as calibration);
  "teacher" teachers' final scores given AFTER SEEING THE AI DRAFT (review approved one by one,
            or the submission released), shown apart and labelled so: anchored on the AI.
  Bulk approvals are never a reference: they copy the AI's scores.
- `student` (a dimension) names each pair's student, so intervals can resample students.
Scope: "assignment" (one assignment), "course" (one course) or "all" (every course).
"""
from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from dataclasses import dataclass

import pandas as pd
from sqlite_utils import Database

from db import file_of, loads

REFERENCE_CHOICES = ("auto", "expert", "blind", "teacher")
COMMENT_SAMPLE = 300  # edited comments compared for edit distance (newest first)
JUDGE_SAMPLE = 2000  # newest submissions scored by two or more model/prompt versions


@dataclass(frozen=True)
class Scope:
    kind: str = "all"  # assignment | course | all
    course_id: int | None = None
    assignment_id: int | None = None
    courses: tuple[int, ...] | None = None  # "all" limited to these (a user's granted courses)

    def where(self, sub: str = "s", asg: str = "a") -> tuple[str, list]:
        if self.kind == "assignment":
            return (f"{sub}.assignment_id = ?", [self.assignment_id]) if self.assignment_id else ("0", [])
        if self.kind == "course":
            return (f"{asg}.course_id = ?", [self.course_id]) if self.course_id else ("0", [])
        if self.courses is not None:
            return (f"{asg}.course_id IN ({', '.join('?' * len(self.courses))})", list(self.courses)) \
                if self.courses else ("0", [])
        return "1", []


def _reference_sql(reference: str) -> tuple[str, str, list]:
    """(reference expression, its source expression over the inner columns `expert`/`blind`/
    `teacher`, expert-subquery args)."""
    if reference == "auto":
        return ("COALESCE(expert, blind)", "CASE WHEN expert IS NOT NULL THEN 'expert' ELSE 'blind' END", [])
    if reference in ("expert", "blind", "teacher"):
        return reference, f"'{reference}'", []
    if reference.startswith("rater:") and reference.removeprefix("rater:"):
        return "expert", "'expert'", [reference.removeprefix("rater:")]
    raise ValueError(f"reference must be one of {REFERENCE_CHOICES} or 'rater:NAME', not {reference!r}")


# A model/prompt version as "provider model · prompt <hash>"; the offline baseline is
# OFFLINE_VERSION (core/reports names it in the teachers' words).
OFFLINE_VERSION = "offline"
VERSION_SQL = (f"CASE WHEN d.is_offline = 1 THEN '{OFFLINE_VERSION}' "
               "ELSE d.provider || ' ' || COALESCE(json_extract(d.models, '$.evaluator'), '?') END "
               "|| ' · prompt ' || COALESCE(substr(json_extract(d.prompt_hashes, '$.evaluator'), 1, 8), '—')")
DIMENSIONS = {  # inner SELECT expressions; "source" and "attribute"/"group" are handled apart
    "week": "COALESCE(CAST(a.week AS TEXT), '(no week)')",
    "version": VERSION_SQL,
    "word_count": "s.word_count",
    "student": "s.student_id",
}
NOT_RECORDED = "(not recorded)"


# --- a cache of aggregate queries, valid while the data do not change ------------------------
_cache: OrderedDict = OrderedDict()
_cache_lock = threading.Lock()
_CACHE_MAX = 64


def data_version(conn: Database) -> int:
    """Bumped by triggers on every write to the tables the dashboards read (migration m004)."""
    return conn.execute("SELECT version FROM analytics_version WHERE id = 1").fetchone()[0]


def memo(conn: Database, key: tuple, compute):
    """Result of `compute()` cached per (database file, data_version, key); in-memory DBs are not cached.

    The dashboards' reports (core.reports) cache what they derive from these queries here too,
    so a rerun on unchanged data neither scans nor recomputes.
    """
    path = file_of(conn) or ""
    if not path:
        return compute()
    full = (path, data_version(conn), key)
    with _cache_lock:
        if full in _cache:
            _cache.move_to_end(full)
            return copy.deepcopy(_cache[full])  # callers may modify what they get
    value = compute()
    with _cache_lock:
        _cache[full] = value
        while len(_cache) > _CACHE_MAX:
            _cache.popitem(last=False)
    return copy.deepcopy(value)


def clear_cache() -> None:
    with _cache_lock:
        _cache.clear()


def pair_counts(conn: Database, scope: Scope, *, reference: str = "auto", by: tuple[str, ...] = (),
                attributes: bool = False, expand: bool = True) -> pd.DataFrame:
    """Counts of (rubric_id, criterion, *by, [attribute, group], ai, reference) in scope, aggregated in SQL.

    `by` may hold "week", "version", "word_count", "student" and "source" (expert | blind |
    teacher). With
    `attributes=True` each pair appears once per student attribute (columns `attribute`,
    `group`; "(not recorded)" for students without it). With `expand=False` the raw attributes
    JSON stays one column (`attributes`), to be expanded later with `expand_attributes`.
    Cached until the data change (`data_version`).
    """
    for name in by:
        if name not in DIMENSIONS and name != "source":
            raise ValueError(f"unknown dimension {name!r}; choose from {sorted([*DIMENSIONS, 'source'])}")
    table = memo(conn, ("pairs", scope, reference, tuple(by), attributes),
                  lambda: _pair_counts_sql(conn, scope, reference, tuple(by), attributes))
    return expand_attributes(table) if attributes and expand else table


def _pair_counts_sql(conn, scope, reference, by, attributes) -> pd.DataFrame:
    ref_sql, source_sql, ref_args = _reference_sql(reference)
    where, args = scope.where()
    inner = [f"{DIMENSIONS[b]} AS {b}" for b in by if b in DIMENSIONS]
    outer = [(f"{source_sql} AS source" if b == "source" else b) for b in by]
    if attributes:  # the raw JSON: few distinct values, expanded per attribute in Python
        inner.append("st.attributes AS attributes")
        outer.append("attributes")
    names = ["rubric_id", "criterion", *by, *(["attributes"] if attributes else [])]
    rater = " AND rs.rater = ?" if ref_args else ""
    keys = ", ".join(str(i + 1) for i in range(len(names) + 2))
    # Each (submission, criterion) once, materialized so the expert lookup runs once per pair.
    sql = f"""
        WITH pairs AS MATERIALIZED (
            SELECT a.rubric_id, j.key AS criterion, {''.join(d + ', ' for d in inner)} j.value AS ai,
                (SELECT AVG(rs.score) FROM reference_scores rs
                 WHERE rs.submission_id = s.id AND rs.criterion = j.key{rater}) AS expert,
                (SELECT AVG(cs.score) FROM calibration_scores cs
                 WHERE cs.submission_id = s.id AND cs.criterion = j.key) AS blind,
                CASE WHEN (r.status = 'approved' OR (s.status = 'released' AND r.status IS NOT 'rejected'))
                          AND r.approved_in_bulk = 0
                     THEN json_extract(r.scores, '$."' || j.key || '"') END AS teacher
            FROM submissions s
            JOIN assignments a ON a.id = s.assignment_id
            {'JOIN students st ON st.id = s.student_id' if attributes else ''}
            LEFT JOIN reviews r ON r.submission_id = s.id
            JOIN drafts d ON d.id = COALESCE(r.draft_id, s.current_draft_id)
            JOIN json_each(d.scores) j
            WHERE {where} AND j.type = 'integer'
        )
        SELECT rubric_id, criterion, {''.join(o + ', ' for o in outer)} ai, {ref_sql} AS reference, COUNT(*) AS n
        FROM pairs WHERE reference IS NOT NULL
        GROUP BY {keys} ORDER BY {keys}"""
    rows = conn.execute(sql, [*ref_args, *args]).fetchall()
    df = pd.DataFrame(rows, columns=[*names, "ai", "reference", "n"])
    df["ai"] = df["ai"].astype(float)
    df["reference"] = df["reference"].astype(float)
    return df


def expand_attributes(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (attribute, group) from the raw attributes JSON; missing -> "(not recorded)"."""
    parsed = {raw: loads(raw, {}) or {} for raw in df["attributes"].unique()}
    names = sorted({k for d in parsed.values() for k in d})
    parts = []
    for name in names:
        value = {raw: (NOT_RECORDED if d.get(name) in (None, "") else str(d[name])) for raw, d in parsed.items()}
        parts.append(df.assign(attribute=name, group=df["attributes"].map(value)).drop(columns="attributes"))
    cols = [c for c in df.columns if c != "attributes"]
    if not parts:
        return pd.DataFrame(columns=[*cols[:-3], "attribute", "group", *cols[-3:]])
    out = pd.concat(parts, ignore_index=True)
    keys = [c for c in out.columns if c != "n"]
    return out.groupby(keys, as_index=False, sort=True)["n"].sum()


def raters(conn: Database, scope: Scope) -> list[str]:
    where, args = scope.where()
    return [r[0] for r in conn.execute(
        f"SELECT DISTINCT rs.rater FROM reference_scores rs JOIN submissions s ON s.id = rs.submission_id "
        f"JOIN assignments a ON a.id = s.assignment_id WHERE {where} ORDER BY rs.rater", args)]


def rubric_ids(conn: Database, scope: Scope) -> list[int]:
    """Ids of the rubrics used by the assignments in scope, in id order."""
    where, args = scope.where(sub="a", asg="a")
    where = where.replace("a.assignment_id", "a.id")
    sql = f"SELECT DISTINCT a.rubric_id FROM assignments a WHERE {where} ORDER BY a.rubric_id"
    return [r[0] for r in conn.execute(sql, args)]


def attributes(conn: Database, scope: Scope) -> list[str]:
    """Student attribute names (section, ell, ...) present in the scope."""
    where, args = scope.where()
    return [r[0] for r in conn.execute(
        f"SELECT DISTINCT j.key FROM students st JOIN json_each(st.attributes) j WHERE st.id IN ("
        f"SELECT s.student_id FROM submissions s JOIN assignments a ON a.id = s.assignment_id WHERE {where}) "
        f"ORDER BY j.key", args)]


def _frame(conn: Database, sql: str, args: list) -> pd.DataFrame:
    cur = conn.execute(sql, args)
    return pd.DataFrame(cur.fetchall(), columns=[c[0] for c in cur.description])


# --- edit analytics ---------------------------------------------------------------------------
def edit_counts(conn: Database, scope: Scope) -> dict:
    """What teachers changed in reviews they decided one by one (approved/rejected), as counts.

    Bulk approvals are left out (they copy the AI's draft: counting them as "approved
    unchanged" would flatter it) and only counted, in "bulk_approved".
    {"outcomes": (status, scores_changed, comment_changed, n), "changes": (criterion, ai,
    teacher, n) for approved reviews, "comment_pairs": [(draft comment, final comment)] of the
    newest COMMENT_SAMPLE edited comments, "reason_codes": (code, n), "bulk_approved": int}.
    """
    where, args = scope.where()
    joins = ("FROM reviews r JOIN submissions s ON s.id = r.submission_id "
             "JOIN assignments a ON a.id = s.assignment_id "
             "JOIN drafts d ON d.id = COALESCE(r.draft_id, s.current_draft_id) ")
    base = f"{joins} WHERE {where} AND r.status IN ('approved', 'rejected') AND r.approved_in_bulk = 0"
    changed = ("EXISTS (SELECT 1 FROM json_each(r.scores) j "
               "WHERE j.value IS NOT json_extract(d.scores, '$.\"' || j.key || '\"'))")
    # One scan for both: decisions one by one, and the bulk approvals (counted, nothing else).
    decided = pd.DataFrame(conn.execute(
        f"SELECT r.status, r.approved_in_bulk, {changed}, r.comment != d.comment, COUNT(*) {joins} "
        f"WHERE {where} AND r.status IN ('approved', 'rejected') GROUP BY 1, 2, 3, 4", args).fetchall(),
        columns=["status", "bulk", "scores_changed", "comment_changed", "n"])
    bulk = int(decided.loc[(decided["bulk"] == 1) & (decided["status"] == "approved"), "n"].sum())
    outcomes = decided[decided["bulk"] == 0].drop(columns="bulk").reset_index(drop=True)
    changes = pd.DataFrame(conn.execute(
        f"SELECT j.key, json_extract(d.scores, '$.\"' || j.key || '\"'), j.value, COUNT(*) "
        f"{base.replace('WHERE', ', json_each(r.scores) j WHERE')} AND r.status = 'approved' "
        f"AND json_extract(d.scores, '$.\"' || j.key || '\"') IS NOT NULL GROUP BY 1, 2, 3", args).fetchall(),
        columns=["criterion", "ai", "teacher", "n"])
    pairs = conn.execute(f"SELECT d.comment, r.comment {base} AND r.comment != d.comment "
                         f"ORDER BY r.updated_at DESC LIMIT {COMMENT_SAMPLE}", args).fetchall()
    codes = pd.DataFrame(conn.execute(
        f"SELECT j.value, COUNT(*) {base.replace('WHERE', ', json_each(r.reason_codes) j WHERE')} GROUP BY 1",
        args).fetchall(), columns=["code", "n"])
    return {"outcomes": outcomes, "changes": changes, "comment_pairs": pairs, "reason_codes": codes,
            "bulk_approved": bulk}


# --- judges: agreement between models / prompt versions ------------------------------------
def judge_scores(conn: Database, scope: Scope) -> pd.DataFrame:
    """(submission_id, version, criterion, score): each model/prompt version's latest successful
    draft per submission, over the newest JUDGE_SAMPLE submissions that two or more versions scored."""
    where, args = scope.where()
    rows = conn.execute(f"""
        WITH v AS (
            SELECT d.submission_id, {VERSION_SQL} AS version, d.scores, d.id
            FROM drafts d JOIN submissions s ON s.id = d.submission_id JOIN assignments a ON a.id = s.assignment_id
            WHERE {where} AND d.status != 'failed'
        ), latest AS (
            SELECT submission_id, version, scores FROM v
            WHERE id IN (SELECT MAX(id) FROM v GROUP BY submission_id, version)
        ), shared AS (
            SELECT submission_id FROM latest GROUP BY submission_id HAVING COUNT(*) > 1
            ORDER BY submission_id DESC LIMIT {JUDGE_SAMPLE}
        )
        SELECT submission_id, version, scores FROM latest WHERE submission_id IN (SELECT submission_id FROM shared)
        """, args).fetchall()
    return pd.DataFrame([(sid, ver, k, v) for sid, ver, sc in rows for k, v in (loads(sc, {}) or {}).items()],
                        columns=["submission_id", "version", "criterion", "score"])


# --- Costs page -------------------------------------------------------------------------------
# What a call was for (`work`): its run's kind (reflections | lessons | comparisons); without a
# run, a lesson's call is lesson review, a submission's call a Regenerate (reflections), and the
# rest (eval-suite runs, connection tests) "other".
WORK_SQL = ("CASE WHEN ru.kind IS NOT NULL THEN ru.kind WHEN c.lesson_id IS NOT NULL THEN 'lessons' "
            "WHEN c.submission_id IS NOT NULL THEN 'reflections' ELSE 'other' END")


def cost_tables(conn: Database, scope: Scope) -> dict[str, pd.DataFrame]:
    """Calls, tokens, cost, latency, cache hits and errors of the reflections' assessment in
    total and per agent, model, run (`run` NULL: outside runs, i.e. Regenerate) and course;
    cost, latency and tokens per submission; and `by_work`: every call in scope per kind of work
    (reflections, lessons, comparisons, other), so lesson review and comparison drafting are
    shown apart and never counted as reflections.

    Calls are attributed through their submission, else through their run.
    """
    where, args = scope.where(sub="x", asg="x")
    every = f"""
        FROM (SELECT c.*, COALESCE(s.assignment_id, ru.assignment_id) AS assignment_id,
                     COALESCE(a.course_id, ru.course_id) AS course_id, {WORK_SQL} AS work
              FROM llm_calls c
              LEFT JOIN submissions s ON s.id = c.submission_id
              LEFT JOIN assignments a ON a.id = s.assignment_id
              LEFT JOIN runs ru ON ru.id = c.run_id) x
        WHERE {where}"""
    base = every + " AND x.work = 'reflections'"
    agg = ("COUNT(*) AS calls, SUM(x.tokens_in) AS tokens_in, SUM(x.tokens_out) AS tokens_out, "
           "SUM(x.tokens_cached) AS tokens_cached, SUM(x.tokens_in + x.tokens_out) AS tokens, "
           "SUM(x.cost_usd) AS cost_usd, AVG(x.latency_ms) AS mean_latency_ms, "
           "MAX(x.latency_ms) AS max_latency_ms, SUM(x.cache_hit = 1 OR x.status = 'cache_hit') AS cache_hits, "
           "SUM(x.status = 'error') AS errors, COUNT(DISTINCT x.submission_id) AS submissions")
    with_course = base.replace("WHERE", "LEFT JOIN courses co ON co.id = x.course_id WHERE")
    sql = {
        "totals": f"SELECT {agg} {base}",
        "by_agent": f"SELECT x.agent, {agg} {base} GROUP BY x.agent ORDER BY x.agent",
        "by_model": f"SELECT x.model, {agg} {base} GROUP BY x.model ORDER BY cost_usd DESC",
        "by_run": f"SELECT x.run_id AS run, {agg} {base} GROUP BY x.run_id ORDER BY x.run_id",
        "by_course": f"SELECT co.name AS course, {agg} {with_course} GROUP BY x.course_id ORDER BY co.name",
        "per_submission": f"SELECT x.submission_id, SUM(x.cost_usd) AS cost_usd, SUM(x.latency_ms) AS latency_ms, "
                          f"SUM(x.tokens_in + x.tokens_out) AS tokens {base} AND x.submission_id IS NOT NULL "
                          f"GROUP BY x.submission_id",
        # The judge cascade (core.judging): calls per tier, and what one judging costs, for the
        # "blanket 3x voting" comparison. An item is judged once per run (or per regenerate).
        "by_tier": f"SELECT x.tier, {agg} {base} AND x.tier IS NOT NULL GROUP BY x.tier ORDER BY x.tier",
        "judged": f"SELECT COUNT(DISTINCT CASE WHEN x.tier = 1 THEN COALESCE(x.run_id, 0) || '-' || x.submission_id "
                  f"END) AS items, "
                  f"AVG(CASE WHEN x.tier = 1 AND x.temperature = 0 AND x.status = 'ok' THEN x.cost_usd END) "
                  f"AS first_call_usd, "
                  f"AVG(CASE WHEN x.tier = 2 AND x.status = 'ok' THEN x.cost_usd END) AS judge_call_usd {base}",
        "by_work": f"SELECT x.work, {agg} {every} GROUP BY x.work ORDER BY x.work",
    }
    return {name: _frame(conn, query, args) for name, query in sql.items()}
