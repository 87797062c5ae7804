"""The comment bank (issue 27): short reusable comments a teacher inserts into the comment on a
review item in one action, searchable, optionally tied to a rubric criterion and level.

Two banks per course: the course bank (instructors and admins edit it, coordinators curate it:
action "comment_bank") and each teacher's own (anyone who may review in the course keeps one;
only its owner edits it). Insertion puts the comment after one of the comment's sentences (or
at the end): Streamlit cannot read a cursor. A comment saved from a review item must not name
a student of the course (it would then reach other students' drafts as a style example); it is
refused with the name to remove. A few comments for an item's criteria and levels reach the
Aggregator as style examples (core.pipeline, masked there against the roster)."""
from __future__ import annotations

import csv
import io
import re

from core.accounts import access
from core.accounts.access import Actor
from core.errors import Forbidden, IngestError
from core.language.interface import Message
from core.privacy import pseudonym
from db import audit, write_transaction
from db import comment_bank as store
from db import moderation as moderation_db
from db import ownership
from db import rubric_drafts

MAX_CHARS = 300          # short and reusable: about two sentences
CSV_COLUMNS = ("text", "criterion", "level", "uses")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def sentences(comment: str) -> list[str]:
    """The comment's sentences, as the bank panel offers them (to save, or to insert after).

    >>> sentences("Well done. Add an example! Why?")
    ['Well done.', 'Add an example!', 'Why?']
    """
    return [s for s in _SENTENCE.split((comment or "").strip()) if s]


def _clean(text: str, criterion, level) -> tuple[str, str | None, int | None]:
    text = " ".join((text or "").split())
    if not text:
        raise IngestError(Message("Write the comment first: a bank comment cannot be empty."))
    if len(text) > MAX_CHARS:
        raise IngestError(Message("A bank comment is at most {max} characters (this one has {count}): "
                                  "shorten it or split it in two.", max=MAX_CHARS, count=len(text)))
    criterion = (criterion or "").strip() or None
    if level in (None, ""):
        return text, criterion, None
    try:
        level = int(level)
    except (TypeError, ValueError):
        raise IngestError(Message("The level must be a whole number (got {level!r}).", level=level)) from None
    if criterion is None:
        raise IngestError(Message("Choose the criterion the level belongs to, or leave the level empty."))
    return text, criterion, level


def _owner(conn, actor: Actor, course_id: int, mine: bool) -> str | None:
    """Whose bank: the actor's own (they may review in the course) or the course bank."""
    if mine:
        access.check(conn, actor, "review", course=course_id)
        return str(actor)
    access.check(conn, actor, "comment_bank", course=course_id)
    return None


def _may_edit(conn, actor: Actor, bank_comment_id: int) -> dict:
    row = store.get(conn, bank_comment_id)
    if row["owner"] is None:
        access.check(conn, actor, "comment_bank", bank_comment=bank_comment_id)
    else:
        access.check(conn, actor, "review", bank_comment=bank_comment_id)
        if row["owner"] != str(actor):
            raise Forbidden(Message("This comment is in another teacher's own bank: only they may change it. "
                                    "Save a copy to your own bank instead."))
    return row


def add(conn, course_id: int, text: str, *, actor: Actor, mine: bool = True, criterion: str | None = None,
        level: int | None = None) -> int:
    """A new comment in the actor's own bank (mine) or the course bank; returns its id."""
    owner = _owner(conn, actor, course_id, mine)
    text, criterion, level = _clean(text, criterion, level)
    with write_transaction(conn):
        new = store.insert(conn, course_id=course_id, owner=owner, text=text, criterion=criterion, level=level,
                           created_by=str(actor))
        audit(conn, actor=actor, action="add_bank_comment", entity="bank_comments", entity_id=new,
              after={"text": text, "criterion": criterion, "level": level, "course_bank": owner is None})
    return new


def edit(conn, bank_comment_id: int, text: str, *, actor: Actor, criterion: str | None = None,
         level: int | None = None) -> None:
    before = _may_edit(conn, actor, bank_comment_id)
    text, criterion, level = _clean(text, criterion, level)
    with write_transaction(conn):
        store.update(conn, bank_comment_id, text=text, criterion=criterion, level=level)
        audit(conn, actor=actor, action="edit_bank_comment", entity="bank_comments", entity_id=bank_comment_id,
              before={"text": before["text"]}, after={"text": text, "criterion": criterion, "level": level})


def remove(conn, bank_comment_id: int, *, actor: Actor) -> None:
    before = _may_edit(conn, actor, bank_comment_id)
    with write_transaction(conn):
        store.delete(conn, bank_comment_id)
        audit(conn, actor=actor, action="remove_bank_comment", entity="bank_comments", entity_id=bank_comment_id,
              before={"text": before["text"]})


def search(conn, course_id: int, query: str = "", *, actor: Actor) -> dict:
    """{"mine": [...], "course": [...], "may_curate"}: the actor's own bank and the course bank,
    each filtered by `query` (case-insensitive, anywhere in the text), most used first;
    "may_curate" says whether the actor may edit the course bank."""
    access.check(conn, actor, "read", course=course_id)
    return search_of(conn, course_id, query, actor=actor, may=access.allowed(actor, course_id))


def search_of(conn, course_id: int, query: str = "", *, actor: Actor, may) -> dict:
    """`search` for a page's view that checked the actor once (`may`: access.allowed there)."""
    mine = store.of_bank(conn, course_id, str(actor), query) if "review" in may else []
    return {"mine": mine, "course": store.of_bank(conn, course_id, None, query),
            "may_curate": "comment_bank" in may}


