"""What a verified launch does: who the person is in FairMark, in which course, on which
assignment. Called by core.lti.launch inside the launch's one transaction (a LaunchRefused here
undoes the spent nonce too, so a refusal changes nothing).

Roles (the LMS's context roles; institution and system roles count only as Administrator):
TeachingAssistant -> ta; Instructor or Administrator -> instructor; Learner -> student; any
other role is refused. Staff get a FairMark user of their own per LMS course (created on their
first launch there, granted that course only, no password and no e-mail: never linked to an
existing FairMark account, by e-mail or otherwise); the LMS stays the judge of their role there,
so a role changed in the LMS changes at the next launch. A learner gets no FairMark account
(FairMark has no student pages yet): the launch records them, linked to the course's student
whose id is their LMS id or SIS id when there is one.

The course is the one linked to the LMS context, made on the first instructor launch (under
the context's title; a new course, never an existing one of the same name). A resource link
maps to an assignment: the one of another link on the same gradebook column (the AGS lineitem
claim) when there is one, else one made on the link's first instructor launch. The link keeps
the grade service (AGS) and roster service (NRPS) endpoints for core.lti.grades and
core.lti.roster."""
from __future__ import annotations

import hashlib
import unicodedata

from core.accounts.access import Actor
from core.errors import LaunchRefused
from core.language import course as course_language
from core.language.interface import Message
from core.lti.verify import AGS, CLAIM, NRPS
from core.rubric import default_rubric
from db import audit, courses
from db import lti as lti_db
from db import lti_roster as roster_db
from db import users as users_db

LIS = "http://purl.imsglobal.org/vocab/lis/v2/"
TA_ROLES = {LIS + "membership/Instructor#TeachingAssistant", LIS + "membership#TeachingAssistant",
            "TeachingAssistant"}
INSTRUCTOR_ROLES = {LIS + "membership#Instructor", "Instructor", LIS + "membership#Administrator", "Administrator",
                    LIS + "institution/person#Administrator", LIS + "system/person#Administrator"}
LEARNER_ROLES = {LIS + "membership#Learner", "Learner", LIS + "membership/Learner#Learner"}


def role_of(roles: list[str]) -> str:
    """FairMark's role for the LMS roles of a launch: ta, instructor or student; else refused.

    >>> role_of(["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor",
    ...          "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"])
    'ta'
    >>> role_of(["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor",
    ...          "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"])
    'student'
    """
    given = set(roles)
    if given & TA_ROLES:
        return "ta"
    if given & INSTRUCTOR_ROLES:
        return "instructor"
    if given & LEARNER_ROLES:
        return "student"
    shown = ", ".join(r.rsplit("#", 1)[-1].rsplit("/", 1)[-1] for r in roles[:5])[:200] or Message("none")
    raise LaunchRefused(Message("FairMark serves instructors, administrators, teaching assistants and learners; your "
                                "role in this LMS course is {roles}. Ask the course's instructor to give you one of "
                                "those roles in the LMS.", roles=shown))


def clean(text) -> str:
    """A name or title from the LMS as FairMark stores it: its text as sent, without control or
    invisible format characters (pages escape it when they show it)."""
    return "".join(ch for ch in str(text or "") if unicodedata.category(ch) not in ("Cc", "Cf")).strip()


def services(claims: dict) -> dict:
    ags, nrps = claims.get(AGS) or {}, claims.get(NRPS) or {}
    given = ags.get("scope")
    scopes = [s[:200] for s in given if isinstance(s, str)][:10] if isinstance(given, list) else []
    return {"lineitem_url": ags.get("lineitem"), "lineitems_url": ags.get("lineitems"), "ags_scopes": scopes,
            "nrps_url": nrps.get("context_memberships_url")}


