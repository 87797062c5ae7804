"""The one machinery behind every background run (reflections, lessons): claim, process the
pending items concurrently, heartbeat, stop on a configuration fault, finish; start in a
background thread, resume, cancel. What differs per kind of run — which items are pending, how
one item is processed, what happens when all are done — is a `Kind`.

A run's state lives only in the database, so a browser refresh, another tab or the command line
all see the same numbers. One worker per run: a worker claims the run atomically and records its
token, pid and host (core.runs.worker); its heartbeat every few seconds is conditional on that
token, so a worker whose run was taken over stops starting items. A run whose worker died stays
"running"; `resume` takes it over at once when the worker's process is gone from this host, else
when its heartbeat is a minute old, and processes only the items still pending. Each item is one
transaction in its kind's `process`, so an interruption never leaves a half-written item.
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import db
from core.runs import stored as stored_texts
from core.runs import worker as run_worker
from core.errors import ConflictError, FairMarkError
from core.language.interface import Message, message_of
from core.runs.worker import age_s, worker_gone
from db import aggregates
from db import runs as runs_db

log = logging.getLogger(__name__)
HEARTBEAT_S = 2.0


class RunStopped(FairMarkError):
    """A fault that every further item would hit too (e.g. the key is refused): the run stops
    instead of burning through its items (they stay pending; fix the setting and resume).
    `fault` is the message saying what to fix."""

    def __init__(self, message: str, fault: str = ""):
        super().__init__(message)
        self.fault = fault or message


@dataclass(frozen=True)
class Kind:
    """What one kind of run does with its items."""
    name: str                                        # runs.kind: reflections | lessons
    pending: Callable[[Any, int], list[int]]          # (conn, run_id) -> item ids still to do
    counts: Callable[[Any, int], dict]                # (conn, run_id) -> {"pending": n, ...}
    prepare: Callable[[dict, str, Any], Any]          # (run, db_path, what the caller gave) -> work context
    process: Callable[[str, int, int, Any], None]     # (db_path, run_id, item_id, context); may raise RunStopped
    progress: Callable[[Any, int], dict]              # (conn, run_id) -> what pages and the CLI show
    after: Callable[[Any, int], None] | None = None   # (conn, run_id) when the items are done
    held: Callable[[Any], list[int]] | None = None    # (context) -> items a stopped run must reopen
    reopen: Callable[[Any, int, list[int]], Any] | None = None   # (conn, run_id, item ids)
    release: Callable[[Any], None] | None = None      # (context) when the worker stops (e.g. a batcher)


# --- execute ---------------------------------------------------------------------------
def execute(kind: Kind, db_path, run_id: int, given=None, *, on_progress: Callable[[dict], None] | None = None) -> dict:
    """Claim the run and process its pending items now (in this thread, items concurrently);
    returns the final progress. Item faults are recorded per item; a configuration fault stops
    the run (RunStopped); a fault of the worker itself marks the run failed (resumable) and is
    re-raised. Refused (ConflictError) while another live worker holds the run."""
    conn = db.connect(str(db_path))
    try:
        token = run_worker.claim(conn, run_id)
    finally:
        conn.close()
    return _work(kind, str(db_path), run_id, token, given, on_progress)


def _stop(conn, run_id: int, why: Message, token: str) -> None:
    """The run failed: why in English (at most 2,000 characters) and its form beside it
    (runs.error_said), so a page says it in the reader's language (core.runs.stored.stop_of)."""
    english, form = stored_texts.failed(why)
    runs_db.finish(conn, run_id, "failed", error=english, worker=token, said=form)


