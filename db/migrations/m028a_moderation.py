"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database

_TABLES = """
CREATE TABLE marker_assignments (
    submission_id INTEGER PRIMARY KEY REFERENCES submissions(id),
    assignment_id INTEGER NOT NULL REFERENCES assignments(id),
    marker TEXT NOT NULL,                      -- the marker's user name (what reviews record)
    how TEXT NOT NULL,                         -- section | random
    assigned_by TEXT NOT NULL,
    assigned_at TEXT NOT NULL
);
CREATE INDEX idx_marker_assignments ON marker_assignments (assignment_id, marker);
CREATE TABLE moderation_items (
    submission_id INTEGER PRIMARY KEY REFERENCES submissions(id),
    assignment_id INTEGER NOT NULL REFERENCES assignments(id),
    stratum TEXT NOT NULL,                     -- the AI's predicted band · the first marker
    first_marker TEXT,                         -- NULL: nobody assigned or opened it when drawn
    second_marker TEXT NOT NULL,
    drawn_by TEXT NOT NULL,
    drawn_at TEXT NOT NULL
);
CREATE INDEX idx_moderation_items ON moderation_items (assignment_id);
CREATE TABLE moderation_marks (
    id INTEGER PRIMARY KEY,
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    criterion TEXT NOT NULL,
    marker TEXT NOT NULL,
    score REAL NOT NULL,
    marked_at TEXT NOT NULL,
    UNIQUE (submission_id, criterion)
);
CREATE TABLE moderation_settlements (
    id INTEGER PRIMARY KEY,
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    criterion TEXT NOT NULL,
    first_score REAL NOT NULL,                 -- the two marks as they stood when settled
    second_score REAL NOT NULL,
    score REAL NOT NULL,                       -- the moderator's final score
    note TEXT NOT NULL,
    settled_by TEXT NOT NULL,
    settled_at TEXT NOT NULL,
    UNIQUE (submission_id, criterion)
);
"""


def m028a_moderation(conn: Database) -> None:
    """Issue 28: marker assignment, the moderation sample marked a second time blind, and the
    moderator's settlements, whose final score the dashboards' "auto" reference prefers to the
    blind calibration scores (a column of the kept pairs, recounted when a settlement changes)."""
    for statement in _TABLES.split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute("ALTER TABLE agg_pairs ADD COLUMN moderated REAL")
    mark = "INSERT OR REPLACE INTO agg_dirty (submission_id, mark) VALUES ({0}, random())"
    for op, rows in (("INSERT", ("NEW",)), ("UPDATE", ("OLD", "NEW")), ("DELETE", ("OLD",))):
        body = "; ".join(mark.format(f"{r}.submission_id") for r in rows)
        conn.execute(f"CREATE TRIGGER agg_dirty_moderation_settlements_{op.lower()} AFTER {op} ON "
                     f"moderation_settlements BEGIN {body}; END")