def apply(conn, platform: dict, claims: dict) -> dict:
    """Link the launch's person, course and assignment. Returns {kind: "staff" | "student",
    role, user_id (staff), course_id, assignment_id, name, course}."""
    role = role_of(claims[CLAIM + "roles"])
    context = claims[CLAIM + "context"]
    link = claims[CLAIM + "resource_link"]
    name = clean(claims.get("name") or " ".join(filter(None, (claims.get("given_name"), claims.get("family_name")))))
    found = lti_db.find_context(conn, platform["id"], context["id"])
    title = clean(context.get("title") or context.get("label")) or f"LMS course {context['id'][:40]}"
    if found is None and role != "instructor":
        raise LaunchRefused(Message("This LMS course is not linked to a FairMark course yet: its instructor opens "
                                    "FairMark from it once, which makes the course. Then launch again."))
    if role == "student":
        return _learner(conn, platform, claims, found, link, name)
    person = lti_db.find_person(conn, platform["id"], claims["sub"], found["id"]) if found else None
    actor = _staff_user(conn, platform, claims, found, person, role, name)
    if found is None:
        course_id = courses.ensure_course(conn, _free_course_name(conn, title), "Linked to an LMS course (LTI).")
        language = language_of(claims)
        if language:   # the LMS's locale for the new course; a teacher changes it on Settings or `course set`
            courses.set_course_language(conn, course_id, language)
        audit(conn, actor=actor, action="create", entity="courses", entity_id=course_id,
              after={"name": courses.get_course(conn, course_id)["name"], "via": "lti",
                     "language": language or course_language.stored(None)})
        row_id = lti_db.insert_context(conn, platform_id=platform["id"], context_id=context["id"], title=title,
                                       course_id=course_id, actor=actor)
        found = {"id": row_id, "course_id": course_id}
    else:
        lti_db.update_context(conn, found["id"], title=title)
    course_id = found["course_id"]
    if course_id not in users_db.granted_courses(conn, actor.user_id):
        users_db.grant(conn, actor.user_id, course_id=course_id, actor=actor)
    fields = {"role": role, "name": name, "email": clean(claims.get("email")),
              "sourcedid": _sourcedid(claims)}
    if person is None:
        lti_db.insert_person(conn, platform_id=platform["id"], sub=claims["sub"], context_row=found["id"],
                             user_id=actor.user_id, student_id=None, actor=actor, **fields)
    else:
        lti_db.update_person(conn, person["id"], **fields)
    assignment_id = _assignment(conn, platform, claims, found, link, role, actor)
    audit(conn, actor=actor, action="lti_launch", entity="courses", entity_id=course_id,
          after={"role": role, "assignment_id": assignment_id, "platform_id": platform["id"]})
    return {"kind": "staff", "role": role, "user_id": actor.user_id, "course_id": course_id,
            "assignment_id": assignment_id, "name": name, "course": courses.get_course(conn, course_id)["name"]}


def language_of(claims: dict) -> str | None:
    """The launch's locale as a course language: the LTI launch presentation's, else the person's
    OIDC `locale` claim (LTI 1.3 core, 5.4.4). Also the language of a refused launch's page."""
    presentation = claims.get(CLAIM + "launch_presentation") or {}
    locale = presentation.get("locale") if isinstance(presentation, dict) else None
    return course_language.from_locale(locale) or course_language.from_locale(claims.get("locale"))


def _sourcedid(claims: dict) -> str:
    lis = claims.get(CLAIM + "lis") or {}
    value = lis.get("person_sourcedid") if isinstance(lis, dict) else None
    return clean(value)[:255] if isinstance(value, str) else ""


