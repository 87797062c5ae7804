"""What the sign-off pages show instead of stored codes: status, flag and action labels,
criterion titles, readable audit changes, a student's released scores, and the student's text
with the AI's evidence quotes in bold (as safe Markdown, core.text.escape_markdown).

The labels are English messages marked with N_ (core.language.interface): the command line and
exports read them as they are, a page shows them in its reader's language with t(...).
"""
from __future__ import annotations

import re

from core.errors import FairMarkError, RubricError
from core.language.interface import N_, Message
from core.rubric import Rubric
from core.text import escape_markdown, format_timestamp

# A student's text longer than this (in words, or in characters: a text without spaces is one
# "word" yet fills thousands of pixels) is shown in a scroll box of SCROLL_HEIGHT pixels.
SCROLL_WORDS, SCROLL_CHARS, SCROLL_HEIGHT = 220, 1500, 480


def scroll_height(text: str, word_count: int) -> int | None:
    """The height of the box a submission is shown in: SCROLL_HEIGHT for a long text (by words
    or by characters), None (as tall as the text) for a short one.

    >>> scroll_height("x" * 20_000, 1), scroll_height("A short text.", 3), scroll_height("w " * 300, 300)
    (480, None, 480)
    """
    return SCROLL_HEIGHT if word_count > SCROLL_WORDS or len(text or "") > SCROLL_CHARS else None


REASONS = {
    "too_harsh": N_("Too harsh"),
    "too_lenient": N_("Too lenient"),
    "inaccurate": N_("Inaccurate"),
    "generic": N_("Generic"),
    "tone": N_("Tone"),
    "other": N_("Other (add a note)"),
}

STATUS_LABELS = {
    "uploaded": N_("Not drafted yet"),
    "drafted": N_("Drafted"),
    "needs_attention": N_("Needs attention"),
    "failed": N_("AI draft failed"),
    "approved": N_("Approved"),
    "rejected": N_("Rejected"),
    "released": N_("Released"),
    "in_review": N_("In review"),
}
FLAG_LABELS = {
    "failed_check": N_("Failed check"),
    "short_text": N_("Short text"),
    "injection": N_("Injection attempt"),
    "code": N_("Code or formulas"),
    "empty": N_("Empty"),
    "non_english": N_("Not in the course's language"),
}
# The Reviewer's verdict on the drafted comment (core.agents.reviewer), as the queue shows it.
VERDICT_LABELS = {"CONFIDENT": N_("Reviewer: confident"), "REVISE": N_("Reviewer: asked for changes")}


def verdict_label(verdict: str | None) -> str:
    return VERDICT_LABELS.get(verdict) or (N_("Reviewer: no verdict") if not verdict else f"Reviewer: {verdict.lower()}")


ACTION_LABELS = {
    "open": N_("Opened"),
    "edit": N_("Edited"),
    "approve": N_("Approved"),
    "reject": N_("Rejected"),
    "regenerate": N_("Regenerated"),
    "use_draft": N_("Used a new draft"),
    "bulk_approve": N_("Bulk approved"),
    "draw_sample": N_("Drew the sample"),
    "release": N_("Released"),
    "back_to_review": N_("Sent back to review"),
    "appeal": N_("The student appealed"),
    "appeal_remark": N_("Re-marked blind (appeal)"),
    "appeal_keep": N_("Appeal decided: score kept"),
    "appeal_change": N_("Appeal decided: score changed"),
}
_FIELD_LABELS = {"version": N_("Version"), "status": N_("Status"), "comment": N_("Comment"), "reason_codes": N_("Reasons"),
                 "note": N_("Note"), "draft_id": N_("AI draft"), "opened_at": N_("Opened")}


def changes(before: dict | None, after: dict | None) -> list[dict]:
    """Field-by-field differences between two audit snapshots (scores per criterion)."""
    before, after, out = before or {}, after or {}, []
    for key in [k for k in (*before, *after) if k != "scores"]:
        if key not in [c["field"] for c in out] and before.get(key) != after.get(key):
            out.append({"field": key, "before": before.get(key), "after": after.get(key)})
    b, a = before.get("scores") or {}, after.get("scores") or {}
    for crit in sorted(set(b) | set(a)):
        if b.get(crit) != a.get(crit):
            out.append({"field": f"score: {crit}", "before": b.get(crit), "after": a.get(crit)})
    return out


