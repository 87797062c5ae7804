"""What the AI quality and Compare pages show, each read in one call with one permission check.

The page passes what its pickers hold (session state, before they are drawn); a choice that is
no longer offered falls back to the first option, as the picker itself does. Writes (start,
resume, choose, override, the trust threshold) stay their own calls, each checking itself.
"""
from __future__ import annotations

from core.accounts import access
from core.accounts.access import Actor
from core.evals import config as ai_config
from core.evals import gate, pairwise, saved
from core.language.interface import read_back
from db import comparisons as cmp_db
from db import evals as evals_db


def config_status(conn, provider: str, settings) -> tuple[dict, dict]:
    """The AI configuration in use for `provider` and its gate status (no course data: nothing
    to check): (definition, gate.status)."""
    defn = ai_config.current(provider, settings)
    return defn, gate.status(conn, ai_config.config_hash(defn), provider, definition=defn)


def eval_runs(conn) -> list[dict]:
    """The installation's recent eval runs, each with its configuration's name (any signed-in
    role may read them; the caller has checked the actor)."""
    return [{**r, "configuration": gate.config_name(conn, r["config_hash"])} for r in evals_db.eval_runs(conn)]


def said_report(report: dict) -> dict:
    """A stored eval report with each check's detail a Message again where the report kept its
    form (`detail_said`, core.evals.runner), so that the page says it in the reader's language; a
    report stored before that keeps its English details as they are."""
    results = [{**r, "checks": [{**c, "detail": read_back(c["detail_said"], c.get("detail"))} if "detail_said" in c else c
                                for c in r.get("checks") or []]}
               for r in report.get("results") or []]
    return {**report, "results": results}


def quality_view(conn, *, course_id: int | None, provider: str, settings, db_path, eval_run: int | None = None,
                 comparison: int | None = None, actor: Actor) -> dict:
    """Everything the AI quality page shows: {"config" (definition), "status" (its gate),
    "runs" (eval runs), "eval_run" (the run picked) and "report" (its per-case report when it is
    its configuration's latest: `said_report`), "saved" (the cases of the courses the actor may see) and
    "jsonl", "comparisons" of the course, "comparison" (picked), "results" and "resumable" of
    it, "trust" (the pedagogy judge's), "may" {"settings"}}."""
    access.check(conn, actor, "dashboards", course=course_id)
    defn, status = config_status(conn, provider, settings)
    runs = eval_runs(conn)
    rid = eval_run if eval_run in [r["id"] for r in runs] else (runs[0]["id"] if runs else None)
    report = None
    if rid is not None:
        latest = evals_db.latest_eval_run(conn, next(r["config_hash"] for r in runs if r["id"] == rid))
        # its checks' details as Messages where the report kept their form (said on the page)
        report = {**latest, "report": said_report(latest["report"])} if latest and latest["id"] == rid else None
    cases = saved.saved_in(conn, actor)
    comps = cmp_db.list_for_course(conn, course_id) if course_id is not None else []
    pick = comparison if comparison in [c["id"] for c in comps] else (comps[0]["id"] if comps else None)
    return {"config": defn, "status": status, "runs": runs, "eval_run": rid, "report": report,
            "saved": cases, "jsonl": saved.jsonl_of(cases), "comparisons": comps, "comparison": pick,
            "results": pairwise.results_in(conn, pick) if pick is not None else None,
            "resumable": pairwise.resumable_in(conn, db_path, pick) if pick is not None else False,
            "trust": pairwise.judge_trust(conn), "may": {"settings": "settings" in access.allowed(actor)}}


def compare_view(conn, course_id: int, *, comparison: int | None = None, actor: Actor) -> dict:
    """Everything the Compare page shows a teacher: {"comparisons" (the course's), "ready" (those
    with drafted pairs), "comparison" (picked among the ready ones), "progress" (pairs drafted and
    judged by this teacher), "pair" (the next one to judge, never which side is which
    configuration; None when all are judged) and then "results"}."""
    access.check(conn, actor, "compare", course=course_id)
    comps = cmp_db.list_for_course(conn, course_id)
    ready = [c for c in comps if c["drafted"]]
    out = {"comparisons": comps, "ready": ready, "comparison": None, "progress": None, "pair": None, "results": None}
    if not ready:
        return out
    pick = comparison if comparison in [c["id"] for c in ready] else ready[0]["id"]
    pair = cmp_db.pair_for_teacher(conn, pick, str(actor))
    return {**out, "comparison": pick, "progress": cmp_db.progress(conn, pick, str(actor)), "pair": pair,
            "results": pairwise.results_in(conn, pick) if pair is None else None}


def gate_view(conn, *, provider: str, settings, actor: Actor) -> dict:
    """The Settings page's AI configuration tab (an admin's): {"config", "status", "runs"}; the
    admin may override the gate (gate.override checks again)."""
    access.require(actor, "settings")
    defn, status = config_status(conn, provider, settings)
    return {"config": defn, "status": status, "runs": eval_runs(conn)}
