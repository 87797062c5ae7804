"""What a teacher does with one item: open it, save an edit, approve, reject, ask for a new AI
draft and choose a draft as their version. The rules are in the package docstring
(core.signoff); the statements in db.reviews and db.submissions.
"""
from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass

from sqlite_utils import Database

from core.accounts import access
from core.signoff import triage
from core.accounts.access import Actor
from core.calibration import blind
from core.moderation import blindness as moderation_blindness
from core.errors import ConflictError, FairMarkError, NotFound
from core.language.interface import Message, hidden
from core.privacy.pseudonym import Pseudonymizer
from core.rubric import Rubric
from core.signoff.labels import REASONS, STATUS_LABELS, changes, check_reasons, conflict_message, label
from core.signoff.labels import reason_text as _reason_text
from core.text import format_timestamp
from db import appeals, audit, courses, drafts, file_of, now, reviews, submissions, users, write_transaction

__all__ = ["REASONS", "UNDECIDED", "VersionConflict", "AlreadyDecided", "open_item", "save_edit", "approve", "reject",
           "back_to_review", "changed_since", "regenerate", "Regenerated", "newer_draft", "use_draft", "comment_checks",
           "snapshot", "changes"]
# Statuses of items still waiting for the teacher's decision (Approve/Reject moves on to these).
UNDECIDED = ("drafted", "needs_attention", "failed")


class VersionConflict(ConflictError):
    """A save based on an older version; `changes` lists {field, before, after}."""

    def __init__(self, message: str, changes: list[dict]):
        super().__init__(message)
        self.changes = changes


class AlreadyDecided(ConflictError):
    """The action was already done (approving an approved item): refused, nothing written."""


# --- shared by every sign-off write ---------------------------------------------------------
@contextmanager
def writing(conn: Database):
    """Every read-then-write of the sign-off: take the write lock first (waits for the
    background run's commit instead of failing), and turn a lock still held after the busy
    timeout into a ConflictError the pages show, not a crash."""
    try:
        with write_transaction(conn):
            yield
    except sqlite3.OperationalError as e:
        if "locked" not in str(e) and "busy" not in str(e):
            raise
        raise ConflictError(Message("another save is in progress; try again (nothing was saved)")) from e


def snapshot(review: dict) -> dict:
    """What the audit log records about a review (before/after of every change)."""
    return {k: review.get(k) for k in ("version", "status", "scores", "comment", "reason_codes", "note", "draft_id")}


# --- helpers ----------------------------------------------------------------------------
def _rubric_for(conn: Database, submission: dict) -> Rubric:
    return courses.assignment_rubric(conn, submission["assignment_id"])


def _draft(conn: Database, draft_id: int | None) -> dict | None:
    return drafts.get_draft(conn, draft_id) if draft_id else None


def _reopen_status(submission: dict, current_draft: dict | None) -> str:
    """Submission status for an item that is back in review: what its current draft says."""
    if current_draft is not None:
        return current_draft["status"] if current_draft["status"] in UNDECIDED else "drafted"
    return "failed" if submission["status"] == "failed" else "drafted"


def _set_status(conn: Database, submission: dict, status: str, rubric: Rubric, current_draft: dict | None,
                *, current_draft_id: int | None = None) -> None:
    """The submission's new status with the queue priority its current draft gives it."""
    prio = triage.priority(status, current_draft["scores"] if current_draft else None, rubric,
                           confidence=current_draft["confidence"] if current_draft else None,
                           unsure=triage.is_unsure(current_draft))
    prio = triage.APPEALS if appeals.is_open(conn, submission["id"]) else prio  # first in line until decided
    submissions.set_status(conn, submission["id"], status, prio, current_draft_id=current_draft_id)


def _require_review(conn: Database, submission_id: int, actor: Actor | None = None) -> dict:
    moderation_blindness.require_first_marking(conn, submission_id, actor)   # a write: not by its second marker
    review = reviews.get_review(conn, submission_id)
    if review is None:
        raise NotFound(Message("submission {id} has not been opened for review yet; open it first", id=submission_id))
    return review


