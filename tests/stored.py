"""What a database holds, read the same way on SQLite and PostgreSQL (`pytest --postgresql`).

Everything as text, for the tests that check a secret is never stored: every value of every table,
and on SQLite also the file's own bytes and its write-ahead log (a replaced row or a page not yet
checkpointed can keep a value the tables no longer show); a PostgreSQL server's files are not this
process's to read, its tables are. And a table's columns and indexes, and the rows whose foreign
key points at nothing, without SQLite's PRAGMAs or sqlite_utils' table objects."""
from __future__ import annotations

from pathlib import Path

import db


def cells(conn) -> dict[str, list[str]]:
    """{"table.column": [each non-empty value as text]} of every table."""
    found: dict[str, list[str]] = {}
    for table in conn.table_names():
        for row in conn.query(f'SELECT * FROM "{table}"'):
            for column, value in row.items():
                if value is not None:
                    found.setdefault(f"{table}.{column}", []).append(str(value))
    return found


def stored_text(conn) -> str:
    """All of it in one text: the tables' values, and on SQLite the file and its log as bytes
    (read as latin-1, so every byte is a character)."""
    text = "\n".join(v for values in cells(conn).values() for v in values)
    if hasattr(conn, "url"):      # PostgreSQL (db/postgres)
        return text
    path = db.file_of(conn)
    for file in (Path(path), Path(f"{path}-wal")) if path else ():
        if file.exists():
            text += "\n" + file.read_bytes().decode("latin-1")
    return text


def stored_anywhere(conn, secret: str) -> list[str]:
    """The "table.column"s with a value holding `secret` (case aside, as SQLite's LIKE)."""
    secret = secret.lower()
    return sorted(name for name, values in cells(conn).items() if any(secret in v.lower() for v in values))


def _postgres(conn) -> bool:
    return hasattr(conn, "url")      # db/postgres's Database


def column_names(conn, table: str) -> set[str]:
    return {d[0] for d in conn.execute(f'SELECT * FROM "{table}" LIMIT 0').description}


def index_columns(conn, table: str) -> list[list[str]]:
    """Each index of the table as its columns, in order."""
    if not _postgres(conn):
        return [ix.columns for ix in conn[table].indexes]
    return [list(r[0]) for r in conn.pg.execute(
        "SELECT array_agg(a.attname ORDER BY k.n) FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid "
        "CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, n) "
        "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum "
        "WHERE t.relname = %s GROUP BY x.indexrelid", [table])]


def broken_foreign_keys(conn) -> list:
    """Rows whose foreign key points at no row: SQLite's foreign_key_check. PostgreSQL checks its
    foreign keys at every statement (none is deferrable), so there a row like that cannot exist."""
    return [] if _postgres(conn) else conn.execute("PRAGMA foreign_key_check").fetchall()


def lock_wait(conn, ms: int) -> None:
    """How long this connection's write waits for another's lock before "database is locked":
    SQLite's busy timeout, PostgreSQL's lock timeout (where 0 would mean for ever: 1 ms at least)."""
    if _postgres(conn):
        conn.execute(f"SET lock_timeout = {max(int(ms), 1)}")
    else:
        conn.execute(f"PRAGMA busy_timeout = {int(ms)}")
