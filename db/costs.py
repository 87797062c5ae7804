"""Queries behind the Costs page: the call log's tokens, cost, latency and cache hits, per kind
of work (reflections, lessons, comparisons, other), agent, model, run, course and tier."""
from __future__ import annotations

import pandas as pd
from sqlite_utils import Database

from db.analytics import Scope

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
        "by_model": f"SELECT x.model, {agg} {base} GROUP BY x.model ORDER BY cost_usd DESC NULLS LAST",
        "by_run": f"SELECT x.run_id AS run, {agg} {base} GROUP BY x.run_id ORDER BY x.run_id NULLS FIRST",
        "by_course": f"SELECT co.name AS course, {agg} {with_course} GROUP BY x.course_id, co.name ORDER BY co.name NULLS FIRST",
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
    return {name: frame(conn, query, args) for name, query in sql.items()}


def frame(conn: Database, sql: str, args: list) -> pd.DataFrame:
    cur = conn.execute(sql, args)
    return pd.DataFrame(cur.fetchall(), columns=[c[0] for c in cur.description])
