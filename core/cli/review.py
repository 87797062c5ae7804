"""`python -m core review queue|show|approve` and `python -m core release`: the queue the teacher
sees, one item as the review page shows it, approving one item with the page's checks, and the
Release page's release (the same core functions, so every gate applies to both). No bulk
approval from the command line. Refusals exit 2 with {"error": ...} (core.cli)."""
from __future__ import annotations

from core.cli.common import emit
from core.cli.common import actor, add_db_arg, open_db
from core.signoff import actions, release, review_view
from db import courses


def register(sub) -> None:
    p = sub.add_parser("review", help="the review queue, one item, or approve one item (as the Review page)")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    q = verbs.add_parser("queue", help="every submission of an assignment with its group and bulk eligibility")
    q.add_argument("--course", required=True, help="course name")
    q.add_argument("--assignment", required=True, help="assignment title")
    q.add_argument("--all", action="store_true", help="every item, not only those assigned to you as their marker")
    add_db_arg(q)
    q.set_defaults(func=run_queue)
    s = verbs.add_parser("show", help="one item as the review page shows it (the acting user opens it)")
    s.add_argument("submission", type=int, help="submission id")
    add_db_arg(s)
    s.set_defaults(func=run_show)
    a = verbs.add_parser("approve", help="approve one item at the version you saw (review show prints it)")
    a.add_argument("submission", type=int, help="submission id")
    a.add_argument("--version", type=int, required=True, help="the review_version `review show` printed")
    add_db_arg(a)
    a.set_defaults(func=run_approve)
    r = sub.add_parser("release", help="release an assignment's approved items (the Release page's gates)")
    r.add_argument("--course", required=True, help="course name")
    r.add_argument("--assignment", required=True, help="assignment title")
    add_db_arg(r)
    r.set_defaults(func=run_release)


def _assignment(conn, args) -> int:
    course = courses.course_by_name(conn, args.course)
    return courses.assignment_by_title(conn, course["id"], args.assignment)["id"]


def run_queue(args) -> int:
    conn = open_db(args)
    who = actor(args, conn)
    emit(review_view.review_queue(conn, _assignment(conn, args), actor=who, everything=args.all))
    return 0


def run_show(args) -> int:
    conn = open_db(args)
    who = actor(args, conn)
    # Showing opens the item as the acting user, as the page does (the audit says who; the release
    # gate's sample counts it): `review approve` needs an opened item.
    emit(review_view.review_show(conn, args.submission, actor=who))
    return 0


def run_approve(args) -> int:
    conn = open_db(args)
    who = actor(args, conn)
    try:
        out = actions.approve(conn, args.submission, version=args.version, actor=who)
    except actions.VersionConflict as e:
        latest = review_view.review_show(conn, args.submission, actor=who, opening=False)["review_version"]
        emit({"error": str(e), "latest_version": latest})
        return 2
    emit({"submission_id": args.submission, "status": "approved", "review_version": out["version"]})
    return 0


def run_release(args) -> int:
    conn = open_db(args)
    who = actor(args, conn)
    out = release.release(conn, _assignment(conn, args), actor=who)
    # The students' private links exist in plain only now (core.students.links): printed once.
    emit({"released": out["n_items"], "release_id": out["release_id"], "refused": out.get("refused", []),
          "links": out["links"]})
    return 0
