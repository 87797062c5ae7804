"""`python -m core moderation draw|status|markers`: the moderation sample of an assignment, its
state, and each marker's figures (the functions behind the Agreement page's Moderation section
and the Markers page). Refusals exit 2 with {"error": ...} (core.cli)."""
from __future__ import annotations

from core.cli.common import actor, add_db_arg, emit, open_db
from core.moderation import markers, sample
from db import courses


def register(sub) -> None:
    p = sub.add_parser("moderation", help="second marking: draw the sample, its state, each marker's figures")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    d = verbs.add_parser("draw", help="draw (or grow) an assignment's moderation sample, stratified")
    d.add_argument("--course", required=True, help="course name")
    d.add_argument("--assignment", required=True, help="assignment title")
    size = d.add_mutually_exclusive_group(required=True)
    size.add_argument("--size", type=int, help="items in the sample")
    size.add_argument("--share", type=float, help="share of the assignment's items, e.g. 0.1")
    d.add_argument("--seed", type=int, default=0, help="seed of the random draw (default 0)")
    add_db_arg(d)
    d.set_defaults(func=run_draw)
    s = verbs.add_parser("status", help="how many items are drawn, second-marked, differing and settled")
    s.add_argument("--course", required=True, help="course name")
    s.add_argument("--assignment", required=True, help="assignment title")
    add_db_arg(s)
    s.set_defaults(func=run_status)
    m = verbs.add_parser("markers", help="each marker's figures against the consensus (a marker: their own)")
    m.add_argument("--course", required=True, help="course name")
    m.add_argument("--marker", help="one marker's user name (a marker may ask only for their own)")
    add_db_arg(m)
    m.set_defaults(func=run_markers)


def _assignment(conn, args) -> int:
    course = courses.course_by_name(conn, args.course)
    return courses.assignment_by_title(conn, course["id"], args.assignment)["id"]


def run_draw(args) -> int:
    conn = open_db(args)
    who = actor(args, conn)
    emit(sample.draw(conn, _assignment(conn, args), size=args.size, share=args.share, seed=args.seed, actor=who))
    return 0


def run_status(args) -> int:
    conn = open_db(args)
    who = actor(args, conn)
    emit(sample.status(conn, _assignment(conn, args), actor=who))
    return 0


def run_markers(args) -> int:
    conn = open_db(args)
    who = actor(args, conn)
    emit(markers.figures(conn, courses.course_by_name(conn, args.course)["id"], marker=args.marker, actor=who))
    return 0
