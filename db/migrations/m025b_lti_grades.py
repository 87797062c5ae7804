"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m025b_lti_grades(conn: Database) -> None:
    """Issue 25 (FairMark inside the LMS), the Advantage services' side:

    - lti_line_items: the LMS gradebook column of an assignment on a platform. FairMark creates
      it at most once (creating one is not idempotent): the row is claimed (url NULL,
      claimed_at) before the request and its url stored the moment the LMS answers;
    - lti_passbacks: one row per released version of a submission to send (UNIQUE: a version is
      never queued twice), its status pending | posting | posted | failed | superseded, the
      attempts, when it is tried next and why the last attempt failed;
    - lti_roster: a student's LMS identity from the course's membership list (the LMS user id,
      the SIS id lis_person_sourcedid), which grade posts name and uploads match on.

    platform_id names l-lti's lti_platforms row; no foreign key, so this migration does not
    depend on the order the launch's migration is applied in."""
    conn.execute("""CREATE TABLE lti_line_items (
        id INTEGER PRIMARY KEY,
        assignment_id INTEGER NOT NULL REFERENCES assignments(id),
        platform_id INTEGER NOT NULL,
        url TEXT,                                  -- NULL while FairMark is creating it
        created_by_fairmark INTEGER NOT NULL DEFAULT 0,
        claimed_at TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (assignment_id, platform_id))""")
    conn.execute("""CREATE TABLE lti_passbacks (
        id INTEGER PRIMARY KEY,
        submission_id INTEGER NOT NULL REFERENCES submissions(id),
        assignment_id INTEGER NOT NULL REFERENCES assignments(id),
        release_id INTEGER NOT NULL REFERENCES releases(id),
        review_version INTEGER NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending',    -- pending | posting | posted | failed | superseded
        attempts INTEGER NOT NULL DEFAULT 0,
        next_try TEXT,
        last_error TEXT NOT NULL DEFAULT '',
        claimed_at TEXT,
        posted_at TEXT,
        line_item_url TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (submission_id, review_version))""")
    conn.execute("CREATE INDEX idx_lti_passbacks_assignment ON lti_passbacks (assignment_id, status, next_try)")
    conn.execute("""CREATE TABLE lti_roster (
        student_id INTEGER PRIMARY KEY REFERENCES students(id),
        course_id INTEGER NOT NULL REFERENCES courses(id),
        platform_id INTEGER NOT NULL,
        lms_user_id TEXT NOT NULL,
        sis_id TEXT NOT NULL DEFAULT '',
        lms_status TEXT NOT NULL DEFAULT 'Active',
        synced_at TEXT NOT NULL,
        UNIQUE (course_id, lms_user_id, platform_id))""")
    conn.execute("CREATE INDEX idx_lti_roster_sis ON lti_roster (course_id, sis_id)")
