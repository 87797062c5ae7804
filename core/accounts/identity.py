"""Identity (issue 13): local accounts, sign-in with lockout, server-side sessions, and the
institutional sign-in's mapping from OpenID Connect claims to a FairMark user.

- Passwords are hashed with Argon2id (argon2-cffi; its defaults follow RFC 9106's second
  recommended profile). Only the hash is stored; no message and no log line contains a
  password, and a failed sign-in never says whether the name or the password was wrong.
- Failed sign-ins count per name as typed (known or not): from the second one in a row the
  next try must wait (1, 2, 4 ... up to 30 seconds), and `signin_lock_after` in a row lock the
  name for `signin_lock_minutes`. A wait refuses without checking the password and without
  blocking the server thread.
- A session is a random 256-bit token in the browser's cookie; the database keeps only its
  SHA-256, so a copy of the database opens no session. It ends at sign-out, after
  `session_idle_minutes` without a click, and `session_max_hours` after it began.
- The first account of a fresh database is made by the first visit's form or by
  `python -m core user add --role admin`; a database with courses but no users (from before
  sign-in) gets it only from the command line. After that only an admin adds users.
"""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

import db
from core.accounts import access
from core.accounts.access import Actor, require
from core.language.interface import Message
from core.errors import ConfigError, ConflictError, Forbidden, NotFound, NotSignedIn
from core.settings import Settings, load_settings
from db import courses as courses_db
from db import users as users_db
from db.actors import ROLE_LABELS, ROLES

MIN_PASSWORD = 10
MAX_WAIT_S = 30
CLOCK_SKEW = timedelta(seconds=60)  # between the identity provider's clock and ours
_hasher = PasswordHasher()
# Verified when the name is unknown, so that answer takes as long as a wrong password.
_DUMMY_HASH = _hasher.hash(secrets.token_urlsafe(16))
# Messages the sign-in page shows are Messages: English here, the reader's language there.
FIRST_ADMIN_BY_COMMAND = Message("This database has courses but no users yet (it was made before sign-in). Whoever "
                                 "runs the server creates the first admin: `python -m core user add NAME --role "
                                 "admin`; then sign in here.")
FIRST_ADMIN_EXISTS = Message("FairMark has its first admin already: sign in as an admin to add users.")
SIGNIN_FAILED = Message("Sign-in failed: the name or the password is not right.")


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _parse(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)


def hash_password(password: str) -> str:
    if len(password or "") < MIN_PASSWORD:
        raise ConfigError(Message.plural("A password needs at least {count} character.",
                                         "A password needs at least {count} characters.", MIN_PASSWORD))
    return _hasher.hash(password)


# --- users ---------------------------------------------------------------------------
def _clean(username: str, role: str, email: str | None) -> tuple[str, str | None]:
    username = (username or "").strip()
    if not username or len(username) > 64 or any(ch.isspace() for ch in username):
        raise ConfigError(Message("A user name needs 1 to 64 characters without spaces (e.g. anna.berg)."))
    if role not in ROLES:
        raise ConfigError(Message("Unknown role {role!r}: choose one of {roles}.", role=role, roles=", ".join(ROLES)))
    email = (email or "").strip() or None
    if email is not None and "@" not in email:
        raise ConfigError(Message("{email!r} is not an e-mail address.", email=email))
    return username, email


def needs_first_admin(conn) -> bool:
    """No account yet: the first one is an admin, made by `python -m core user add NAME --role
    admin` (or, on a fresh database, by the first visit's form)."""
    return users_db.count(conn) == 0


def first_visit_makes_admin(conn) -> bool:
    """The first visit's form makes the first admin only on a fresh database (no users and no
    courses). A database with courses but no users (one from before sign-in) holds students'
    work that the first stranger to open the page must not claim: its admin comes from the
    command line, by whoever has the server."""
    return needs_first_admin(conn) and not users_db.any_course(conn)


def add_user(conn, *, username: str, role: str, password: str | None = None, display_name: str = "",
             email: str | None = None, actor: Actor | None = None) -> int:
    """A new account (an admin's act; on a fresh database the first account, which must be an
    admin, needs no actor). A user without a password signs in only through the institution
    (its e-mail)."""
    username, email = _clean(username, role, email)
    with db.write_transaction(conn):
        if actor is not None:
            require(actor, "users")
        elif not needs_first_admin(conn):
            raise Forbidden(FIRST_ADMIN_EXISTS)
        elif role != "admin":
            raise ConfigError(Message("The first account must be an admin (it adds the others)."))
        if password is None and email is None:
            raise ConfigError(Message("A user needs a password, an e-mail for institutional sign-in, or both."))
        hashed = hash_password(password) if password is not None else None
        if users_db.find(conn, username) is not None:
            raise ConflictError(Message("A user named {username!r} exists already.", username=username))
        if email and users_db.find_by_email(conn, email) is not None:
            raise ConflictError(Message("Another user has the e-mail {email}.", email=email))
        return users_db.insert(conn, username=username, display_name=display_name.strip(), email=email,
                               role=role, password_hash=hashed, actor=actor or f"first visit ({username})")


