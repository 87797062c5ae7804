"""`python -m core user ...`: accounts and grants (issue 13).

    python -m core user add NAME --role admin|coordinator|instructor|ta [--email E] [--display-name D]
                            [--password-stdin | --no-password]
    python -m core user list
    python -m core user grant NAME (--course COURSE | --department DEPT) [--names]
    python -m core user revoke NAME (--course COURSE | --department DEPT)
    python -m core user role NAME ROLE
    python -m core user password NAME [--password-stdin]
    python -m core user deactivate NAME | activate NAME
    python -m core user language NAME (en|sv|ru|browser)

A password is asked for without echo (or read from the first line of stdin with
--password-stdin), never taken as an argument: arguments show in the process list. On a fresh
database `user add NAME --role admin` makes the first admin; after that the command line acts as
an admin ("command line (<OS user>)"), or as `--as USER`.
"""
from __future__ import annotations

import getpass
import sys

from core.accounts import identity as accounts
from core.accounts import preferences
from core.cli.common import emit
from core.cli.common import actor, add_db_arg, open_db
from core.errors import ConfigError
from db import courses
from core.language import SUPPORTED
from db.actors import ROLES


def register(sub) -> None:
    p = sub.add_parser("user", help="add users, set roles and passwords, grant courses")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    a = verbs.add_parser("add", help="add a user (the first one must be an admin)")
    a.add_argument("name", help="user name (sign-in name, no spaces)")
    a.add_argument("--role", required=True, choices=ROLES)
    a.add_argument("--email", help="e-mail: institutional sign-in (OIDC) matches on it")
    a.add_argument("--display-name", default="", help="the name shown in the app")
    _password_args(a)
    a.add_argument("--no-password", action="store_true", help="institutional sign-in only (needs --email)")
    verbs.add_parser("list", help="users, roles and grants")
    for verb, text in (("grant", "give a user a course (or every course of a department)"),
                       ("revoke", "take a course (or department) grant away")):
        g = verbs.add_parser(verb, help=text)
        g.add_argument("name")
        where = g.add_mutually_exclusive_group(required=True)
        where.add_argument("--course", help="course name")
        where.add_argument("--department", help="department (courses with that department)")
        if verb == "grant":
            g.add_argument("--names", action="store_true",
                           help="a coordinator sees student names there (others see names anyway)")
    r = verbs.add_parser("role", help="change a user's role")
    r.add_argument("name")
    r.add_argument("role", choices=ROLES)
    pw = verbs.add_parser("password", help="set a user's password (ends their sessions)")
    pw.add_argument("name")
    _password_args(pw)
    lang = verbs.add_parser("language", help="the language a user reads the interface in (browser: the browser's)")
    lang.add_argument("name")
    lang.add_argument("language", help=f"{', '.join(SUPPORTED)} or {preferences.BROWSER}")
    for verb in ("deactivate", "activate"):
        d = verbs.add_parser(verb, help=f"{verb} a user (deactivating ends their sessions)")
        d.add_argument("name")
    for parser in verbs.choices.values():
        add_db_arg(parser)
        parser.set_defaults(func=run)


def _password_args(parser) -> None:
    parser.add_argument("--password-stdin", action="store_true", help="read the password from stdin's first line")


def _password(args) -> str:
    if getattr(args, "password_stdin", False):
        return sys.stdin.readline().rstrip("\r\n")
    if not sys.stdin.isatty():
        raise ConfigError("Give the password on stdin with --password-stdin (it is never an argument).")
    first = getpass.getpass("Password: ")
    if getpass.getpass("Again: ") != first:
        raise ConfigError("The two passwords differ; nothing was changed.")
    return first


def run(args) -> int:
    conn = open_db(args)
    try:
        if args.verb == "add":
            first = accounts.needs_first_admin(conn)
            who = None if first else actor(args, conn)
            password = None if args.no_password else _password(args)
            uid = accounts.add_user(conn, username=args.name, role=args.role, password=password,
                                    display_name=args.display_name, email=args.email, actor=who)
            emit({"command": "user add", "user_id": uid, "name": args.name, "role": args.role,
                  "first_admin": first, "by": str(who) if who else "first account"})
            return 0
        who = actor(args, conn)
        if args.verb == "list":
            emit({"command": "user list", "users": accounts.list_users(conn, actor=who)})
            return 0
        uid = accounts.user_id_of(conn, args.name)
        if args.verb in ("grant", "revoke"):
            course_id = courses.course_by_name(conn, args.course)["id"] if args.course else None
            if args.verb == "grant":
                accounts.grant(conn, uid, course_id=course_id, department=args.department, sees_names=args.names,
                               actor=who)
            else:
                accounts.revoke(conn, uid, course_id=course_id, department=args.department, actor=who)
        elif args.verb == "role":
            accounts.set_role(conn, uid, args.role, actor=who)
        elif args.verb == "password":
            accounts.set_password(conn, uid, _password(args), actor=who)
        elif args.verb == "language":
            stored = preferences.set_language(conn, uid, args.language, actor=who)
            emit({"command": "user language", "name": args.name, "language": stored or preferences.BROWSER,
                  "by": str(who)})
            return 0
        else:
            accounts.set_active(conn, uid, args.verb == "activate", actor=who)
        emit({"command": f"user {args.verb}", "name": args.name, "by": str(who)})
        return 0
    finally:
        conn.close()
