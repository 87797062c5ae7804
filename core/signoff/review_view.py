"""The review queue and item as data, each item with why it may not be approved in bulk (issue 22):
what the Review page shows and the command line prints (`python -m core review ...`).

An item's `bulk_eligible` is its own eligibility (core.signoff.eligibility, with what the
assignment lifts and holds back: core.signoff.bulk.held_back), whatever the assignment's
readiness; the bulk query (db.samples) applies the same rule in SQL. A calibration item waiting
for its blind score shows nothing the AI produced.
"""
from __future__ import annotations

from sqlite_utils import Database

from core.accounts import access
from core.courses import browse
from core.signoff import triage
from core.accounts.access import Actor
from core.calibration import blind, readiness
from core.signoff import actions, bulk
from core.signoff import eligibility as rules
from db import courses, queue, submissions

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


def review_queue(conn: Database, assignment_id: int, *, actor: Actor) -> dict:
    """Every submission of the assignment in queue order: {"assignment_ready", "items": [{
    submission_id, student, status, group, bulk_eligible, reasons [{code, text}], judging
    {confident, split_criteria, judges}}]}. Students appear as the actor may see them."""
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
    return {"assignment_ready": readiness.is_ready(conn, assignment_id, actor=actor), "items": items}


def item_reasons(conn: Database, submission_id: int, *, actor: Actor) -> list[dict]:
    """Why this item may not be approved in bulk, [{code, text}] (empty: it may)."""
    access.check(conn, actor, "read", submission=submission_id)
    aid = submissions.get_submission(conn, submission_id)["assignment_id"]
    rows = queue.all_items(conn, aid, submission_id)
    lifted, bands = bulk.held_back(conn, aid, actor=actor)
    rule = bulk.eligibility(courses.assignment_rubric(conn, aid), lifted=lifted, blocked_bands=bands)
    return _visible(_item_reasons(rows[0], rule), lifted) if rows else []


def review_show(conn: Database, submission_id: int, *, actor: Actor, opening: bool = True) -> dict:
    """The item as the review page shows it: {submission_id, review_version, status, scores
    {criterion: {score, level}}, comment, reasons, checks, flags}. With `opening` it counts as
    the actor opening the item (core.signoff.actions.open_item: the release gate's sample)."""
    access.check(conn, actor, "read", submission=submission_id)
    if opening:
        actions.open_item(conn, submission_id, actor=actor)
    else:
        blind.require_visible(conn, submission_id)
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
                   for c in draft.get("checks") or [] if isinstance(c, dict)],
        "flags": list(draft.get("flags") or []),
        "attention_reasons": list(draft.get("attention_reasons") or []),
    }