def user_id_of(conn, username: str) -> int:
    found = users_db.find(conn, username)
    if found is None:
        raise NotFound(Message("No user named {username!r}: `python -m core user list` shows them.", username=username))
    return found["id"]


def display_names(conn, *, actor: Actor) -> dict[str, str]:
    """User name -> display name: what pages show where the audit log recorded who did a thing
    (its `actor` is the user name). Any signed-in user may read colleagues' names."""
    require(actor, "read")
    return users_db.display_names(conn)


def list_users(conn, *, actor: Actor) -> list[dict]:
    require(actor, "users")
    return _users(conn)


def _users(conn) -> list[dict]:
    return [{**u, "role_label": ROLE_LABELS[u["role"]], "grants": users_db.grants_of(conn, u["id"])}
            for u in users_db.list_users(conn)]


def users_view(conn, *, actor: Actor) -> dict:
    """The Settings page's "Users" tab in one read (one check): {"users" (list_users), "courses"
    (every course, to grant)}."""
    access.require(actor, "users")
    return {"users": _users(conn), "courses": courses_db.list_courses(conn)}


def set_role(conn, user_id: int, role: str, *, actor: Actor) -> None:
    require(actor, "users")
    if role not in ROLES:
        raise ConfigError(Message("Unknown role {role!r}: choose one of {roles}.", role=role, roles=", ".join(ROLES)))
    with db.write_transaction(conn):
        users_db.update(conn, user_id, actor=actor, role=role)


def set_active(conn, user_id: int, active: bool, *, actor: Actor) -> None:
    """Deactivating ends the user's sessions at once."""
    require(actor, "users")
    with db.write_transaction(conn):
        users_db.update(conn, user_id, actor=actor, active=int(active))
        if not active:
            users_db.end_sessions_of(conn, user_id)


def set_password(conn, user_id: int, password: str, *, actor: Actor) -> None:
    """An admin sets a user's password, or a user their own; every open session of the user ends."""
    require(actor, "read") if actor.user_id == user_id else require(actor, "users")
    hashed = hash_password(password)
    with db.write_transaction(conn):
        users_db.update(conn, user_id, actor=actor, password_hash=hashed)
        users_db.end_sessions_of(conn, user_id)


def grant(conn, user_id: int, *, course_id: int | None = None, department: str | None = None,
          sees_names: bool = False, actor: Actor) -> None:
    """Give a user a course (or every course of a department). `sees_names` lets a coordinator
    see student names there (everyone else granted sees them anyway)."""
    require(actor, "users")
    if (course_id is None) == (not department):
        raise ConfigError(Message("Grant either one course or one department."))
    with db.write_transaction(conn):
        users_db.get(conn, user_id)
        users_db.grant(conn, user_id, course_id=course_id, department=department or None,
                       sees_names=sees_names, actor=actor)


def revoke(conn, user_id: int, *, course_id: int | None = None, department: str | None = None,
           actor: Actor) -> int:
    require(actor, "users")
    with db.write_transaction(conn):
        return users_db.revoke(conn, user_id, course_id=course_id, department=department or None, actor=actor)


def actor_of(conn, username: str) -> Actor:
    """A user as an Actor (the command line's --as USER)."""
    return users_db.actor_for(conn, user_id_of(conn, username), via="cli")


# --- sign-in -------------------------------------------------------------------------
def _wait_after(failures: int) -> float:
    return 0.0 if failures < 2 else float(min(2 ** (failures - 2), MAX_WAIT_S))


def _locked_message(minutes: float) -> str:
    return Message.plural("Too many failed sign-ins for this name: it is locked for {count} more minute. Ask an "
                          "admin if you forgot your password.",
                          "Too many failed sign-ins for this name: it is locked for {count} more minutes. Ask an "
                          "admin if you forgot your password.", max(1, round(minutes)))


