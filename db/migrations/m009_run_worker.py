"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m009_run_worker(conn: Database) -> None:
    """Issue #10: which worker process holds a run (a token per execution, its pid and host),
    written when it claims the run and checked by every heartbeat. Two workers never process one
    run at once, and a run whose worker process is gone (same host, pid dead) resumes at once
    instead of after the 60-second heartbeat timeout."""
    conn.execute("ALTER TABLE runs ADD COLUMN worker TEXT")
    conn.execute("ALTER TABLE runs ADD COLUMN worker_pid INTEGER")
    conn.execute("ALTER TABLE runs ADD COLUMN worker_host TEXT")
