"""Notes anchored to the student's text (issue 27): a short note on a passage of a submission,
optionally tied to a rubric criterion, shown highlighted in the text on the review item and, once
released, on the student's page, in the exports and in the LMS comment.

The passage is sentences the teacher picks (Streamlit cannot read a selection) or a quote they
paste, which must occur in the text (spaces and case aside); otherwise nothing is written.

The AI proposes notes too: each criterion's evidence quote in the item's draft (the Evaluator's,
`drafts.outputs["evaluator"][key]["evidence_quote"]`) that is found in the text, with the first
sentence of the Evaluator's reasoning for that criterion as the note. A proposal is not stored:
it is read from the draft each time. A teacher keeps it (perhaps edited) or drops it, and only
then does it get a row (kept or dropped), so a proposal nobody decided blocks nothing and is
never released. Who may: anyone who may review the item ("review"), checked against the actor.

Release: the kept notes of each released item are copied into the release
(db.anchored_notes.lock), so what a student, an export and the LMS get is what was released; a
note added or changed later reaches the student with the item's next release.
"""
from __future__ import annotations

import re
import sqlite3

from core.accounts import access
from core.accounts.access import Actor
from core.errors import ConflictError, IngestError
from core.injection.classifier import sentences as sentence_spans
from core.language.interface import Message
from core.moderation import blindness
from core.signoff import injection_view
from core.text import escape_commonmark, escape_markdown
from db import anchored_notes as store
from db import audit, courses, now, write_transaction
from db import drafts as drafts_db
from db import submissions as submissions_db

MAX_CHARS = 300          # a note beside a passage: a sentence or two
MIN_QUOTE = 3            # "a" or "is" anchors nothing
_FIRST_SENTENCE = re.compile(r"^.*?[.!?](?=\s|$)", re.S)


# --- the passage ------------------------------------------------------------------------------
def sentences(text: str) -> list[dict]:
    """The submission's sentences as the picker offers them: [{number, start, end, text}].

    >>> [s["text"] for s in sentences("I used a mean. It hid the outliers!")]
    ['I used a mean.', 'It hid the outliers!']
    """
    out = []
    for s, e in sentence_spans(text or ""):
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        out.append({"number": len(out) + 1, "start": s, "end": e, "text": text[s:e]})
    return out


def locate(text: str, quote: str, near: int = 0) -> tuple[int, int] | None:
    """Where the quote stands in the text, spaces, line breaks and case aside (the occurrence
    nearest to `near` when it occurs more than once); None when it does not occur.

    >>> locate("I used the mean.\\nIt hid outliers.", "the MEAN. it hid")
    (7, 23)
    """
    words = (quote or "").strip().strip('"“”‘’\'').split()
    if len("".join(words)) < MIN_QUOTE:
        return None
    found = [(m.start(), m.end()) for m in
             re.finditer(r"\s+".join(re.escape(w) for w in words), text or "", re.IGNORECASE)]
    return min(found, key=lambda span: abs(span[0] - near)) if found else None


def anchor(text: str, *, quote: str | None = None, picked: list[int] | None = None) -> tuple[int, int]:
    """(start, end) of the passage a teacher chose: sentences by number (next to each other) or
    a pasted quote. IngestError, saying what to do, when neither fits."""
    if picked:
        spans = sentences(text)
        numbers = sorted({int(n) for n in picked})
        if numbers[0] < 1 or numbers[-1] > len(spans):
            raise IngestError(Message.plural("The submission has {count} sentences: pick sentences from that list.",
                                             "The submission has {count} sentences: pick sentences from that list.",
                                             len(spans)))
        if numbers != list(range(numbers[0], numbers[-1] + 1)):
            raise IngestError(Message("Pick sentences next to each other: one note is about one passage. "
                                      "Add a second note for the other sentences."))
        return spans[numbers[0] - 1]["start"], spans[numbers[-1] - 1]["end"]
    if not (quote or "").strip():
        raise IngestError(Message("Choose the passage first: pick one or more sentences, or paste words from the "
                                  "submission."))
    span = locate(text, quote)
    if span is None:
        raise IngestError(Message("That passage is not in the submission. Paste words exactly as the student wrote "
                                  "them (at least three letters), or pick sentences instead."))
    return span


def _clean_note(note: str) -> str:
    note = " ".join((note or "").split())
    if not note:
        raise IngestError(Message("Write the note first: a note on the text cannot be empty."))
    if len(note) > MAX_CHARS:
        raise IngestError(Message("A note on the text is at most {limit} characters (this one has {count}): "
                                  "shorten it, or put the rest in the comment.", limit=MAX_CHARS, count=len(note)))
    return note


def _criterion(conn, submission: dict, criterion: str | None) -> str | None:
    criterion = (criterion or "").strip() or None
    if criterion is not None and criterion not in courses.assignment_rubric(conn, submission["assignment_id"]).keys:
        raise IngestError(Message("The rubric of this assignment has no criterion {criterion!r}: choose one of its "
                                  "criteria, or none.", criterion=criterion))
    return criterion


