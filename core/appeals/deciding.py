"""The teacher's side of an appeal: the appeal as the review item shows it, a blind re-mark, the
decision, and the command line's list. Each checks the actor first ("review" on the appeal's
course; the list and the item's view "read")."""
from __future__ import annotations

import logging

from sqlite_utils import Database

from core.accounts import access
from core.accounts.access import Actor
from core.errors import ConflictError, FairMarkError, GateError, NotFound
from core.language.interface import Message
from core.signoff import actions, release, triage
from core.signoff.actions import writing
from db import appeals, audit, courses, drafts, now, reviews, submissions

log = logging.getLogger(__name__)
OUTCOMES = ("keep", "change")
DECIDED = Message("This appeal was already decided; nothing was done.")


def _open(conn: Database, appeal_id: int) -> dict:
    appeal = appeals.get(conn, appeal_id)
    if appeal is None:
        raise NotFound(Message("appeal {appeal_id} does not exist", appeal_id=appeal_id))
    if appeal["status"] != "open":
        raise ConflictError(DECIDED)
    return appeal


def for_item(conn: Database, submission_id: int, *, actor: Actor, blind: bool = False) -> dict | None:
    """The item's open appeal for the review page: {appeal_id, submission_id, opened, criteria [{criterion,
    reason, released_score}], blind_scores, blind_by, released_scores}; None without one. With
    `blind` (a blind re-mark not committed yet) the released scores are left out."""
    access.check(conn, actor, "read", submission=submission_id)
    return item_appeal_of(conn, submission_id, blind=blind)


def item_appeal_of(conn: Database, submission_id: int, *, blind: bool = False) -> dict | None:
    """`for_item` for a caller that has checked the actor (the review page's one read)."""
    appeal = appeals.open_of(conn, submission_id)
    if appeal is None:
        return None
    hide = blind and appeal["blind_scores"] is None
    return {"appeal_id": appeal["id"], "submission_id": submission_id, "opened": appeal["opened_at"],
            "blind_scores": appeal["blind_scores"],
            "blind_by": appeal["blind_by"], "blind": hide,
            "criteria": [{"criterion": c["criterion"], "reason": c["reason"],
                          "released_score": None if hide else c["released_score"]} for c in appeal["criteria"]]}


def _scores(rubric, appeal: dict, scores) -> dict:
    """The teacher's scores for the appealed criteria, within the rubric."""
    keys = [c["criterion"] for c in appeal["criteria"]]
    scores = dict(scores or {})
    missing = [rubric.criterion(k).title for k in keys if scores.get(k) is None]
    if missing:
        raise FairMarkError(Message("choose a score for: {criteria}", criteria=", ".join(missing)))
    other = sorted(set(scores) - set(keys))
    if other:
        raise FairMarkError(Message("the appeal does not cover {criteria}: change only the appealed criteria "
                                    "(edit the item for anything else)", criteria=", ".join(other)))
    out = {}
    for k in keys:
        v, c = scores[k], rubric.criterion(k)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or int(v) != v or int(v) not in rubric.levels:
            raise FairMarkError(Message("the score for {criterion} must be a whole number from {low} to {high}, "
                                        "not {score!r}", criterion=c.title, low=rubric.scale_min,
                                        high=rubric.scale_max, score=v))
        out[k] = int(v)
    return out


def remark(conn: Database, appeal_id: int, scores: dict, *, actor: Actor) -> dict:
    """A blind re-mark of the appealed criteria, given before the released score is shown: kept
    with the appeal (never a calibration or reference score), once. Returns the item's appeal."""
    access.check(conn, actor, "review", appeal=appeal_id)
    appeal = _open(conn, appeal_id)
    clean = _scores(courses.assignment_rubric(conn, appeal["assignment_id"]), appeal, scores)
    with writing(conn):
        if appeals.save_blind(conn, appeal_id, clean, by=str(actor), at=now()) != 1:
            raise ConflictError(Message("A blind re-mark of this appeal was already committed (or it was decided); "
                                        "nothing was saved."))
        audit(conn, actor=actor, action="appeal_remark", entity="appeals", entity_id=appeal_id,
              submission_id=appeal["submission_id"], after={"blind_scores": clean},
              reason="blind re-mark before seeing the released score")
    return item_appeal_of(conn, appeal["submission_id"])


def _back_in_line(conn: Database, submission_id: int) -> None:
    """The item leaves the Appeals group for the group its status and draft give it."""
    sub = submissions.get_submission(conn, submission_id)
    draft = drafts.get_draft(conn, sub["current_draft_id"]) if sub["current_draft_id"] else None
    prio = triage.priority(sub["status"], draft["scores"] if draft else None,
                           courses.assignment_rubric(conn, sub["assignment_id"]),
                           confidence=draft["confidence"] if draft else None, unsure=triage.is_unsure(draft))
    submissions.set_status(conn, submission_id, sub["status"], prio)


