"""The command line: python -m core COMMAND … (each command prints a JSON summary on stdout).

Commands are registered by small modules, one per area, so each stays readable:
core.cli.catalogue (init, demo, import), core.cli.course (course set), core.cli.assignment (assignment set), core.cli.assess
(assess), core.cli.export (export), core.cli.metrics (metrics), core.cli.evals (evals),
core.cli.lessons (lessons), core.cli.users (user), core.cli.data (data), core.cli.review (review,
release), core.cli.lti (lti), core.cli.appeals (appeals list), core.cli.student_links (appeals
links). A command that several modules give verbs to (appeals) is made with
core.cli.common.command_group. core/__main__.py only calls `main`.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from core.cli.common import emit
from core.errors import FairMarkError
from core.settings import db_location
from db import location

COMMAND_MODULES = ("core.cli.catalogue", "core.cli.course", "core.cli.assignment", "core.cli.assess", "core.cli.export",
                   "core.cli.metrics", "core.cli.evals", "core.cli.lessons", "core.cli.users", "core.cli.data", "core.cli.review",
                   "core.cli.lti", "core.cli.appeals", "core.cli.student_links", "core.cli.moderation")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m core",
        description="FairMark from the command line. Every command prints a JSON summary on stdout. "
                    "The database is FAIRMARK_DB (default ./fairmark.db) unless --db is given.",
    )
    parser.add_argument("--db", help="SQLite file or postgresql:// URL to use (overrides FAIRMARK_DB)")
    parser.add_argument("--as", dest="as_user", metavar="USER",
                        help="act as this FairMark user (their role and courses); default: the command line, "
                             'recorded as "command line (<OS user>)" with an admin\'s rights')
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    # --db is the command's database: what core reads through the settings while it runs (the
    # admin's model overrides, the call log) is that file's too, never ./fairmark.db's.
    before = os.environ.get("FAIRMARK_DB")
    try:
        # Refused before the command does anything: an address, not a file, makes nothing.
        if getattr(args, "db", None):
            location.check(args.db, "--db")
            os.environ["FAIRMARK_DB"] = args.db
        else:
            db_location()
        return int(args.func(args) or 0)
    except FairMarkError as e:
        print(f"error: {e}", file=sys.stderr)
        emit({"error": str(e)})
        return 2
    finally:
        if before is None:
            os.environ.pop("FAIRMARK_DB", None)
        else:
            os.environ["FAIRMARK_DB"] = before

