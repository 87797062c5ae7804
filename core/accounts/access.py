"""Who may do what (issue 13): roles, the permission table, and the check every public core
function that reads or writes a course's data makes FIRST, before any other validation.

Roles: admin (users, settings, LLM, prices, judges, readiness bars, every course); coordinator
(dashboards and read-only items of the courses or departments granted; student names only where
a grant says so); instructor (upload, assess, review, calibrate, compare, approve lessons,
release, in the courses granted); teaching assistant (review, edit, approve single items and
blind calibration scoring in the courses granted; no release, no bulk approval).

The command line is an operator's tool with the database file in hand: `command_line()` is an
admin named "command line (<OS user>)"; `python -m core --as USER` acts as that FairMark user.
The pages pass the signed-in Actor and only hide what core would refuse anyway.

    >>> ta = Actor("tom", role="ta", user_id=2, courses={1: True})
    >>> require(ta, "review", course_id=1)
    >>> require(ta, "release", course_id=1)
    Traceback (most recent call last):
    ...
    db.errors.Forbidden: Your role (teaching assistant) may not release feedback in this course; ask the course's instructor.
    >>> require(ta, "read", course_id=2)
    Traceback (most recent call last):
    ...
    db.errors.Forbidden: You have no access to course 2; ask an admin to grant it.
"""
from __future__ import annotations

import getpass
from dataclasses import dataclass, replace

import db
from db import ownership
from db.actors import AUTOMATIC, ROLE_LABELS, ROLES, STUDENT, Actor
from db.analytics import Scope
from core.language.interface import Message, N_
from db.errors import Forbidden, NotFound

__all__ = ["Actor", "ROLES", "ROLE_LABELS", "ACTIONS", "Forbidden", "require", "check", "check_path", "check_all",
           "scope_for", "sees_names", "command_line", "automatic", "student", "check_student", "may", "allowed",
           "table"]

ALL = frozenset(ROLES)
TEACHERS = frozenset({"admin", "instructor", "ta"})
STAFF = frozenset({"admin", "instructor"})


@dataclass(frozen=True)
class Action:
    words: str              # "... may not <words> in this course"
    roles: frozenset
    ask: str = N_("the course's instructor")
    course: bool = True     # about one course's data (False: the whole installation)


ACTIONS: dict[str, Action] = {
    "read": Action(N_("see this course's work"), ALL),
    "dashboards": Action(N_("see the dashboards"), frozenset({"admin", "coordinator", "instructor"})),
    "review": Action(N_("edit, reject or approve feedback"), TEACHERS),
    "calibrate": Action(N_("score blind for calibration"), TEACHERS),
    "second_mark": Action(N_("mark blind as a second marker"), TEACHERS),
    "moderate": Action(N_("draw moderation samples, assign markers or settle marks"),
                       frozenset({"admin", "coordinator"}), ask=N_("the course's coordinator")),
    "bulk_approve": Action(N_("approve feedback in bulk"), STAFF),
    "release": Action(N_("release feedback"), STAFF),
    "upload": Action(N_("upload or edit course material"), STAFF),
    "assess": Action(N_("start, resume or cancel AI runs"), STAFF),
    "compare": Action(N_("run or judge blind comparisons"), STAFF),
    "lessons": Action(N_("review or approve lessons"), STAFF),
    # The course's comment bank (issue 27): instructors and admins edit it, coordinators curate it;
    # a teacher's own bank needs "review" and is theirs alone (core.courses.comment_bank).
    "comment_bank": Action(N_("edit the course's comment bank"), frozenset({"admin", "instructor", "coordinator"})),
    "create_course": Action(N_("create a course"), STAFF, ask=N_("an admin"), course=False),
    "settings": Action(N_("change settings, models, prices, judges or readiness bars"), frozenset({"admin"}),
                       ask=N_("an admin"), course=False),
    "users": Action(N_("manage users and grants"), frozenset({"admin"}), ask=N_("an admin"), course=False),
    "data_care": Action(N_("back up, restore or delete data"), frozenset({"admin"}), ask=N_("an admin"),
                        course=False),
    "lti": Action(N_("register LMS platforms or rotate FairMark's LTI keys"), frozenset({"admin"}),
                  ask=N_("an admin"), course=False),
    # FairMark's own scheduled work (no person may do it; people send grades with "release")
    "lti_retry": Action(N_("send the grades waiting for the LMS on FairMark's own schedule"), frozenset({AUTOMATIC}),
                        ask=N_("nobody: the server does it by itself"), course=False),
    # A student's own (issue 26): reached only through check_student, on their own released work
    "student_view": Action(N_("see their own released feedback"), frozenset({STUDENT}),
                           ask=N_("nobody: it is a student's")),
    "appeal": Action(N_("ask for a second look at their released feedback"), frozenset({STUDENT}),
                     ask=N_("nobody: it is a student's")),
}