def _conflict(conn: Database, submission_id: int, loaded_version: int, current: dict, *, actor: Actor,
              refused: bool = True) -> VersionConflict:
    """What changed since `loaded_version`, said to `actor`: it quotes the comment, so the
    student's name is hidden for an actor who does not see names (core.accounts.access.sees_names)."""
    diff = changes(reviews.review_at_version(conn, submission_id, loaded_version), snapshot(current))
    sub = submissions.get_submission(conn, submission_id)
    who = reviews.last_change(conn, submission_id) or {}
    user = users.find(conn, who["actor"]) if who.get("actor") else None
    who = {**who, "name": (user or {}).get("display_name") or who.get("actor")}
    # Plain text (pages escape it for Markdown); `changes` keeps the raw values for code.
    message = conflict_message(who, diff, _rubric_for(conn, sub), loaded=loaded_version,
                               latest=current.get("version"), refused=refused)
    if not access.sees_names(actor, courses.get_assignment(conn, sub["assignment_id"])["course_id"]):
        student = reviews.item(conn, submission_id)["student"]
        message = hidden(message, Pseudonymizer(student["name"] or "", "", student["pseudonym"]).hide)
    return VersionConflict(message, diff)


def changed_since(conn: Database, submission_id: int, loaded_version: int, *, actor: Actor) -> Message | None:
    """What changed since `loaded_version`, as a save's conflict says it (who, when, scores, comment); None when
    it is the latest. The student's name hidden as the grant says; refused to a blind second marker."""
    access.check(conn, actor, "read", submission=submission_id)
    moderation_blindness.require_visible(conn, submission_id, actor)
    return changes_since(conn, submission_id, loaded_version, actor=actor)


def changes_since(conn: Database, submission_id: int, loaded_version: int, *, actor: Actor) -> Message | None:
    """`changed_since` for a caller that has checked the actor (a page's view)."""
    review = _require_review(conn, submission_id)
    if review["version"] == loaded_version:
        return None
    return _conflict(conn, submission_id, loaded_version, review, actor=actor, refused=False).args[0]   # a Message


def _update_review(conn: Database, review: dict, loaded_version: int, fields: dict, *, actor: Actor) -> dict:
    """Conditional UPDATE on the loaded version; raises VersionConflict and writes nothing if stale."""
    if reviews.update_review(conn, review["id"], loaded_version, fields, actor=actor) != 1:
        raise _conflict(conn, review["submission_id"], loaded_version,
                        reviews.get_review(conn, review["submission_id"]), actor=actor)
    return reviews.get_review(conn, review["submission_id"])


# --- open -------------------------------------------------------------------------------
def open_item(conn: Database, submission_id: int, *, actor: Actor) -> dict:
    """The teacher opens an item: create their review from the current draft the first time,
    and record when it was first opened (the bulk-approval sample counts opened items).
    Idempotent: opening again changes nothing. A calibration item nobody has scored blind yet
    cannot be opened: its AI draft stays hidden until then (core.calibration.blind)."""
    course_id = access.check(conn, actor, "read", submission=submission_id)
    return record_open(conn, submission_id, actor=actor, reviewer=access.may(actor, "review", course_id))


def record_open(conn: Database, submission_id: int, *, actor: Actor, reviewer: bool) -> dict:
    """`open_item` for a caller that has checked the actor; `reviewer`: whether the actor may
    review in the item's course (else the item is only looked at, nothing recorded)."""
    moderation_blindness.require_visible(conn, submission_id, actor)
    if not reviewer:  # a coordinator looks without opening it
        blind.require_visible(conn, submission_id)
        return reviews.get_review(conn, submission_id)
    with writing(conn):
        blind.require_visible(conn, submission_id)
        sub = submissions.get_submission(conn, submission_id)
        review = reviews.get_review(conn, submission_id)
        if review is None:
            if sub["status"] == "uploaded":
                raise FairMarkError(Message("this submission has no draft yet: run Assess first"))
            draft = _draft(conn, sub["current_draft_id"])
            rid = reviews.insert_review(conn, submission_id, draft_id=draft["id"] if draft else None,
                                        scores=draft["scores"] if draft else {},
                                        comment=draft["comment"] if draft else "", actor=actor, at=now())
            review = reviews.get_review(conn, submission_id)
            audit(conn, actor=actor, action="open", entity="reviews", entity_id=rid, submission_id=submission_id,
                  before=None, after=snapshot(review), reason="first opened; review created from the draft")
        elif review["opened_at"] is None:
            at = now()
            reviews.mark_opened(conn, review["id"], at)
            audit(conn, actor=actor, action="open", entity="reviews", entity_id=review["id"],
                  submission_id=submission_id, before={"opened_at": None}, after={"opened_at": at})
            review = reviews.get_review(conn, submission_id)
    return review


