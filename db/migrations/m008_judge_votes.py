"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m008_judge_votes(conn: Database) -> None:
    """Every judge's vote per criterion (seed 001's cascade, core.judging): who judged, at which
    tier, the score and its confidence. `subject` says what was judged ('submission' now; the
    lesson review adds 'lesson'), so one table serves every workflow that votes."""
    conn.execute(
        "CREATE TABLE judge_votes ("
        " id INTEGER PRIMARY KEY,"
        " subject TEXT NOT NULL,"                  # submission | lesson | ...
        " subject_id INTEGER NOT NULL,"
        " draft_id INTEGER,"                       # the draft (or review round) the votes decided
        " run_id INTEGER REFERENCES runs(id),"
        " criterion TEXT NOT NULL,"
        " judge TEXT NOT NULL,"                    # model alias
        " tier INTEGER NOT NULL,"                  # 1 first judge, 2 consensus step
        " score REAL NOT NULL,"
        " confidence REAL,"                        # 0..1 when known
        " weight REAL NOT NULL DEFAULT 1,"
        " created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))")
    conn.execute("CREATE INDEX idx_judge_votes_subject ON judge_votes (subject, subject_id, draft_id)")
