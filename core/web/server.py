"""The one list of FairMark's HTTP routes that app.py gives `st.App` (its own module, so that
core.lti.web can use core.web.session without an import circle through the package), and the
server's lifespan: the work the server does on its own while it runs.

The lifespan runs one background task: every `lti_retry_minutes` (FAIRMARK_LTI_RETRY_MINUTES,
default 1; 0 turns it off) it sends the LMS grades whose next try has come
(core.lti.grades.retry_due) in a worker thread, so the server's event loop never waits for an
LMS. One round at a time (the next waits for the one before to end); a round that fails is
logged and the next one comes as usual; shutdown lets the round under way finish and stops.
Several server processes on one database are safe: each grade is claimed before it is sent.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging

log = logging.getLogger(__name__)


def routes() -> list:
    """Every FairMark route (starlette.routing.BaseRoute), in the order they are matched."""
    from core.lti import web as lti_web
    from core.web import session, student

    return [*session.ROUTES, *student.ROUTES, *lti_web.ROUTES]


def retry_round() -> dict | None:
    """One automatic retry of the LMS grades, on its own connection (a worker thread's); None
    when it failed (logged)."""
    import db
    from core.lti import grades
    from core.settings import load_settings

    try:
        conn = db.connect(load_settings().db_path)
        try:
            out = grades.retry_due(conn)
        finally:
            conn.close()
    except Exception:  # noqa: BLE001 — a round that fails must not end the loop; the next round tries again
        log.exception("FairMark's automatic retry of LMS grades failed; it tries again next round")
        return None
    if out["posted"] or out["failed"]:
        log.info("automatic retry of LMS grades: %d sent, %d still failing", out["posted"], out["failed"])
    return out


async def _retry_loop(every_s: float, stop: asyncio.Event) -> None:
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every_s)
        if not stop.is_set():
            await asyncio.to_thread(retry_round)


@contextlib.asynccontextmanager
async def lifespan(app=None):
    """st.App's lifespan: starts the automatic retry of LMS grades, and stops it on shutdown."""
    from core.settings import load_settings

    every_s = load_settings().lti_retry_minutes * 60
    stop = asyncio.Event()
    task = asyncio.create_task(_retry_loop(every_s, stop)) if every_s > 0 else None
    try:
        yield None
    finally:
        stop.set()
        if task is not None:
            await task           # the round under way ends (an LMS's timeout at most), then the loop stops