def _count_attempt(conn, name: str, settings: Settings) -> bool:
    """Refuse a name that must wait or is locked; else count this attempt as a failure before
    the password is checked (a right one clears the count), in one write transaction, so N
    attempts sent at once count N and the ones after the second wait like sequential ones.
    True when this attempt, if its password is wrong, is the one that locks the name."""
    now = _now()
    with db.write_transaction(conn):
        seen = users_db.failures(conn, name)
        if seen and seen["locked_until"] and _parse(seen["locked_until"]) > now:
            left = (_parse(seen["locked_until"]) - now).total_seconds()
            if seen["failures"] >= settings.signin_lock_after:
                raise NotSignedIn(_locked_message(left / 60))
            raise NotSignedIn(Message.plural("Too many failed sign-ins for this name: try again in {count} second.",
                                             "Too many failed sign-ins for this name: try again in {count} seconds.",
                                             max(1, round(left))))
        failures = users_db.record_failure(conn, name, locked_until=None)
        wait = (timedelta(minutes=settings.signin_lock_minutes) if failures >= settings.signin_lock_after
                else timedelta(seconds=_wait_after(failures)))
        if wait:
            users_db.set_lock(conn, name, _stamp(now + wait))
    return failures >= settings.signin_lock_after


def sign_in(conn, username: str, password: str, *, settings: Settings | None = None) -> tuple[Actor, str]:
    """Check a name and password; returns (actor, session token for the cookie). Refused with
    NotSignedIn: wrong name or password (never saying which), a wait after recent failures, a
    locked name, a deactivated account."""
    settings = settings or load_settings()
    name = (username or "").strip()
    locks = _count_attempt(conn, name, settings) if name else False
    user = users_db.find(conn, name) if name else None
    try:
        ok = _hasher.verify(user["password_hash"] if user and user["password_hash"] else _DUMMY_HASH, password or "")
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        ok = False
    if not ok or user is None or not user["password_hash"]:
        # The failure that locks the name says so (not "Sign-in failed", then the lock on the next try).
        raise NotSignedIn(_locked_message(settings.signin_lock_minutes) if locks else SIGNIN_FAILED)
    if not user["active"]:
        raise NotSignedIn(Message("This account is deactivated; ask an admin."))
    with db.write_transaction(conn):
        users_db.clear_failures(conn, name)
        if _hasher.check_needs_rehash(user["password_hash"]):
            users_db.set_password_hash(conn, user["id"], _hasher.hash(password))
        token = open_session(conn, user["id"], "password")
    return users_db.actor_for(conn, user["id"]), token


def open_session(conn, user_id: int, via: str) -> str:
    """A new session (inside the caller's write transaction); its token, for the cookie."""
    token = secrets.token_urlsafe(32)
    users_db.open_session(conn, token_hash=_token_hash(token), user_id=user_id, via=via)
    users_db.mark_signed_in(conn, user_id)
    return token


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


token_hash = _token_hash  # the one hash of every secret the browser holds (core.accounts.handoff)


def resume(conn, token: str | None, *, touch: bool = True, settings: Settings | None = None) -> Actor | None:
    """The Actor of a session cookie, or None when it is unknown, ended, idle too long, too old
    or its account deactivated (an expired session is ended for good). `touch=False` (a page's
    self-refreshing fragment, a widget callback: not a person's visit by itself) leaves the
    session's idle clock alone, so an unattended tab still times out."""
    if not isinstance(token, str) or not token:
        return None
    return resume_hash(conn, _token_hash(token), touch=touch, settings=settings)


def resume_hash(conn, digest: str, *, touch: bool = True, settings: Settings | None = None) -> Actor | None:
    """resume() of the session stored under this token hash (core.accounts.handoff's code names it)."""
    settings = settings or load_settings()
    row = users_db.session(conn, digest)
    if row is None:
        return None
    now = _now()
    idle = now - _parse(row["last_seen_at"])
    if (not row["active"] or idle > timedelta(minutes=settings.session_idle_minutes)
            or now - _parse(row["created_at"]) > timedelta(hours=settings.session_max_hours)):
        users_db.end_session(conn, digest)
        return None
    if touch and idle > timedelta(seconds=30):  # not a write per click
        users_db.touch_session(conn, digest)
    return users_db.actor_for(conn, row["user_id"], via=row["via"])


def session_expires(settings: Settings | None = None) -> datetime:
    """When the cookie of a session opened now expires (the server ends it earlier when idle)."""
    settings = settings or load_settings()
    return _now() + timedelta(hours=settings.session_max_hours)


def sign_out(conn, token: str | None) -> None:
    """End the session `token` opens (a missing or unknown token: nothing to end), in its own
    write transaction (a savepoint inside an open one)."""
    if isinstance(token, str) and token:
        with db.write_transaction(conn):
            users_db.end_session(conn, _token_hash(token))