def _work(kind: Kind, db_path: str, run_id: int, token: str, given, on_progress) -> dict:
    conn = db.connect(db_path)
    context = None
    try:
        run = runs_db.get_run(conn, run_id)
        try:
            context = kind.prepare(run, db_path, given)
            kept = _process(kind, conn, db_path, run_id, context, int(run["config"].get("concurrency") or 4),
                            on_progress, token)
            if kind.after is not None:
                kind.after(conn, run_id)
        except RunStopped as e:
            # The items the fault had already failed wait with the rest: the resume retries them.
            if kind.held is not None and kind.reopen is not None and context is not None:
                kind.reopen(conn, run_id, kind.held(context))
            _stop(conn, run_id, Message(stored_texts.STOPPED, fault=e.fault), token)
            raise
        except BaseException as e:
            _stop(conn, run_id, Message(stored_texts.WORKER_STOPPED, error_type=type(e).__name__,
                                        error=message_of(e)),
                  token)
            raise
        if kept:
            counts = kind.counts(conn, run_id)
            if counts["pending"] and runs_db.cancel_requested(conn, run_id):
                runs_db.finish(conn, run_id, "cancelled", worker=token)
            elif counts["pending"]:
                _stop(conn, run_id, Message.plural(*stored_texts.NOT_PROCESSED, counts["pending"]), token)
            else:
                runs_db.finish(conn, run_id, "done", worker=token)
        return kind.progress(conn, run_id)
    finally:
        if kind.release is not None and context is not None:
            kind.release(context)
        run_worker.release(token)
        conn.close()


def _process(kind: Kind, conn, db_path: str, run_id: int, context, concurrency: int, on_progress,
             token: str) -> bool:
    """Run the pending items; False when another worker took the run over meanwhile (this one
    then stops starting items and leaves the run to it)."""
    pending = kind.pending(conn, run_id)
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix=f"run-{run_id}")
    stop = threading.Event()  # set by an item whose fault ends the run: no new item starts
    finished: queue.Queue = queue.Queue()
    kept = True
    try:
        futures = [pool.submit(_one, kind, db_path, run_id, item, context, stop) for item in pending]
        for f in futures:
            f.add_done_callback(finished.put)   # once per item: no rescan of every future per wake-up
        left, beat = len(futures), time.monotonic()
        while left:
            try:
                done = [finished.get(timeout=HEARTBEAT_S)]
            except queue.Empty:
                done = []
            while True:
                try:
                    done.append(finished.get_nowait())
                except queue.Empty:
                    break
            left -= len(done)
            for f in done:
                f.result()  # an item never raises, except a fault of the worker itself
            if kept and (time.monotonic() - beat >= HEARTBEAT_S or not done):
                kept = runs_db.heartbeat(conn, run_id, token)   # at most every HEARTBEAT_S, not per item
                beat = time.monotonic()
                # The dashboards' counts of what the items wrote, recounted here in the background
                # (short transactions), so a teacher's next page does not pay for it.
                aggregates.refresh(conn)
                if not kept:
                    log.warning("run %s was taken over by another worker; this one stops", run_id)
                    stop.set()
            if done and on_progress is not None:
                on_progress(kind.progress(conn, run_id))
    finally:
        # On a fault, queued items stay pending (resume picks them up); running ones finish.
        pool.shutdown(wait=True, cancel_futures=True)
    return kept


def _one(kind: Kind, db_path: str, run_id: int, item: int, context, stop: threading.Event) -> None:
    if stop.is_set():
        return
    try:
        kind.process(db_path, run_id, item, context)
    except BaseException:
        stop.set()
        raise


# --- background workers ------------------------------------------------------------------
_workers: dict[tuple[str, int], threading.Thread] = {}
_workers_lock = threading.Lock()


def _key(db_path, run_id: int) -> tuple[str, int]:
    return (str(Path(db_path).resolve()), int(run_id))


def is_alive(db_path, run_id: int) -> bool:
    """Is a worker for this run running in this process?"""
    t = _workers.get(_key(db_path, run_id))
    return bool(t and t.is_alive())


