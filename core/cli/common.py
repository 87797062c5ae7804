"""Helpers shared by the command modules."""
from __future__ import annotations

import json
import sys

import db
from core.accounts import access
from core.settings import load_settings

STOPPED = 3   # exit code of a run (assess, lessons review) that a configuration fault stopped


def emit(obj) -> None:
    """The JSON summary every command prints on stdout."""
    print(json.dumps(obj, ensure_ascii=False, default=str))


def open_db(args):
    path = getattr(args, "db", None) or load_settings().db_path
    return db.connect(path)


def add_db_arg(parser) -> None:
    """Let --db and --as also follow the command name (python -m core demo --db x.db)."""
    import argparse

    parser.add_argument("--db", default=argparse.SUPPRESS, help="SQLite file to use (overrides FAIRMARK_DB)")
    parser.add_argument("--as", dest="as_user", metavar="USER", default=argparse.SUPPRESS,
                        help="act as this FairMark user (their role and courses), not as the command line")


def actor(args, conn) -> access.Actor:
    """Who this command acts as, said on stderr: the FairMark user of --as USER (their role
    and grants apply), else the operator with the database file in hand, recorded as
    "command line (<OS user>)" with an admin's rights."""
    from core.accounts import identity as accounts

    name = getattr(args, "as_user", None)
    who = access.command_line(accounts.actor_of(conn, name) if name else None)
    print(f"acting as {who} ({who.role_label})", file=sys.stderr, flush=True)
    return who


def appeals_group(sub):
    """The subcommands of `python -m core appeals`, made by the first module that asks (the
    students' links, core.cli.student_links; the appeals' list, core.cli.appeals): each adds its
    own subcommand to the one `appeals` command. `sub` is build_parser's subparsers."""
    if "appeals" not in sub.choices:
        p = sub.add_parser("appeals", help="students' private links and their appeals")
        p.set_defaults(_appeals_verbs=p.add_subparsers(dest="verb", required=True, metavar="VERB"))
    return sub.choices["appeals"].get_default("_appeals_verbs")
