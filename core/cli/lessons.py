"""`python -m core lessons ...`: the lesson review from the command line (issue 17).

    lessons import FILE... --course NAME [--target-grade N] [--objective TEXT ...] [--archetype A]
                                         [--audience TEXT] [--sources FILE]
    lessons review --course NAME [--provider offline|openai] [--redo] [--resume RUN_ID]
    lessons export --course NAME --out DIR [--format md|docx]
    lessons demo

Each prints one JSON object on stdout; `review` reports {"lessons", "ready", "sampled",
"needs_review", "calls", "cost_usd"} (plus run_id, status, failed, per-lesson cost) and exits
like `assess`: 0 done, 1 lessons left, 2 refused, 3 stopped by a configuration fault.
"""
from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

from core.cli.common import emit
from core.cli.common import STOPPED, actor, add_db_arg, open_db
from core.errors import ConfigError, IngestError
from core.lessons import costs, demo, export, ingest, runs
from core.llm import PROVIDERS
from core.offline import LABEL as OFFLINE_LABEL
from db import courses, file_of


def register(sub) -> None:
    p = sub.add_parser("lessons", help="review lesson texts before publishing (a judge cascade on a weighted rubric)",
                       description="Lesson review: import lessons with their specification, review them (Stage 1 "
                                   "heuristics, the judge cascade, targeted fixes, tiers), export approved ones.")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")

    imp = verbs.add_parser("import", help="import lesson files (Markdown, TXT, DOCX, ZIP) into a course")
    imp.add_argument("files", nargs="+", help="lesson files; YAML front matter may carry the specification")
    imp.add_argument("--course", required=True, help="course name (created if new)")
    imp.add_argument("--target-grade", type=float, help="Flesch-Kincaid grade of the audience (default 8)")
    imp.add_argument("--objective", action="append", dest="objectives", help="a learning objective (repeatable)")
    imp.add_argument("--archetype", help="concept | procedure | case_study | discussion | practice")
    imp.add_argument("--audience", help="who the lessons are for")
    imp.add_argument("--sources", help="a text file of source material for the fact checks")
    add_db_arg(imp)
    imp.set_defaults(func=run_import)

    rev = verbs.add_parser("review", help="review the course's lessons that have no review yet")
    rev.add_argument("--course", help="course name (required unless --resume)")
    rev.add_argument("--provider", choices=PROVIDERS, help="offline (Stage 1 only, no LLM) or openai")
    rev.add_argument("--redo", action="store_true", help="also review lessons reviewed before (never approved ones)")
    rev.add_argument("--resume", type=int, metavar="RUN_ID", help="continue an interrupted lesson run")
    add_db_arg(rev)
    rev.set_defaults(func=run_review)

    exp = verbs.add_parser("export", help="write the course's approved lessons with their review record")
    exp.add_argument("--course", required=True)
    exp.add_argument("--out", required=True, help="directory to write into")
    exp.add_argument("--format", choices=export.FORMATS, default="md", dest="fmt")
    add_db_arg(exp)
    exp.set_defaults(func=run_export)

    dem = verbs.add_parser("demo", help="load the synthetic lesson demo course (planted problems, expert verdicts)")
    add_db_arg(dem)
    dem.set_defaults(func=run_demo)


def run_import(args) -> int:
    files = []
    for name in args.files:
        path = Path(name)
        if not path.is_file():
            raise IngestError(f"{name}: no such file.")
        files.append((path.name, path.read_bytes()))
    defaults = {"target_grade": args.target_grade, "objectives": args.objectives, "archetype": args.archetype,
                "audience": args.audience,
                "sources": Path(args.sources).read_text(encoding="utf-8") if args.sources else None}
    conn = open_db(args)
    try:
        out = ingest.import_lessons(conn, files, course_name=args.course, defaults=defaults, actor=actor(args, conn))
    finally:
        conn.close()
    emit({"command": "lessons import", "course": args.course, **out})
    return 0


def _progress(p: dict) -> None:
    print(f"lesson run {p['run_id']}: {p['finished']}/{p['total']} (ready {p['ready']}, sampled {p['sampled']}, "
          f"needs review {p['needs_review']}, failed {p['failed']}) calls {p['calls']}, ${p['cost_usd']:.4f}",
          file=sys.stderr, flush=True)


def run_review(args) -> int:
    """Exit codes as `assess`: 0 done, 1 lessons left, 2 refused, 3 stopped by a configuration fault."""
    conn = open_db(args)
    db_path = file_of(conn)
    who = actor(args, conn)
    stopped = False
    try:
        if args.resume is not None:
            run_id = args.resume
            start = partial(runs.resume, db_path, run_id, background=False, on_progress=_progress, actor=who)
        elif not args.course:
            raise ConfigError("lessons review needs --course NAME (or --resume RUN_ID)")
        else:
            course_id = courses.course_by_name(conn, args.course)["id"]
            run_id = runs.create(conn, course_id=course_id, provider=args.provider, redo=args.redo,
                                 actor=who)
            start = partial(runs.execute, db_path, run_id, on_progress=_progress, actor=who)
        p = runs.progress(conn, run_id, actor=who)
        print(f"lesson run {run_id}: {p['total']} lesson(s), "
              f"{OFFLINE_LABEL if p['provider'] == 'offline' else 'openai-compatible endpoint'}",
              file=sys.stderr, flush=True)
        try:
            final = start()
        except runs.RunStopped as e:
            # Recorded on the run (status failed, resumable); still report what was done.
            stopped = True
            print(f"error: {e} Resume with: python -m core lessons review --resume {run_id}", file=sys.stderr)
            final = runs.progress(conn, run_id, actor=who)
        out = {"run_id": run_id, "status": final["status"], "provider": final["provider"], **runs.summary(final)}
        spent = costs.course_costs(conn, final["course_id"], actor=who)
        out.update(cost_per_lesson_usd=spent["per_lesson_usd"], course_cost_usd=spent["cost_usd"])
        if final["error"]:
            out["error"] = final["error"]
    finally:
        conn.close()
    emit(out)
    if stopped:
        return STOPPED
    return 0 if out["status"] == "done" else 1


def run_export(args) -> int:
    conn = open_db(args)
    try:
        course = courses.course_by_name(conn, args.course)
        files = export.export_course(conn, course["id"], args.out, args.fmt, actor=actor(args, conn))
    finally:
        conn.close()
    emit({"command": "lessons export", "course": course["name"], "format": args.fmt, "exported": len(files),
          "files": files})
    return 0


def run_demo(args) -> int:
    conn = open_db(args)
    try:
        out = demo.load_demo(conn, actor=actor(args, conn))
    finally:
        conn.close()
    emit({"command": "lessons demo", **out})
    return 0
