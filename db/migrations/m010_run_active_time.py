"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m010_run_active_time(conn: Database) -> None:
    """A run's working time without the time it stood stopped (issue 11): `active_s` adds up the
    closed working periods, `resumed_at` starts the open one (db.runs). Finished runs keep the
    span they had; one that was stopped and resumed before this column cannot be told apart."""
    conn.execute("ALTER TABLE runs ADD COLUMN active_s REAL NOT NULL DEFAULT 0")
    conn.execute("ALTER TABLE runs ADD COLUMN resumed_at TEXT")
    conn.execute("UPDATE runs SET active_s = MAX(0, (julianday(finished_at) - julianday(started_at)) * 86400) "
                 "WHERE started_at IS NOT NULL AND finished_at IS NOT NULL")
