"""The PostgreSQL side without a server: SQLite's statements said in PostgreSQL's (db/postgres/dialect.py)
and the baseline made from the SQLite head (db/postgres/schema.py). `pytest --postgresql` runs the
database tests themselves on a server (tests/conftest_postgres.py)."""
from __future__ import annotations

import re
import sqlite3

import pytest

from db.postgres import schema
from db.postgres.dialect import returning_id, translate

KEYS = (("agg_dirty", ("submission_id",)), ("queue_counts", ("assignment_id", "priority")), ("courses", ("id",)))


@pytest.mark.parametrize("sqlite, postgres", [
    ("SELECT * FROM t WHERE a = ? AND b LIKE '%x?'", "SELECT * FROM t WHERE a = %s AND b ILIKE '%%x?'"),
    ("SELECT 1 FROM t WHERE owner IS ? AND dept IS NOT ? AND x IS NOT NULL",
     "SELECT 1 FROM t WHERE owner IS NOT DISTINCT FROM %s AND dept IS DISTINCT FROM %s AND x IS NOT NULL"),
    ("INSERT OR IGNORE INTO grants (a, b) VALUES (?, ?)", "INSERT INTO grants (a, b) VALUES (%s, %s) ON CONFLICT DO NOTHING"),
    ("INSERT OR REPLACE INTO agg_dirty (submission_id, mark) VALUES (NEW.id, 7)",
     "INSERT INTO agg_dirty (submission_id, mark) VALUES (NEW.id, 7) ON CONFLICT (submission_id) "
     "DO UPDATE SET mark = EXCLUDED.mark"),
    ("INSERT INTO queue_counts (assignment_id, priority, n) VALUES (1, 2, 1) ON CONFLICT DO UPDATE SET n = n + 1",
     "INSERT INTO queue_counts (assignment_id, priority, n) VALUES (1, 2, 1) "
     "ON CONFLICT (assignment_id, priority) DO UPDATE SET n = queue_counts.n + 1"),
    ("SELECT MAX(a, MIN(b, 3)), MAX(c) FROM t WHERE 1 AND d = :d", "SELECT GREATEST(a, LEAST(b, 3)), MAX(c) FROM t WHERE TRUE AND d = %(d)s"),
    ("UPDATE s SET x = 1 WHERE id IN (SELECT value FROM json_each(?))",
     "UPDATE s SET x = 1 WHERE id IN (SELECT value::bigint FROM json_each(%s))"),
    ("SELECT CAST(x AS REAL), json_group_object(k, v) FROM t", "SELECT CAST(x AS DOUBLE PRECISION), json_object_agg(k, v) FROM t"),
    ("SELECT 1 FROM t WHERE a IN () OR b NOT IN ( ) OR c IN (?)",
     "SELECT 1 FROM t WHERE a = ANY('{}') OR b <> ALL('{}') OR c IN (%s)"),
])
def test_sqlite_statements_are_said_in_postgresql(sqlite, postgres):
    assert translate(sqlite, KEYS) == postgres


def test_an_insert_into_a_table_with_an_id_returns_it():
    assert returning_id("INSERT INTO courses (name) VALUES (%s)", KEYS)
    assert not returning_id("INSERT INTO agg_dirty (submission_id, mark) VALUES (1, 2)", KEYS)
    assert not returning_id("UPDATE courses SET name = 'x'", KEYS)


def test_the_baseline_has_every_table_index_and_trigger_of_the_sqlite_head():
    raw = schema._head()
    sqlite_objects = {kind: {name for (name,) in raw.execute(
        "SELECT name FROM sqlite_master WHERE type = ? AND sql IS NOT NULL AND name NOT LIKE 'sqlite_%'", [kind])}
        for kind in ("table", "index", "trigger")}
    migrations = raw.execute("SELECT COUNT(*) FROM _sqlite_migrations").fetchone()[0]
    raw.close()
    statements = schema.baseline()
    made = {
        "table": set(re.findall(r'^CREATE TABLE "(\w+)"', "\n".join(statements), re.M)),
        "index": {m for s in statements for m in re.findall(r"^CREATE (?:UNIQUE )?INDEX (?:IF NOT EXISTS )?\"?(\w+)", s)},
        "trigger": {m for s in statements for m in re.findall(r"^CREATE TRIGGER (\w+) ", s, re.M)},
    }
    assert made == sqlite_objects
    assert sum(s.startswith('INSERT INTO "_sqlite_migrations"') for s in statements) == migrations
    # The kept counts as PL/pgSQL: the queue's count goes up and down with the submissions.
    queue = next(s for s in statements if "CREATE TRIGGER queue_counts_update " in s)
    assert "LANGUAGE plpgsql" in queue and "IS DISTINCT FROM" in queue and "queue_counts.n + 1" in queue


def test_no_sqlite_only_words_are_left_in_the_baseline():
    text = "\n".join(schema.baseline())
    for word in ("INSERT OR", "WITHOUT ROWID", "COLLATE NOCASE", "AUTOINCREMENT", " IS NOT NEW."):
        assert word not in text
    assert not re.search(r"(?<!floor\()random\(\)", text)     # SQLite's is an integer, PostgreSQL's a fraction


def test_primary_keys_are_read_from_the_head():
    keys = schema.primary_keys(schema._head())
    assert keys["courses"] == ("id",) and keys["queue_counts"] == ("assignment_id", "priority")
    assert isinstance(schema._head(), sqlite3.Connection)
