"""Migrations a PostgreSQL database made by an older FairMark lacks, said in PostgreSQL.

A new PostgreSQL database is made from the baseline (db/postgres/schema.py: the SQLite migrations at
the head, said in PostgreSQL) and records every migration's name. A database made before a release
that adds a migration records fewer names: on its first connection each migration it lacks runs
here, in the order of db/migrations, each in one transaction with its name, under the advisory lock
the hosts share (db/postgres/connection.py), so the first host to start after an upgrade migrates
and the others wait for it.

A migration added to db/migrations after PostgreSQL support (after `SHIPPED_AT`) therefore needs its
PostgreSQL statements in `LATER`: `tests/test_postgres_later.py` fails while one is missing, and checks
that an older database migrated here ends with the same tables, columns, indexes and triggers as a
database made from the baseline at the head. A database that lacks a migration with no entry here is
refused with the migration's name, and nothing is changed.
"""
from __future__ import annotations

from db.errors import ConfigError
from db.message import Message

SET = "fairmark"                       # sqlite_utils' migration set (db/migrations)
SHIPPED_AT = "m027c_anchored_notes"    # the head when PostgreSQL support shipped: every later one is in LATER

# name -> its statements in PostgreSQL (tables, columns, indexes; a trigger as its PL/pgSQL function
# and CREATE TRIGGER, as db/postgres/schema.py writes them). Appended with each new migration.
LATER: dict[str, list[str]] = {
    "m030s_run_item_error_said": ['ALTER TABLE "run_items" ADD COLUMN "error_said" TEXT'],
    "m030t_said_beside_english": ['ALTER TABLE "drafts" ADD COLUMN "attention_said" TEXT',
                                  'ALTER TABLE "runs" ADD COLUMN "error_said" TEXT'],
}


def order() -> tuple[str, ...]:
    from db.migrations import ORDER

    return ORDER


def needing_statements() -> list[str]:
    """The migrations after SHIPPED_AT, each of which needs an entry in LATER."""
    names = order()
    return list(names[names.index(SHIPPED_AT) + 1:])


def pending(pg) -> list[str]:
    """The migrations this database lacks, in order (pg: a psycopg connection)."""
    done = {r[0] for r in pg.execute("SELECT name FROM _sqlite_migrations WHERE migration_set = %s", [SET])}
    return [name for name in order() if name not in done]


def apply(pg, url_shown: str) -> list[str]:
    """Run the migrations the database lacks; returns their names. Refused, with nothing changed,
    when one has no PostgreSQL statements."""
    todo = pending(pg)
    missing = [name for name in todo if name not in LATER]
    if missing:
        raise ConfigError(Message(
            "The PostgreSQL database {url} was made by an older FairMark and lacks the migration(s) {missing}, which "
            "have no PostgreSQL form in db/postgres/later.py. Nothing was changed: run the FairMark release the "
            "database was made with, or add the statements to LATER.", url=url_shown, missing=", ".join(missing)))
    for name in todo:
        try:
            _run(pg, name)
        except Exception as e:   # the driver's error, said with the migration it stopped
            raise ConfigError(Message(
                "The PostgreSQL database {url} could not be migrated: {name} failed ({error}). That migration changed "
                "nothing and is tried again at the next start; the ones before it are kept.", url=url_shown,
                name=name, error=" ".join(str(e).split())[:300])) from e
    return todo


def _run(pg, name: str) -> None:
    with pg.transaction():
        for statement in LATER[name]:
            pg.execute(statement)
        pg.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
                   "VALUES (%s, %s, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00:00')",
                   [SET, name])
