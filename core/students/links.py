"""Students' private links: minted at release (and on request), stored only hashed, revocable,
expiring; opening one gives the browser a student session (core.students.sessions).

- A link is `secrets.token_urlsafe(32)` (256 random bits) in `<public address>/s/<token>`; only
  its SHA-256 is stored. It opens one student's released work of one assignment.
- It expires at the assignment's appeal deadline when one is set and still ahead, else after
  `link_days` (an admin's setting, default 180 days).
- A release mints a link for each item it releases (for that release's exports and LMS comment)
  and KEEPS the item's earlier live links and their sessions: a student who filed an appeal still
  sees its outcome, released later, with the link they have. Only an explicit fresh mint
  (`appeals links`, `export --new-links`) revokes an item's earlier links. The plaintext exists
  only in the answer of the mint (the release's result, `appeals links`), so a link reaches a
  student through that release's exports and LMS comment, or a fresh mint.
- Opening: an unknown token, a revoked one and an expired one are refused with their own plain
  message (an unknown one says nothing of what exists); failed look-ups are limited per client
  address (`MAX_TRIES` in `TRY_WINDOW`), counted in the database so that every server process on
  the same database and a restart see the same count.
"""
from __future__ import annotations

import hashlib
import math
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

import db
from core.accounts import access
from core.accounts import identity
from core.accounts.access import Actor
from core.errors import ConfigError, FairMarkError, GateError, NotFound
from core.language.interface import Message
from core.settings import load_settings
from core.students import sessions
from db import audit, courses
from db import student_links as links_db

SETTING = "student_links"          # app_settings: {"days": N}
DEFAULT_DAYS = 180
PATH = "/s/"
MAX_TRIES = 10                      # failed look-ups per client address ...
TRY_WINDOW = timedelta(minutes=15)  # ... in this window, then "too many tries"

UNKNOWN = Message("This link does not open anything. Check that you copied the whole address, or ask your teacher "
                  "for your link.")
REVOKED = Message("This link was replaced by a newer one, so it no longer opens your feedback. Ask your teacher for "
                  "your new link.")
EXPIRED = Message("This link has expired. Ask your teacher for a new link if you still need to see your feedback.")


class LinkRefused(FairMarkError):
    """A link that opens nothing: `kind` is unknown | revoked | expired | too_many."""

    def __init__(self, message: Message, kind: str, *, minutes: int = 0):
        super().__init__(message)
        self.kind, self.minutes = kind, minutes


@dataclass(frozen=True)
class Opened:
    token: str          # the student cookie's value
    expires: datetime   # when the cookie stops working


# The clock and the stored timestamps' format are the student sessions' (one place for both).
_now, _stamp, _parse = sessions._now, sessions._stamp, sessions._parse


# --- the setting ----------------------------------------------------------------------------
def link_days(conn) -> int:
    """How long a link lives when its assignment has no appeal deadline (days)."""
    return int((db.get_setting(conn, SETTING, {}) or {}).get("days") or DEFAULT_DAYS)


def set_link_days(conn, days: int, *, actor: Actor) -> None:
    """The admin's setting (Settings, Data): between 1 and 3650 days."""
    access.require(actor, "settings")
    if not 1 <= int(days) <= 3650:
        raise ConfigError(Message("Students' links last between 1 and 3650 days."))
    with db.write_transaction(conn):
        before = link_days(conn)
        db.set_setting(conn, SETTING, {"days": int(days)})
        audit(conn, actor=actor, action="set_student_link_days", entity="app_settings",
              before={"days": before}, after={"days": int(days)})


# --- minting --------------------------------------------------------------------------------
def url_of(token: str, base: str | None = None) -> str:
    """The link's address: FAIRMARK_PUBLIC_URL (the LMS's address of FairMark), else `base` (the
    Release page's own address), else the path alone (the command line without a public address:
    set FAIRMARK_PUBLIC_URL so that its links are whole addresses)."""
    root = (load_settings().public_url or base or "").rstrip("/")
    return f"{root}{PATH}{token}"


def expiry(assignment: dict, at: datetime, days: int) -> datetime:
    """The assignment's appeal deadline when set and still ahead, else `days` after `at`."""
    deadline = assignment.get("appeal_deadline")
    if deadline:
        when = _parse(str(deadline))
        if when > at:
            return when
    return at + timedelta(days=days)