# --- the teacher's notes ----------------------------------------------------------------------
def add(conn, submission_id: int, note: str, *, actor: Actor, quote: str | None = None,
        sentences: list[int] | None = None, criterion: str | None = None) -> int:
    """A teacher's note on a passage of the item (kept as written); returns its id."""
    access.check(conn, actor, "review", submission=submission_id)
    blindness.require_first_marking(conn, submission_id, actor)   # the first mark's: not its blind second marker's
    sub = submissions_db.get_submission(conn, submission_id)
    start, end = anchor(sub["text"], quote=quote, picked=sentences)
    note, criterion = _clean_note(note), _criterion(conn, sub, criterion)
    with write_transaction(conn):
        new = store.insert(conn, submission_id=submission_id, start=start, end=end, quote=sub["text"][start:end],
                           criterion=criterion, note=note, origin="teacher", draft_id=None, state="kept",
                           created_by=str(actor), at=now())
        audit(conn, actor=actor, action="add_note_on_text", entity="anchored_notes", entity_id=new,
              submission_id=submission_id, after={"quote": sub["text"][start:end], "note": note, "criterion": criterion})
    return new


def edit(conn, anchored_note_id: int, note: str, *, actor: Actor, criterion: str | None = None) -> None:
    """Change a note's words or criterion (a dropped suggestion edited is kept again)."""
    access.check(conn, actor, "review", anchored_note=anchored_note_id)
    row = store.get(conn, anchored_note_id)
    blindness.require_first_marking(conn, row["submission_id"], actor)
    note = _clean_note(note)
    criterion = _criterion(conn, submissions_db.get_submission(conn, row["submission_id"]), criterion)
    with write_transaction(conn):
        store.update(conn, anchored_note_id, note=note, criterion=criterion, state="kept", by=str(actor), at=now())
        audit(conn, actor=actor, action="edit_note_on_text", entity="anchored_notes", entity_id=anchored_note_id,
              submission_id=row["submission_id"], before={"note": row["note"], "criterion": row["criterion"]},
              after={"note": note, "criterion": criterion})


def delete(conn, anchored_note_id: int, *, actor: Actor) -> None:
    """Remove a note. A kept suggestion of the AI becomes dropped (so it is not proposed again)."""
    access.check(conn, actor, "review", anchored_note=anchored_note_id)
    row = store.get(conn, anchored_note_id)
    blindness.require_first_marking(conn, row["submission_id"], actor)
    with write_transaction(conn):
        if row["origin"] == "ai":
            store.update(conn, anchored_note_id, note=row["note"], criterion=row["criterion"], state="dropped",
                         by=str(actor), at=now())
        else:
            store.delete(conn, anchored_note_id)
        audit(conn, actor=actor, action="delete_note_on_text", entity="anchored_notes", entity_id=anchored_note_id,
              submission_id=row["submission_id"], before={"quote": row["quote"], "note": row["note"]})


# --- the AI's proposals -----------------------------------------------------------------------
def short_note(reasoning: str) -> str:
    """The note proposed from the Evaluator's reasoning: its first sentence, within MAX_CHARS.

    >>> short_note("Names a real decision. Could say more about the data.")
    'Names a real decision.'
    """
    text = " ".join((reasoning or "").split())
    m = _FIRST_SENTENCE.match(text)
    first = m.group(0) if m else text
    return first if len(first) <= MAX_CHARS else first[:MAX_CHARS - 1].rstrip() + "…"


def proposals_of(text: str, draft: dict | None, decided: set) -> list[dict]:
    """The AI's undecided notes for the item: [{draft_id, criterion, start, end, quote, note}],
    one per criterion whose evidence quote is found in the text, not yet kept or dropped
    (`decided`: the (draft id, criterion) pairs that have a row)."""
    draft = draft or {}
    evaluation = (draft.get("outputs") or {}).get("evaluator") or {}
    out = []
    for key, ev in evaluation.items():
        if not isinstance(ev, dict) or (draft.get("id"), key) in decided:
            continue
        span = locate(text, ev.get("evidence_quote") or "")
        note = short_note(ev.get("reasoning") or "")
        if span and note:
            out.append({"draft_id": draft["id"], "criterion": key, "start": span[0], "end": span[1],
                        "quote": text[span[0]:span[1]], "note": note})
    return sorted(out, key=lambda p: p["start"])


