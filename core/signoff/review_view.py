"""The review queue and item as data, each item with why it may not be approved in bulk (issue 22):
what the Review page shows and the command line prints (`python -m core review ...`).

An item's `bulk_eligible` is its own eligibility (core.signoff.eligibility, with what the
assignment lifts and holds back: core.signoff.bulk.held_back), whatever the assignment's
readiness; the bulk query (db.samples) applies the same rule in SQL. A calibration item waiting
for its blind score shows nothing the AI produced.
"""
from __future__ import annotations

import dataclasses

from sqlite_utils import Database

from core.accounts import access
from core.courses import browse, comment_bank
from core.signoff import triage
from core.accounts.access import Actor
from core.appeals import deciding
from core.calibration import blind, offset, readiness
from core.moderation import blindness as moderation_blindness
from core.errors import FairMarkError
from core.evals import gate
from core.growth import learning
from core.language import course as course_language
from core.language.interface import message_of
from core.signoff import actions, anchored_notes, attention, bulk
from core.signoff import eligibility as rules
from db import calibration, courses, queue, submissions, votes
from db import evals as evals_db
from db import moderation as mod_db
from db import users as users_db

# The queue's groups the Review page counts and lists (items not drafted yet are not reviewed).
GROUPS = (triage.APPEALS, triage.NEEDS_ATTENTION, triage.UNSURE, triage.LOW_BAND, triage.REST, triage.REJECTED,
          triage.APPROVED, triage.RELEASED)
CALIBRATION_GROUP = "calibration"   # waiting for a blind score: its priority would hint at the hidden draft
_UNSURE_CODES = (rules.UNSURE, rules.VOTES_SPLIT)
# Reasons the page already says otherwise (the item's status, its attention reasons).
STATE_CODES = (rules.NEEDS_ATTENTION, rules.DECIDED, rules.NOT_DRAFTED)


def _band(row: dict, rule) -> str | None:
    total = row.get("draft_total")
    return None if total is None else ("low" if total / rule.divisor <= rule.band_cut else "high")


def _visible(reasons: list[dict], lifted) -> list[dict]:
    return [{"code": r["code"], "text": r["text"]} for r in reasons if r["code"] not in lifted]


def _item_reasons(row: dict, rule) -> list[dict]:
    older = row.get("review_draft_id") is not None and row.get("review_draft_id") != row.get("draft_id")
    return rules.reasons_now(row.get("held_back") or [], status=row["status"], band=_band(row, rule),
                             blocked_bands=rule.blocked_bands, blind_pending=bool(row.get("blind_pending")),
                             edited=bool(row.get("edited")), older_draft=older,
                             comment_confirmed=bool(row.get("is_offline")) or row.get("verdict") == "CONFIDENT")


def _judging(row: dict, reasons: list[dict]) -> dict:
    judging = row.get("judging") or {}
    if row.get("blind_pending") or not row.get("draft_id") or row.get("is_offline") or not judging:
        confident = None
    else:
        confident = not any(r["code"] in _UNSURE_CODES for r in reasons)
    split = sorted({c for r in reasons if r["code"] == rules.VOTES_SPLIT for c in r.get("criteria") or []})
    judges = [] if row.get("blind_pending") else list(judging.get("judges") or [])
    return {"confident": confident, "split_criteria": split, "judges": judges}


def review_queue(conn: Database, assignment_id: int, *, actor: Actor, everything: bool = False) -> dict:
    """Every submission of the assignment in queue order: {"assignment_ready", "items": [{
    submission_id, student, status, group, bulk_eligible, reasons [{code, text}], judging
    {confident, split_criteria, judges}}]}. Students appear as the actor may see them; a marker
    sees only their items unless `everything` (core.moderation.blindness.queue_for)."""
    course_id = access.check(conn, actor, "read", assignment=assignment_id)
    lifted, bands = bulk.held_back(conn, assignment_id, actor=actor)
    rule = bulk.eligibility(courses.assignment_rubric(conn, assignment_id), lifted=lifted, blocked_bands=bands)
    names = access.sees_names(actor, course_id)
    items = []
    for row in queue.all_items(conn, assignment_id):
        reasons = _visible(_item_reasons(row, rule), lifted)
        pending = bool(row["blind_pending"])
        items.append({
            "submission_id": row["id"], "student": row["student_name"] if names else row["pseudonym"],
            "status": row["status"],
            "group": CALIBRATION_GROUP if pending else triage.GROUP_NAMES.get(row["priority"], "other"),
            "bulk_eligible": not reasons, "reasons": reasons,
            "judging": _judging({**row, "held_back": []} if pending else row, _item_reasons(row, rule))})
    return moderation_blindness.queue_for(conn, assignment_id, {
        "assignment_ready": readiness.is_ready(conn, assignment_id, actor=actor), "items": items}, actor, everything)


def item_reasons(conn: Database, submission_id: int, *, actor: Actor) -> list[dict]:
    """Why this item may not be approved in bulk, [{code, text}] (empty: it may)."""
    access.check(conn, actor, "read", submission=submission_id)
    aid = submissions.get_submission(conn, submission_id)["assignment_id"]
    return _reasons_of(conn, aid, submission_id, bulk.held_back(conn, aid, actor=actor))


