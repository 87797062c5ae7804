"""Names and Role Provisioning Services: the LMS course's students into FairMark's roster.

`sync` reads the context's membership list (paged: it follows Link rel="next") and, for each
active Learner, finds the course's student (the one linked to that LMS user, else by e-mail,
else by the SIS id `lis_person_sourcedid` as student id) or creates one with a random
pseudonym, takes the LMS's name and e-mail, and stores the LMS user id and SIS id
(db.lti_roster). Students are the masking roster (db.roster -> core.privacy.pseudonym), so
every name the LMS sends is masked before any model call like an uploaded one. Instructors,
assistants and others on the list are not students; a member the LMS lists as inactive keeps
their work but is not added. Nothing is deleted: a student who left the LMS course stays
until an admin deletes their data.

A name is stored as text (control characters removed, at most 200 characters) and shown
escaped like every student string.
"""
from __future__ import annotations

import re
import unicodedata

import httpx

from core.accounts import access
from core.accounts.access import Actor
from core.errors import ConfigError
from core.language.interface import Message
from core.lti import links, tokens
from core.lti.tokens import ServiceError
from db import audit, now, write_transaction
from db import lti_roster as roster_db
from db.submissions import new_pseudonym

SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
MEMBERSHIPS = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
MAX_PAGES = 500                   # 500 pages of members: far beyond any course; stops a looping Link
MAX_TEXT = 200
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def sync(conn, course_id: int, *, actor: Actor) -> dict:
    """Bring the course's roster up to date with the LMS now (`python -m core lti roster`, and
    an instructor's launch). Returns {"course_id", "members", "created", "updated", "matched",
    "not_students", "inactive"}."""
    access.check(conn, actor, "upload", course=course_id)

    link = links.for_course(conn, course_id)
    if link is None:
        raise ConfigError(Message("course {course_id} is not linked to an LMS course: its instructor launches "
                                  "FairMark from the LMS course once, then the roster can be read",
                                  course_id=course_id))
    if not link.get("nrps_url"):
        raise ServiceError(Message("the LMS did not offer its roster service for this course; enable \"Names and "
                                   "Role Provisioning Services\" for the tool in the LMS, then launch it again"),
                           retry=False)
    members = fetch(conn, link)
    platform_id = link["platform"]["id"]
    counts = {"created": 0, "updated": 0, "matched": 0, "not_students": 0, "inactive": 0}
    at = now()
    with write_transaction(conn):
        for m in members:
            _apply(conn, course_id, platform_id, m, counts, at)
        audit(conn, actor=actor, action="lti_roster", entity="courses", entity_id=course_id,
              after={"members": len(members), **counts})
    return {"course_id": course_id, "members": len(members), **counts}


def fetch(conn, link: dict) -> list[dict]:
    """Every member of the LMS context, page after page."""
    token = tokens.access_token(conn, link["platform"], [SCOPE])
    url, seen, members = link["nrps_url"], set(), []
    while url and url not in seen and len(seen) < MAX_PAGES:
        seen.add(url)
        try:
            response = httpx.get(url, headers={"Authorization": f"Bearer {token}", "Accept": MEMBERSHIPS},
                                 timeout=tokens.TIMEOUT)
        except httpx.TimeoutException as e:
            raise ServiceError(Message("the LMS did not send the course's roster in time; try again later")) from e
        except httpx.HTTPError as e:
            raise ServiceError(Message("FairMark could not reach the LMS's roster service ({error}); try again later",
                                       error=type(e).__name__)) from e
        if response.status_code in (401, 403):
            tokens.forget()
            raise ServiceError(Message("the LMS refused FairMark the course's roster ({status}); check that the "
                                       "roster service is enabled for the tool", status=response.status_code),
                               retry=False)
        if response.status_code >= 300:
            raise ServiceError(Message("the LMS answered {status} when asked for the course's roster; try again "
                                       "later", status=response.status_code))
        try:
            body = response.json()
        except ValueError as e:
            raise ServiceError(Message("the LMS sent a roster FairMark cannot read (not JSON); nothing was "
                                       "changed")) from e
        page = body.get("members") if isinstance(body, dict) else None
        if not isinstance(page, list):
            raise ServiceError(Message("the LMS sent a roster without its list of members; nothing was changed"))
        members += [m for m in page if isinstance(m, dict)]
        url = response.links.get("next", {}).get("url")
    return members


def _apply(conn, course_id: int, platform_id: int, m: dict, counts: dict, at: str) -> None:
    lms_id = _text(m.get("user_id"))
    if not lms_id:
        return
    roles = m.get("roles") if isinstance(m.get("roles"), list) else []
    if not any(_learner(r) for r in roles if isinstance(r, str)):
        counts["not_students"] += 1
        return
    name = _text(m.get("name")) or " ".join(p for p in (_text(m.get("given_name")), _text(m.get("family_name"))) if p)
    email = _text(m.get("email")).lower()
    email = email if _EMAIL.match(email) else ""
    sis = _text(m.get("lis_person_sourcedid"))
    status = "Inactive" if m.get("status") in ("Inactive", "Deleted") else "Active"
    sid = roster_db.match_member(conn, course_id, platform_id, lms_user_id=lms_id, email=email, sis_id=sis)
    if sid is None:
        if status != "Active":
            counts["inactive"] += 1
            return
        external = sis or email or f"lms:{lms_id}"
        found = roster_db.student_with_id(conn, course_id, external)
        if found and found[1]:            # that student id is another LMS user's: never merge two people
            external, found = f"lms:{lms_id}", None
        sid = found[0] if found else None
        if sid is None:
            sid = roster_db.add_student(conn, course_id, external_id=external, name=name, email=email,
                                        pseudonym=new_pseudonym(conn))
            counts["created"] += 1
        else:
            counts["matched"] += 1
    else:
        counts["matched"] += 1
        counts["inactive"] += status != "Active"
    if roster_db.update_student(conn, sid, name=name, email=email):
        counts["updated"] += 1
    roster_db.link_student(conn, sid, course_id, platform_id, lms_user_id=lms_id, sis_id=sis, status=status, at=at)


def _learner(role: str) -> bool:
    """A context role of Learner: the LIS URI (...membership#Learner, a sub-role
    ...membership/Learner#...) or the short form the specification allows."""
    return role == "Learner" or role.endswith("/membership#Learner") or "/membership/Learner#" in role


def _text(value) -> str:
    """A claim as a plain one-line string: control characters out, NFC, at most MAX_TEXT."""
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        return ""
    text = "".join(ch for ch in unicodedata.normalize("NFC", str(value)) if unicodedata.category(ch)[0] != "C")
    return " ".join(text.split())[:MAX_TEXT]
