"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m004_metrics_data_version(conn: Database) -> None:
    """A counter bumped by every change to the data the dashboards read (issue #5).

    db.analytics caches its aggregate queries under this number, so a dashboard rerun on an
    unchanged database costs no scan even at 100,000 submissions, and any write (a new draft,
    an approval, an upload) makes the next read recompute.
    """
    conn.execute("CREATE TABLE analytics_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)")
    conn.execute("INSERT INTO analytics_version (id, version) VALUES (1, 0)")
    for table in ("courses", "assignments", "students", "submissions", "reference_scores", "runs", "drafts",
                  "reviews", "llm_calls", "rubrics"):
        for op in ("INSERT", "UPDATE", "DELETE"):
            conn.execute(f"CREATE TRIGGER analytics_bump_{table}_{op.lower()} AFTER {op} ON {table} "
                       f"BEGIN UPDATE analytics_version SET version = version + 1 WHERE id = 1; END")