def _reasons_of(conn: Database, aid: int, submission_id: int, held: tuple) -> list[dict]:
    rows = queue.all_items(conn, aid, submission_id)
    lifted, bands = held
    rule = bulk.eligibility(courses.assignment_rubric(conn, aid), lifted=lifted, blocked_bands=bands)
    if not rows:
        return []
    return _visible(_item_reasons(rows[0], rule), lifted) + moderation_blindness.sample_reasons(
        conn, aid, submission_id, rows[0]["status"])


def review_show(conn: Database, submission_id: int, *, actor: Actor, opening: bool = True) -> dict:
    """The item as the review page shows it: {submission_id, review_version, status, scores
    {criterion: {score, level}}, comment, reasons, checks (a detail a Message where the draft kept its
    form: core.evals.rules.said), flags}. With `opening` it counts as
    the actor opening the item (core.signoff.actions.open_item: the release gate's sample)."""
    from core.evals import rules  # lazy, as core.signoff.actions.comment_checks: textstat loads only here

    access.check(conn, actor, "read", submission=submission_id)
    if opening:
        actions.open_item(conn, submission_id, actor=actor)
    else:
        blind.require_visible(conn, submission_id)
        moderation_blindness.require_visible(conn, submission_id, actor)
    data = browse.review_item(conn, submission_id, actor=actor)   # names hidden where the grant says so
    rubric = courses.assignment_rubric(conn, data["submission"]["assignment_id"])
    review, draft = data["review"], data["draft"] or {}
    scores = (review or {}).get("scores") or draft.get("scores") or {}
    comment = (review or {}).get("comment") if review else draft.get("comment")
    return {
        "submission_id": submission_id, "review_version": review["version"] if review else None,
        "status": data["submission"]["status"],
        "scores": {k: {"score": v, "level": rubric.criterion(k).levels.get(int(v), "")} for k, v in scores.items()
                   if k in rubric.keys},
        "comment": comment or "", "reasons": item_reasons(conn, submission_id, actor=actor),
        "checks": [{k: c.get(k) for k in ("name", "label", "passed", "severity", "detail")}
                   for c in rules.said(draft.get("checks") or []) if isinstance(c, dict)],
        "flags": list(draft.get("flags") or []),
        "attention_reasons": list(draft.get("attention_reasons") or []),
    }


# --- the Review page: one read per run --------------------------------------------------------
def review_page(conn: Database, assignment_id: int, *, actor: Actor, item: int | None = None,
                loaded_version: int | None = None, flt: queue.QueueFilter | None = None, page: int = 0,
                with_bulk: bool = False, appeal_blind: bool = False) -> dict:
    """Everything one run of the Review page shows, read with one check of the actor:
    {"course_id", "may" (the actions the actor may do in the course), "readiness", "offsets" (with
    an item: core.calibration.offset), "item" (`item` when it is of this assignment, else None: see _item_view), "queue" (when no item
    is shown: see _queue_view)}. `loaded_version`: the review version the teacher's screen holds
    (what changed since is said); `flt`, `page`: the queue's filters and page; `with_bulk`: the
    bulk approval panel is open; `appeal_blind`: the teacher re-marks the item's open appeal blind
    (until their re-mark is committed the item shows only the student's text and words: see
    _item_view). Writes (open an item, approve, ...) check on their own; opening the item here is
    the one write a render makes (core.signoff.actions.open_item)."""
    course_id = access.check(conn, actor, "read", assignment=assignment_id)
    may = access.allowed(actor, course_id)
    ready = readiness.current(conn, assignment_id)
    out = {"course_id": course_id, "may": may, "readiness": ready, "item": None, "queue": None, "offsets": []}
    where = queue.position(conn, item) if item is not None else None
    if where is not None and where[0] == assignment_id:   # another assignment's item (a crafted address): none
        out["offsets"] = offset.of_assignment(conn, assignment_id)
        out["item"] = _item_view(conn, assignment_id, item, where[1], actor=actor, course_id=course_id, may=may,
                                 ready=ready, loaded_version=loaded_version, appeal_blind=appeal_blind)
    else:
        out["queue"] = _queue_view(conn, assignment_id, actor=actor, course_id=course_id, may=may, ready=ready,
                                   flt=flt, page=page, with_bulk=with_bulk)
    return out


