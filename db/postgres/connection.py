"""A PostgreSQL database behind the part of sqlite_utils' `Database` that FairMark uses.

db/ passes a connection to every query as `conn` and calls `conn.execute(sql, params)` (a cursor:
fetchone, fetchall, rowcount, lastrowid), `conn.query(sql, params)` (dicts), `conn.atomic()`,
`conn.table_names()`, `conn.close()`, and on the raw connection `conn.conn.execute("BEGIN
IMMEDIATE" | "BEGIN" | "COMMIT")`, `executemany`, `rollback`, `in_transaction`. `Database` here
gives the same over psycopg 3, each statement put through the dialect (db/postgres/dialect.py).

Transactions, as on SQLite: a statement outside one commits at once (autocommit); `atomic()` is
BEGIN … COMMIT, nested as a savepoint. "BEGIN IMMEDIATE" (db.write_transaction, SQLite's write
lock taken up front) is BEGIN plus a transaction-scoped advisory lock that every write transaction
takes: one read-then-write at a time across every host, as SQLite's one writer on one file. "BEGIN"
(db.read_snapshot) is a REPEATABLE READ transaction: one state of the database for several reads.

Errors: a broken constraint is raised as sqlite3.IntegrityError (its message begins with SQLite's
"UNIQUE constraint failed: …", naming PostgreSQL's constraint) and a lock that could not be had as
sqlite3.OperationalError("database is locked …"), the classes core already handles; a missing table
or column, or SQL PostgreSQL cannot read, is sqlite3.OperationalError too, as SQLite raises it.
"""
from __future__ import annotations

import contextlib
import logging
import secrets
import sqlite3
import threading
import weakref

import psycopg
from psycopg.adapt import Dumper, Loader
from psycopg.pq import TransactionStatus

import db.location as location
from db.errors import Busy, ConfigError
from db.message import Message
from db.postgres import compat, dialect, later, pool, schema

Error = psycopg.Error    # what the driver raises, for db/postgres modules that do not import psycopg
WRITE_LOCK = 7_402_119   # the advisory lock key of "BEGIN IMMEDIATE" (any constant, the same everywhere)
# db.write_transaction(lock=…): which advisory locks a write transaction takes. "writes" is SQLite's
# one writer; "aggregates" serialises only the refreshes of the kept counts (db/aggregates.py), which
# write tables nothing else writes, so a page's refresh never queues behind a run's drafts (on one
# 2-core machine with 4 hosts and a run writing it was 80 % of the review page's time); a restore,
# which replaces those tables too, takes both.
IF_FREE = " if free"
LOCKS = {"writes": (WRITE_LOCK,), "aggregates": (WRITE_LOCK + 2,), "everything": (WRITE_LOCK, WRITE_LOCK + 2)}
_keys: dict[str, tuple] = {}
_ready: set[str] = set()
_lock = threading.Lock()
log = logging.getLogger(__name__)

class _Number(Loader):
    """numeric (SUM, AVG of integers) as SQLite gives it: a whole number an int, else a float."""
    def load(self, data):
        text = bytes(data).decode()
        return float(text) if any(c in text for c in ".eEN") else int(text)


class _Text(Loader):
    """json (json_build_object …) as text, as SQLite's JSON functions give it."""
    def load(self, data):
        return bytes(data).decode()


class _BoolAsInt(Dumper):
    """A Python bool as 1/0: SQLite's columns hold booleans as integers, and so do these."""
    oid = psycopg.adapters.types["int8"].oid

    def dump(self, obj):
        return b"1" if obj else b"0"


def _primary_keys() -> tuple:
    if not _keys:
        raw = schema._head()
        _keys.update(schema.primary_keys(raw))
        raw.close()
    return tuple(sorted(_keys.items()))


class Cursor:
    """What a sqlite3 cursor gives FairMark: rows as tuples, rowcount, lastrowid."""

    def __init__(self, cur, lastrowid=None):
        self._cur, self.lastrowid = cur, lastrowid

    @property
    def rowcount(self):
        return self._cur.rowcount

    @property
    def description(self):
        return self._cur.description

    def fetchone(self):
        return self._cur.fetchone() if self._cur.description else None

    def fetchall(self):
        return self._cur.fetchall() if self._cur.description else []

    def __iter__(self):
        return iter(self.fetchall())


