"""The student cookie's sessions: a fresh random token per opened link or Learner launch, of
which only the SHA-256 is stored (student_sessions). A session ends with its link (revoked or
expired) or sooner: `LINK_SESSION_DAYS` after a link was opened, `session_max_hours` after a
Learner launch (the LMS opens a new one each launch). `resume` gives the student Actor back.
"""
from __future__ import annotations

import secrets
from datetime import datetime, timedelta, timezone

import db
from core.accounts import access
from core.accounts import identity
from core.accounts.access import Actor
from core.settings import load_settings
from db import student_links as links_db

COOKIE = "fairmark_student"
LINK_SESSION_DAYS = 7


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _parse(stamp: str) -> datetime:
    at = datetime.fromisoformat(stamp[:-1] + "+00:00" if stamp.endswith("Z") else stamp)
    return at.replace(tzinfo=timezone.utc) if at.tzinfo is None else at.astimezone(timezone.utc)


def open_for(conn, *, actor: Actor, link: int | None = None, until: datetime | None = None) -> tuple[str, datetime]:
    """A new session for a student whom a link (`link`: its row) or a verified Learner launch
    named (inside the caller's write transaction when there is one): (token for the cookie,
    when it expires, at `until` at the latest)."""
    link_id = link
    access.require(actor, "student_view")
    now = _now()
    longest = now + (timedelta(days=LINK_SESSION_DAYS) if link_id is not None
                     else timedelta(hours=load_settings().session_max_hours))
    expires = min(longest, until) if until is not None else longest
    token = secrets.token_urlsafe(32)
    with db.write_transaction(conn):
        links_db.open_session(conn, token_hash=identity.token_hash(token), student_id=actor.student_id,
                              course_id=next(iter(actor.courses)), assignment_id=actor.assignment_id, link_id=link_id,
                              via="link" if link_id is not None else "lti", created_at=_stamp(now),
                              expires_at=_stamp(expires), purge_before=_stamp(now - timedelta(days=1)))
    return token, expires


def resume(conn, token: str | None) -> Actor | None:
    """The student of a cookie; None when unknown, ended, expired, its link revoked or expired,
    or its student deleted."""
    if not isinstance(token, str) or not token or len(token) > 100:
        return None
    row = links_db.session(conn, identity.token_hash(token))
    if row is None or row["ended_at"]:
        return None
    now = _now()
    if (_parse(row["expires_at"]) <= now or row["link_revoked_at"]
            or (row["link_expires_at"] and _parse(row["link_expires_at"]) <= now)):
        return None
    return access.student(row["student_id"], row["course_id"], assignment_id=row["assignment_id"], via=row["via"])


def end(conn, token: str | None) -> None:
    """End the session of this cookie (nothing when unknown)."""
    if isinstance(token, str) and token:
        with db.write_transaction(conn):
            links_db.end_session(conn, identity.token_hash(token), at=_stamp(_now()))
