"""The connections one process holds to PostgreSQL: a bound on how many at once, and a few closed
ones kept open for the next (db/postgres/connection.py opens and closes them through here).
"""
from __future__ import annotations

import gc
import logging
import os
import threading
import time

import psycopg
from psycopg.pq import TransactionStatus

from db.errors import ConfigError
from db.message import Message

log = logging.getLogger("db.postgres.connection")   # where an admin looks for the database's warnings
_lock = threading.Lock()

# How many connections one process holds at once (FAIRMARK_DB_CONNECTIONS, default 20). A batch
# run's wave of 500 answers arrives together and each submission's thread then stores its work:
# without a bound they asked for 500 server connections at once. Past the bound a new connection
# waits for one to close; after SLOT_WAIT_S it opens anyway (and says so in the log), because a
# thread holding one connection while it opens another must never wait for ever.
SLOT_WAIT_S = 10.0
_slots: threading.BoundedSemaphore | None = None
_over = 0   # connections opened past the bound in this process (the log says when it begins)


def pool_size() -> int:
    """The per-process bound on connections (FAIRMARK_DB_CONNECTIONS), checked when first used."""
    raw = os.environ.get("FAIRMARK_DB_CONNECTIONS", "").strip() or "20"
    if not raw.isdigit() or not 1 <= int(raw) <= 10_000:
        raise ConfigError(Message("FAIRMARK_DB_CONNECTIONS must be a whole number from 1 to 10000 (it is {value!r}): "
                                  "how many PostgreSQL connections one FairMark process may hold at once", value=raw))
    return int(raw)


class _Slot:
    """One place under the bound, given back once: on close, or when the connection is collected."""

    def __init__(self, bound: threading.BoundedSemaphore | None):
        self.bound = bound   # the one it was taken from (None: opened past the bound)

    def give_back(self) -> None:
        bound, self.bound = self.bound, None
        if bound is not None:
            bound.release()


# Connections closed by FairMark are kept open for the next one, up to IDLE_KEPT in a process: a new
# PostgreSQL connection is a server process started (3.7 ms here, and a quarter of an app host's time
# with 4 hosts on 2 cores). A kept one keeps its place under the bound, and is checked with one
# round trip before it is used again (the server may have ended it meanwhile).
IDLE_KEPT = 4
IDLE_MAX_S = 30.0
_idle: list[tuple] = []   # (url, psycopg connection, slot, kept at), oldest first
_pool_lock = threading.Lock()   # not _lock: connect() closes a connection while it holds that


def reused(url: str):
    """(connection, slot) kept idle for url and still alive, or None."""
    while True:
        with _pool_lock:
            i = next((i for i in range(len(_idle) - 1, -1, -1) if _idle[i][0] == url), None)
            if i is None:
                return None
            _, pg, slot, since = _idle.pop(i)
        try:
            # Kept a short while only: an idle socket a firewall dropped would make this round trip
            # wait for TCP's own timeout; a new connection has connect_timeout.
            if time.monotonic() - since < IDLE_MAX_S and pg.info.transaction_status == TransactionStatus.IDLE:
                pg.execute("SELECT 1")
                return pg, slot
        except psycopg.Error:
            pass
        pg.close()
        slot.give_back()


def kept(url: str, pg, slot: "_Slot") -> bool:
    with _pool_lock:
        _idle.append((url, pg, slot, time.monotonic()))
        oldest = _idle.pop(0) if len(_idle) > IDLE_KEPT else None
    if oldest is not None:
        oldest[1].close()
        oldest[2].give_back()
    return True


def _drop_one_idle() -> None:
    """Close the oldest kept connection, so its place under the bound comes free."""
    with _pool_lock:
        found = _idle.pop(0) if _idle else None
    if found is not None:
        found[1].close()
        found[2].give_back()


def let_go_idle(url: str | None = None) -> None:
    """Close the kept connections (to url, or all): before a database is copied or dropped, which
    PostgreSQL refuses while a session is open on it."""
    with _pool_lock:
        gone = [k for k in _idle if url is None or k[0] == url]
        _idle[:] = [k for k in _idle if k not in gone]
    for _, pg, slot, _ in gone:
        pg.close()
        slot.give_back()


_collected = [0.0]


def _collect() -> None:
    """Python's cyclic collector, at most once a second, when the bound is full. Code written for
    sqlite3 lets a connection go with its last reference, but a page's st.rerun() or st.stop() is an
    exception whose traceback keeps the frames, and their connections, in a cycle until the collector
    runs: their places came back only then (a worker of the test suite waited 10 s per connection)."""
    now = time.monotonic()
    with _lock:
        if now - _collected[0] < 1.0:
            return
        _collected[0] = now
    gc.collect()


def take_slot() -> _Slot:
    global _slots, _over
    if _slots is None:
        with _lock:
            if _slots is None:
                _slots = threading.BoundedSemaphore(pool_size())
    slots = _slots
    deadline = time.monotonic() + SLOT_WAIT_S
    while True:   # in short rounds: a connection kept idle meanwhile is closed for this one
        if slots.acquire(blocking=False):
            return _Slot(slots)
        _drop_one_idle()
        _collect()
        if slots.acquire(timeout=min(0.05, max(0.0, deadline - time.monotonic()))):
            return _Slot(slots)
        if time.monotonic() >= deadline:
            break
    with _lock:
        _over += 1
        if _over == 1 or _over % 100 == 0:
            log.warning("more than FAIRMARK_DB_CONNECTIONS=%s PostgreSQL connections were wanted at once for "
                        "%.0f s; opening one past the bound (%d so far in this process)",
                        pool_size(), SLOT_WAIT_S, _over)
    return _Slot(None)


