"""Helpers shared by the command modules."""
from __future__ import annotations

import db
from core.settings import load_settings

STOPPED = 3   # exit code of a run (assess, lessons review) that a configuration fault stopped


def open_db(args):
    path = getattr(args, "db", None) or load_settings().db_path
    return db.connect(path)


def add_db_arg(parser) -> None:
    """Let --db also follow the command name (python -m core demo --db x.db)."""
    import argparse

    parser.add_argument("--db", default=argparse.SUPPRESS, help="SQLite file to use (overrides FAIRMARK_DB)")
