"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m026b_student_links(conn: Database) -> None:
    """Issue 26: students' private links and the student cookie's sessions.

    A link is a random 256-bit token of which only the SHA-256 is kept; it opens one student's
    released work of one assignment until `expires_at` (the assignment's appeal deadline, else a
    set number of days) unless revoked. Opening it gives the browser a student session (its own
    random token, hashed here too) that ends with the link or sooner; a Learner launch from the
    LMS opens one without a link. Failed look-ups are counted per client address (hashed) for
    the rate limit. A release item now also records who approved the version it locks (the
    student page's "checked and approved by")."""
    for stmt in _TABLES.split(";\n"):  # one by one: executescript() would COMMIT mid-migration
        if stmt.strip():
            conn.execute(stmt)


_TABLES = """
CREATE TABLE student_links (
    id INTEGER PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,           -- SHA-256 of the link's token (never the token)
    student_id INTEGER NOT NULL REFERENCES students(id),
    assignment_id INTEGER NOT NULL REFERENCES assignments(id),
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    release_id INTEGER REFERENCES releases(id),-- the release that minted it (NULL: minted on request)
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    revoked_at TEXT,
    revoked_by TEXT
);
CREATE INDEX idx_student_links_submission ON student_links (submission_id);
CREATE INDEX idx_student_links_student ON student_links (student_id);
CREATE TABLE student_sessions (
    token_hash TEXT PRIMARY KEY,               -- SHA-256 of the student cookie's token
    student_id INTEGER NOT NULL REFERENCES students(id),
    course_id INTEGER NOT NULL REFERENCES courses(id),
    assignment_id INTEGER REFERENCES assignments(id),  -- NULL: every assignment of the course
    link_id INTEGER REFERENCES student_links(id),      -- NULL: opened by a Learner launch
    via TEXT NOT NULL,                         -- link | lti
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    ended_at TEXT
);
CREATE INDEX idx_student_sessions_student ON student_sessions (student_id);
CREATE INDEX idx_student_sessions_link ON student_sessions (link_id);
CREATE TABLE student_link_tries (
    client_hash TEXT NOT NULL,                 -- SHA-256 of the client's address
    at TEXT NOT NULL
);
CREATE INDEX idx_student_link_tries ON student_link_tries (client_hash, at);
ALTER TABLE release_items ADD COLUMN approved_by TEXT;
ALTER TABLE release_items ADD COLUMN approved_in_bulk INTEGER NOT NULL DEFAULT 0;
UPDATE release_items SET
    approved_by = (SELECT r.approved_by FROM reviews r WHERE r.submission_id = release_items.submission_id
                   AND r.version = release_items.review_version),
    approved_in_bulk = COALESCE((SELECT r.approved_in_bulk FROM reviews r
                                 WHERE r.submission_id = release_items.submission_id
                                 AND r.version = release_items.review_version), 0)
"""