# --- edit / approve / reject -------------------------------------------------------------
def save_edit(conn: Database, submission_id: int, *, version: int, scores: dict, comment: str,
              reasons=(), note: str = "", actor: Actor) -> dict:
    """Save the teacher's scores and comment. Scores must be within the rubric; a reason code is
    required when scores or comment changed. Editing an approved, rejected or released item puts
    it back in review (a released version stays locked in its release)."""
    access.check(conn, actor, "review", submission=submission_id)
    with writing(conn):
        sub = submissions.get_submission(conn, submission_id)
        rubric = _rubric_for(conn, sub)
        review = _require_review(conn, submission_id, actor)
        if review["version"] != version:
            raise _conflict(conn, submission_id, version, review, actor=actor)
        missing = [c.title for c in rubric.criteria if scores.get(c.key) is None]
        if missing:
            raise FairMarkError(Message("choose a score for: {criteria}", criteria=", ".join(missing)))
        scores = rubric.validate_scores(scores)
        comment = (comment or "").strip()
        reasons = check_reasons(reasons, note)
        changed = scores != review["scores"] or comment != review["comment"]
        if not changed and (note or "") == review["note"]:
            return review  # nothing to save: no new version, no audit row (reasons alone change nothing)
        draft = _draft(conn, review["draft_id"])
        # A reason says what was wrong with the AI's work; marking an item whose AI
        # assessment failed (no scores) by hand needs none.
        if changed and not reasons and draft is not None and draft["scores"]:
            raise FairMarkError(Message("pick at least one reason for your change (too harsh, too lenient, "
                                        "inaccurate, generic, tone, or other with a note)"))
        edited = draft is None or scores != draft["scores"] or comment != draft["comment"]
        fields = {"scores": scores, "comment": comment, "edited": int(edited),
                  "reason_codes": sorted(set(review["reason_codes"]) | set(reasons)), "note": note or ""}
        reopened = review["status"] != "in_review" or sub["status"] in ("approved", "released", "rejected")
        if reopened:
            fields.update(status="in_review", approved_by=None, approved_at=None, approved_in_bulk=0)
        after = _update_review(conn, review, version, fields, actor=actor)
        if reopened:
            current = _draft(conn, sub["current_draft_id"])
            _set_status(conn, sub, _reopen_status(sub, current), rubric, current)
        audit(conn, actor=actor, action="edit", entity="reviews", entity_id=review["id"], submission_id=submission_id,
              before=snapshot(review), after=snapshot(after), reason=_reason_text(reasons, note))
    return after


def approve(conn: Database, submission_id: int, *, version: int, actor: Actor, scores: dict | None = None,
            comment: str | None = None, reasons=(), note: str = "") -> dict:
    """Approve the teacher's version (saving any edits first, with their reasons)."""
    access.check(conn, actor, "review", submission=submission_id)
    with writing(conn):
        review = _require_review(conn, submission_id, actor)
        if scores is not None or comment is not None:
            review = save_edit(conn, submission_id, version=version,
                               scores=review["scores"] if scores is None else scores,
                               comment=review["comment"] if comment is None else comment,
                               reasons=reasons, note=note, actor=actor)
            version = review["version"]
        if review["version"] != version:
            raise _conflict(conn, submission_id, version, review, actor=actor)
        sub = submissions.get_submission(conn, submission_id)
        if review["status"] == "approved" and sub["status"] in ("approved", "released"):
            by, when = review["approved_by"] or Message("someone"), format_timestamp(review["approved_at"])
            raise AlreadyDecided(
                Message("This item is already released (by {by}, {when}); nothing was done.", by=by, when=when)
                if sub["status"] == "released" else
                Message("This item is already approved (by {by}, {when}); nothing was done.", by=by, when=when))
        rubric = _rubric_for(conn, sub)
        rubric.validate_scores(review["scores"])
        if not review["comment"].strip():
            raise FairMarkError(Message("the comment is empty: write feedback for the student before approving"))
        after = _update_review(conn, review, version, {"status": "approved", "approved_by": actor,
                                                       "approved_at": now(), "approved_in_bulk": 0}, actor=actor)
        _set_status(conn, sub, "approved", rubric, _draft(conn, sub["current_draft_id"]))
        audit(conn, actor=actor, action="approve", entity="reviews", entity_id=review["id"],
              submission_id=submission_id, before=snapshot(review), after=snapshot(after))
    return after