def matching(rows: list[dict], query: str) -> list[dict]:
    """The rows whose text holds `query` (case-insensitive), for a page filtering its view's banks.

    >>> [r["text"] for r in matching([{"text": "Add an Example."}, {"text": "Why?"}], "example")]
    ['Add an Example.']
    """
    q = (query or "").casefold()
    return [r for r in rows if q in r["text"].casefold()]


def insert_into(conn, bank_comment_id: int, comment: str, *, actor: Actor, after: int | None = None) -> str:
    """The comment with the bank comment put after its sentence number `after` (0-based; None:
    at the end), and the bank comment's use counted. The caller saves the new text as an edit."""
    access.check(conn, actor, "review", bank_comment=bank_comment_id)
    row = store.get(conn, bank_comment_id)
    if row["owner"] not in (None, str(actor)):
        raise Forbidden(Message("This comment is in another teacher's own bank."))
    parts = sentences(comment)
    at = len(parts) if after is None else max(0, min(int(after) + 1, len(parts)))
    with write_transaction(conn):
        store.count_use(conn, bank_comment_id)
    return " ".join(parts[:at] + [row["text"]] + parts[at:])


def save_from_item(conn, submission_id: int, text: str, *, actor: Actor, mine: bool = True,
                   criterion: str | None = None, level: int | None = None) -> int:
    """"Save to bank" on a review item: the comment or one of its sentences, into the actor's
    bank or the course bank. Refused when it names a student of the course."""
    course_id = access.check(conn, actor, "review", submission=submission_id)
    flat = " ".join((text or "").split())
    masked = pseudonym.roster(rubric_drafts.course_people(conn, course_id)).mask(flat)
    names = sorted({flat[s.start:s.end] for s in masked.spans if s.person is not None})
    if masked.text != flat:
        if names:
            raise IngestError(Message("This text names a student or gives their contact details ({names}): remove it "
                                      "before saving, since bank comments are reused for other students.",
                                      names=", ".join(names)))
        raise IngestError(Message("This text names a student or gives their contact details: remove it before "
                                  "saving, since bank comments are reused for other students."))
    return add(conn, course_id, text, actor=actor, mine=mine, criterion=criterion, level=level)


def export_csv(conn, course_id: int, *, actor: Actor, mine: bool = True) -> str:
    """One bank as CSV (text, criterion, level, uses)."""
    access.check(conn, actor, "review" if mine else "read", course=course_id)
    return to_csv(store.of_bank(conn, course_id, str(actor) if mine else None))


def to_csv(rows: list[dict]) -> str:
    """Bank rows as CSV (text, criterion, level, uses): `export_csv`, or a page's view's banks."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerow([row["text"], row["criterion"] or "", "" if row["level"] is None else row["level"], row["uses"]])
    return out.getvalue()


def import_csv(conn, course_id: int, data: str, *, actor: Actor, mine: bool = True) -> int:
    """Add a CSV's comments (columns text, criterion, level; uses is ignored) to one bank; a
    comment already in it is skipped. Any bad row: IngestError listing each, nothing added.
    Returns how many were added."""
    owner = _owner(conn, actor, course_id, mine)
    rows = list(csv.DictReader(io.StringIO(data or "")))
    if not rows or "text" not in (rows[0].keys()):
        raise IngestError(Message("The file needs a header row with a 'text' column (and optionally 'criterion', "
                                  "'level')."))
    clean, errors = [], []
    for number, row in enumerate(rows, start=2):
        try:
            clean.append(_clean(row.get("text") or "", row.get("criterion"), row.get("level")))
        except IngestError as e:
            errors.append(Message("Row {row}: {error}", row=number, error=e.args[0] if len(e.args) == 1 else str(e)))
    if errors:
        raise IngestError(Message("Nothing was imported. Fix these rows and try again:\n{rows}",
                                  rows=Message.joined("\n", errors)))
    added = 0
    with write_transaction(conn):
        for text, criterion, level in clean:
            if not store.has_text(conn, course_id, owner, text):
                store.insert(conn, course_id=course_id, owner=owner, text=text, criterion=criterion, level=level,
                             created_by=str(actor))
                added += 1
        audit(conn, actor=actor, action="import_bank_comments", entity="courses", entity_id=course_id,
              after={"added": added, "course_bank": owner is None})
    return added


CANDIDATES = 200         # of a bank's tied comments loaded per item (the Aggregator picks 3: core.agents.common)


def candidates_of(conn, submission_id: int, marker: str | None = None) -> list[dict]:
    """For the pipeline (its caller checked the run): the bank comments tied to a criterion and
    level, of the course bank and of the item's marker's bank (`marker`, else the marker the item
    is assigned to — core.moderation.markers.assign —, else whoever started the latest run holding
    the item), unmasked: core.pipeline masks them with the item's text."""
    course_id = ownership.course_of(conn, "submission", submission_id)
    owner = marker or moderation_db.marker_of(conn, submission_id) or store.run_starter(conn, submission_id)
    return _candidates(conn, course_id, owner)


def _candidates(conn, course_id: int, owner: str | None) -> list[dict]:
    return [{"criterion": r["criterion"], "level": r["level"], "text": r["text"]}
            for r in store.candidates(conn, course_id, owner, CANDIDATES)]


def candidates_for_run(conn, course_id: int, submission_ids: list[int], starter: str) -> dict[int, list[dict]]:
    """`candidates_of` each submission of one course as a run `starter` is about to start would
    load them (the run estimate; its caller checked the actor): each bank is read once."""
    banks: dict[str | None, list[dict]] = {}
    out = {}
    for sid in submission_ids:
        owner = moderation_db.marker_of(conn, sid) or starter
        if owner not in banks:
            banks[owner] = _candidates(conn, course_id, owner)
        out[sid] = banks[owner]
    return out
