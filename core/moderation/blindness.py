"""What a second marker may not see before they commit their blind mark, and a marker's own
queue. Called by the review item, the review queue and the analysis export after their own
check of the actor (so this module imports nothing of core.signoff: no import circle)."""
from __future__ import annotations

from sqlite_utils import Database

from core.accounts.access import Actor
from core.errors import GateError
from core.language.interface import Message
from core.signoff.eligibility import MODERATION_SAMPLE
from db import moderation as mod_db

HIDDEN = ("You are this item's second marker: mark it blind on the Second marking page first. The first marker's "
          "scores and the AI's draft stay hidden from you until you have.")
FIRST_MARK = ("You are this item's second marker: its first mark is another marker's. Your mark is the one on the "
              "Second marking page; the moderator settles a difference.")
SECOND_MARKING_GROUP = "second_marking"   # the queue's group for an item the actor still marks blind


def require_visible(conn: Database, submission_id: int, actor: Actor) -> None:
    """Raise GateError while `actor` is the item's second marker and has not marked it yet."""
    if mod_db.pending_second_marker(conn, submission_id) == str(actor):
        raise GateError(HIDDEN)


def require_first_marking(conn: Database, submission_id: int, actor: Actor | None) -> None:
    """Raise GateError while `actor` is the item's second marker and no release held it yet: the
    first mark (edit, approve, reject, reopen, another draft) is another marker's, and each such
    write would hand a blind second marker the first mark. None: a read, nothing to check."""
    if actor is None:
        return
    require_visible(conn, submission_id, actor)
    if mod_db.unreleased_second_marker(conn, submission_id) == str(actor):
        raise GateError(FIRST_MARK)


IN_SAMPLE = {"code": MODERATION_SAMPLE,
             "text": Message("This item is in the moderation sample: approve it on its own, so that its mark is a "
                             "marker's own and can be compared with the second marker's.")}
OPEN_STATUSES = ("uploaded", "drafted", "needs_attention", "failed")


def sample_reasons(conn: Database, assignment_id: int, submission_id: int, status: str) -> list[dict]:
    """Why an undecided item of the moderation sample may not be approved in bulk (the bulk
    approval leaves sample items out: db.samples), [] for any other item."""
    if status not in OPEN_STATUSES or mod_db.item(conn, submission_id) is None:
        return []
    return [dict(IN_SAMPLE)]


def queue_for(conn: Database, assignment_id: int, queue: dict, actor: Actor, everything: bool = False) -> dict:
    """The review queue (core.signoff.review_view.review_queue) as `actor` sees it: a marker
    with items assigned in this assignment sees only those (and those they mark a second time)
    unless they ask for `everything`; an item they still mark blind shows nothing of the AI or
    the first marker."""
    me = str(actor)
    hidden = mod_db.hidden_from(conn, assignment_id, me)
    mine = {sid for sid, marker in mod_db.assigned(conn, assignment_id).items() if marker == me}
    items = queue["items"]
    if mine and not everything:
        items = [i for i in items if i["submission_id"] in mine | hidden]
    sampled = {r["submission_id"] for r in mod_db.items(conn, assignment_id)}
    items = [{"submission_id": i["submission_id"], "student": i["student"], "status": i["status"],
              "group": SECOND_MARKING_GROUP, "bulk_eligible": False, "reasons": [],
              "judging": {"confident": None, "split_criteria": [], "judges": []}}
             if i["submission_id"] in hidden else
             {**i, "bulk_eligible": False, "reasons": [*i["reasons"], dict(IN_SAMPLE)]}
             if i["submission_id"] in sampled and i["status"] in OPEN_STATUSES else i for i in items]
    return {**queue, "items": items}


def _hidden_among(conn: Database, rows: list[dict], actor: Actor) -> set[int]:
    """The submissions of `rows` (each with its assignment_id) `actor` still marks blind."""
    hidden: set[int] = set()
    for aid in {r["assignment_id"] for r in rows}:
        hidden |= mod_db.hidden_from(conn, aid, str(actor))
    return hidden


def without_hidden(conn: Database, rows: list[dict], actor: Actor) -> list[dict]:
    """Export rows (db.exports.items) but those `actor` still marks blind: an approved item's
    scores and comment are its first mark."""
    hidden = _hidden_among(conn, rows, actor)
    return [r for r in rows if r["submission_id"] not in hidden]


def blank_export_rows(conn: Database, rows: list[dict], actor: Actor) -> list[dict]:
    """Analysis-export rows (db.exports.analysis_rows) with the AI's and the first marker's
    scores blanked where `actor` still marks the item blind."""
    hidden = _hidden_among(conn, rows, actor)
    return [{**r, "draft_id": None, "ai_scores": {}, "flags": [], "teacher_scores": {}, "review_status": None}
            if r["submission_id"] in hidden else r for r in rows]