def shorten(value, limit: int = 60) -> str:
    """A value as one short line ("—" for none), cut with "…" past `limit` characters."""
    text = "—" if value is None else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def label(mapping: dict, code) -> str:
    """The human label of a stored code; unknown codes read as words ("non_english" -> "Non english")."""
    if code is None:
        return "—"
    return mapping.get(code) or str(code).replace("_", " ").capitalize()


def criterion_title(rubric: Rubric | None, key: str) -> str:
    """The rubric's title of a criterion key ("real_world_application" -> "Real-world application")."""
    try:
        return rubric.criterion(key).title if rubric is not None else label({}, key)
    except RubricError:  # a key the rubric no longer has (edited rubric): show it as words
        return label({}, key)


def scores_text(scores: dict, rubric: Rubric | None) -> str:
    """Scores as "Clarity: 2, Concept understanding: 2" with the rubric's titles, in rubric order."""
    order = list(rubric.keys) if rubric is not None else []
    keys = [k for k in order if k in scores] + [k for k in scores if k not in order]
    return ", ".join(f"{criterion_title(rubric, k)}: {scores[k]}" for k in keys)


# The reasons core itself writes to the audit log (stored in English), by action: the history
# reads them back as Messages (a page shows them in its reader's language). Any other reason (a
# teacher's note, a reject's, a release's) is shown as it was typed.
HISTORY_REASONS = {
    "open": (N_("first opened; review created from the draft"),),
    "back_to_review": (N_("approved before release; back to review"), N_("rejected before release; back to review")),
    "regenerate": (N_("new draft requested; the teacher's version is kept"),
                   N_("new draft requested; the teacher's version is kept; it is the same as the previous draft")),
    "use_draft": (N_("teacher chose draft {draft}"),),
    "edit": (N_("moderated: {note}"),),
    "bulk_approve": (N_("bulk approval of {count} items after a stratified sample of {sample}"),),
    "appeal": (N_("the student asked for a second look"),),
    "appeal_remark": (N_("blind re-mark before seeing the released score"),),
    "skip_calibration": (N_("taken out of the calibration set before scoring"),),
    "withdraw_moderation": (N_("taken out of the moderation sample before its second mark"),),
}


def _pattern(template: str) -> re.Pattern:
    parts = re.split(r"\{(\w+)\}", template)   # literal, field, literal, ...
    return re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts)), re.S)


def reason_label(text: str | None, action: str | None = None) -> str:
    """An audit reason ("too_harsh, tone: note") with its reason codes as labels
    ("Too harsh, Tone: note"), a Message a page shows in its reader's language (the note as
    typed). A reason core wrote for `action` (HISTORY_REASONS) is read back as its Message too;
    free text (a reject note, a teacher's note) is left as it is."""
    if not text:
        return ""
    text = str(text)
    for template in HISTORY_REASONS.get(action, ()):
        if found := _pattern(template).fullmatch(text):
            return Message(template, **found.groupdict())
    codes, sep, rest = text.partition(": ")
    parts = codes.split(", ")
    if not all(p in REASONS for p in parts):
        return text
    return Message.joined("", [Message.joined(", ", [Message(REASONS[p]) for p in parts])]
                          + ([sep + rest] if sep else []))


def _value_text(field_name: str, value, limit: int | None = None):
    """A value of a change as a teacher reads it: a label is a Message (translated where shown),
    other values as they are, cut at `limit` characters (`shorten`)."""
    cut = (lambda v: shorten(v, limit)) if limit else str
    if value is None:
        return "—"
    if field_name == "status":
        return _label_message(STATUS_LABELS, value, limit)
    if field_name == "reason_codes" and isinstance(value, list):
        if not value:
            return "—"
        text = ", ".join(label(REASONS, v) for v in value)
        if limit and len(text) > limit:   # too long to show whole: cut, in English
            return cut(text)
        return Message.joined(", ", [_label_message(REASONS, v) for v in value])
    if isinstance(value, dict):  # per criterion (an appeal's reasons and scores)
        return cut("; ".join(f"{label({}, k)}: {v}" for k, v in value.items()) or "—")
    return cut(value)


