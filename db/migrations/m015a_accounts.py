"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m015a_accounts(conn: Database) -> None:
    """Issue 13: who may do what. Local accounts (an Argon2id hash, never the password), their
    server-side sessions (only a hash of the cookie's random token), failed sign-ins per typed
    name (so an unknown name is slowed down like a known one), grants of courses or departments,
    and the audit log's signed-in user and role beside the name it already keeps."""
    for stmt in _ACCOUNTS.split(";\n"):
        if stmt.strip():
            conn.execute(stmt)


_ACCOUNTS = """
CREATE TABLE users (
    id INTEGER PRIMARY KEY,
    username TEXT NOT NULL UNIQUE COLLATE NOCASE,
    display_name TEXT NOT NULL DEFAULT '',
    email TEXT UNIQUE COLLATE NOCASE,          -- institutional sign-in (OIDC) matches on it
    role TEXT NOT NULL CHECK (role IN ('admin', 'coordinator', 'instructor', 'ta')),
    password_hash TEXT,                        -- Argon2id; NULL: institutional sign-in only
    active INTEGER NOT NULL DEFAULT 1,
    created_by TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    last_signin_at TEXT
);
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,               -- SHA-256 of the cookie's token (never the token)
    user_id INTEGER NOT NULL REFERENCES users(id),
    via TEXT NOT NULL DEFAULT 'password',      -- password | oidc
    created_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    ended_at TEXT
);
CREATE INDEX idx_sessions_user ON sessions (user_id);
CREATE TABLE signin_failures (
    username TEXT PRIMARY KEY COLLATE NOCASE,  -- as typed: unknown names count too
    failures INTEGER NOT NULL DEFAULT 0,
    last_failed_at TEXT NOT NULL,
    locked_until TEXT
);
CREATE TABLE grants (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),
    course_id INTEGER REFERENCES courses(id),
    department TEXT,
    sees_names INTEGER NOT NULL DEFAULT 0,     -- coordinators: student names instead of pseudonyms
    granted_by TEXT NOT NULL DEFAULT '',
    granted_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    CHECK ((course_id IS NULL) <> (department IS NULL))
);
CREATE UNIQUE INDEX idx_grants_course ON grants (user_id, course_id) WHERE course_id IS NOT NULL;
CREATE UNIQUE INDEX idx_grants_department ON grants (user_id, department) WHERE department IS NOT NULL;
ALTER TABLE courses ADD COLUMN department TEXT;
ALTER TABLE audit_log ADD COLUMN user_id INTEGER;
ALTER TABLE audit_log ADD COLUMN role TEXT
"""
