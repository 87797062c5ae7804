"""Database access: one SQLite file, WAL mode, migrations applied once per process.

`connect(path)` is cheap and returns a fresh `sqlite_utils.Database`; open one per unit
of work (a page run, a worker thread) rather than sharing a connection across threads.
Query functions live in the modules beside this one, grouped by what they are about
(courses, submissions, runs, drafts, reviews, queue, samples, releases, exports, analytics),
and take `conn` as their first argument. Multi-row writes go inside `with db.atomic():`; a
read-then-write that must not fail when another connection commits in between uses
`with write_transaction(conn):`.
"""
from __future__ import annotations

import functools
import json
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path

from sqlite_utils import Database

from db import location
from db.actors import audit_fields
from db.migrations import migrations as _migrations

_migrated: set[str] = set()
_lock = threading.Lock()


def connect(path: str | Path, *, migrate: bool = True) -> Database:
    path = location.check(path, "The database")   # an address is refused before anything is made
    if location.is_postgresql(path):
        from db.postgres import connection   # psycopg only where PostgreSQL is used

        return connection.connect(path)
    first = path == ":memory:" or _resolved(path) not in _migrated
    if path != ":memory:" and first:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    raw = sqlite3.connect(path, timeout=30, check_same_thread=False)
    raw.execute("PRAGMA busy_timeout = 30000")
    raw.execute("PRAGMA foreign_keys = ON")
    if path != ":memory:":
        if first:   # WAL is a property of the file: set once per process, not on every page run
            raw.execute("PRAGMA journal_mode = WAL")
        raw.execute("PRAGMA synchronous = NORMAL")
    conn = Database(raw, execute_plugins=False)
    if migrate:
        key = _resolved(path) if path != ":memory:" else f"mem:{id(conn)}"
        if key not in _migrated:
            with _lock:
                _migrations.apply(conn)
                _migrated.add(key)
    return conn


@functools.lru_cache(maxsize=64)
def _resolved(path: str) -> str:
    """The file's absolute path, once per path (every page run connects)."""
    return str(Path(path).resolve())


def forget_migrated(path: str | Path | None = None) -> None:
    """Tests that delete a database file call this so the next connect migrates again."""
    if path is None:
        _migrated.clear()
    else:
        _migrated.discard(str(Path(path).resolve()))


def file_of(conn: Database) -> str | None:
    """The file a connection has open (None for an in-memory database): work that runs on
    its own connection, such as the pipeline, needs the path, not the connection."""
    if hasattr(conn, "url"):      # PostgreSQL (db/postgres): the address is what another connection opens
        return conn.url
    row = conn.execute("PRAGMA database_list").fetchone()
    return row[2] if row and row[2] else None


def on_postgresql(conn: Database) -> bool:
    """Whether a connection is to PostgreSQL (db/postgres) rather than a SQLite file."""
    return hasattr(conn, "url")


@contextmanager
def write_transaction(conn: Database, *, lock: str = "writes"):
    """A transaction that takes the write lock up front (BEGIN IMMEDIATE).

    On PostgreSQL `lock` says which: "writes" (every other writer, as SQLite's one writer),
    "aggregates" (only the kept counts' refreshes, db/aggregates.py) or "everything" (a restore);
    "… if free" raises db.errors.Busy at once when the lock is held elsewhere. SQLite has one write
    lock for all of them, waited for.

    With plain BEGIN a transaction that reads first and writes later fails at once with
    "database is locked" if another connection (the background run) committed in between: WAL
    cannot upgrade a stale read snapshot, and the busy timeout does not apply. Taking the lock
    first makes SQLite wait (busy timeout) for the other writer instead. Inside an open
    transaction this nests as a savepoint, like `db.atomic()`.
    """
    if conn.conn.in_transaction:
        with conn.atomic():
            if lock != "writes" and on_postgresql(conn):
                # Nested in a writer's transaction (a bulk approval's readiness refreshes the counts):
                # the refreshes' own lock is still taken, or two refreshes could count at once.
                conn.conn.take_locks(lock)
            yield conn
        return
    if lock.endswith(" if free") and not on_postgresql(conn):
        lock = "writes"                # SQLite: one write lock, waited for (busy timeout)
    if lock != "writes" and on_postgresql(conn):
        conn.conn.begin_locked(lock)   # db/postgres/connection.py LOCKS
    else:
        conn.conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.conn.rollback()
        raise
    try:
        conn.conn.execute("COMMIT")
    except BaseException:
        conn.conn.rollback()
        raise


@contextmanager
def read_snapshot(conn: Database):
    """Several reads that must see one state of the database (a deferred transaction: WAL gives
    it a snapshot at its first read and holds no lock, so writers go on meanwhile). Inside an
    open transaction it is just that transaction."""
    if conn.conn.in_transaction:
        yield conn
        return
    conn.conn.execute("BEGIN")
    try:
        yield conn
    finally:
        conn.conn.rollback()   # read only: nothing to keep


def now() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True)


def loads(text: str | None, default=None):
    if text is None or text == "":
        return default
    return json.loads(text)


def get_setting(conn: Database, key: str, default=None):
    """An admin setting stored as JSON in `app_settings` (default when never set)."""
    row = conn.execute("SELECT value FROM app_settings WHERE key = ?", [key]).fetchone()
    return default if row is None else loads(row[0], default)


def set_setting(conn: Database, key: str, value) -> None:
    conn.execute("INSERT INTO app_settings (key, value) VALUES (?, ?) "
                 "ON CONFLICT(key) DO UPDATE SET value = excluded.value", [key, dumps(value)])


def audit(conn: Database, *, actor: str, action: str, entity: str, entity_id: int | None = None,
          submission_id: int | None = None, before=None, after=None, reason: str = "") -> int:
    """Append one row to the audit log (call inside the same transaction as the change); its id. An
    Actor (db/actors.py) also records the signed-in user's id and role."""
    name, user_id, role = audit_fields(actor)
    return conn.execute(
        "INSERT INTO audit_log (at, actor, user_id, role, action, entity, entity_id, submission_id, before, after, "
        "reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [now(), name, user_id, role, action, entity, entity_id, submission_id,
         None if before is None else dumps(before), None if after is None else dumps(after), reason],
    ).lastrowid
