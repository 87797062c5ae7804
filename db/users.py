"""Accounts, sessions, failed sign-ins and grants (issue 13). The rules (hashing, lockout,
expiry, who may do what) are core/accounts/identity.py's and core/accounts/access.py's; this module only reads
and writes the rows. No password and no session token is ever stored: only their hashes."""
from __future__ import annotations

from sqlite_utils import Database

from db import audit, now
from db.actors import Actor
from db.errors import NotFound
from db.message import Message

_USER_COLUMNS = "id, username, display_name, email, role, active, created_at, last_signin_at"


# --- users ---------------------------------------------------------------------------
def count(conn: Database) -> int:
    return conn.execute("SELECT COUNT(*) FROM users").fetchone()[0]


def any_course(conn: Database) -> bool:
    return conn.execute("SELECT EXISTS (SELECT 1 FROM courses)").fetchone()[0] == 1


def insert(conn: Database, *, username: str, display_name: str, email: str | None, role: str,
           password_hash: str | None, actor) -> int:
    user_id = conn.execute(
        "INSERT INTO users (username, display_name, email, role, password_hash, created_by) VALUES (?, ?, ?, ?, ?, ?)",
        [username, display_name, email, role, password_hash, str(actor)]).lastrowid
    audit(conn, actor=actor, action="add_user", entity="users", entity_id=user_id,
          after={"username": username, "role": role, "email": email})
    return user_id


def get(conn: Database, user_id: int) -> dict:
    row = next(conn.query(f"SELECT {_USER_COLUMNS} FROM users WHERE id = ?", [user_id]), None)
    if row is None:
        raise NotFound(Message("user {id} does not exist", id=user_id))
    return row


def find(conn: Database, username: str) -> dict | None:
    return next(conn.query(f"SELECT {_USER_COLUMNS}, password_hash FROM users WHERE username = ?", [username]), None)


def find_by_email(conn: Database, email: str) -> dict | None:
    return next(conn.query(f"SELECT {_USER_COLUMNS} FROM users WHERE email = ?", [email]), None)


def display_names(conn: Database) -> dict[str, str]:
    """User name -> display name, for the users who have one."""
    return {r["username"]: r["display_name"] for r in conn.query(
        "SELECT username, display_name FROM users WHERE display_name IS NOT NULL AND display_name != ''")}


def list_users(conn: Database) -> list[dict]:
    return list(conn.query(f"SELECT {_USER_COLUMNS} FROM users ORDER BY username"))


def update(conn: Database, user_id: int, *, actor, **fields) -> None:
    allowed = {"display_name", "email", "role", "active", "password_hash"}
    bad = set(fields) - allowed
    if bad:
        raise ValueError(f"cannot update {sorted(bad)}")
    before = get(conn, user_id)
    sets = ", ".join(f"{k} = ?" for k in fields)
    conn.execute(f"UPDATE users SET {sets} WHERE id = ?", [*fields.values(), user_id])
    shown = {k: ("(changed)" if k == "password_hash" else v) for k, v in fields.items()}
    audit(conn, actor=actor, action="edit_user", entity="users", entity_id=user_id,
          before={k: before.get(k) for k in shown if k != "password_hash"}, after=shown)


def password_hash(conn: Database, user_id: int) -> str | None:
    row = conn.execute("SELECT password_hash FROM users WHERE id = ?", [user_id]).fetchone()
    return row[0] if row else None


def set_password_hash(conn: Database, user_id: int, hashed: str) -> None:
    """A rehash with stronger parameters on sign-in (not a change a person made: no audit)."""
    conn.execute("UPDATE users SET password_hash = ? WHERE id = ?", [hashed, user_id])


def mark_signed_in(conn: Database, user_id: int) -> None:
    conn.execute("UPDATE users SET last_signin_at = ? WHERE id = ?", [now(), user_id])


# --- failed sign-ins (per name as typed) -----------------------------------------------
def failures(conn: Database, username: str) -> dict | None:
    return next(conn.query("SELECT * FROM signin_failures WHERE username = ?", [username]), None)


