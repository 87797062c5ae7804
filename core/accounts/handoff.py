"""From a sign-in in the page to the browser's HttpOnly cookie (issue 25).

A Streamlit page cannot set a cookie, and a cookie set by the page's JavaScript can be read by
any script in the page. So a sign-in in the page (password, first admin, institution) opens its
session as before and leaves a one-time code for it; the browser is sent to the server route
/auth/session (core.web.session), which redeems the code: the session gets a fresh token that
only the cookie holds (the page's copy of the old one opens nothing any more).

A code is random (256 bits), stored as its SHA-256 only, lives `CODE_SECONDS` and is used once.
Redeeming checks the session as resume() does (ended, idle, too old, account deactivated).
"""
from __future__ import annotations

import secrets
from datetime import datetime, timedelta, timezone

import db
from core.accounts import identity
from core.errors import NotSignedIn
from db import users as users_db

CODE_SECONDS = 60   # the browser follows the redirect at once; a minute allows a slow network
KEEP_DAYS = 1       # used and expired codes are deleted when a later one is issued

MISSING = "This sign-in link has no code: sign in again."
UNKNOWN = "This sign-in link is not valid (its code is unknown): sign in again."
USED = "This sign-in link was used already; each one works once. Sign in again."
EXPIRED = f"This sign-in link expired (it works for {CODE_SECONDS} seconds): sign in again."
ENDED = "The session this sign-in link belongs to has ended: sign in again."


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def issue(conn, token: str) -> str:
    """A one-time code for the session of `token` (one this browser session just opened)."""
    code = secrets.token_urlsafe(32)
    now = datetime.now(timezone.utc)
    with db.write_transaction(conn):
        users_db.add_signin_code(conn, code_hash=identity.token_hash(code), session_hash=identity.token_hash(token),
                                 expires_at=_stamp(now + timedelta(seconds=CODE_SECONDS)),
                                 purge_before=_stamp(now - timedelta(days=KEEP_DAYS)))
    return code


def redeem(conn, code: str | None) -> str:
    """The code's session under a fresh token (for the cookie). Refused with NotSignedIn, saying
    why, when the code is missing, unknown, used, expired or its session has ended; a refusal
    changes nothing."""
    if not isinstance(code, str) or not code.strip():
        raise NotSignedIn(MISSING)
    digest = identity.token_hash(code.strip())
    now = _stamp(datetime.now(timezone.utc))
    with db.write_transaction(conn):
        row = users_db.signin_code(conn, digest)
        if row is None:
            raise NotSignedIn(UNKNOWN)
        if row["used_at"] is not None:
            raise NotSignedIn(USED)
        if row["expires_at"] < now:
            raise NotSignedIn(EXPIRED)
        if identity.resume_hash(conn, row["session_hash"], touch=False) is None:
            raise NotSignedIn(ENDED)
        token = secrets.token_urlsafe(32)
        # One winner when two requests bring the same code at once (the write lock orders them).
        if not users_db.use_signin_code(conn, digest) or \
                not users_db.rekey_session(conn, row["session_hash"], identity.token_hash(token)):
            raise NotSignedIn(USED)
    return token