def decide(conn, submission_id: int, *, draft_id: int, criterion: str, keep: bool, actor: Actor,
           note: str | None = None) -> int:
    """Keep (with `note`: edited) or drop the AI's proposed note for `criterion` of the item's
    draft `draft_id`; returns the note's id. A proposal decided already is a ConflictError."""
    access.check(conn, actor, "review", submission=submission_id)
    blindness.require_first_marking(conn, submission_id, actor)
    sub = submissions_db.get_submission(conn, submission_id)
    draft = drafts_db.get_draft(conn, draft_id)
    found = [p for p in proposals_of(sub["text"], draft, set()) if p["criterion"] == criterion]
    if draft["submission_id"] != submission_id or not found:
        raise IngestError(Message("That suggestion is not one of this item's: reload the item and choose again."))
    p = found[0]
    text = _clean_note(p["note"] if note is None else note)
    with write_transaction(conn):
        try:
            new = store.insert(conn, submission_id=submission_id, start=p["start"], end=p["end"], quote=p["quote"],
                               criterion=criterion, note=text, origin="ai", draft_id=draft_id,
                               state="kept" if keep else "dropped", created_by=str(actor), at=now())
        except sqlite3.IntegrityError:
            raise ConflictError(Message("Someone has already kept or dropped this suggestion: reload the "
                                        "item.")) from None
        audit(conn, actor=actor, action="keep_note_on_text" if keep else "drop_note_on_text", entity="anchored_notes",
              entity_id=new, submission_id=submission_id, after={"quote": p["quote"], "note": text,
                                                                 "criterion": criterion, "edited": text != p["note"]})
    return new


# --- reading ----------------------------------------------------------------------------------
def item_view_of(conn, submission_id: int, text: str, draft: dict | None, rubric) -> dict:
    """What the review item shows, for a caller that has checked the actor (the Review page's
    view): {"notes" (kept, numbered in text order), "proposals", "dropped" (how many),
    "sentences"}. Each note and proposal carries its criterion's title."""
    rows = store.of_submission(conn, submission_id)
    titles = {c.key: c.title for c in rubric.criteria}
    kept = numbered([r for r in rows if r["state"] == "kept"], titles)
    proposals = proposals_of(text, draft, {(r["draft_id"], r["criterion"]) for r in rows if r["draft_id"]})
    return {"notes": kept, "proposals": [{**p, "title": titles.get(p["criterion"], p["criterion"])} for p in proposals],
            "dropped": sum(r["state"] == "dropped" for r in rows), "sentences": sentences(text)}


def numbered(rows: list[dict], titles: dict) -> list[dict]:
    """Notes as shown and exported: [{number, start, end, quote, criterion, title, note, id?, origin?}]."""
    return [{"number": i, "start": r["start_char"], "end": r["end_char"], "quote": r["quote"],
             "criterion": r["criterion"], "title": titles.get(r["criterion"], r["criterion"] or ""), "note": r["note"],
             **({"id": r["id"], "origin": r["origin"]} if "id" in r else {})} for i, r in enumerate(rows, 1)]


def lock(conn, release_id: int, submission_ids) -> int:
    """The release's copy of its items' kept notes (core.signoff.release, in its transaction)."""
    return store.lock(conn, release_id, submission_ids)


def for_items(conn, items: list[dict], titles_of) -> dict[int, list[dict]]:
    """{submission id: notes} of export rows ({submission_id, state}): a released item's as
    its latest release locked them, an approved one's kept now. `titles_of(row)`: its criteria's titles."""
    released = store.released_of(conn, [i["submission_id"] for i in items if i["state"] == "released"])
    current = store.kept_of(conn, [i["submission_id"] for i in items if i["state"] != "released"])
    return {i["submission_id"]: numbered({**released, **current}.get(i["submission_id"], []), titles_of(i))
            for i in items}


def released_for(conn, submission_id: int, titles: dict, release_id: int | None = None) -> list[dict]:
    """The notes of the item's latest release (of `release_id`), numbered (the student page, the LMS)."""
    return numbered(store.released_of(conn, [submission_id], release_id)[submission_id], titles)


def line(n: dict) -> str:
    """One note as plain text: “quote” (Criterion): note."""
    return f"“{n['quote']}”" + (f" ({n['title']})" if n.get("title") else "") + f": {n['note']}"


def as_text(notes: list[dict]) -> str:
    """Notes as plain text, one a line, for a CSV cell and the LMS comment ('' without notes)."""
    return "\n".join(f"{n['number']}. {line(n)}" for n in notes)


def as_commonmark(notes: list[dict]) -> list[str]:
    """Notes as a Markdown list for the ZIP's files, every word escaped ([] without notes)."""
    return [f"{n['number']}. " + escape_commonmark(" ".join(line(n).split())) for n in notes]


def highlight_markdown(text: str, notes: list[dict]) -> str:
    """The submission as safe Markdown with each note's passage highlighted and numbered (the
    student page; the review item uses core.signoff.injection_view.highlight_markdown)."""
    return injection_view.highlight_markdown(text, [], [], notes=notes)


def note_markdown(n: dict) -> str:
    """One note as safe Markdown for a page: its number, the quote, the criterion, the note."""
    return (f"**{n['number']}.** “{escape_markdown(n['quote'])}”"
            + (f" · *{escape_markdown(n['title'])}*" if n.get("title") else "") + f"  \n{escape_markdown(n['note'])}")