def record_failure(conn: Database, username: str, *, locked_until: str | None) -> int:
    conn.execute(
        "INSERT INTO signin_failures (username, failures, last_failed_at, locked_until) VALUES (?, 1, ?, ?) "
        "ON CONFLICT(username) DO UPDATE SET failures = failures + 1, last_failed_at = excluded.last_failed_at, "
        "locked_until = COALESCE(excluded.locked_until, locked_until)", [username, now(), locked_until])
    return failures(conn, username)["failures"]


def set_lock(conn: Database, username: str, locked_until: str) -> None:
    conn.execute("UPDATE signin_failures SET locked_until = ? WHERE username = ?", [locked_until, username])


def clear_failures(conn: Database, username: str) -> None:
    conn.execute("DELETE FROM signin_failures WHERE username = ?", [username])


# --- sessions ------------------------------------------------------------------------
def open_session(conn: Database, *, token_hash: str, user_id: int, via: str) -> None:
    at = now()
    conn.execute("INSERT INTO sessions (token_hash, user_id, via, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)",
                 [token_hash, user_id, via, at, at])


def session(conn: Database, token_hash: str) -> dict | None:
    """A session that has not been ended, with its user (active or not)."""
    return next(conn.query(
        "SELECT s.token_hash, s.user_id, s.via, s.created_at, s.last_seen_at, u.active FROM sessions s "
        "JOIN users u ON u.id = s.user_id WHERE s.token_hash = ? AND s.ended_at IS NULL", [token_hash]), None)


def touch_session(conn: Database, token_hash: str) -> None:
    conn.execute("UPDATE sessions SET last_seen_at = ? WHERE token_hash = ?", [now(), token_hash])


def end_session(conn: Database, token_hash: str) -> None:
    conn.execute("UPDATE sessions SET ended_at = ? WHERE token_hash = ? AND ended_at IS NULL", [now(), token_hash])


def end_expired_sessions(conn: Database, user_id: int, *, idle_before: str, begun_before: str) -> None:
    conn.execute("UPDATE sessions SET ended_at = ? WHERE user_id = ? AND ended_at IS NULL "
                 "AND (last_seen_at < ? OR created_at < ?)", [now(), user_id, idle_before, begun_before])


def session_ended(conn: Database, user_id: int, *, via: str, opened_after: str, ended_after: str) -> bool:
    """Whether a session of the user, opened this way after one time, has ended after another."""
    return conn.execute("SELECT 1 FROM sessions WHERE user_id = ? AND via = ? AND created_at >= ? AND ended_at >= ? "
                        "LIMIT 1", [user_id, via, opened_after, ended_after]).fetchone() is not None


def end_all_sessions(conn: Database) -> int:
    conn.execute("DELETE FROM signin_codes")  # a restored database opens no session from before
    conn.execute("UPDATE student_sessions SET ended_at = ? WHERE ended_at IS NULL", [now()])  # students' too
    return conn.execute("UPDATE sessions SET ended_at = ? WHERE ended_at IS NULL", [now()]).rowcount


def rekey_session(conn: Database, token_hash: str, new_hash: str) -> bool:
    """The same session under a new token (the cookie's); False when it has ended."""
    return conn.execute("UPDATE sessions SET token_hash = ? WHERE token_hash = ? AND ended_at IS NULL",
                        [new_hash, token_hash]).rowcount == 1


# --- one-time sign-in codes (the page's sign-in -> the cookie route) -------------------
def add_signin_code(conn: Database, *, code_hash: str, session_hash: str, expires_at: str, purge_before: str) -> None:
    conn.execute("DELETE FROM signin_codes WHERE created_at < ?", [purge_before])
    conn.execute("INSERT INTO signin_codes (code_hash, session_hash, created_at, expires_at) VALUES (?, ?, ?, ?)",
                 [code_hash, session_hash, now(), expires_at])