# SQLite's words for a broken constraint, which core may look for (e.g. "UNIQUE" in the message).
_CONSTRAINTS = ((psycopg.errors.UniqueViolation, "UNIQUE"), (psycopg.errors.NotNullViolation, "NOT NULL"),
                (psycopg.errors.ForeignKeyViolation, "FOREIGN KEY"), (psycopg.errors.CheckViolation, "CHECK"))


def _mapped(e: psycopg.Error) -> Exception:
    if isinstance(e, psycopg.errors.IntegrityError):
        kind = next((word for cls, word in _CONSTRAINTS if isinstance(e, cls)), "")
        name = getattr(e.diag, "constraint_name", None) or ""
        said = f"{kind} constraint failed: {name} ({str(e).splitlines()[0]})" if kind else str(e).splitlines()[0]
        return sqlite3.IntegrityError(said)
    if isinstance(e, (psycopg.errors.LockNotAvailable, psycopg.errors.SerializationFailure,
                      psycopg.errors.DeadlockDetected, psycopg.errors.QueryCanceled)):
        return sqlite3.OperationalError(f"database is locked ({str(e).splitlines()[0]})")
    if (e.sqlstate or "").startswith("42"):   # no such table or column, bad SQL (class 42)
        return sqlite3.OperationalError(str(e).splitlines()[0])
    return e


class Raw:
    """conn.conn: the few sqlite3.Connection calls db/ makes on the raw connection."""

    def __init__(self, owner: "Database"):
        # A proxy, not the Database itself: a cycle (Database.conn -> Raw -> Database) would keep an
        # unclosed connection, and its server process, alive until the cyclic collector ran. Code
        # written for sqlite3 lets a connection go when its last reference does; on PostgreSQL a
        # run's threads then held over 100 server connections (`python -m bench.load --databases
        # postgresql`: "too many clients already").
        self._db = weakref.proxy(owner)

    @property
    def in_transaction(self) -> bool:
        return self._db.pg.info.transaction_status != TransactionStatus.IDLE

    def execute(self, sql: str, params=None):
        verb = " ".join(sql.split()).upper()
        if verb == "BEGIN IMMEDIATE":
            self.begin_locked("writes")
            return None
        if verb == "BEGIN":
            self._db.pg.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            return None
        return self._db.execute(sql, params)

    def begin_locked(self, lock: str) -> None:
        """BEGIN, then the transaction-scoped advisory locks of `lock` (LOCKS), in one order. With
        " if free" after the name, a lock held elsewhere is not waited for: Busy, nothing begun."""
        self._db.pg.execute("BEGIN")
        try:
            self.take_locks(lock)
        except BaseException:
            self._db.pg.execute("ROLLBACK")
            raise

    def take_locks(self, lock: str) -> None:
        """The advisory locks of `lock` in the open transaction (held until it ends); " if free":
        Busy at once when one is held elsewhere."""
        wait = not lock.endswith(IF_FREE)
        with self._db._errors():
            for key in LOCKS[lock.removesuffix(IF_FREE)]:
                if wait:
                    self._db.pg.execute("SELECT pg_advisory_xact_lock(%s)", [key])
                elif not self._db.pg.execute("SELECT pg_try_advisory_xact_lock(%s)", [key]).fetchone()[0]:
                    raise Busy(f"database is locked ({lock.removesuffix(IF_FREE)}: held elsewhere)")

    def executemany(self, sql: str, rows):
        with self._db._errors():
            self._db.pg.cursor().executemany(dialect.translate(sql, _primary_keys()), list(rows))

    def rollback(self):
        self._db.pg.rollback()

    def commit(self):
        self._db.pg.commit()

    def close(self):
        self._db.close()