def start(kind: Kind, db_path, run_id: int, given=None, *, stale_after_s: float | None = None) -> threading.Thread:
    """Claim the run and execute it in a background thread; a second call while it runs returns
    the same thread. Refused (ConflictError) while a worker in another process holds the run."""
    key = _key(db_path, run_id)
    with _workers_lock:
        t = _workers.get(key)
        if t is not None and t.is_alive():
            return t
        # Claimed (status running) before the thread exists, so the page never shows a started
        # run as queued, and a second process cannot take it meanwhile.
        conn = db.connect(db_path)
        try:
            token = run_worker.claim(conn, run_id, stale_after_s=stale_after_s)
        finally:
            conn.close()
        t = threading.Thread(target=_background, args=(kind, str(db_path), run_id, token, given), daemon=True,
                             name=f"fairmark-{kind.name}-{run_id}")
        _workers[key] = t
        t.start()
    return t


def _background(kind: Kind, db_path: str, run_id: int, token: str, given) -> None:
    try:
        _work(kind, db_path, run_id, token, given, None)
    except RunStopped as e:   # recorded on the run row; the page shows it
        log.warning("run %s stopped: %s", run_id, e.fault)
    except BaseException:  # already recorded on the run row by _work()
        log.exception("run %s stopped", run_id)


def wait_for(db_path, run_id: int, timeout: float = 60.0) -> bool:
    """Block until this process's worker for the run has finished (tests, command line)."""
    t = _workers.get(_key(db_path, run_id))
    if t is not None:
        t.join(timeout)
        return not t.is_alive()
    return True


# --- resume / cancel ------------------------------------------------------------------------
def is_resumable(kind: Kind, conn, db_path, run: dict, stale_after_s: float | None = None) -> bool:
    if is_alive(db_path, run["id"]) or not kind.counts(conn, run["id"])["pending"]:
        return False
    return run["status"] in ("cancelled", "failed") or worker_gone(run, stale_after_s)


def resume(kind: Kind, db_path, run_id: int, given=None, *, background: bool = True,
           stale_after_s: float | None = None, on_progress: Callable[[dict], None] | None = None):
    """Continue a cancelled, failed or interrupted run with only its pending items.
    Returns the worker thread (background) or the final progress."""
    conn = db.connect(db_path)
    try:
        run = runs_db.get_run(conn, run_id)
        if is_alive(db_path, run_id):
            return _workers[_key(db_path, run_id)] if background else kind.progress(conn, run_id)
        if not is_resumable(kind, conn, db_path, run, stale_after_s):
            if not kind.counts(conn, run_id)["pending"]:
                raise ConflictError(Message("Run {run} has nothing left to do.", run=run_id))
            raise ConflictError(Message("Run {run} is still {status} (its worker was heard from {seconds:.0f} s ago); "
                                        "wait or cancel it.", run=run_id, status=run_worker.status_word(run["status"]),
                                        seconds=age_s(run["heartbeat_at"]) or 0))
        if background:
            return start(kind, db_path, run_id, given, stale_after_s=stale_after_s)
        # The claim re-checks inside one write transaction: of two resumes at once, one wins.
        token = run_worker.claim(conn, run_id, stale_after_s=stale_after_s)
    finally:
        conn.close()
    return _work(kind, str(db_path), run_id, token, given, on_progress)


def cancel(db_path, run_id: int, actor: str = "") -> str:
    """Ask the worker to stop after the items in flight; a run without a live worker is
    marked cancelled at once (its pending items stay resumable). Returns the run's status."""
    conn = db.connect(db_path)
    try:
        run = runs_db.get_run(conn, run_id)
        if run["status"] not in runs_db.ACTIVE:
            return run["status"]
        runs_db.request_cancel(conn, run_id, actor)
        if not is_alive(db_path, run_id) and (run["status"] == "queued" or worker_gone(run)):
            runs_db.finish(conn, run_id, "cancelled")
        return runs_db.get_run(conn, run_id)["status"]
    finally:
        conn.close()
