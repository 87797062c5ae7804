"""The student's side of an appeal: filing one on their own released work, and reading their
appeals with the outcomes. Both check the student actor first (access.check_student)."""
from __future__ import annotations

import sqlite3

from sqlite_utils import Database

from core.accounts import access
from core.accounts.access import Actor
from core.appeals import deadline as deadlines
from core.errors import ConflictError, FairMarkError
from core.language.interface import Message
from core.signoff import triage
from core.signoff.actions import writing
from core.text import format_timestamp
from db import appeals, audit, courses, now, submissions
from db import users as users_db

MAX_REASON = 1000   # characters of a reason, per criterion
NOT_RELEASED = Message("There is nothing to appeal yet: your teacher has not released this feedback.")
ALREADY_OPEN = Message("You already have an appeal waiting for your teacher on this work; you can file another "
                       "once it is decided.")


def _why_not(conn: Database, submission_id: int, assignment: dict) -> Message | None:
    """Why the student cannot file an appeal now (None: they can): nothing released, appeals
    off, the deadline passed, or one already open."""
    if appeals.released_version(conn, submission_id) is None:
        return NOT_RELEASED
    if assignment.get("appeal_deadline") is None:
        return Message("Appeals are not open for this assignment.")
    if not deadlines.is_open(assignment["appeal_deadline"]):
        return Message("The deadline for appeals ({deadline}) has passed; ask your teacher directly if you still "
                       "have a question.", deadline=format_timestamp(assignment["appeal_deadline"]))
    if appeals.is_open(conn, submission_id):
        return ALREADY_OPEN
    return None


def _clean(reasons, rubric) -> dict[str, str]:
    if not isinstance(reasons, dict) or not reasons:
        raise FairMarkError(Message("Choose at least one criterion and say why you ask for a second look."))
    out = {}
    for key, text in reasons.items():
        if key not in rubric.keys:
            raise FairMarkError(Message("{key!r} is not a criterion of this assignment's rubric; choose one of "
                                        "{criteria}.", key=key,
                                        criteria=", ".join(c.title for c in rubric.criteria)))
        text = (text or "").strip() if isinstance(text, str) else ""
        title = rubric.criterion(key).title
        if not text:
            raise FairMarkError(Message("Say why you ask for a second look at {title}: the reason is empty.", title=title))
        if len(text) > MAX_REASON:
            raise FairMarkError(Message("Your reason for {title} has {length:,} characters; shorten it to {limit:,} "
                                        "at most.", title=title, length=len(text), limit=MAX_REASON))
        out[key] = text
    return out


def file(conn: Database, submission_id: int, reasons: dict[str, str], *, actor: Actor) -> dict:
    """The student asks for a second look at one or more criteria of their released work,
    {criterion: reason}. Refused (nothing written) unless it is their own released work, before
    the deadline, with the rubric's criteria, each reason 1 to 1,000 characters, and no appeal
    open yet. The item goes first in the review queue. Returns {appeal_id, status, criteria}."""
    access.check_student(conn, actor, "appeal", submission_id)
    sub = submissions.get_submission(conn, submission_id)
    assignment = courses.get_assignment(conn, sub["assignment_id"])
    refusal = _why_not(conn, submission_id, assignment)
    if refusal and refusal != ALREADY_OPEN:
        raise FairMarkError(refusal)
    clean = _clean(reasons, courses.assignment_rubric(conn, sub["assignment_id"]))
    with writing(conn):
        released = appeals.released_version(conn, submission_id)
        if appeals.is_open(conn, submission_id):
            raise ConflictError(ALREADY_OPEN)
        at = now()
        try:
            appeal_id = appeals.insert(
                conn, submission_id=submission_id, assignment_id=sub["assignment_id"], student_id=sub["student_id"],
                release_id=released["release_id"], version=released["review_version"], opened_by=str(actor), at=at,
                criteria=[(k, v, released["scores"].get(k)) for k, v in clean.items()])
        except sqlite3.IntegrityError as e:  # another tab filed meanwhile: the one-open index
            raise ConflictError(ALREADY_OPEN) from e
        status = submissions.get_submission(conn, submission_id)["status"]   # as it is now, under the lock
        submissions.set_status(conn, submission_id, status, triage.APPEALS)
        audit(conn, actor=actor, action="appeal", entity="appeals", entity_id=appeal_id, submission_id=submission_id,
              after={"criteria": clean, "contested": {k: released["scores"].get(k) for k in clean}},
              reason="the student asked for a second look")
    return {"appeal_id": appeal_id, "status": "open", "criteria": sorted(clean)}


def shown_to_student(appeal: dict, names: dict[str, str], rubric) -> dict:
    """What a student sees of one appeal: a change is "open" until its release carries it out (never
    anything unreleased); the deciding teacher by display name only; no internal note or blind re-mark."""
    released = appeal["status"] == "kept" or (appeal["status"] == "changed" and appeal["new_release_id"])
    status = appeal["status"] if released else "open"
    return {"appeal_id": appeal["id"], "status": status, "opened": appeal["opened_at"],
            "decided": appeal["decided_at"] if released else None,
            "note": appeal["note"] if released else "",
            "decided_by": (names.get(appeal["decided_by"]) or Message("your teacher")) if released else None,
            "criteria": [{"criterion": c["criterion"], "title": rubric.criterion(c["criterion"]).title
                          if c["criterion"] in rubric.keys else c["criterion"], "reason": c["reason"],
                          "released_score": c["released_score"],
                          "new_score": c["new_score"] if status == "changed" else None}
                         for c in appeal["criteria"]]}


def for_student(conn: Database, submission_id: int, *, actor: Actor) -> dict:
    """The student's own appeals of this work and their outcomes: {"can_file" (bool), "why_not"
    (why they cannot file now, or None), "deadline", "max_reason", "criteria" (what may be appealed:
    [{criterion, title, released_score}], empty before a release), "appeals" [newest first:
    appeal_id, status (open | kept | changed), opened, decided, note (the teacher's note to the
    student), decided_by (a display name), criteria [{criterion, title, reason, released_score,
    new_score}]]}."""
    access.check_student(conn, actor, "student_view", submission_id)
    sub = submissions.get_submission(conn, submission_id)
    assignment = courses.get_assignment(conn, sub["assignment_id"])
    refusal = _why_not(conn, submission_id, assignment)
    rubric = courses.assignment_rubric(conn, sub["assignment_id"])
    names = users_db.display_names(conn)
    released = (appeals.released_version(conn, submission_id) or {}).get("scores") or {}
    return {"can_file": refusal is None, "why_not": refusal, "deadline": assignment.get("appeal_deadline"),
            "max_reason": MAX_REASON,
            "criteria": [{"criterion": c.key, "title": c.title, "released_score": released.get(c.key)}
                         for c in rubric.criteria] if released else [],
            "appeals": [shown_to_student(a, names, rubric) for a in appeals.of_submission(conn, submission_id)]}
