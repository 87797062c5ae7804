"""`python -m core data ...`: an admin's data care (issue 13).

    python -m core data backup OUT.db           a consistent copy while the app runs
    python -m core data restore BACKUP.db       replace the database (the current one is kept beside it)
    python -m core data migrate-to URL          copy this SQLite database into an empty PostgreSQL one
    python -m core data delete-student --course C --student ID [--reason R]
    python -m core data delete-course --course C --confirm C [--reason R]
    python -m core data retention [--days N | --keep]     show or set the retention period
    python -m core data apply-retention [--dry-run]        delete courses past it

Each prints one JSON object; deletions list what they deleted per table.
"""
from __future__ import annotations

from core import data_care
from core.cli.common import emit
from core.cli.common import actor, add_db_arg, open_db
from core.errors import ConfigError, NotFound
from db import courses, file_of


def register(sub) -> None:
    p = sub.add_parser("data", help="backup, restore, delete a student's or a course's data, retention")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    b = verbs.add_parser("backup", help="copy the database (consistent while the app runs)")
    b.add_argument("out", help="new file to write")
    r = verbs.add_parser("restore", help="replace the database with a backup (the current one is kept)")
    r.add_argument("backup", help="backup file")
    m = verbs.add_parser("migrate-to", help="copy this SQLite database into an empty PostgreSQL database "
                                            "(one transaction; every table's row count checked)")
    m.add_argument("url", metavar="URL", help="the empty PostgreSQL database, postgresql://USER@HOST:PORT/DATABASE")
    s = verbs.add_parser("delete-student", help="delete everything about one student of a course")
    s.add_argument("--course", required=True)
    s.add_argument("--student", required=True, help="the student's id as uploaded (external id)")
    s.add_argument("--reason", default="")
    c = verbs.add_parser("delete-course", help="delete a course and everything in it")
    c.add_argument("--course", required=True)
    c.add_argument("--confirm", required=True, help="the course's name again")
    c.add_argument("--reason", default="")
    t = verbs.add_parser("retention", help="show or set how long courses without work are kept")
    keep = t.add_mutually_exclusive_group()
    keep.add_argument("--days", type=int, help="delete courses with no work for this many days (30-3650)")
    keep.add_argument("--keep", action="store_true", help="keep old courses (no retention period)")
    a = verbs.add_parser("apply-retention", help="delete the courses past the retention period")
    a.add_argument("--dry-run", action="store_true", help="only list them")
    for parser in verbs.choices.values():
        add_db_arg(parser)
        parser.set_defaults(func=run)


def run(args) -> int:
    conn = open_db(args)
    try:
        who = actor(args, conn)
        if args.verb == "backup":
            emit({"command": "data backup", **data_care.backup(conn, args.out, actor=who)})
        elif args.verb == "restore":
            path = file_of(conn)
            conn.close()
            emit({"command": "data restore", **data_care.restore(path, args.backup, actor=who)})
        elif args.verb == "migrate-to":
            tables = data_care.migrate_to(conn, args.url, actor=who)
            emit({"command": "data migrate-to", "tables": tables, "checked": True})
        elif args.verb == "delete-student":
            course = courses.course_by_name(conn, args.course)
            found = [s for s in courses.list_students(conn, course["id"]) if s["external_id"] == args.student]
            if not found:
                raise NotFound(f"No student {args.student!r} in {course['name']!r}.")
            deleted = data_care.delete_student(conn, found[0]["id"], actor=who, reason=args.reason)
            emit({"command": "data delete-student", "course": course["name"], "student": args.student,
                  "deleted": deleted})
        elif args.verb == "delete-course":
            course = courses.course_by_name(conn, args.course)
            if args.confirm != course["name"]:
                raise ConfigError("--confirm must repeat the course's name exactly; nothing was deleted.")
            deleted = data_care.delete_course(conn, course["id"], actor=who, reason=args.reason)
            emit({"command": "data delete-course", "course": course["name"], "deleted": deleted})
        elif args.verb == "retention":
            if args.days is not None or args.keep:
                data_care.set_retention(conn, None if args.keep else args.days, actor=who)
            emit({"command": "data retention", "days": data_care.retention_days(conn),
                  "expired": data_care.expired_courses(conn, actor=who)})
        else:
            done = data_care.apply_retention(conn, actor=who, dry_run=args.dry_run)
            emit({"command": "data apply-retention", "dry_run": args.dry_run, "courses": done})
        return 0
    finally:
        conn.close()
