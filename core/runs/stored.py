"""Why a run item failed or was skipped, in the reader's language.

The database keeps the English (`run_items.error`: the command line, logs and exports read it)
and, since migration m030s, a failed item's Message in its stored form beside it
(`run_items.error_said`, core.language.interface.stored). A skip reason is one of FairMark's fixed
sentences (SKIPPED, and db.runs.supersede_pending's "superseded by run N"), read back by its
template, so an item skipped before the form was kept reads translated too. An item from before
with an error in English only, and any text no template matches, is shown as it is.

    >>> from core.language.interface import Interface
    >>> Interface("sv").said(reason_of({"error": "superseded by run 7", "error_said": None}))
    'ersatt av körning 7'
    >>> reason_of({"error": "RuntimeError: boom", "error_said": None})
    'RuntimeError: boom'
"""
from __future__ import annotations

import re

from core.language.interface import N_, Message, form_of, read_back

# Why an item was skipped (as the run found it when its turn came), by the subject's status.
SKIPPED = {None: N_("submission deleted"), "approved": N_("a teacher has approved it"),
           "rejected": N_("a teacher has rejected it"), "released": N_("a teacher has released it")}
LESSON_SKIPPED = {None: N_("lesson deleted"), "approved": N_("a teacher has approved it"),
                  "changed": N_("the lesson changed while it was reviewed")}
SUPERSEDED = N_("superseded by run {run}")    # db.runs.supersede_pending writes it (db/ does not import core)
_SUPERSEDED = re.compile(r"superseded by run (?P<run>\d+)")
_FIXED = frozenset(SKIPPED.values()) | frozenset(LESSON_SKIPPED.values())

# Why a run stopped (runs.error, core.runs.engine): the fault's own text, the worker's error, or
# the items left; "Run stopped: …" on Assess and Lessons.
STOPPED = N_("stopped: {fault}")
WORKER_STOPPED = N_("worker stopped: {error_type}: {error}")
def plural(singular: str, many: str) -> tuple[str, str]:
    """A plural message's two English forms (tests/i18n_scan.py finds them by this name)."""
    return singular, many


NOT_PROCESSED = plural("{count} item(s) were not processed; resume the run",
                       "{count} item(s) were not processed; resume the run")
_NOT_PROCESSED = re.compile(r"(?P<count>\d+) item\(s\) were not processed; resume the run")


def skip_reason(status: str | None) -> str:
    """Why a submission in `status` (None: deleted) is skipped: the English the item keeps."""
    return SKIPPED.get(status) or f"a teacher has {status} it"


def failed(error) -> tuple[str, dict | None]:
    """A failed item's English (at most 2,000 characters, as the item keeps it) and its form
    (None for plain text: what it says is not FairMark's sentence)."""
    english = str(error)
    # A form only for what the item keeps whole: a longer error's English is cut, its form would not be.
    return english[:2000], form_of(error) if len(english) <= 2000 else None


def reason_of(item: dict, limit: int | None = 2000):
    """An item's error or skip reason as a Message a page shows in the reader's language (its
    stored form, else a skip reason's template); any other text as it is. A form is used only
    while it reads as the stored English (its first `limit` characters: the item keeps 2,000)."""
    text, form = item.get("error"), item.get("error_said")
    if form and (message := read_back(form, text, limit)) is not text:
        return message
    if text in _FIXED:
        return Message(text)
    if text and (found := _SUPERSEDED.fullmatch(text)):
        return Message(SUPERSEDED, run=int(found["run"]))
    return text


def stop_of(run: dict):
    """Why a run stopped (runs.error) as a Message a page shows in the reader's language: its form
    beside the English (runs.error_said, m030t), else the one fixed sentence by its template; a
    run from before (its fault's text in English only) as it is.

    >>> from core.language.interface import Interface
    >>> Interface("sv").said(stop_of({"error": "2 item(s) were not processed; resume the run"}))
    '2 objekt behandlades inte; återuppta körningen'
    >>> stop_of({"error": "stopped: the key was refused", "error_said": None})
    'stopped: the key was refused'
    """
    text, form = run.get("error"), run.get("error_said")
    if form:
        found = reason_of({"error": text, "error_said": form})
        if isinstance(found, Message):
            return found
    if text and (found := _NOT_PROCESSED.fullmatch(text)):
        return Message.plural(*NOT_PROCESSED, int(found["count"]))
    return text


def shown(items: list[dict]) -> list[dict]:
    """Failed or skipped items as the Assess page lists them: {submission_id, error}, the error a
    Message where it can be one."""
    return [{"submission_id": i["submission_id"], "error": reason_of(i)} for i in items]
