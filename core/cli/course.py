"""`python -m core course set`: a course's settings from the command line (the same as
Settings → Courses & assignments, audited the same way through core.courses.catalogue)."""
from __future__ import annotations

from core.cli.common import actor, add_db_arg, emit, open_db
from core.courses import catalogue
from core.language import SUPPORTED
from db import courses


def register(sub) -> None:
    p = sub.add_parser("course", help="change a course's settings (the language of its reflections and feedback)")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    offered = ", ".join(f"{k} ({v[0]})" for k, v in SUPPORTED.items())
    s = verbs.add_parser("set", help="set a course's language",
                         description="Change the course's language: the language its reflections are written in "
                                     "and its feedback is drafted in. Recorded in the audit log. Prints {command, "
                                     "course, language, changed}.")
    s.add_argument("--course", required=True, help="course name")
    s.add_argument("--language", required=True, help=f"the language's code: {offered}")
    add_db_arg(s)
    s.set_defaults(func=run_set)


def run_set(args) -> int:
    conn = open_db(args)
    course = courses.course_by_name(conn, args.course)
    changed = catalogue.set_language(conn, course["id"], args.language, actor=actor(args, conn))
    emit({"command": "course set", "course": course["name"],
          "language": courses.course_language(conn, course["id"]), "changed": changed})
    return 0
