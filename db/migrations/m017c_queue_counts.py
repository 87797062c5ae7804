"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m017c_queue_counts(conn: Database) -> None:
    """Issue 18: submissions per (assignment, queue group), kept by triggers, so the review
    queue's group counts read a few rows instead of counting an assignment of 25,000 submissions
    on every page (db.queue.group_counts subtracts the few calibration items still hidden)."""
    conn.execute("CREATE TABLE queue_counts (assignment_id INTEGER NOT NULL, priority INTEGER NOT NULL, "
                 "n INTEGER NOT NULL, PRIMARY KEY (assignment_id, priority)) WITHOUT ROWID")
    conn.execute("INSERT INTO queue_counts SELECT assignment_id, priority, COUNT(*) FROM submissions GROUP BY 1, 2")
    add = ("INSERT INTO queue_counts (assignment_id, priority, n) VALUES ({0}.assignment_id, {0}.priority, 1) "
           "ON CONFLICT DO UPDATE SET n = n + 1")
    sub = "UPDATE queue_counts SET n = n - 1 WHERE assignment_id = {0}.assignment_id AND priority = {0}.priority"
    conn.execute(f"CREATE TRIGGER queue_counts_insert AFTER INSERT ON submissions BEGIN {add.format('NEW')}; END")
    conn.execute(f"CREATE TRIGGER queue_counts_delete AFTER DELETE ON submissions BEGIN {sub.format('OLD')}; END")
    conn.execute("CREATE TRIGGER queue_counts_update AFTER UPDATE OF priority, assignment_id ON submissions "
                 "WHEN OLD.priority IS NOT NEW.priority OR OLD.assignment_id IS NOT NEW.assignment_id "
                 f"BEGIN {sub.format('OLD')}; {add.format('NEW')}; END")
