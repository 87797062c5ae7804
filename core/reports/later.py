"""Intervals in the background: a dashboard shows its figures at once and its intervals when
they are ready.

The figures and point estimates come from the summed counts (constant time at any size); the
intervals resample students, one row per pair in scope: seconds for 100,000 submissions. A
page asks for a view with `wait=False`: a scope of at most INLINE_PAIRS pairs is computed whole
at once; a larger one gives the figures now, marked "intervals_pending", while one background
thread per (database, view) computes the whole view into the views' cache (db.analytics.memo),
where the page's next run finds it.
"""
from __future__ import annotations

import logging
import threading
from typing import Callable

import db

log = logging.getLogger(__name__)

INLINE_PAIRS = 20_000     # up to this many pairs the whole view takes well under a second
_running: set[tuple] = set()
_lock = threading.Lock()


def pending(view: dict) -> bool:
    return bool(view.get("intervals_pending"))


def whole_or_figures(conn, key: tuple, version, figures: Callable[[], dict], whole: Callable[[object], dict]) -> dict:
    """The whole view when it is cached or small; else the figures, while `whole(conn)` runs on
    its own connection in the background (once per key and version)."""
    view = figures()
    if view.get("empty") or db.file_of(conn) is None:
        return whole(conn)
    n = _pairs(view)
    from db import analytics

    if n <= INLINE_PAIRS or analytics.cached(conn, key, version):
        return whole(conn)
    path = db.file_of(conn)
    job = (path, key, version)
    with _lock:
        start = job not in _running
        _running.add(job)
    if start:
        threading.Thread(target=_compute, args=(job, path, whole), daemon=True, name="fairmark-intervals").start()
    view["intervals_pending"] = True
    return view


def _pairs(view: dict) -> int:
    """How many pairs the figures rest on (the Agreement headline's total, or the Fairness bands')."""
    if "headline" in view:
        return int(view["headline"]["n"].iloc[-1])
    return int(sum(b["n"] or 0 for b in view["bands"]["bands"].values()))


def _compute(job: tuple, path: str, whole: Callable[[object], dict]) -> None:
    conn = db.connect(path)
    try:
        whole(conn)
    except Exception:   # the page shows the figures and says the intervals are missing
        log.exception("intervals of %s failed", job[1])
    finally:
        conn.close()
        with _lock:
            _running.discard(job)
