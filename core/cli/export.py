"""`python -m core export`: write released (or, with --approved, approved) items to a file, or
(`--format analysis`) every submission's AI, teacher and reference scores for analysis."""
from __future__ import annotations

from pathlib import Path

from core.export import released as exporter
from core.export import analysis as export_analysis
from core.cli.common import emit
from core.cli.common import actor, add_db_arg, open_db
from db import courses


def register(sub) -> None:
    p = sub.add_parser(
        "export", help="export released feedback as CSV, Canvas gradebook CSV or a ZIP of Markdown files, or "
                       "every submission's scores for analysis",
        description="Export only released items (or, with --approved, items approved but not yet released "
                    "as well). Nothing unapproved is ever exported as feedback. --format analysis writes every "
                    "submission's AI, teacher and reference scores instead: a file for analysis, not for students.")
    p.add_argument("--course", required=True, help="course name")
    p.add_argument("--assignment", help="assignment title (default: every assignment of the course)")
    p.add_argument("--format", required=True, choices=(*exporter.FORMATS, "analysis"), dest="fmt")
    p.add_argument("--out", required=True, help="file to write")
    p.add_argument("--approved", action="store_true",
                   help="also export approved items that were not released yet")
    p.add_argument("--new-links", action="store_true",
                   help="make fresh private links for the students (their old links stop working) and put them in "
                        "the file; one assignment only")
    add_db_arg(p)
    p.set_defaults(func=run)


def run(args) -> int:
    conn = open_db(args)
    who = actor(args, conn)
    course = courses.course_by_name(conn, args.course)
    aid = courses.assignment_by_title(conn, course["id"], args.assignment)["id"] if args.assignment else None
    if args.fmt == "analysis":
        result = export_analysis.export(conn, course["id"], aid, actor=who)
    else:
        result = exporter.export(conn, course["id"], aid, fmt=args.fmt, include_approved=args.approved, actor=who,
                                 new_links=args.new_links)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(result.data)
    emit({"command": "export", "course": course["name"], "assignment": args.assignment, "format": args.fmt,
          "out": str(out), "bytes": len(result.data), **result.summary})
    return 0
