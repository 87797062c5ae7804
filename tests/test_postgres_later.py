"""Issue 29: a PostgreSQL database made by an older FairMark is migrated on to the head
(db/postgres/later.py), and ends with the same schema as one made from the baseline at the head.

On the private server of tests/conftest_postgres.py, in every run of the suite."""
from __future__ import annotations

import itertools
import os

import psycopg
import pytest
from sqlite_utils.migrations import Migrations

import db
from conftest_postgres import _with_database
from core.errors import ConfigError
from db import migrations as registry
from db.postgres import compat, later, schema
from db.postgres import connection as postgres
from db.postgres import pool

pytestmark = pytest.mark.xdist_group("postgresql")
_numbers = itertools.count(1)


@pytest.fixture
def new_database(postgres_template):
    """Makes empty databases on the session's server; all dropped after the test."""
    admin_url, _ = postgres_template
    made = []

    def make() -> str:
        name = f"fairmark_later_{os.getpid()}_{next(_numbers)}"
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        made.append(name)
        return _with_database(admin_url, name)

    yield make
    with psycopg.connect(admin_url, autocommit=True) as admin:
        for name in made:
            postgres._ready.discard(_with_database(admin_url, name))
            pool.let_go_idle(_with_database(admin_url, name))
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def made_as_before(url: str, stop_before: str) -> None:
    """The database as a release whose head was just before `stop_before` made it."""
    with psycopg.connect(url, autocommit=True) as pg, pg.transaction():
        pg.execute(compat.FUNCTIONS)
        for statement in schema.baseline(stop_before=stop_before):
            pg.execute(statement)


def schema_of(url: str) -> dict:
    """What a migration must get the same: columns, indexes, constraints, triggers, functions."""
    queries = {
        "columns": "SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity "
                   "FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2",
        "indexes": "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 2",
        "constraints": "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint "
                       "WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2",
        "triggers": "SELECT event_object_table, trigger_name, action_timing, event_manipulation, action_statement "
                    "FROM information_schema.triggers WHERE trigger_schema = 'public' ORDER BY 2, 4",
        "functions": "SELECT proname, prosrc FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY 1",
        "migrations": "SELECT name FROM _sqlite_migrations ORDER BY name",
    }
    with psycopg.connect(url) as pg:
        return {k: pg.execute(q).fetchall() for k, q in queries.items()}


def brought_to_the_head(new_database, first_later: str) -> tuple[dict, dict]:
    """(schema of a database made before `first_later` then connected to, schema of one made at the head)."""
    older, fresh = new_database(), new_database()
    made_as_before(older, first_later)
    with psycopg.connect(older) as pg:
        assert first_later in later.pending(pg)
    db.connect(older).close()          # the first connection after the upgrade migrates it
    db.connect(fresh).close()          # an empty database: the baseline at the head
    return schema_of(older), schema_of(fresh)


def test_every_migration_since_postgresql_shipped_has_its_postgresql_statements():
    """A new module in db/migrations after SHIPPED_AT needs its statements in db/postgres/later.py,
    and LATER names no migration that is not one of those."""
    needing = later.needing_statements()
    assert set(needing) <= set(later.LATER), f"db/postgres/later.py LATER lacks {sorted(set(needing) - set(later.LATER))}"
    assert set(later.LATER) <= set(needing), f"LATER names {sorted(set(later.LATER) - set(needing))}, not a later migration"


@pytest.mark.parametrize("name", later.needing_statements() or ["(none yet)"])
def test_each_later_migration_brings_an_older_database_to_the_head(new_database, name):
    if name == "(none yet)":   # no migration since: a database made at SHIPPED_AT has nothing to do
        url = new_database()
        db.connect(url).close()
        with psycopg.connect(url) as pg:
            assert later.pending(pg) == []
        return
    older, head = brought_to_the_head(new_database, name)
    assert older == {**head, "migrations": older["migrations"]} and older["migrations"] == head["migrations"]


@pytest.fixture
def a_new_release(monkeypatch):
    """A release that adds one migration, in both dialects: a column with a default and an index on
    it (the kind of change most of FairMark's migrations make)."""
    name = "m999_test_course_motto"

    def m999_test_course_motto(conn):
        conn.execute("ALTER TABLE courses ADD COLUMN motto TEXT NOT NULL DEFAULT ''")
        conn.execute("CREATE INDEX idx_courses_motto ON courses(motto)")

    added = Migrations(later.SET)
    for m in registry.migrations._migrations:
        added._migrations.append(m)
    added()(m999_test_course_motto)
    monkeypatch.setattr(registry, "migrations", added)
    monkeypatch.setattr(registry, "ORDER", (*registry.ORDER, name))
    statements = ["ALTER TABLE courses ADD COLUMN motto TEXT NOT NULL DEFAULT ''",
                  "CREATE INDEX idx_courses_motto ON courses(motto)"]
    monkeypatch.setattr(later, "LATER", {**later.LATER, name: statements})
    return name


def test_an_older_database_gets_a_new_release_s_migration_on_its_first_connection(new_database, a_new_release):
    older, head = brought_to_the_head(new_database, a_new_release)
    assert ("courses", "motto", "text", "NO", "''::text", "NO") in older["columns"]
    assert any(name == "idx_courses_motto" for _, name, _ in older["indexes"])
    assert older == head


def test_an_older_database_the_release_cannot_migrate_is_refused_and_left_as_it_was(new_database, a_new_release,
                                                                                   monkeypatch):
    monkeypatch.setattr(later, "LATER", {})    # the new migration without its PostgreSQL form
    older = new_database()
    made_as_before(older, a_new_release)
    before = schema_of(older)
    with pytest.raises(ConfigError, match=f"lacks the migration\\(s\\) {a_new_release}.*Nothing was changed"):
        db.connect(older)
    assert schema_of(older) == before
    with psycopg.connect(older) as pg:           # and no connection was left behind
        others = pg.execute("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() "
                            "AND pid <> pg_backend_pid()").fetchone()[0]
    assert others == 0


def test_a_migration_that_fails_midway_changes_nothing_and_is_tried_again(new_database, a_new_release, monkeypatch):
    monkeypatch.setattr(later, "LATER", {a_new_release: ["ALTER TABLE courses ADD COLUMN motto TEXT",
                                                         "CREATE INDEX broken ON no_such_table(x)"]})
    older = new_database()
    made_as_before(older, a_new_release)
    before = schema_of(older)
    with pytest.raises(ConfigError, match=f"could not be migrated: {a_new_release} failed .*no_such_table.*changed nothing"):
        db.connect(older)
    assert schema_of(older) == before            # the column of the first statement is gone with it
    monkeypatch.setattr(later, "LATER", {a_new_release: ["ALTER TABLE courses ADD COLUMN motto TEXT NOT NULL DEFAULT ''",
                                                         "CREATE INDEX idx_courses_motto ON courses(motto)"]})
    db.connect(older).close()
    with psycopg.connect(older) as pg:
        assert later.pending(pg) == []
