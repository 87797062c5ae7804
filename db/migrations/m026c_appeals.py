"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m026c_appeals(conn: Database) -> None:
    """Issue 26, a student's appeal of released feedback:

    - appeals: one per request for a second look at a released item. At most one is open per
      submission at a time (the partial unique index). status open -> kept | changed; the
      deciding teacher, when, and the note to the student (required either way). The release
      it contests (contested_release_id) and, for a change, the release that carried the new
      score out (new_release_id, NULL while the change waits for someone who may release). A
      teacher's blind re-mark (blind_scores, given before the released score was shown) is kept
      here only: it never becomes a calibration or reference score (the dashboards' references);
    - appeal_criteria: the criteria an appeal covers, each with the student's reason (1 to
      1,000 characters), the released score it contests and the new score where changed."""
    conn.execute("""CREATE TABLE appeals (
        id INTEGER PRIMARY KEY,
        submission_id INTEGER NOT NULL REFERENCES submissions(id),
        assignment_id INTEGER NOT NULL REFERENCES assignments(id),
        student_id INTEGER NOT NULL REFERENCES students(id),
        status TEXT NOT NULL DEFAULT 'open',       -- open | kept | changed
        contested_release_id INTEGER REFERENCES releases(id),
        contested_version INTEGER,
        opened_at TEXT NOT NULL,
        opened_by TEXT NOT NULL,
        decided_at TEXT,
        decided_by TEXT,
        decided_user_id INTEGER,
        note TEXT NOT NULL DEFAULT '',             -- the teacher's note to the student
        reason_code TEXT,
        blind_scores TEXT,                         -- {criterion: score} of a blind re-mark
        blind_by TEXT,
        blind_at TEXT,
        new_release_id INTEGER REFERENCES releases(id))""")
    conn.execute("CREATE UNIQUE INDEX idx_appeals_one_open ON appeals (submission_id) WHERE status = 'open'")
    conn.execute("CREATE INDEX idx_appeals_assignment ON appeals (assignment_id, status)")
    conn.execute("CREATE INDEX idx_appeals_submission ON appeals (submission_id, id)")
    conn.execute("""CREATE TABLE appeal_criteria (
        appeal_id INTEGER NOT NULL REFERENCES appeals(id),
        criterion TEXT NOT NULL,
        reason TEXT NOT NULL CHECK (length(reason) BETWEEN 1 AND 1000),
        released_score REAL,
        new_score REAL,
        PRIMARY KEY (appeal_id, criterion)) WITHOUT ROWID""")
