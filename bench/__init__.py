"""Benchmarks: one command each (python -m bench.<name>); figures are ratios from one run."""
from __future__ import annotations

import contextlib
import os
from core.accounts.access import Actor


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


def let_configuration_run(conn, provider: str = "openai", *, why: str) -> None:
    """A benchmark of something else than the AI's quality (faults, privacy, speed) runs the
    configuration in use through the eval gate's audited override (core.evals.gate), as an
    admin would; the reason is recorded."""
    from core.evals import config as ai_config
    from core.evals import gate
    from db import evals as evals_db

    defn = ai_config.current(provider)
    h = ai_config.config_hash(defn)
    evals_db.record_config(conn, h, defn, used_by="benchmark", used_for=why)
    gate.override(conn, h, actor=Actor("benchmark", role="admin"), reason=why)
