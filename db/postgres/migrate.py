"""A SQLite database copied into an empty PostgreSQL one (`python -m core data migrate-to URL`).

One transaction on the PostgreSQL side: the baseline's tables (db/postgres/schema.py) are made, every
table's rows are copied from one snapshot of the SQLite file (COPY, table by table), then the foreign
keys, indexes, triggers and views are added (so no kept-count trigger counts a copied row twice and a
key is checked once every row is there), each identity is moved past the highest id copied, and every
table's row count is compared with the SQLite one's. Any fault rolls all of it back: the target is
left as empty as it was. The counts are read again afterwards on a new connection.
"""
from __future__ import annotations

import sqlite3

import db.location as location
from db.errors import ConfigError
from db.message import Message
from db.postgres import compat, schema
from db.postgres.connection import Database, Error

# Relations that make a database "not empty" (tables, views, materialized views, sequences, foreign
# and partitioned tables) outside PostgreSQL's own schemas.
_OBJECTS = ("SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.relkind IN ('r', 'v', 'm', 'S', 'f', 'p') AND n.nspname NOT IN ('pg_catalog', "
            "'information_schema') AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp%' "
            "ORDER BY 1, 2")
_IDENTITIES = ("SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' "
               "AND is_identity = 'YES' ORDER BY 1, 2")


def _open(url: str) -> Database:
    try:
        return Database(url)
    except Error as e:
        said = location.scrubbed(" ".join(str(e).split()), url)
        raise ConfigError(Message("The PostgreSQL database {url} cannot be reached ({error}). Nothing was copied.",
                                  url=location.shown(url), error=said)) from e


def _columns(source, table: str) -> list[str]:
    names = [r[1] for r in source.execute(f'PRAGMA table_info("{table}")')]
    if table in schema._ROWID_TABLES and "rowid" not in names:
        names.append("rowid")   # the order rows were added in: a column on PostgreSQL (schema.py)
    return names


def copy(source, url: str, before=None) -> dict[str, int]:
    """Copy the SQLite database `source` (a connection at the head migration) into the empty
    PostgreSQL database at url; {table: rows}, checked. A ConfigError when the target cannot be
    reached, is not empty, or the copy fails (then nothing was written there). `before()` is called
    once the target is found empty, before the SQLite snapshot is taken (core's audit row, which is
    then copied too)."""
    parts = schema.baseline_parts()
    raw = schema._head()
    tables = list(schema.primary_keys(raw))
    raw.close()
    target = _open(url)
    try:
        found = target.pg.execute(_OBJECTS).fetchall()
        if found:
            names = ", ".join(f"{s}.{t}" if s != "public" else t for s, t in found[:5])
            raise ConfigError(Message("The PostgreSQL database {url} is not empty ({count} table(s), view(s) or "
                                      "sequence(s): {names}{more}). migrate-to copies into an empty database only: "
                                      "make one (createdb, or CREATE DATABASE …) and name it. Nothing was copied.",
                                      url=location.shown(url), count=len(found), names=names,
                                      more=", …" if len(found) > 5 else ""))
        if before is not None:
            before()
        counts: dict[str, int] = {}
        source.conn.execute("BEGIN")   # one snapshot of the SQLite file, while the app may keep writing
        try:
            with target.pg.transaction():
                target.pg.execute(compat.FUNCTIONS)
                for statement in parts["prelude"] + parts["tables"]:
                    target.pg.execute(statement)
                for table in tables:
                    counts[table] = _copy_table(source, target, table, url)
                for statement in parts["foreign_keys"] + parts["rest"]:
                    target.pg.execute(statement)
                for table, column in target.pg.execute(_IDENTITIES).fetchall():
                    target.pg.execute(
                        f"SELECT setval(pg_get_serial_sequence('\"{table}\"', '{column}'), "
                        f'COALESCE(MAX("{column}"), 0) + 1, false) FROM "{table}"')
                wrong = _compare(target, counts)
                if wrong:
                    raise ConfigError(Message("The copy's row counts differ from the SQLite database's ({wrong}). "
                                              "Nothing was copied.", wrong=wrong))
        except Error as e:
            said = location.scrubbed(" ".join(str(e).split()), url)[:500]
            raise ConfigError(Message("The copy into {url} failed ({error}). Nothing was copied: the PostgreSQL "
                                      "database is as empty as before.", url=location.shown(url), error=said)) from e
        finally:
            source.conn.rollback()
    finally:
        target.close()
    check = _open(url)
    try:
        wrong = _compare(check, counts)
    finally:
        check.close()
    if wrong:
        raise ConfigError(Message("The copy into {url} was written, but its row counts differ from the SQLite "
                                  "database's ({wrong}): do not use it; drop and make it again.",
                                  url=location.shown(url), wrong=wrong))
    return counts


def _copy_table(source, target: Database, table: str, url: str) -> int:
    columns = _columns(source, table)
    listed = ", ".join(f'"{c}"' for c in columns)
    n = 0
    try:
        with target.pg.cursor().copy(f'COPY "{table}" ({listed}) FROM STDIN') as out:
            for row in source.conn.execute(f'SELECT {listed} FROM "{table}"'):
                out.write_row(row)
                n += 1
    except Error as e:
        said = location.scrubbed(" ".join(str(e).split()), url)[:500]
        raise ConfigError(Message("The copy into {url} failed at table {table} ({error}). Nothing was copied: the "
                                  "PostgreSQL database is as empty as before.", url=location.shown(url), table=table,
                                  error=said)) from e
    except sqlite3.Error as e:
        raise ConfigError(Message("The SQLite database could not be read (table {table}: {error}). Nothing was "
                                  "copied.", table=table, error=str(e))) from e
    return n


def _compare(target: Database, counts: dict[str, int]) -> str:
    """'' when every table has the rows counted, else which differ."""
    wrong = []
    for table, n in counts.items():
        there = target.pg.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]
        if there != n:
            wrong.append(f"{table}: {n} in SQLite, {there} in PostgreSQL")
    return "; ".join(wrong)
