"""The second marker's blind mark and the moderator's settlement (rules in core.moderation)."""
from __future__ import annotations

from sqlite_utils import Database

from core.accounts import access
from core.accounts.access import Actor
from core.errors import ConflictError, FairMarkError, Forbidden, GateError, NotFound
from core.language.interface import Message
from core.moderation.sample import differs
from core.signoff.actions import writing
from db import audit, courses, drafts, now, reviews
from db import moderation as mod_db
from db.submissions import get_submission


def _drawn(conn: Database, submission_id: int) -> dict:
    row = mod_db.item(conn, submission_id)
    if row is None:
        raise NotFound(Message("submission {id} is not in a moderation sample; a coordinator draws it on the "
                               "Moderation page or with `python -m core moderation draw`", id=submission_id))
    return row


def for_marker(conn: Database, submission_id: int, *, actor: Actor) -> dict:
    """What the second marker may see of one drawn item: {"submission" (id, text, word_count),
    "marked", "mine"} and, only once they have marked it: "first" (the first marker's approved
    scores), "ai" {"scores", "comment"}. Before, nothing of the first mark or the AI is returned."""
    access.check(conn, actor, "second_mark", submission=submission_id)
    return _for_marker_of(conn, submission_id, actor)


def _for_marker_of(conn: Database, submission_id: int, actor: Actor) -> dict:
    row = _drawn(conn, submission_id)
    if row["second_marker"] != str(actor):
        raise Forbidden(Message("{marker} is this item's second marker, not you; a coordinator can change the "
                                "sample on the Moderation page", marker=row["second_marker"]))
    sub = get_submission(conn, submission_id)
    out = {"submission": {k: sub[k] for k in ("id", "assignment_id", "text", "word_count")},
           "marked": row["second_scores"] is not None, "mine": row["second_scores"]}
    if out["marked"]:
        draft = drafts.get_draft(conn, sub["current_draft_id"]) if sub["current_draft_id"] else None
        out["first"] = row["first_scores"]
        out["ai"] = {"scores": draft["scores"], "comment": draft["comment"]} if draft else None
    return out


def mark(conn: Database, submission_id: int, scores: dict, *, actor: Actor) -> dict:
    """Commit the second marker's blind mark (every criterion, whole levels; final). Returns
    `for_marker`, which now shows the first mark and the AI's draft."""
    access.check(conn, actor, "second_mark", submission=submission_id)
    row = _drawn(conn, submission_id)
    if row["second_marker"] != str(actor):
        raise Forbidden(Message("{marker} is this item's second marker, not you", marker=row["second_marker"]))
    rubric = courses.assignment_rubric(conn, row["assignment_id"])
    clean = rubric.validate_scores({k: v for k, v in scores.items() if v is not None})
    missing = [k for k in rubric.keys if k not in clean]
    if missing:
        raise FairMarkError(Message("mark every criterion before committing; missing: {criteria}",
                                    criteria=", ".join(missing)))
    with writing(conn):
        if mod_db.item(conn, submission_id)["second_scores"]:
            raise ConflictError(Message("you already committed your second mark of this item; second marks are "
                                        "final (a change after seeing the first mark would not be blind)"))
        mod_db.save_marks(conn, submission_id, str(actor), clean, actor=actor, at=now())
    return for_marker(conn, submission_id, actor=actor)


def settle(conn: Database, submission_id: int, scores: dict, *, note: str, actor: Actor) -> dict:
    """The moderator's final score per criterion with a note, for an item whose two marks differ.
    The final scores become the teacher's version (a new review version, same status, audited)
    and the dashboards' reference. Returns the item's sample row (db.moderation.item)."""
    access.check(conn, actor, "moderate", submission=submission_id)
    row = _drawn(conn, submission_id)
    if not (note or "").strip():
        raise FairMarkError(Message("say in the note why you settled on these scores (the markers read it)"))
    rubric = courses.assignment_rubric(conn, row["assignment_id"])
    clean = rubric.validate_scores({k: v for k, v in scores.items() if v is not None})
    with writing(conn):
        row = mod_db.item(conn, submission_id)
        first, second = row["first_scores"], row["second_scores"]
        if row["settled"]:
            raise ConflictError(Message("submission {id} is settled already; a settlement is final", id=submission_id))
        if not first or not second:
            raise GateError(Message("submission {id} is not marked twice yet (the first marker approves it, the "
                                    "second marker marks it blind); settle it then", id=submission_id))
        if not differs(first, second):
            raise GateError(Message("the two marks of submission {id} are within a level of each other: nothing to "
                                    "settle, the first marker's mark is released", id=submission_id))
        missing = [k for k in rubric.keys if k not in clean]
        if missing:
            raise FairMarkError(Message("give a final score for every criterion; missing: {criteria}",
                                        criteria=", ".join(missing)))
        at = now()
        mod_db.save_settlement(conn, submission_id, [(k, first[k], second[k], clean[k]) for k in rubric.keys
                                                     if k in first and k in second], note.strip(), actor=actor, at=at)
        review = reviews.get_review(conn, submission_id)
        final = {**review["scores"], **clean}
        if final != review["scores"]:
            reviews.update_review(conn, review["id"], review["version"], {"scores": final, "edited": 1},
                                  actor=str(actor))
            audit(conn, actor=actor, action="edit", entity="reviews", entity_id=review["id"],
                  submission_id=submission_id, before={"scores": review["scores"]}, after={"scores": final},
                  reason=f"moderated: {note.strip()}")
    return mod_db.item(conn, submission_id)


def marking_page(conn: Database, assignment_id: int, *, item: int | None = None, actor: Actor) -> dict:
    """What the Second marking page shows, with one check: {"items" [{submission_id, student,
    marked}] (the assignment's drawn items `actor` marks a second time), "item" (`for_marker` of
    `item` when it is one of them, else None), "rubric"}."""
    course_id = access.check(conn, actor, "second_mark", assignment=assignment_id)
    names = access.sees_names(actor, course_id)
    rows = [r for r in mod_db.items(conn, assignment_id) if r["second_marker"] == str(actor)]
    mine = [{"submission_id": r["submission_id"], "student": r["name"] if names else r["pseudonym"],
             "marked": r["second_scores"] is not None} for r in rows]
    shown = _for_marker_of(conn, item, actor) if item in {r["submission_id"] for r in rows} else None
    return {"items": mine, "item": shown, "rubric": courses.assignment_rubric(conn, assignment_id)}
