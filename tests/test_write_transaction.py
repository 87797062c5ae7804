"""db.write_transaction takes the write lock up front, on SQLite (BEGIN IMMEDIATE) and on PostgreSQL
(an advisory lock every write transaction takes): a second read-then-write waits for the first to
commit and then reads what it wrote, so neither counts from a stale read. Runs on both
(`pytest --databases both`), in threads and in several processes (tests/at_once.py)."""
from __future__ import annotations

import threading
import time

import pytest

import at_once
import db


def _ticks(conn) -> int:
    return conn.execute("SELECT COUNT(*) FROM audit_log WHERE action = 'tick'").fetchone()[0]


def _tick(conn, who: str) -> int:
    """Read the count, then write the next: the read-then-write the lock protects."""
    n = _ticks(conn)
    db.audit(conn, actor=who, action="tick", entity="runs", entity_id=n + 1)
    return n + 1


def test_a_second_write_transaction_waits_for_the_first_and_sees_its_write(conn, db_path):
    started, results = threading.Event(), {}

    def first():
        own = db.connect(db_path)
        with db.write_transaction(own):
            results["first"] = _tick(own, "worker")
            started.set()
            time.sleep(0.5)
        own.close()

    worker = threading.Thread(target=first)
    worker.start()
    assert started.wait(30)
    t0 = time.monotonic()
    with db.write_transaction(conn):
        results["second"] = _tick(conn, "teacher")
    waited = time.monotonic() - t0
    worker.join()
    assert waited >= 0.3                       # it waited for the worker's commit
    assert results == {"first": 1, "second": 2}
    numbers = [r[0] for r in conn.execute("SELECT entity_id FROM audit_log WHERE action = 'tick' ORDER BY id")]
    assert numbers == [1, 2]


def test_many_writers_at_once_lose_no_count(conn, db_path):
    def writer(n: int):
        own = db.connect(db_path)
        for _ in range(5):
            with db.write_transaction(own):
                _tick(own, f"writer {n}")
        own.close()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    numbers = [r[0] for r in conn.execute("SELECT entity_id FROM audit_log WHERE action = 'tick' ORDER BY id")]
    assert numbers == list(range(1, 21))       # every read saw every commit before it: no number twice


def test_a_failed_write_transaction_writes_nothing(conn):
    try:
        with db.write_transaction(conn):
            _tick(conn, "teacher")
            raise RuntimeError("stop")
    except RuntimeError:
        pass
    assert _ticks(conn) == 0
    with db.write_transaction(conn):           # and the lock was let go
        _tick(conn, "teacher")
    assert _ticks(conn) == 1


@pytest.mark.slow   # four spawned processes
def test_writers_in_several_processes_lose_no_count(conn, db_path):
    """What several app hosts do: the lock holds across processes, not only across threads."""
    numbers = at_once.run(at_once.tick, [(db_path, f"host {n}", 5) for n in range(4)])
    assert sorted(sum(numbers, [])) == list(range(1, 21))
    stored = [r[0] for r in conn.execute("SELECT entity_id FROM audit_log WHERE action = 'tick' ORDER BY id")]
    assert stored == list(range(1, 21))
