"""Command `assess`: run the agents over a course (or one assignment), in this process.

    python -m core assess --course NAME [--assignment TITLE] [--provider offline|openai]
                          [--concurrency N] [--limit N] [--redo] [--batch] [--resume RUN_ID]
    python -m core assess --cancel RUN_ID

Progress goes to stderr; stdout gets one JSON summary:
{"run_id", "provider", "drafted", "needs_attention", "failed", "calls", "cache_hits",
 "tokens_in", "tokens_out", "cost_usd", "seconds"} (and "error" when the run stopped; with
--batch also "batches": how many batch files the run submitted).
`--cancel` prints {"run_id", "status"}.

Exit codes: 0 the run is done; 1 it ended with items left (cancelled, or its worker failed);
2 a FairMarkError before the run started (e.g. another run of the course is unfinished);
3 the run stopped on a configuration fault (refused key, unknown model, unreachable endpoint):
fix the setting and resume it.
"""
from __future__ import annotations

import sys
from functools import partial

from core.runs import reflections as runs
from core.cli.common import emit
from core.cli.common import STOPPED, actor, add_db_arg, open_db
from core.errors import ConfigError
from core.llm import PROVIDERS
from core.offline import LABEL as OFFLINE_LABEL
from db import courses, file_of


def register(sub) -> None:
    p = sub.add_parser(
        "assess", help="draft scores and feedback for a course's submissions (offline baseline or an LLM)",
        description="Assess the submissions of a course that have no draft yet (failed ones are retried). "
                    "Default provider: openai when an endpoint or key is configured, else the offline "
                    "baseline (no LLM). Progress on stderr, a JSON summary on stdout.")
    p.add_argument("--course", help="course name (required unless --resume)")
    p.add_argument("--assignment", help="only this assignment (title)")
    p.add_argument("--provider", choices=PROVIDERS, help="offline (no LLM) or openai (the configured endpoint)")
    p.add_argument("--concurrency", type=int, help="submissions assessed at the same time (default FAIRMARK_CONCURRENCY)")
    p.add_argument("--limit", type=int, help="assess at most N submissions")
    p.add_argument("--redo", action="store_true", help="also re-draft drafted and needs-attention submissions "
                                                      "(never a teacher's approved, rejected or released one)")
    p.add_argument("--batch", action="store_true",
                   help="send the calls through the endpoint's batch engine (/v1/files + /v1/batches): half the "
                        "price, answers within the provider's 24 hours; resumable after a restart")
    p.add_argument("--resume", type=int, metavar="RUN_ID", help="continue an interrupted or cancelled run instead")
    p.add_argument("--cancel", type=int, metavar="RUN_ID",
                   help="cancel a run (a live worker stops after the items in flight; a dead one's run "
                        "is cancelled at once and stays resumable)")
    add_db_arg(p)
    p.set_defaults(func=run)


def _print_progress(p: dict) -> None:
    print(f"run {p['run_id']}: {p['finished']}/{p['total']} "
          f"(drafted {p['done']}, needs attention {p['needs_attention']}, failed {p['failed']}) "
          f"calls {p['calls']}, ${p['cost_usd']:.4f}", file=sys.stderr, flush=True)


def run(args) -> int:
    conn = open_db(args)
    db_path = file_of(conn)
    who = actor(args, conn)
    if args.cancel is not None:
        conn.close()
        emit({"run_id": args.cancel, "status": runs.cancel(db_path, args.cancel, actor=who)})
        return 0
    try:
        if args.resume is not None:
            run_id = args.resume
            start = partial(runs.resume, db_path, run_id, background=False, on_progress=_print_progress, actor=who)
        elif not args.course:
            raise ConfigError("assess needs --course NAME (or --resume RUN_ID)")
        else:
            course = courses.course_by_name(conn, args.course)
            assignment_id = None
            if args.assignment:
                assignment_id = courses.assignment_by_title(conn, course["id"], args.assignment)["id"]
            run_id = runs.create(conn, course_id=course["id"], assignment_id=assignment_id, provider=args.provider,
                                 concurrency=args.concurrency, limit=args.limit, redo=args.redo,
                                 batch=args.batch, actor=who)
            start = partial(runs.execute, db_path, run_id, on_progress=_print_progress, actor=who)
        p = runs.progress(conn, run_id, actor=who)
        label = OFFLINE_LABEL if p["provider"] == "offline" else "openai-compatible endpoint"
        print(f"run {run_id}: {p['total']} submission(s), {label}", file=sys.stderr, flush=True)
        stopped = False
        try:
            final = start()
        except runs.RunStopped as e:
            # Recorded on the run (status failed, resumable); still report what was done.
            stopped = True
            print(f"error: {e} Resume with: python -m core assess --resume {run_id}", file=sys.stderr)
            final = runs.progress(conn, run_id, actor=who)
    finally:
        conn.close()
    out = {"run_id": run_id, "provider": final["provider"], "status": final["status"], **runs.summary(final)}
    if final.get("error"):
        out["error"] = final["error"]
    if (final.get("config") or {}).get("batch"):
        out["batches"] = final.get("batches", 0)
    emit(out)
    if stopped:
        return STOPPED
    return 0 if final["status"] == "done" else 1
