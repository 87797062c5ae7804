"""`python -m core lti push` (send the grades of an assignment that have not reached the LMS,
now) and `python -m core lti roster` (read the LMS course's roster now). The `lti` group itself
is core.cli.lti's, which calls `add_parsers`. Refusals exit 2 with {"error": ...} (core.cli);
`lti push` exits 1 when a grade still could not be sent."""
from __future__ import annotations

from core.cli.common import actor, add_db_arg, emit, open_db
from core.lti import grades, roster
from db import courses


def add_parsers(verbs) -> None:
    p = verbs.add_parser("push", help="send the assignment's grades that have not reached the LMS yet, now")
    p.add_argument("--course", required=True, help="course name")
    p.add_argument("--assignment", required=True, help="assignment title")
    add_db_arg(p)
    p.set_defaults(func=run_push)
    r = verbs.add_parser("roster", help="read the linked LMS course's roster now (students created or updated)")
    r.add_argument("--course", required=True, help="course name")
    add_db_arg(r)
    r.set_defaults(func=run_roster)


def run_push(args) -> int:
    conn = open_db(args)
    try:
        who = actor(args, conn)
        course = courses.course_by_name(conn, args.course)
        assignment = courses.assignment_by_title(conn, course["id"], args.assignment)
        out = grades.retry(conn, course["id"], assignment["id"], actor=who)
        emit({"course": course["name"], "assignment": assignment["title"], **out})
        return 1 if out["failed"] else 0
    finally:
        conn.close()


def run_roster(args) -> int:
    conn = open_db(args)
    try:
        who = actor(args, conn)
        course = courses.course_by_name(conn, args.course)
        emit({"course": course["name"], **roster.sync(conn, course["id"], actor=who)})
        return 0
    finally:
        conn.close()
