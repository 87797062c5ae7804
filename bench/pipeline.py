"""Pipeline throughput: the real pipeline against a fake LLM with a fixed latency per call.

    python -m bench.pipeline --n 336 --latency 0.2 --concurrency 16 [--naive-n 20] [--rerun]

The fake LLM (bench.fake.SleepyLLM) sleeps `latency` per call and answers every role validly
(Reviewer CONFIDENT, a comment that passes the checks), wrapped in the real LoggedLLM (call
log + cache). The assessment is a real run (core.runs.reflections.create / execute) on a temporary
SQLite database of N synthetic submissions (>= 110 words, no flags).

Critical path of one submission: Evaluator, then Equity Monitor ∥ Coach, then Aggregator, then
Reviewer, then the feedback's judges (Grounding ∥ Pedagogy, issue 16) = 5 latencies (one per
registry stage that has roles, without revision rounds); with `concurrency` submissions at a
time the bound is ceil(N / concurrency) × 5 × latency.

The naive baseline is the seed's way: the same agent functions (every role but the Reviser),
strictly one after another, one submission at a time, no threads, same LoggedLLM and draft
writes (on its own fresh database, so nothing comes from the pipeline's cache). It takes
N × 7 × latency, so by default it runs on a subset (`naive_n`) and is extrapolated linearly to N.

--rerun assesses the unchanged assignment a second time (redo) with the cache on and reports
the share of calls answered from the cache and the second run's wall time relative to the first.

Prints one JSON line.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path
from core.accounts.access import Actor

NAIVE_BUDGET_S = 20.0   # default naive subset: about this many seconds of sleeping


def _settings(db_path: str):
    from core.settings import load_settings

    return load_settings().model_copy(update={"db_path": db_path})


def assess_run(db_path: str, info: dict, llm, concurrency: int, *, redo: bool = False) -> tuple[int, float]:
    """A real run over the assignment: runs.create + runs.execute; returns (run_id, wall seconds)."""
    import db
    from core.runs import reflections as runs

    conn = db.connect(db_path)
    try:
        run_id = runs.create(conn, course_id=info["course_id"], assignment_id=info["assignment_id"],
                             provider="offline", concurrency=concurrency, redo=redo, actor=Actor("bench", role="admin"),
                             settings=_settings(db_path))
    finally:
        conn.close()
    t0 = time.perf_counter()
    p = runs.execute(db_path, run_id, llm, actor=Actor("test", role="admin"))
    wall = time.perf_counter() - t0
    if p["status"] != "done" or p["failed"] or p["pending"]:
        raise SystemExit(f"bench: run {run_id} did not finish cleanly: {json.dumps(p, default=str)[:800]}")
    return run_id, wall


def critical_path() -> int:
    """Calls on one submission's critical path: one per stage that has roles, no revision."""
    from core.agents import registry

    return sum(1 for stage in registry.PIPELINE_STAGES if stage != "revise" and registry.at(stage))


def calls_per_item() -> int:
    """Calls per submission without revision rounds: every role but the Reviser."""
    from core.agents import registry

    return sum(1 for r in registry.roles() if r.stage != "revise")


def naive_one(db_path: str, submission_id: int, llm) -> int:
    """The seed's way for one submission: the agents strictly one after another."""
    import db
    from core import checks, pipeline
    from core.signoff import triage
    from core.agents import Ids, registry
    from db import drafts as drafts_db

    conn = db.connect(db_path)
    try:
        item = pipeline.item_for(conn, submission_id)
        rubric = item["rubric"]
        job, pz = pipeline.masked_job(item, Ids(submission_id=submission_id))
        for name in [r.name for r in registry.roles() if r.stage != "revise"]:
            if name == "reviewer":
                job.checks = checks.comment_checks(job.comment, job.text, evaluation=job.outputs["evaluator"],
                                                   target_grade=job.target_grade)
            answer = registry.get(name).run(llm, job).data
            job.outputs[name] = answer.model_dump()
            if name == "evaluator":
                job.scores = registry.get(name).module.scores(answer)
            if name == "aggregator":
                job.comment = answer.comment
        draft = {"submission_id": submission_id, "rubric_id": item["rubric_id"], "provider": llm.provider,
                 "scores": job.scores, "total": rubric.total(job.scores), "outputs": job.outputs,
                 "comment": pz.restore(job.comment), "checks": job.checks,
                 "verdict": job.outputs["reviewer"]["verdict"], "flags": [], "status": "drafted"}
        return drafts_db.save_draft(conn, draft, priority=triage.priority("drafted", job.scores, rubric))
    finally:
        conn.close()