def _label_message(mapping: dict, code, limit: int | None = None):
    """`label` as a Message when the code has a label (an unknown code reads as its words)."""
    text = label(mapping, code)
    if code in mapping and not (limit and len(text) > limit):
        return Message(mapping[code])
    return shorten(text, limit) if limit else text


def _change_line(c: dict, rubric: Rubric | None) -> Message:
    fld = c["field"]
    if fld.startswith("score: "):
        name = criterion_title(rubric, fld[len("score: "):])
    else:
        name = Message(_FIELD_LABELS[fld]) if fld in _FIELD_LABELS else label({}, fld)
    if fld == "opened_at":
        before, after = (shorten(format_timestamp(c[k]) or "—", 64) for k in ("before", "after"))
    elif fld == "comment":
        before, after = (shorten(f"“{shorten(_value_text(fld, c[k]))}”", 64) for k in ("before", "after"))
    else:
        before, after = _value_text(fld, c["before"], 64), _value_text(fld, c["after"], 64)
    return Message.joined("", [name, ": ", before, " → ", after])


def change_text(diff: list[dict], rubric: Rubric | None) -> Message:
    """`changes()` output as teachers read it: criterion titles, status and reason labels (a
    Message: a page shows the labels in its reader's language)."""
    return Message.joined("; ", [_change_line(c, rubric) for c in diff])


MONTHS = (N_("January"), N_("February"), N_("March"), N_("April"), N_("May"), N_("June"), N_("July"),
          N_("August"), N_("September"), N_("October"), N_("November"), N_("December"))   # as a date says them


