"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m011_calibration(conn: Database) -> None:
    """Issue #12: calibration. `calibration_items` is the stratified set a teacher scores blind
    per assignment (an item's AI draft stays hidden until a blind score is saved);
    `calibration_scores` holds the blind scores per (submission, criterion, rater), from the
    Calibrate page ('blind') or an upload declared as calibration ('upload'). Both tables bump
    the dashboards' data version, like every table the dashboards read."""
    conn.execute(
        "CREATE TABLE calibration_items ("
        " assignment_id INTEGER NOT NULL REFERENCES assignments(id),"
        " submission_id INTEGER NOT NULL REFERENCES submissions(id),"
        " stratum TEXT NOT NULL,"                  # e.g. "low band · shorter half · section A"
        " draft_id INTEGER REFERENCES drafts(id),"  # the draft whose predicted band placed it
        " drawn_by TEXT NOT NULL,"
        " drawn_at TEXT NOT NULL,"
        " PRIMARY KEY (assignment_id, submission_id))")
    conn.execute("CREATE INDEX idx_calibration_items_submission ON calibration_items (submission_id)")
    conn.execute(
        "CREATE TABLE calibration_scores ("
        " id INTEGER PRIMARY KEY,"
        " submission_id INTEGER NOT NULL REFERENCES submissions(id),"
        " criterion TEXT NOT NULL,"
        " rater TEXT NOT NULL,"                    # who scored (a teacher, or an uploaded rater column)
        " score REAL NOT NULL,"
        " source TEXT NOT NULL DEFAULT 'blind',"   # blind (Calibrate page) | upload (declared at import)
        " scored_by TEXT NOT NULL,"                # who saved or uploaded it
        " scored_at TEXT NOT NULL,"
        " UNIQUE (submission_id, criterion, rater))")
    for table in ("calibration_items", "calibration_scores"):
        for op in ("INSERT", "UPDATE", "DELETE"):
            conn.execute(f"CREATE TRIGGER analytics_bump_{table}_{op.lower()} AFTER {op} ON {table} "
                         f"BEGIN UPDATE analytics_version SET version = version + 1 WHERE id = 1; END")