def first_admin(conn, *, username: str, password: str, display_name: str = "") -> tuple[Actor, str]:
    """The first visit of a fresh database: create the admin and sign them in."""
    if not first_visit_makes_admin(conn):
        raise Forbidden(FIRST_ADMIN_BY_COMMAND if needs_first_admin(conn) else FIRST_ADMIN_EXISTS)
    add_user(conn, username=username, role="admin", password=password, display_name=display_name)
    return sign_in(conn, username, password)


# --- institutional sign-in (OpenID Connect through st.login) -----------------------------
@dataclass(frozen=True)
class Claims:
    """What `st.user` holds after st.login: the identity provider's ID-token claims."""
    email: str | None
    email_verified: bool | None = None
    name: str | None = None
    issuer: str | None = None
    provider: str = "default"              # st.login's provider ([auth.<provider>]; "default": [auth] alone)
    signed_in_at: datetime | None = None   # the ID token's `iat`: when the institution signed them in

    @classmethod
    def of(cls, user: dict) -> "Claims":
        verified = user.get("email_verified")
        if isinstance(verified, str):
            verified = verified.lower() == "true"
        # Microsoft Entra ID sends no `email` for some accounts: preferred_username is the UPN.
        email = user.get("email") or (user.get("preferred_username") if "@" in str(user.get("preferred_username", ""))
                                      else None)
        iat = user.get("iat")
        at = datetime.fromtimestamp(float(iat), timezone.utc) if isinstance(iat, (int, float)) else None
        return cls(email=email, email_verified=verified, name=user.get("name"), issuer=user.get("iss"),
                   provider=str(user.get("provider") or "default"), signed_in_at=at)


def oidc_actor(conn, claims: Claims, *, trust_email: bool = False) -> Actor:
    """The FairMark user whose e-mail the identity provider vouches for. Refused when the
    provider sent no e-mail, does not say it verified it (`email_verified` true; a provider the
    admin marked `fairmark_trust_email`, e.g. Entra ID which sends no such claim, is believed
    without it), or no active FairMark user has it: an admin adds the person first
    (`python -m core user add NAME --role ROLE --email ADDRESS`)."""
    if not claims.email:
        raise NotSignedIn(Message("Your institution's sign-in sent no e-mail address; FairMark matches accounts by "
                                  "e-mail. Ask an admin to check the identity provider's scopes (openid email "
                                  "profile)."))
    if claims.email_verified is False or (claims.email_verified is not True and not trust_email):
        raise NotSignedIn(Message("Your institution has not verified the e-mail {email}; FairMark cannot match it. "
                                  "An admin whose provider sends no `email_verified` may trust its e-mails "
                                  "(fairmark_trust_email = true in its [auth] section of .streamlit/secrets.toml).",
                                  email=claims.email))
    user = users_db.find_by_email(conn, claims.email.strip())
    if user is None or not user["active"]:
        raise NotSignedIn(Message("No active FairMark account has the e-mail {email}; ask an admin to add you "
                                  "with that e-mail.", email=claims.email))
    return users_db.actor_for(conn, user["id"], via="oidc")


def oidc_sign_in(conn, claims: Claims, *, trust_email: bool = False,
                 settings: Settings | None = None) -> tuple[Actor, str] | None:
    """The institution's sign-in (st.login) opens a FairMark session like a password does, so
    `session_idle_minutes` and `session_max_hours` apply to it too. One institutional sign-in
    opens one FairMark session: None when it has had its session already (ended by sign-out,
    idleness or age) or is older than `session_max_hours`; the page then signs the browser out
    of the institution's sign-in (st.logout) instead of mapping it again."""
    settings = settings or load_settings()
    actor = oidc_actor(conn, claims, trust_email=trust_email)
    since = claims.signed_in_at
    now = _now()
    if since is None or now - since > timedelta(hours=settings.session_max_hours):
        return None  # an ID token says when it was issued (`iat`, required by OpenID Connect)
    with db.write_transaction(conn):
        users_db.end_expired_sessions(conn, actor.user_id,
                                      idle_before=_stamp(now - timedelta(minutes=settings.session_idle_minutes)),
                                      begun_before=_stamp(now - timedelta(hours=settings.session_max_hours)))
        # The session this sign-in opened began after it (give or take the two clocks' skew)
        # and ended after it; an older sign-in's session ended before it (`iat` is in whole
        # seconds: a sign-in again right after a session ended may carry that second).
        if users_db.session_ended(conn, actor.user_id, via="oidc", opened_after=_stamp(since - CLOCK_SKEW),
                                  ended_after=_stamp(since + timedelta(seconds=1))):
            return None
        token = open_session(conn, actor.user_id, "oidc")
    return actor, token