def when_words(value, now=None) -> str:
    """How long ago a stored UTC timestamp was, in words; a day or more back, the date in words
    (a Message: a page shows it in its reader's language).

    >>> from datetime import datetime, timezone
    >>> now = datetime(2026, 12, 1, 16, 30, tzinfo=timezone.utc)
    >>> [when_words(t, now) for t in ("2026-12-01T16:29:40Z", "2026-12-01T16:28:00Z", "2026-12-01T13:10:00Z",
    ...                               "2026-11-29T21:27:43.687Z")]
    ['just now', '2 minutes ago', '3 hours ago', 'on 29 November 2026 at 21:27 UTC']
    """
    from datetime import datetime, timezone

    text = str(value or "").strip()
    try:
        at = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return ""
    at = at.replace(tzinfo=timezone.utc) if at.tzinfo is None else at.astimezone(timezone.utc)
    seconds = ((now or datetime.now(timezone.utc)) - at).total_seconds()
    if seconds < 60:
        return Message("just now")
    if seconds < 3600:
        return Message.plural("{count} minute ago", "{count} minutes ago", int(seconds // 60))
    if seconds < 24 * 3600:
        return Message.plural("{count} hour ago", "{count} hours ago", int(seconds // 3600))
    day = Message.joined(" ", [str(at.day), Message(MONTHS[at.month - 1]), str(at.year)])
    return Message("on {date} at {time} UTC", date=day, time=f"{at:%H:%M}")


def conflict_message(who: dict | None, diff: list[dict], rubric: Rubric | None, *, loaded: int | None = None,
                     latest: int | None = None, refused: bool = True, now=None) -> Message:
    """Why a save was refused (or will be), in a teacher's words: who saved first (their display
    name, `who["name"]`) and when in words, what they changed (criterion titles, labels, the
    comment; no codes), and, when given, the version the teacher opened and the latest one as
    the item's header numbers them. `refused`: a save was refused (else: it would be). Plain
    text (a Message, which a page shows in its reader's language): pages escape it when they
    show it as Markdown."""
    who = who or {}
    when = when_words(who.get("at"), now)
    name = who.get("name") or who.get("actor") or Message("Someone else")
    if refused:
        head = (Message("{name} saved this item {when} after you opened it, so your change was not saved.",
                        name=name, when=when) if when else
                Message("{name} saved this item after you opened it, so your change was not saved.", name=name))
    else:
        head = (Message("{name} saved this item {when} after you opened it.", name=name, when=when) if when else
                Message("{name} saved this item after you opened it.", name=name))
    first = [head]
    if loaded is not None and latest is not None:
        first.append(Message("You opened version {loaded}; the latest is version {latest} (the one named at the "
                             "top).", loaded=loaded, latest=latest))
    first.append(Message("What they changed:"))
    lines = [Message.joined("", ["- ", _change_line(c, rubric)]) for c in diff if c["field"] != "version"]
    return Message.joined("\n", [Message.joined(" ", first),
                                  *(lines or [Message.joined("", ["- ", Message(
                                      "nothing you can see (the item was only reopened)")])]),
                                  Message("Load the latest version, then make your change again.") if refused
                                  else Message("Saving is refused until you load the latest version.")])


def history_rows(history: list[dict], rubric: Rubric | None, person=str) -> list[dict]:
    """An item's audit history (db.reviews.history) as table rows with labels, not codes;
    `person`: user name -> the name shown (pages/_common.person: the display name). Its action,
    reason and change are Messages or labels (a page shows them with said); a typed reason as typed."""
    return [{"When": format_timestamp(h["at"]), "Who": person(h["actor"]), "Action": label(ACTION_LABELS, h["action"]),
             "Reason": reason_label(h["reason"], h.get("action")),
             "Change": change_text(changes(h["before"], h["after"]), rubric)}
            for h in history]


def student_score_rows(rows: list[dict], rubric: Rubric | None) -> list[dict]:
    """A student's released items (db.releases.student_released) as table rows: week, assignment,
    one column per criterion titled as in the rubric, total, release date."""
    out = []
    for r in rows:
        row = {"Week": r["week"], "Assignment": r["title"]}
        keys = list(rubric.keys) if rubric is not None else []
        for k in keys + [k for k in r["scores"] if k not in keys]:
            row[criterion_title(rubric, k)] = r["scores"].get(k)
        if rubric is not None and set(r["scores"]) >= set(rubric.keys):
            row["Total"] = f"{rubric.total(r['scores']):g} / {rubric.max_total:g}"
        row["Released"] = format_timestamp(r["released_at"])
        out.append(row)
    return out


# --- evidence quotes ----------------------------------------------------------------------
def find_quotes(text: str, quotes) -> list[tuple[int, int]]:
    """Non-overlapping (start, end) spans of the quotes found in the text (case-insensitive)."""
    low, spans = text.lower(), []
    for quote in quotes:
        quote = (quote or "").strip().strip('"“”').strip()
        if len(quote) < 3:
            continue
        i = low.find(quote.lower())
        if i >= 0:
            spans.append((i, i + len(quote)))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged


def highlight_markdown(text: str, quotes) -> str:
    """Student text as safe Markdown with the evidence quotes in bold (no HTML anywhere)."""
    out, pos = [], 0
    for s, e in find_quotes(text, quotes):
        out.append(escape_markdown(text[pos:s]))
        inner = escape_markdown(text[s:e])
        out.append(f"**{inner.strip()}**" if inner.strip() else inner)
        pos = e
    out.append(escape_markdown(text[pos:]))
    lines = []
    for line in "".join(out).split("\n"):
        # Leading spaces or tabs would make an indented code block (where escapes show
        # literally); non-breaking spaces keep the indentation as plain text.
        body = line.lstrip(" \t")
        indent = line[: len(line) - len(body)].replace("\t", "    ")
        lines.append("\u00a0" * len(indent) + body)
    # Two trailing spaces keep the student's line breaks.
    return "  \n".join(lines)


# --- the reasons a teacher gives for a change ------------------------------------------------
def check_reasons(reasons, note: str) -> list[str]:
    reasons = sorted(set(reasons or ()))
    bad = [r for r in reasons if r not in REASONS]
    if bad:
        raise FairMarkError(Message.plural("unknown reason code(s) {codes}; use one of {known}",
                                           "unknown reason code(s) {codes}; use one of {known}", len(bad),
                                           codes=bad, known=", ".join(REASONS)))
    if "other" in reasons and not (note or "").strip():
        raise FairMarkError(Message("reason 'other' needs a note saying what was wrong"))
    return reasons


def reason_text(reasons, note: str) -> str:
    return ", ".join(reasons) + (f": {note.strip()}" if (note or "").strip() else "")
