"""`python -m core appeals list`: a course's appeals (one assignment's), as the review queue's
Appeals group holds them. The `appeals` command is made with core.cli.common.command_group, so
another module adds its own verbs to it. Refusals exit 2 with {"error": ...} (core.cli)."""
from __future__ import annotations

from core.appeals import deciding
from core.cli.common import actor, add_db_arg, command_group, emit, open_db
from db import courses

HELP = "students' appeals of released feedback"


def register(sub) -> None:
    verbs = command_group(sub, "appeals", HELP)
    p = verbs.add_parser("list", help="a course's appeals: open ones first, with their criteria and outcome",
                         description="Prints {appeals: [{appeal_id, submission_id, criteria, status, opened, "
                                     "decided}]}: criteria are the rubric's criterion keys, status open, kept or "
                                     "changed.")
    p.add_argument("--course", required=True, help="course name")
    p.add_argument("--assignment", help="assignment title (default: every assignment of the course)")
    add_db_arg(p)
    p.set_defaults(func=run_list)


def run_list(args) -> int:
    conn = open_db(args)
    who = actor(args, conn)
    course = courses.course_by_name(conn, args.course)
    aid = courses.assignment_by_title(conn, course["id"], args.assignment)["id"] if args.assignment else None
    emit({"appeals": deciding.listed(conn, course["id"], aid, actor=who)})
    return 0