# Who FairMark is in the audit log when it acts on its own, per action: each such actor may do
# exactly the one action it is named for, and nothing a person does.
AUTOMATIC_ACTORS = {"lti_retry": "FairMark (automatic retry)"}


def may(actor: Actor, action: str, course_id: int | None = None) -> bool:
    """Whether `require` would let it through (pages use it to hide what would be refused)."""
    try:
        require(actor, action, course_id=course_id)
    except Forbidden:
        return False
    return True


def allowed(actor: Actor, course_id: int | None = None) -> frozenset[str]:
    """Every action `require` would let through (in the course): what a page's view returns
    with its data, after its one check, so the page hides what core would refuse without
    asking again. It refuses nothing itself.

        >>> sorted(allowed(Actor("tom", role="ta", user_id=2, courses={1: True}), 1))
        ['calibrate', 'read', 'review', 'second_mark']
        >>> allowed(Actor("tom", role="ta", user_id=2, courses={1: True}), 2)
        frozenset()
    """
    return frozenset(a for a in ACTIONS if _refusal(actor, a, course_id) is None)


# The roles as a refusal names them (db.actors.ROLE_LABELS, which db keeps in English), translated where shown.
ROLE_NAMES = {"admin": N_("admin"), "coordinator": N_("coordinator"), "instructor": N_("instructor"),
              "ta": N_("teaching assistant"), AUTOMATIC: N_("FairMark acting on its own"), STUDENT: N_("student")}


def _refusal(actor: Actor, action: str, course_id: int | None) -> Message | None:
    if not isinstance(actor, Actor):
        raise TypeError(f"expected the signed-in Actor, got {type(actor).__name__} {actor!r}")
    rule = ACTIONS[action]
    if actor.role not in rule.roles:
        role = Message(ROLE_NAMES[actor.role]) if actor.role in ROLE_NAMES else actor.role_label
        words = {"role": role, "action": Message(rule.words), "ask": Message(rule.ask)}
        if rule.course:
            return Message("Your role ({role}) may not {action} in this course; ask {ask}.", **words)
        return Message("Your role ({role}) may not {action}; ask {ask}.", **words)
    if course_id is not None and not actor.has_course(course_id):
        return Message("You have no access to course {course_id}; ask an admin to grant it.", course_id=course_id)
    return None


def require(actor: Actor, action: str, *, course_id: int | None = None) -> None:
    """Refuse (Forbidden, saying whom to ask) unless the actor's role may do `action` and,
    for a course's data, the course is granted."""
    if (refusal := _refusal(actor, action, course_id)) is not None:
        raise Forbidden(refusal)


# What `check` names in "<kind> <id> does not exist" (its keywords), translated where shown.
KINDS = {"course": N_("course"), "assignment": N_("assignment"), "submission": N_("submission"),
         "student": N_("student"), "draft": N_("draft"), "run": N_("run"), "lesson": N_("lesson"), "fix": N_("fix"),
         "comparison": N_("comparison"), "pair": N_("pair"), "rubric_draft": N_("rubric_draft"),
         "bank_comment": N_("bank_comment"), "appeal": N_("appeal"), "anchored_note": N_("anchored_note")}


def check(conn, actor: Actor, action: str, **ids) -> int | None:
    """`require` for the course each id belongs to (keywords: course=, assignment=,
    submission=, student=, draft=, run=, lesson=, fix=, comparison=, pair=, appeal=; None values are
    skipped). Returns the course of the first id. The role is checked before any id is looked
    up, so a refusal says nothing about what exists; an id that does not exist is NotFound."""
    require(actor, action)
    first = None
    for kind, value in ids.items():
        if value is None:
            continue
        course_id = ownership.course_of(conn, kind, value)
        if course_id is None:
            named = Message(KINDS[kind]) if kind in KINDS else kind
            raise NotFound(Message("{kind} {value} does not exist", kind=named, value=value))
        require(actor, action, course_id=course_id)
        first = course_id if first is None else first
    return first


