"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m026a_appeal_deadline(conn: Database) -> None:
    """Issue 26: an assignment's appeal deadline (UTC, ISO 8601). None, the default, means appeals
    are off for it; students' private links expire at the deadline when there is one."""
    conn.execute("ALTER TABLE assignments ADD COLUMN appeal_deadline TEXT")