def decide(conn: Database, appeal_id: int, *, actor: Actor, outcome: str, scores: dict | None = None,
           reason_code: str | None = None, note: str, version: int | None = None) -> dict:
    """Keep the released score, or change it, with a note to the student (required either way).
    A change is an edit of the appealed criteria with a reason code (core.signoff.actions), approved
    at once; when the actor may release it goes out as a release of this item (the release gates
    apply; to the LMS when linked), else it waits approved for someone who may. Returns
    {appeal_id, status (kept | changed), released (bool), release_id, waiting (why it was not
    released, or None), lms}. `version`: the item's review version the teacher saw (the page's);
    a change made on a newer version (a colleague's edit meanwhile) is refused, nothing written."""
    course_id = access.check(conn, actor, "review", appeal=appeal_id)
    if outcome not in OUTCOMES:
        raise FairMarkError(Message("decide the appeal with keep or change, not {outcome!r}", outcome=outcome))
    note = (note or "").strip()
    if not note:
        raise FairMarkError(Message("Write a note to the student: it is required whether you keep or change the "
                                    "score."))
    appeal = _open(conn, appeal_id)
    sid = appeal["submission_id"]
    rubric = courses.assignment_rubric(conn, appeal["assignment_id"])
    out = {"appeal_id": appeal_id, "released": False, "release_id": None, "waiting": None, "lms": None}
    if outcome == "keep":
        with writing(conn):
            if appeals.close(conn, appeal_id, status="kept", by=str(actor), user_id=actor.user_id, at=now(),
                             note=note, reason_code=None, new_scores={}) != 1:
                raise ConflictError(DECIDED)
            _back_in_line(conn, sid)
            audit(conn, actor=actor, action="appeal_keep", entity="appeals", entity_id=appeal_id, submission_id=sid,
                  before={"status": "open"}, after={"status": "kept", "note": note}, reason=note)
        return {**out, "status": "kept"}
    clean = _scores(rubric, appeal, scores)
    actions.check_reasons([reason_code] if reason_code else [], note)
    if not reason_code:
        raise FairMarkError(Message("pick the reason for your change (too harsh, too lenient, inaccurate, generic, "
                                    "tone, or other)"))
    with writing(conn):
        review = reviews.get_review(conn, sid)
        if version is not None and review["version"] != version:
            raise ConflictError(Message("A colleague changed this item since you opened it (now version {now}, you "
                                        "saw version {seen}); nothing was changed. Look at it again, then decide.",
                                        now=review["version"], seen=version))
        if all(review["scores"].get(k) == v for k, v in clean.items()):
            raise FairMarkError(Message("These are the scores the student has: choose keep, or change a score."))
        actions.approve(conn, sid, version=review["version"], actor=actor, scores={**review["scores"], **clean},
                        comment=review["comment"], reasons=[reason_code], note=note)
        if appeals.close(conn, appeal_id, status="changed", by=str(actor), user_id=actor.user_id, at=now(),
                         note=note, reason_code=reason_code, new_scores=clean) != 1:
            raise ConflictError(DECIDED)
        _back_in_line(conn, sid)
        audit(conn, actor=actor, action="appeal_change", entity="appeals", entity_id=appeal_id, submission_id=sid,
              before={"status": "open", "scores": {c["criterion"]: c["released_score"] for c in appeal["criteria"]}},
              after={"status": "changed", "scores": clean, "note": note}, reason=f"{reason_code}: {note}")
    out["status"] = "changed"
    if not access.may(actor, "release", course_id):
        return {**out, "waiting": Message("Your change is approved and waits for someone who may release (an "
                                          "instructor) on the Release page; the student sees it once it is "
                                          "released.")}
    try:
        done = release.release(conn, appeal["assignment_id"], actor=actor, only=[sid],
                               note=f"the outcome of an appeal: {note}")
    except GateError as e:  # the decision stands; the change waits for the assignment's release
        return {**out, "waiting": Message("Your change is approved but not released yet: {why}",
                                          why=e.args[0] if len(e.args) == 1 else str(e))}
    return {**out, "released": True, "release_id": done["release_id"], "lms": done["lms"]}


def listed(conn: Database, course_id: int, assignment_id: int | None = None, *, actor: Actor) -> list[dict]:
    """A course's appeals (one assignment's): [{appeal_id, submission_id, criteria (criterion
    keys), status, opened, decided}], open ones first."""
    access.check(conn, actor, "read", course=course_id, assignment=assignment_id)
    if assignment_id is not None and courses.get_assignment(conn, assignment_id)["course_id"] != course_id:
        raise NotFound(Message("assignment {assignment_id} is not in course {course_id}", assignment_id=assignment_id,
                               course_id=course_id))
    return [{"appeal_id": a["id"], "submission_id": a["submission_id"],
             "criteria": [c["criterion"] for c in a["criteria"]], "status": a["status"], "opened": a["opened_at"],
             "decided": a["decided_at"]} for a in appeals.listed(conn, course_id, assignment_id)]
