"""Benchmarks: one command each (python -m bench.<name>); figures are ratios from one run."""
from __future__ import annotations

import contextlib
import os


@contextlib.contextmanager
def database_env(path: str):
    """Point FAIRMARK_DB at a benchmark database for the duration (never the user's own)."""
    before = os.environ.get("FAIRMARK_DB")
    os.environ["FAIRMARK_DB"] = str(path)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("FAIRMARK_DB", None)
        else:
            os.environ["FAIRMARK_DB"] = before