def _staff_user(conn, platform, claims, context, person, role: str, name: str) -> Actor:
    """The FairMark user of this LMS user in this LMS course: made on the first launch."""
    if person is not None and person["user_id"] is not None:
        user = users_db.get(conn, person["user_id"])
        if not user["active"]:
            raise LaunchRefused(Message("Your FairMark account for this LMS course was deactivated by a FairMark "
                                        "admin; ask them to activate it again (Settings → Users)."))
        if user["role"] != role or (name and user["display_name"] != name):
            users_db.update(conn, user["id"], actor=f"LMS launch ({platform['issuer'][:80]})",
                            role=role, display_name=name or user["display_name"])
        return users_db.actor_for(conn, user["id"], via="lti")
    digest = hashlib.sha256(f"{platform['id']}\0{claims['sub']}\0{claims[CLAIM + 'context']['id']}".encode())
    username, n = f"lms-{platform['id']}-{digest.hexdigest()[:16]}", 1
    while users_db.find(conn, username) is not None:   # the retired account of a deleted course's link
        n += 1
        username = f"lms-{platform['id']}-{digest.hexdigest()[:16]}-{n}"
    uid = users_db.insert(conn, username=username, display_name=name or "LMS user", email=None, role=role,
                          password_hash=None, actor=f"LMS launch ({platform['issuer'][:80]})")
    return users_db.actor_for(conn, uid, via="lti")


def _free_course_name(conn, title: str) -> str:
    """The context's title, or with a number when a FairMark course has that name already (a
    launch never joins an existing course by name)."""
    title = title[:200]
    name, n = title, 1
    while courses.find_course(conn, name) is not None:
        n += 1
        name = f"{title} ({n})"
    return name


def _assignment(conn, platform, claims, context, link: dict, role: str, actor: Actor) -> int | None:
    svc = services(claims)
    title = clean(link.get("title")) or "LMS assignment"
    row = lti_db.find_link(conn, platform["id"], link["id"])
    assignment_id = row["assignment_id"] if row else None
    if assignment_id is None and svc["lineitem_url"]:
        same = lti_db.link_of_lineitem(conn, context["id"], svc["lineitem_url"])
        assignment_id = same["assignment_id"] if same else None
    if assignment_id is None and role == "instructor":
        rubric_id = courses.save_rubric(conn, default_rubric())
        name, n = title[:200], 1
        while courses.find_assignment(conn, context["course_id"], name) is not None:
            n += 1
            name = f"{title[:200]} ({n})"
        assignment_id = courses.ensure_assignment(conn, context["course_id"], name, rubric_id=rubric_id)
        audit(conn, actor=actor, action="create", entity="assignments", entity_id=assignment_id,
              after={"title": name, "rubric_id": rubric_id, "via": "lti"})
    if row is None:
        lti_db.insert_link(conn, platform_id=platform["id"], resource_link_id=link["id"], context_row=context["id"],
                           assignment_id=assignment_id, title=title, services=svc, actor=actor)
    else:
        lti_db.update_link(conn, row["id"], assignment_id=assignment_id, title=title, services=svc)
    return assignment_id


def _learner(conn, platform, claims, context, link: dict, name: str) -> dict:
    """A learner's launch: recorded and linked to the course's student when the roster knows them.
    Returns their student id (None: not matched) and the resource link's assignment (None: not
    mapped to one), which the student page opens."""
    course_id = context["course_id"]
    sourcedid = _sourcedid(claims)
    student_id = roster_db.student_of_learner(conn, course_id, platform["id"], lms_user_id=claims["sub"],
                                              sis_id=sourcedid)
    person = lti_db.find_person(conn, platform["id"], claims["sub"], context["id"])
    fields = {"role": "student", "name": name, "email": clean(claims.get("email")), "sourcedid": sourcedid,
              "student_id": student_id}
    who = f"LMS learner ({platform['issuer'][:80]})"
    if person is None:
        row_id = lti_db.insert_person(conn, platform_id=platform["id"], sub=claims["sub"], context_row=context["id"],
                                      user_id=None, actor=who, **fields)
    else:
        row_id = person["id"]
        lti_db.update_person(conn, row_id, **fields)
    audit(conn, actor=who, action="lti_launch", entity="lti_users", entity_id=row_id,
          after={"role": "student", "course_id": course_id})
    mapped = lti_db.find_link(conn, platform["id"], link["id"])
    return {"kind": "student", "role": "student", "user_id": None, "course_id": course_id,
            "assignment_id": mapped["assignment_id"] if mapped else None, "student_id": student_id,
            "name": name, "course": courses.get_course(conn, course_id)["name"]}

