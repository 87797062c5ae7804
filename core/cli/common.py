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

    parser.add_argument("--db", default=argparse.SUPPRESS,
                        help="SQLite file or postgresql:// URL to use (overrides FAIRMARK_DB)")
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


def command_group(sub, name: str, help: str):
    """The verbs of `python -m core NAME VERB`, made by the first module that asks: several
    command modules add their own verbs to one command (core.cli.appeals' `appeals list`, the
    student links' `appeals links`) without knowing about each other. Returns the verbs' subparsers
    action (call its add_parser)."""
    parser = sub.choices.get(name)
    if parser is None:
        parser = sub.add_parser(name, help=help)
        parser.fairmark_verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    return parser.fairmark_verbs