def _pipeline_checks(db_path: str, run_id: int, n: int) -> dict:
    """What makes the bound valid: 7 calls per item, no reviser call, every item drafted."""
    import db

    conn = db.connect(db_path)
    try:
        by_agent = dict(conn.execute("SELECT agent, COUNT(*) FROM llm_calls WHERE run_id = ? GROUP BY agent",
                                     [run_id]).fetchall())
        statuses = dict(conn.execute("SELECT status, COUNT(*) FROM drafts WHERE run_id = ? GROUP BY status",
                                     [run_id]).fetchall())
        hits = conn.execute("SELECT COUNT(*) FROM llm_calls WHERE run_id = ? AND status = 'cache_hit'",
                            [run_id]).fetchone()[0]
        rounds = conn.execute("SELECT COUNT(*) FROM drafts WHERE run_id = ? AND json_array_length(revisions) > 1",
                              [run_id]).fetchone()[0]
    finally:
        conn.close()
    return {"calls_per_item": round(sum(by_agent.values()) / n, 3), "revise_rounds": by_agent.get("reviser", 0) + rounds,
            "drafted": statuses.get("drafted", 0), "draft_statuses": statuses, "cache_hits": hits}


def _cache_share(db_path: str, run_id: int) -> tuple[int, float]:
    import db

    conn = db.connect(db_path)
    try:
        calls, hits = conn.execute("SELECT COUNT(*), COALESCE(SUM(status = 'cache_hit'), 0) FROM llm_calls "
                                   "WHERE run_id = ?", [run_id]).fetchone()
    finally:
        conn.close()
    return calls, (hits / calls if calls else 0.0)


def _measure(args, main_db: str, naive_db: str) -> dict:
    from bench import synth
    from bench.fake import SleepyLLM
    from core.llm import LoggedLLM

    info = synth.build_uploaded(main_db, args.n)
    fake = SleepyLLM(args.latency)
    run_id, wall = assess_run(main_db, info, LoggedLLM(fake, main_db), args.concurrency)
    verified = _pipeline_checks(main_db, run_id, args.n)
    bound = math.ceil(args.n / args.concurrency) * critical_path() * args.latency

    naive_n = args.naive_n
    if naive_n is None:
        per_item = calls_per_item() * args.latency
        naive_n = args.n if per_item * args.n <= NAIVE_BUDGET_S else max(1, int(NAIVE_BUDGET_S / per_item))
    naive_n = max(1, min(naive_n, args.n))
    naive_info = synth.build_uploaded(naive_db, args.n)
    naive_llm = LoggedLLM(SleepyLLM(args.latency), naive_db)
    t0 = time.perf_counter()
    for sid in naive_info["submission_ids"][:naive_n]:
        naive_one(naive_db, sid, naive_llm)
    naive_measured = time.perf_counter() - t0
    naive_s = naive_measured * args.n / naive_n

    out = {"n": args.n, "concurrency": args.concurrency, "latency": args.latency,
           "wall_s": round(wall, 3), "bound_s": round(bound, 3),
           "ratio_to_bound": round(wall / bound, 3) if bound else None,
           "naive_s": round(naive_s, 3), "speedup_vs_naive": round(naive_s / wall, 2),
           "naive_n": naive_n, "naive_measured_s": round(naive_measured, 3),
           "naive_extrapolated": naive_n < args.n,
           "calls_per_item": verified["calls_per_item"], "revise_rounds": verified["revise_rounds"],
           "drafted": verified["drafted"], "first_run_cache_hits": verified["cache_hits"]}
    if args.rerun:
        run2, wall2 = assess_run(main_db, info, LoggedLLM(fake, main_db), args.concurrency, redo=True)
        calls2, share = _cache_share(main_db, run2)
        out.update({"rerun_calls": calls2, "rerun_cache_share": round(share, 4),
                    "rerun_wall_s": round(wall2, 3), "rerun_wall_ratio": round(wall2 / wall, 4)})
    return out


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m bench.pipeline", description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=336, help="submissions (default 336: one course of the seed's size)")
    ap.add_argument("--latency", type=float, default=0.2, help="seconds the fake LLM takes per call")
    ap.add_argument("--concurrency", type=int, default=16, help="submissions assessed at a time")
    ap.add_argument("--naive-n", type=int, default=None,
                    help=f"submissions for the naive baseline (extrapolated to N); default: N if that takes "
                         f"under {NAIVE_BUDGET_S:g} s, else about {NAIVE_BUDGET_S:g} s worth")
    ap.add_argument("--rerun", action="store_true", help="assess the unchanged assignment again (cache)")
    ap.add_argument("--keep", metavar="DIR", help="keep the databases in DIR (default: a temporary directory)")
    args = ap.parse_args(argv)
    if args.n < 1 or args.concurrency < 1 or args.latency < 0:
        ap.error("--n and --concurrency must be >= 1 and --latency >= 0")

    from bench import database_env

    tmp = None
    if args.keep:
        work = Path(args.keep)
        work.mkdir(parents=True, exist_ok=True)
        for f in work.glob("*.db*"):
            f.unlink()
    else:
        tmp = tempfile.TemporaryDirectory(prefix="fairmark-bench-")
        work = Path(tmp.name)
    main_db, naive_db = str(work / "pipeline.db"), str(work / "naive.db")
    try:
        with database_env(main_db):          # nothing here may touch the user's database
            out = _measure(args, main_db, naive_db)
    finally:
        import db as dbmod

        for path in (main_db, naive_db):
            dbmod.forget_migrated(path)
        if tmp is not None:
            tmp.cleanup()
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
