"""Blind scoring: a teacher scores a calibration item before seeing the AI's draft.

An item is blind-pending while it is in a calibration set and nobody has saved a blind score
for it. Until then its AI draft is hidden everywhere: the review queue leaves it out, the
review item refuses to open it (`require_visible`, called by core.signoff.actions.open_item),
so it can be neither approved nor bulk-approved, and what is never approved never reaches
the Students view or an export. On the Calibrate page each teacher sees the AI's scores and
comment (and other teachers' blind scores) only after saving their own.
"""
from __future__ import annotations

from sqlite_utils import Database

from core.accounts import access
from core.accounts.access import Actor
from core.errors import GateError, NotFound
from core.language.interface import N_, Message
from db import calibration, courses, drafts, now, write_transaction
from db.submissions import get_submission

HIDDEN = N_("This reflection is in the calibration set: score it blind on the Calibrate page first. "
          "Its AI draft stays hidden until a blind score is saved.")


def is_hidden(conn: Database, submission_id: int, *, actor: Actor) -> bool:
    access.check(conn, actor, "read", submission=submission_id)
    return calibration.is_blind_pending(conn, submission_id)


def require_visible(conn: Database, submission_id: int) -> None:
    """Raise GateError while the item's AI draft must stay hidden (blind-pending). Called by
    core.signoff.actions.open_item after its own check."""
    if calibration.is_blind_pending(conn, submission_id):
        raise GateError(Message(HIDDEN))


def save(conn: Database, submission_id: int, scores: dict, *, actor: Actor) -> dict:
    """Save `actor`'s blind scores of a calibration item (every criterion, whole levels).
    Final once saved; returns what the teacher may now see (`for_rater`)."""
    access.check(conn, actor, "calibrate", submission=submission_id)
    sub = get_submission(conn, submission_id)
    if not calibration.in_set(conn, submission_id):
        raise NotFound(Message("submission {id} is not in a calibration set; draw the set on the Calibrate page",
                               id=submission_id))
    rubric = courses.assignment_rubric(conn, sub["assignment_id"])
    clean = rubric.validate_scores({k: v for k, v in scores.items() if v is not None})
    with write_transaction(conn):
        calibration.save_scores(conn, submission_id, actor, clean, source="blind", actor=actor, at=now())
    return for_rater(conn, submission_id, actor=actor)


def for_rater(conn: Database, submission_id: int, actor: Actor) -> dict:
    """What the Calibrate page may show this teacher about one item.

    {"submission" (text, word_count, ...), "scored" (this rater saved), "mine" {criterion:
    score} | None, and only once scored: "ai" {"scores", "comment", "is_offline"} | None (no
    draft), "others" {rater: scores}}. Before the teacher has scored, no AI output and no other
    teacher's score is returned at all (so no page can show them by mistake)."""
    access.check(conn, actor, "calibrate", submission=submission_id)
    return for_rater_of(conn, submission_id, actor)


def for_rater_of(conn: Database, submission_id: int, actor: Actor) -> dict:
    """`for_rater` for a caller that has checked the actor (a page's view)."""
    sub = get_submission(conn, submission_id)
    all_scores = calibration.scores_of(conn, submission_id)
    rater = str(actor)  # blind scores are kept per signed-in user
    mine = all_scores.get(rater)
    out = {"submission": {k: sub[k] for k in ("id", "assignment_id", "text", "word_count")},
           "scored": mine is not None, "mine": mine}
    if mine is not None:
        draft = drafts.get_draft(conn, sub["current_draft_id"]) if sub["current_draft_id"] else None
        out["ai"] = ({"scores": draft["scores"], "comment": draft["comment"], "is_offline": draft["is_offline"]}
                     if draft else None)
        out["others"] = {r: s for r, s in all_scores.items() if r != rater}
    return out