def signin_code(conn: Database, code_hash: str) -> dict | None:
    return next(conn.query("SELECT code_hash, session_hash, created_at, expires_at, used_at FROM signin_codes "
                           "WHERE code_hash = ?", [code_hash]), None)


def use_signin_code(conn: Database, code_hash: str) -> bool:
    """Mark a code used; False when it was used already (two requests at once: one wins)."""
    return conn.execute("UPDATE signin_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL",
                        [now(), code_hash]).rowcount == 1


def end_sessions_of(conn: Database, user_id: int) -> None:
    conn.execute("UPDATE sessions SET ended_at = ? WHERE user_id = ? AND ended_at IS NULL", [now(), user_id])


# --- grants --------------------------------------------------------------------------
def grant(conn: Database, user_id: int, *, course_id: int | None = None, department: str | None = None,
          sees_names: bool = False, actor) -> None:
    conn.execute(
        "DELETE FROM grants WHERE user_id = ? AND course_id IS ? AND department IS ?", [user_id, course_id, department])
    gid = conn.execute(
        "INSERT INTO grants (user_id, course_id, department, sees_names, granted_by) VALUES (?, ?, ?, ?, ?)",
        [user_id, course_id, department, int(sees_names), str(actor)]).lastrowid
    audit(conn, actor=actor, action="grant", entity="grants", entity_id=gid,
          after={"user_id": user_id, "course_id": course_id, "department": department, "sees_names": sees_names})


def revoke(conn: Database, user_id: int, *, course_id: int | None = None, department: str | None = None,
           actor) -> int:
    n = conn.execute("DELETE FROM grants WHERE user_id = ? AND course_id IS ? AND department IS ?",
                     [user_id, course_id, department]).rowcount
    if n:
        audit(conn, actor=actor, action="revoke", entity="grants", entity_id=None,
              before={"user_id": user_id, "course_id": course_id, "department": department})
    return n


def grants_of(conn: Database, user_id: int) -> list[dict]:
    return list(conn.query(
        "SELECT g.course_id, c.name AS course_name, g.department, g.sees_names FROM grants g "
        "LEFT JOIN courses c ON c.id = g.course_id WHERE g.user_id = ? ORDER BY g.department, c.name", [user_id]))


def granted_courses(conn: Database, user_id: int) -> dict[int, bool]:
    """{course id: may see student names} from the user's course and department grants (a
    course granted both ways sees names if either grant says so)."""
    rows = conn.execute(
        "SELECT c.id, MAX(g.sees_names) FROM grants g JOIN courses c "
        "ON c.id = g.course_id OR (g.department IS NOT NULL AND c.department = g.department) "
        "WHERE g.user_id = ? GROUP BY c.id", [user_id]).fetchall()
    return {cid: bool(names) for cid, names in rows}


def actor_for(conn: Database, user_id: int, *, via: str = "password") -> Actor:
    """The Actor of a user as the database says now (role and grants read fresh, so a change
    by an admin applies at the user's next click)."""
    user = get(conn, user_id)
    courses = None if user["role"] == "admin" else granted_courses(conn, user_id)
    return Actor(user["username"], role=user["role"], user_id=user_id,
                 display_name=user["display_name"] or user["username"], courses=courses, via=via)


# --- the interface's language (NULL: the browser's) ---------------------------------------
def language(conn: Database, user_id: int) -> str | None:
    row = conn.execute("SELECT language FROM users WHERE id = ?", [user_id]).fetchone()
    return row[0] if row else None


def set_language(conn: Database, user_id: int, language: str | None, *, actor) -> None:
    before = get(conn, user_id)   # NotFound for an unknown user
    old = conn.execute("SELECT language FROM users WHERE id = ?", [user_id]).fetchone()[0]
    conn.execute("UPDATE users SET language = ? WHERE id = ?", [language, user_id])
    audit(conn, actor=actor, action="set_language", entity="users", entity_id=before["id"],
          before={"language": old}, after={"language": language})