def mint_in(conn, assignment_id: int, submission_ids, *, actor: Actor, from_release: int | None = None,
            base: str | None = None, replace: bool = False) -> list[dict]:
    """Fresh links for these released items of the assignment, inside the caller's write
    transaction (a release's, `from_release` its id). A release keeps the items' earlier links
    working (`replace=False`: the student who appealed keeps their page); `replace=True` (a fresh
    mint on request) revokes them. Returns [{submission_id, student_id, url, expires}]: the only
    time the tokens exist in plain."""
    access.check(conn, actor, "release", assignment=assignment_id)
    assignment = courses.get_assignment(conn, assignment_id)
    at = _now()
    expires = _stamp(expiry(assignment, at, link_days(conn)))
    items = links_db.released_items(conn, assignment_id, submission_ids)
    if replace:
        links_db.revoke(conn, [i["submission_id"] for i in items], at=_stamp(at), by=str(actor))
    out = []
    for item in items:
        token = secrets.token_urlsafe(32)
        links_db.insert_link(conn, token_hash=identity.token_hash(token), student_id=item["student_id"],
                             assignment_id=assignment_id, submission_id=item["submission_id"], release_id=from_release,
                             created_at=_stamp(at), created_by=str(actor), expires_at=expires)
        out.append({"submission_id": item["submission_id"], "student_id": item["student_id"],
                    "url": url_of(token, base), "expires": expires})
    if out:  # one row per mint, naming no student (the links' rows say whose they are)
        audit(conn, actor=actor, action="mint_student_links", entity="assignments", entity_id=assignment_id,
              after={"links": len(out), "expires": expires, "release_id": from_release})
    return out


def mint(conn, course_id: int, assignment_id: int, *, actor: Actor, base: str | None = None) -> list[dict]:
    """`python -m core appeals links`: fresh links for every released item of the assignment,
    revoking the old ones (a teacher who may release)."""
    access.check(conn, actor, "release", course=course_id, assignment=assignment_id)
    if courses.get_assignment(conn, assignment_id)["course_id"] != course_id:
        raise NotFound(Message("assignment {assignment_id} is not in course {course_id}", assignment_id=assignment_id,
                               course_id=course_id))
    if not links_db.released_items(conn, assignment_id):
        raise GateError(Message("nothing is released in this assignment yet, so there is no link to make: release "
                                "the approved feedback first (the release makes the links)"))
    with db.write_transaction(conn):
        return mint_in(conn, assignment_id, None, actor=actor, base=base, replace=True)


# --- opening --------------------------------------------------------------------------------
def _client_hash(client: str) -> str:
    return hashlib.sha256(f"student-link\0{client}".encode()).hexdigest()


def open_link(conn, token: str | None, *, client: str) -> Opened:
    """The link's student session for the cookie, or LinkRefused saying why. A client address
    with `MAX_TRIES` failed look-ups in `TRY_WINDOW` is refused (even with a good link) until the
    oldest of them is out of the window."""
    now = _now()
    client_hash = _client_hash(client or "unknown")
    with db.write_transaction(conn):
        links_db.forget_tries(conn, before=_stamp(now - TRY_WINDOW))   # kept no longer than they count
        n, first = links_db.failed_tries(conn, client_hash, since=_stamp(now - TRY_WINDOW))
        if n >= MAX_TRIES:
            wait = max(1, math.ceil((_parse(first) + TRY_WINDOW - now).total_seconds() / 60))
            raise LinkRefused(Message.plural(
                "Too many tries with links that open nothing. Wait {count} minute, then open your link again.",
                "Too many tries with links that open nothing. Wait {count} minutes, then open your link again.",
                wait), "too_many", minutes=wait)
        row = links_db.link(conn, identity.token_hash(token)) if isinstance(token, str) and 20 <= len(token) <= 100 \
            else None
        if row is None:
            links_db.add_failed_try(conn, client_hash, at=_stamp(now))
            refusal = LinkRefused(UNKNOWN, "unknown")
        elif row["revoked_at"]:
            refusal = LinkRefused(REVOKED, "revoked")
        elif _parse(row["expires_at"]) <= now:
            refusal = LinkRefused(EXPIRED, "expired")
        else:
            me = access.student(row["student_id"], row["course_id"], assignment_id=row["assignment_id"], via="link")
            session_token, expires = sessions.open_for(conn, actor=me, link=row["id"],
                                                       until=_parse(row["expires_at"]))
            return Opened(session_token, expires)
    raise refusal    # after the commit: the failed try is counted