def _item_view(conn: Database, aid: int, sid: int, priority: int, *, actor: Actor, course_id: int, may, ready: dict,
               loaded_version: int | None, appeal_blind: bool = False) -> dict:
    """{"submission_id", "priority", "hidden" (waiting for its blind score: nothing else), "blind" (a
    blind re-mark of its appeal: the student's text, the rubric and the appeal without the
    released scores, nothing else), "error" (it cannot be opened: the message), "appeal" (its open
    appeal, core.appeals.deciding.for_item, or None), "data" (core.courses.browse.review_item), "rubric",
    "editable", "changed" (what changed since `loaded_version`), "bulk_reasons", "newer_draft",
    "votes", "history", "people" (display names), "previous_next_steps", "comment_bank"
    (core.courses.comment_bank.search_of), "anchored_notes" (core.signoff.anchored_notes.item_view_of),
    "saved_cases", "ai_config", "language" (the course's: the live checks read the comment in it)}."""
    out = {"submission_id": sid, "priority": priority, "hidden": calibration.is_blind_pending(conn, sid)}
    if out["hidden"]:
        return out
    appeal = deciding.item_appeal_of(conn, sid, blind=appeal_blind and "review" in may)
    if appeal is not None and appeal["blind"]:
        sub = submissions.get_submission(conn, sid)
        return {**out, "error": None, "blind": {**appeal, "text": sub["text"], "word_count": sub["word_count"],
                                                "rubric": courses.assignment_rubric(conn, aid)}}
    try:
        actions.record_open(conn, sid, actor=actor, reviewer="review" in may)
        data = browse.review_item_of(conn, sid, actor=actor, course_id=course_id)
    except FairMarkError as e:
        return {**out, "error": message_of(e)}
    draft, review = data["draft"] or {}, data["review"]
    if data["draft"]:   # why it went to a teacher, each reason a Message where FairMark said it
        data["draft"]["attention_reasons"] = attention.reasons_of(data["draft"])
    # Its second marker reads the item once marked, but the first mark is another's (core.moderation.blindness)
    editable = "review" in may and review is not None and mod_db.unreleased_second_marker(conn, sid) != str(actor)
    judged = bool(draft.get("judging")) and not draft.get("is_offline")
    rubric = courses.get_rubric(conn, data["assignment"]["rubric_id"])
    return {**out, "error": None, "appeal": appeal, "data": data, "rubric": rubric,
            "editable": editable,
            "changed": (actions.changes_since(conn, sid, loaded_version, actor=actor)
                        if editable and loaded_version is not None else None),
            "bulk_reasons": ([r for r in _reasons_of(conn, aid, sid, bulk.held_back_by(conn, aid, ready))
                              if r["code"] not in STATE_CODES]
                             if data["submission"]["status"] in actions.UNDECIDED else []),
            "newer_draft": actions.newer_draft_of(conn, sid) if editable else None,
            "votes": votes.of(conn, "submission", sid, draft_id=draft["id"]) if judged else [],
            "history": browse.item_history_of(conn, sid, actor=actor, course_id=course_id),
            "people": users_db.display_names(conn),
            "previous_next_steps": learning.previous_of(conn, sid) if editable else None,
            "comment_bank": comment_bank.search_of(conn, course_id, actor=actor, may=may) if editable else None,
            # Notes on the text: with the text as stored (a reader shown pseudonyms gets none)
            "anchored_notes": (anchored_notes.item_view_of(conn, sid, data["submission"]["text"], data["draft"], rubric)
                               if access.sees_names(actor, course_id) else None),
            "saved_cases": len(evals_db.saved_case_ids_of(conn, sid)),
            "language": course_language.stored(courses.get_course(conn, course_id).get("language")),
            "ai_config": gate.status(conn, draft["ai_config"], draft.get("provider")) if draft.get("ai_config") else None}


def _queue_view(conn: Database, aid: int, *, actor: Actor, course_id: int, may, ready: dict,
                flt: queue.QueueFilter | None, page: int, with_bulk: bool) -> dict:
    """{"rubric", "pending" (calibration items waiting for a blind score), "counts" (per queue
    group), "uploaded" (only when no group has an item), "bulk" ({"block", "state"} when the
    panel is open and the actor may approve in bulk), "page" (browse.queue_page), "error"}.
    A filter on another assignment's criterion or level is dropped, as the page's pickers are."""
    rubric = courses.assignment_rubric(conn, aid)
    counts = queue.group_counts(conn, aid)
    out = {"rubric": rubric, "pending": calibration.pending_count(conn, aid), "counts": counts,
           "uploaded": None, "bulk": None, "page": None, "error": None}
    if not any(counts.get(g) for g in GROUPS):
        out["uploaded"] = courses.status_counts(conn, assignment_id=aid)["uploaded"]
        return out
    if with_bulk and "bulk_approve" in may:
        block = readiness.block_text(conn, aid, ready)
        out["bulk"] = {"block": block, "state": None if block else bulk.sample_state_of(conn, aid)}
    flt = dataclasses.replace(flt or queue.QueueFilter(), marker=str(actor))   # a marker's own items (db.moderation)
    if flt.criterion is not None and flt.criterion not in rubric.keys:
        flt = dataclasses.replace(flt, criterion=None, score=None)
    elif flt.criterion is not None and flt.score not in rubric.levels:
        flt = dataclasses.replace(flt, score=rubric.levels[0])
    try:
        out["page"] = browse.queue_page_of(conn, aid, flt, actor=actor, course_id=course_id, page=page)
    except FairMarkError as e:
        out["error"] = message_of(e)
    return out