def reject(conn: Database, submission_id: int, *, version: int, note: str, actor: Actor) -> dict:
    """Reject the draft: the item goes back to the queue (Rejected group) with the teacher's note."""
    access.check(conn, actor, "review", submission=submission_id)
    if not (note or "").strip():
        raise FairMarkError(Message("Say why you reject it: the note goes back to the queue with the item."))
    with writing(conn):
        review = _require_review(conn, submission_id, actor)
        if review["version"] != version:
            raise _conflict(conn, submission_id, version, review, actor=actor)
        sub = submissions.get_submission(conn, submission_id)
        after = _update_review(conn, review, version, {"status": "rejected", "note": note.strip(),
                                                       "approved_by": None, "approved_at": None,
                                                       "approved_in_bulk": 0}, actor=actor)
        _set_status(conn, sub, "rejected", _rubric_for(conn, sub), _draft(conn, sub["current_draft_id"]))
        audit(conn, actor=actor, action="reject", entity="reviews", entity_id=review["id"],
              submission_id=submission_id, before=snapshot(review), after=snapshot(after), reason=note.strip())
    return after


def back_to_review(conn: Database, submission_id: int, *, version: int, actor: Actor, note: str = "") -> dict:
    """Undo an approval (or a rejection) before release: the item is back "to review", with the
    teacher's scores and comment kept. A released item is locked in its release: edit it instead
    (the edit makes a new version that needs its own release)."""
    access.check(conn, actor, "review", submission=submission_id)
    with writing(conn):
        review = _require_review(conn, submission_id, actor)
        if review["version"] != version:
            raise _conflict(conn, submission_id, version, review, actor=actor)
        sub = submissions.get_submission(conn, submission_id)
        if sub["status"] == "released":
            raise AlreadyDecided(Message("This item is already released, so its approval cannot be withdrawn. "
                                         "Edit it instead: the change makes a new version that needs its own "
                                         "release."))
        if review["status"] not in ("approved", "rejected"):
            raise AlreadyDecided(Message("This item is already waiting for review; nothing was done."))
        after = _update_review(conn, review, version, {"status": "in_review", "approved_by": None,
                                                       "approved_at": None, "approved_in_bulk": 0}, actor=actor)
        current = _draft(conn, sub["current_draft_id"])
        _set_status(conn, sub, _reopen_status(sub, current), _rubric_for(conn, sub), current)
        audit(conn, actor=actor, action="back_to_review", entity="reviews", entity_id=review["id"],
              submission_id=submission_id, before=snapshot(review), after=snapshot(after),
              reason=(note or "").strip() or f"{label(STATUS_LABELS, review['status']).lower()} before release; "
                                             "back to review")
    return after


# --- regenerate ---------------------------------------------------------------------------
@dataclass
class Regenerated:
    draft_id: int
    same: bool      # the new draft has the scores and comment of the one the teacher's version is based on
    offline: bool   # drafted by the offline baseline (deterministic: same inputs, same draft)


def _same_content(a: dict | None, b: dict | None) -> bool:
    return a is not None and b is not None and (a["scores"], a["comment"]) == (b["scores"], b["comment"])


def newer_draft(conn: Database, submission_id: int, *, actor: Actor) -> dict | None:
    """The latest AI draft when it says something new: not the teacher's version's, nor a copy of it (offline)."""
    access.check(conn, actor, "read", submission=submission_id)
    moderation_blindness.require_visible(conn, submission_id, actor)
    return newer_draft_of(conn, submission_id)