def check_path(db_path, actor: Actor, action: str, **ids) -> int | None:
    """`check` for functions that open their own connection (background work)."""
    require(actor, action)
    conn = db.connect(db_path)
    try:
        return check(conn, actor, action, **ids)
    finally:
        conn.close()


def check_all(conn, actor: Actor, action: str, kind: str, idents) -> None:
    """`check` for several ids of one kind (bulk reads)."""
    require(actor, action)
    for course_id in ownership.courses_of(conn, kind, idents):
        if course_id is not None:
            require(actor, action, course_id=course_id)


def scope_for(conn, actor: Actor, scope: Scope, action: str = "dashboards") -> Scope:
    """A dashboard scope the actor may see: one assignment or course is checked; "all courses"
    becomes the courses granted (an admin's stays every course)."""
    require(actor, action)
    kind, ident = {"assignment": ("assignment", scope.assignment_id), "course": ("course", scope.course_id)}.get(
        scope.kind, (None, None))
    if kind and ident:
        course_id = ownership.course_of(conn, kind, ident)
        if course_id is not None:  # an id that does not exist shows an empty view: there is nothing to see
            require(actor, action, course_id=course_id)
    elif scope.kind == "all" and not actor.all_courses:
        return replace(scope, courses=tuple(actor.course_ids()))
    return scope


def sees_names(actor: Actor, course_id: int) -> bool:
    """Student names, or only pseudonyms: a coordinator sees names only where a grant says so."""
    if actor.role != "coordinator":
        return True
    return bool((actor.courses or {}).get(int(course_id)))


def command_line(as_user: Actor | None = None) -> Actor:
    """Who the command line acts as: the FairMark user given with --as, else the operator, an
    admin named after the OS account (it has the database file in hand anyway)."""
    if as_user is not None:
        return as_user
    try:
        who = getpass.getuser()
    except (KeyError, OSError):
        who = "unknown"
    return Actor(f"command line ({who})", role="admin", display_name=f"command line ({who})", via="cli")


def automatic(action: str) -> Actor:
    """FairMark itself doing `action` on its own schedule (the server's grade retry): an actor
    the permission table allows that action only, recorded under its own name in the audit log.

        >>> retry = automatic("lti_retry")
        >>> str(retry), may(retry, "lti_retry"), may(retry, "release"), may(retry, "read")
        ('FairMark (automatic retry)', True, False, False)
    """
    name = AUTOMATIC_ACTORS[action]
    return Actor(name, role=AUTOMATIC, display_name=name, via="automatic")


def student(student_id: int, course_id: int, *, assignment_id: int | None = None, via: str = "link",
            name: str = "") -> Actor:
    """The student a private link or a Learner launch verified: may do the student actions only,
    and only on their own work (check_student). The audit log names them by a pseudonymous label
    (never the roster name), so a log export does not re-identify them."""
    label = name or f"student {int(student_id)}"
    return Actor(label, role=STUDENT, courses={int(course_id): False}, via=via, student_id=int(student_id),
                 assignment_id=None if assignment_id is None else int(assignment_id))


NOT_YOURS = Message("This page does not open that work: use the link your teacher sent for it.")


def check_student(conn, actor: Actor, action: str, submission_id: int) -> int:
    """`require` for a student on one submission: their own, in their course, in the link's
    assignment. A submission that does not exist and one of another student give the same
    refusal (a student cannot tell which ids exist). Returns the course."""
    require(actor, action)
    owner = ownership.submission_owner(conn, submission_id)
    if (owner is None or owner[0] != actor.student_id or not actor.has_course(owner[2])
            or (actor.assignment_id is not None and owner[1] != actor.assignment_id)):
        raise Forbidden(NOT_YOURS)
    return owner[2]


def table() -> list[dict]:
    """What each role may do (docs/admin.md's table, the Settings page): the actions of people."""
    return [{N_("action"): a.words, **{ROLE_LABELS[r]: r in a.roles for r in ROLES}} for a in ACTIONS.values()
            if a.roles & ALL]
