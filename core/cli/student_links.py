"""`python -m core appeals links --course C --assignment A`: fresh private links for the
assignment's released items (their old links are revoked), printed once: only their hashes are
kept. The `appeals` command is shared (core.cli.common.command_group): the appeals' own
subcommands join it from their module."""
from __future__ import annotations

from core.cli.common import actor, add_db_arg, command_group, emit, open_db
from core.students import links
from db import courses


def register(sub) -> None:
    p = command_group(sub, "appeals", "students' private links and their appeals").add_parser(
        "links", help="make fresh private links to the students' released feedback (the old ones stop working)",
        description="Mints a new private link for every released item of the assignment and revokes the item's "
                    "earlier links. The links are printed once: FairMark keeps only their hashes.")
    p.add_argument("--course", required=True, help="course name")
    p.add_argument("--assignment", required=True, help="assignment title")
    add_db_arg(p)
    p.set_defaults(func=run)


def run(args) -> int:
    conn = open_db(args)
    try:
        who = actor(args, conn)
        course = courses.course_by_name(conn, args.course)
        aid = courses.assignment_by_title(conn, course["id"], args.assignment)["id"]
        emit({"links": links.mint(conn, course["id"], aid, actor=who)})
        return 0
    finally:
        conn.close()