class Database:
    """sqlite_utils.Database's calls that FairMark makes, on one psycopg connection."""

    def __init__(self, url: str):
        self.url = url
        # UTC as SQLite's 'now'; a lock waited for as long as SQLite's busy timeout (db.connect).
        # A server that does not answer is given up after 10 s, unless the URL says otherwise.
        self.conn = Raw(self)
        found = pool.reused(url)
        if found is not None:
            self.pg, self._slot = found
        else:
            wait = {} if "connect_timeout" in url else {"connect_timeout": 10}
            self._slot = pool.take_slot()
            try:
                self.pg = psycopg.connect(url, autocommit=True, options="-c timezone=UTC -c lock_timeout=30000",
                                          **wait)
            except BaseException:
                self._slot.give_back()
                raise
            for name in ("numeric",):
                self.pg.adapters.register_loader(name, _Number)
            for name in ("json", "jsonb"):
                self.pg.adapters.register_loader(name, _Text)
            self.pg.adapters.register_dumper(bool, _BoolAsInt)
        # Let go without close: the server connection ends with it (psycopg closes it) and its place
        # comes back; it is not kept for reuse, as its state is not known.
        self._finalizer = weakref.finalize(self, self._slot.give_back)

    @contextlib.contextmanager
    def _errors(self):
        try:
            yield
        except psycopg.Error as e:
            mapped = _mapped(e)
            if mapped is e:
                raise
            raise mapped from e

    def execute(self, sql: str, parameters=None) -> Cursor:
        text = dialect.translate(sql, _primary_keys())
        returning = dialect.returning_id(text, _primary_keys())
        with self._errors():
            cur = self.pg.execute(text + (" RETURNING id" if returning else ""),
                                  parameters if parameters is not None else [])
            if returning:
                ids = cur.fetchall()
                return Cursor(cur, ids[-1][0] if ids else None)
            return Cursor(cur)

    def query(self, sql: str, params=None):
        cur = self.execute(sql, params)
        names = [d.name for d in cur.description or ()]
        return (dict(zip(names, row)) for row in cur.fetchall())

    def executescript(self, sql: str) -> None:
        for statement in sql.split(";"):
            if statement.strip():
                self.execute(statement)

    def table_names(self) -> list[str]:
        return [r[0] for r in self.pg.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name")]

    @contextlib.contextmanager
    def atomic(self):
        if self.conn.in_transaction:
            name = f"fm_{secrets.token_hex(8)}"
            self.pg.execute(f"SAVEPOINT {name}")
            try:
                yield self
            except BaseException:
                if self.pg.info.transaction_status != TransactionStatus.IDLE:
                    self.pg.execute(f"ROLLBACK TO SAVEPOINT {name}")
                    self.pg.execute(f"RELEASE SAVEPOINT {name}")
                raise
            else:
                self.pg.execute(f"RELEASE SAVEPOINT {name}")
            return
        self.pg.execute("BEGIN")
        try:
            yield self
        except BaseException:
            self.pg.rollback()
            raise
        with self._errors():
            self.pg.execute("COMMIT")

    def close(self, keep: bool = True) -> None:
        pg, slot = self.pg, self._slot
        if isinstance(pg, _Closed):
            return
        self.pg = _Closed()
        self._finalizer.detach()
        if keep and not pg.closed and pg.info.transaction_status == TransactionStatus.IDLE and pool.kept(self.url, pg, slot):
            return
        pg.close()
        slot.give_back()


class _Closed:
    """What a closed Database's connection is: it may be in another Database's hands now."""
    closed = True

    def __getattr__(self, name):
        raise psycopg.OperationalError("the connection is closed")


def connect(url: str) -> Database:
    """A connection to the PostgreSQL database at url, made FairMark's at the head migration on first
    use (by whichever process comes first: the others wait on the same advisory lock)."""
    try:
        conn = Database(url)
    except psycopg.Error as e:   # a configuration to fix (or a server down): said without the password
        said = location.scrubbed(" ".join(str(e).split()), url)[:500]
        raise ConfigError(Message("The PostgreSQL database {url} cannot be reached ({error}).", url=location.shown(url),
                                  error=said)) from e
    if url not in _ready:
        with _lock:
            try:
                # However long another host's migration takes: not the 30 s lock_timeout of every wait.
                conn.pg.execute("SET lock_timeout = 0")
                conn.pg.execute("SELECT pg_advisory_lock(%s)", [WRITE_LOCK + 1])
                conn.pg.execute("SET lock_timeout = 30000")
            except BaseException:
                conn.close(keep=False)
                raise
            try:
                made = conn.pg.execute("SELECT to_regclass('public._sqlite_migrations')").fetchone()[0]
                if made is None:
                    with conn.pg.transaction():
                        conn.pg.execute(compat.FUNCTIONS)
                        for statement in schema.baseline():
                            conn.pg.execute(statement)
                else:   # made by an older FairMark: the migrations it lacks (db/postgres/later.py)
                    ran = later.apply(conn.pg, location.shown(url))
                    if ran:
                        log.info("PostgreSQL database %s migrated: %s", location.shown(url), ", ".join(ran))
                _ready.add(url)
            except BaseException:
                conn.close(keep=False)   # a database refused keeps no connection open
                raise
            finally:
                if not conn.pg.closed:
                    conn.pg.execute("SELECT pg_advisory_unlock(%s)", [WRITE_LOCK + 1])
    return conn
