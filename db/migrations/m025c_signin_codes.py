"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m025c_signin_codes(conn: Database) -> None:
    """Issue 25: the session cookie is set by a server route (HttpOnly), not by the page's
    JavaScript. A sign-in in the page leaves a one-time code here (only its SHA-256) for the
    session it opened; the browser takes the code to /auth/session, which gives the session a
    fresh token in the cookie. A code lives a minute and is used once (`used_at`)."""
    conn.execute("""
CREATE TABLE signin_codes (
    code_hash TEXT PRIMARY KEY,                -- SHA-256 of the one-time code (never the code)
    session_hash TEXT NOT NULL,                -- the session it opens (sessions.token_hash)
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
)""")
    conn.execute("CREATE INDEX idx_signin_codes_created ON signin_codes (created_at)")
