"""The teacher's sign-off on a lesson: accept or reject each proposed fix, then approve.

Rules (as for reflections: a human decides, every change is audited, nothing is overwritten
silently):
- every action names the lesson version the teacher saw; if the lesson changed since, it is
  refused with a ConflictError and nothing is written;
- accepting a fix replaces exactly that section's text; a fix whose section has changed (e.g.
  round 2 rewrote round 1's version, and round 1 was rejected) no longer applies and says so;
- approval needs a finished review and a decision on every proposed fix; it records the
  teacher's verdict on the lesson as it was uploaded (publishable or not), which the
  Agreement page compares with the judge's.
"""
from __future__ import annotations

from core.accounts import access
from core.accounts.access import Actor
from core.errors import ConflictError, FairMarkError
from core.language.interface import Message, N_
from core.lessons import tiers
from db import lessons as lessons_db

VERDICTS = {"publish": N_("Publishable as uploaded"), "revise": N_("Needed changes before publishing")}   # shown with t()


def accept_fix(conn, lesson_id: int, fix_id: int, *, version: int, actor: Actor) -> None:
    access.check(conn, actor, "lessons", lesson=lesson_id, fix=fix_id)
    lesson, fix = lessons_db.get(conn, lesson_id), lessons_db.get_fix(conn, fix_id)
    _same_version(lesson, version)
    at = lesson["text"].find(fix["before"])
    if fix["status"] == "proposed" and (at < 0 or lesson["text"].find(fix["before"], at + 1) >= 0):
        earlier = [f for f in lessons_db.fixes(conn, fix["review_id"]) if f["round"] < fix["round"]
                   and f["after"] == fix["before"] and f["status"] != "accepted"]
        hint = (Message("it rewrites the version of round {round}'s fix: accept that one first, or reject this",
                        round=earlier[0]["round"]) if earlier
                else Message("the section was changed since the review: reject it, or review the lesson again"))
        raise ConflictError(Message("Fix {id} no longer applies to '{section}': {hint}.", id=fix_id, section=fix["section"],
                                    hint=hint))
    new_text = lesson["text"][:at] + fix["after"] + lesson["text"][at + len(fix["before"]):]
    lessons_db.decide_fix(conn, fix_id, lesson_id=lesson_id, loaded_version=version, accepted=True, actor=actor,
                          new_text=new_text)


def reject_fix(conn, lesson_id: int, fix_id: int, *, version: int, actor: Actor) -> None:
    access.check(conn, actor, "lessons", lesson=lesson_id, fix=fix_id)
    _same_version(lessons_db.get(conn, lesson_id), version)
    lessons_db.decide_fix(conn, fix_id, lesson_id=lesson_id, loaded_version=version, accepted=False, actor=actor)


def approve(conn, lesson_id: int, *, version: int, actor: Actor, verdict: str | None = None, note: str = "") -> None:
    access.check(conn, actor, "lessons", lesson=lesson_id)
    lesson = lessons_db.get(conn, lesson_id)
    _same_version(lesson, version)
    if lesson["status"] == "approved":
        raise ConflictError(Message("Lesson '{title}' is already approved.", title=lesson["title"]))
    if lesson["status"] != "reviewed":
        raise ConflictError(Message("Lesson '{title}' has no finished review yet: start a review on the Lessons page "
                                    "(the offline baseline needs no LLM), then approve it.", title=lesson["title"]))
    open_fixes = [f for f in lessons_db.fixes(conn, lesson["current_review_id"]) if f["status"] == "proposed"]
    if open_fixes:
        raise ConflictError(Message("Decide every proposed fix first (accept or reject): {fixes}.", fixes=Message.joined(
            ", ", [Message("round {round} in '{section}'", round=f["round"], section=f["section"]) for f in open_fixes])))
    if verdict is not None and verdict not in VERDICTS:
        raise FairMarkError(Message("verdict must be one of {verdicts}", verdicts=", ".join(VERDICTS)))
    reference = {"verdict": verdict} if verdict else None
    lessons_db.approve(conn, lesson_id, loaded_version=version, actor=actor or "unknown",
                       priority=tiers.priority("approved", lesson["tier"]), reference=reference, note=note)


def _same_version(lesson: dict, version: int) -> None:
    if lesson["version"] != version:
        raise ConflictError(Message("Lesson '{title}' changed since you opened it (version {version}, now {now}). "
                                    "Reload it and decide again.", title=lesson["title"], version=version,
                                    now=lesson["version"]))