def newer_draft_of(conn: Database, submission_id: int) -> dict | None:
    """`newer_draft` for a caller that has checked the actor (a page's view)."""
    review = reviews.get_review(conn, submission_id)
    latest_id = drafts.latest_draft_id(conn, submission_id)
    if review is None or not latest_id or latest_id == review["draft_id"]:
        return None
    latest = drafts.get_draft(conn, latest_id)
    return None if _same_content(latest, _draft(conn, review["draft_id"])) else latest


def regenerate(conn: Database, submission_id: int, *, actor: Actor, llm=None, assess_one=None) -> Regenerated:
    """Ask the pipeline for a new draft of this item. The teacher's review is not touched: the
    new draft is offered next to it and replaces it only through `use_draft`."""
    access.check(conn, actor, "review", submission=submission_id)
    if assess_one is None:
        from core import pipeline  # lazy: the pipeline pulls in the agents and the LLM client

        assess_one = pipeline.assess_one
    path = file_of(conn)
    if path is None:
        raise FairMarkError(Message("regenerate needs a database file (not an in-memory database)"))
    before = drafts.latest_draft_id(conn, submission_id)
    review = reviews.get_review(conn, submission_id)
    base = _draft(conn, (review or {}).get("draft_id") or before)
    # The pipeline never writes `reviews` (db.drafts.save_draft), so the teacher's version is
    # untouched by construction; a colleague's save meanwhile is theirs, not the pipeline's.
    draft_id = assess_one(path, submission_id, llm=llm, actor=actor)
    new = drafts.get_draft(conn, draft_id)
    same = _same_content(new, base)
    with writing(conn):
        audit(conn, actor=actor, action="regenerate", entity="drafts", entity_id=draft_id, submission_id=submission_id,
              before={"draft_id": before}, after={"draft_id": draft_id},
              reason="new draft requested; the teacher's version is kept"
                     + ("; it is the same as the previous draft" if same else ""))
    return Regenerated(draft_id, same, bool(new["is_offline"]))


def use_draft(conn: Database, submission_id: int, draft_id: int, *, version: int, actor: Actor) -> dict:
    """The teacher chooses a (regenerated) draft as their version: scores and comment replaced."""
    access.check(conn, actor, "review", submission=submission_id, draft=draft_id)
    with writing(conn):
        review = _require_review(conn, submission_id, actor)
        if review["version"] != version:
            raise _conflict(conn, submission_id, version, review, actor=actor)
        draft = drafts.get_draft(conn, draft_id)
        if draft["submission_id"] != submission_id:
            raise NotFound(Message("draft {draft} belongs to another submission", draft=draft_id))
        sub = submissions.get_submission(conn, submission_id)
        after = _update_review(conn, review, version, {
            "draft_id": draft_id, "scores": draft["scores"], "comment": draft["comment"], "edited": 0,
            "status": "in_review", "approved_by": None, "approved_at": None, "approved_in_bulk": 0}, actor=actor)
        # The chosen draft becomes the submission's current one (the pipeline leaves a
        # teacher's approved/rejected item pointing at the old draft).
        _set_status(conn, sub, _reopen_status(sub, draft), _rubric_for(conn, sub), draft, current_draft_id=draft_id)
        audit(conn, actor=actor, action="use_draft", entity="reviews", entity_id=review["id"],
              submission_id=submission_id, before=snapshot(review), after=snapshot(after),
              reason=f"teacher chose draft {draft_id}")
    return after


# --- comment checks (live, on the teacher's text) ------------------------------------------
def comment_checks(comment: str, *, submission_text: str = "", evaluation: dict | None = None,
                   target_grade: float | None = None, answer_key=None, language: str = "en") -> list[dict]:
    """The pipeline's deterministic checks (core.checks) on the teacher's edited comment (the
    leakage rule too, when the assignment has an answer key), in the course's `language`."""
    from core import checks  # lazy: textstat/pyphen load only when an item is open

    return checks.comment_checks(comment, submission_text, evaluation=evaluation, target_grade=target_grade,
                                 answer_key=answer_key, language=language)
