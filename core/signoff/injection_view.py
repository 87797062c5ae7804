"""What a teacher sees of an injection flag: what was found, where in the submission, and
whether the scores look steered, with the passages highlighted in the text (safe Markdown: the
student's text is escaped, the highlight is Streamlit's :orange-background[...] around it).
"""
from __future__ import annotations

import re

from core import injection
from core.injection import classifier
from core.signoff.labels import find_quotes
from core.text import escape_markdown


def _where(start: int, length: int) -> str:
    share = start / max(1, length)
    return "at the start" if share < 0.2 else "at the end" if share > 0.8 else "in the middle"


def _span_of(text: str, quote: str) -> tuple[int, int] | None:
    """The quote in the text, spaces and case aside (a pattern matched a normalised view)."""
    words = re.findall(r"\w+|[^\w\s]", quote)
    if not words:
        return None
    m = re.search(r"\s*".join(re.escape(w) for w in words), text, re.IGNORECASE)
    return (m.start(), m.end()) if m else None


def _narrowest(text: str, s: int, e: int) -> tuple[int, int]:
    """Of the classifier's passage (two sentences), the sentence that reads most like an
    instruction, when it does so on its own."""
    inner = [(s + a, s + b) for a, b in classifier.sentences(text[s:e])]
    m = classifier.model()
    if len(inner) < 2 or m is None:
        return s, e
    probs = m.probabilities([injection.for_matching(text[a:b]) for a, b in inner])
    best = int(probs.argmax())
    return inner[best] if probs[best] >= m.threshold / 2 else (s, e)


def findings(text: str) -> list[dict]:
    """[{quote, start, end, where, by}] for each thing core.injection.hits found; start/end are
    None when the words are disguised (spaced out, encoded) and cannot be pointed at."""
    text = text or ""
    out = []
    for h in injection.hits(text):
        if h.startswith("classifier "):
            best = classifier.found(text)
            if best is None:
                continue
            s, e = _narrowest(text, best[1], best[2])
            by = f"the trained detector ({best[0]:.0%} sure)"
        else:
            span = _span_of(text, h)
            s, e = span if span else (None, None)
            by = "a pattern"
        quote = " ".join((text[s:e] if s is not None else h).split())
        if any(f["start"] is not None and s is not None and f["start"] <= s < f["end"] for f in out):
            continue                                   # the same place, found twice
        out.append({"quote": quote, "start": s, "end": e, "by": by,
                    "where": _where(s, len(text)) if s is not None else "in a disguised form"})
    return out


def steering(scores: dict, rubric, evaluation: dict, found: list[dict]) -> str:
    """Whether the scores look steered, in a sentence."""
    report = (evaluation or {}).get(injection.REPORT_FIELD) or {}
    told = (" The Evaluator also reported instructions aimed at it." if report.get("found") else
            " The Evaluator did not report them: it may have read them as part of the essay.")
    if scores and injection.steered({k: int(v) for k, v in scores.items()}, rubric, [f["quote"] for f in found]):
        return ("The scores look steered: every criterion is at the top of the scale, as the text asks. "
                "Mark it yourself before approving." + told)
    return "The scores are not all at the top of the scale, but check them against the text yourself." + told


def summary(text: str, scores: dict, rubric, evaluation: dict | None = None) -> dict | None:
    """{message, steering, findings, spans} for a flagged submission, None for a clean one."""
    found = findings(text)
    if not found:
        return None
    parts = [f"“{f['quote'] if len(f['quote']) <= 120 else f['quote'][:118] + '…'}” {f['where']} "
             f"(found by {f['by']})" for f in found]
    message = "The submission seems to give the AI instructions: " + "; ".join(parts) + "."
    return {"message": message, "steering": steering(scores, rubric, evaluation or {}, found), "findings": found,
            "spans": [(f["start"], f["end"]) for f in found if f["start"] is not None]}


def highlight_markdown(text: str, quotes, flagged: list[tuple[int, int]], notes=()) -> str:
    """The submission as safe Markdown: evidence quotes in bold, flagged passages with an
    orange background, passages of notes on the text (core.signoff.anchored_notes: {number,
    start, end}) with a blue one and the note's number after them (line by line: a directive
    does not span lines)."""
    noted = [(n["start"], n["end"], n["number"]) for n in notes
             if 0 <= n["start"] < n["end"] <= len(text) and not any(a < n["end"] and n["start"] < b for a, b in flagged)]
    taken = list(flagged) + [(s, e) for s, e, _ in noted]
    marks = [(s, e, "flag", 0) for s, e in flagged] + [(s, e, "note", k) for s, e, k in noted] + [
        (s, e, "bold", 0) for s, e in find_quotes(text, quotes) if not any(a < e and s < b for a, b in taken)]
    style = {"flag": ":orange-background[{}]", "note": ":blue-background[{}]", "bold": "**{}**"}
    out, pos = [], 0
    for s, e, kind, number in sorted(marks):
        if s < pos:
            continue
        out.append(escape_markdown(text[pos:s]))
        lines = []
        for line in text[s:e].split("\n"):
            body = escape_markdown(line.strip())
            lines.append(style[kind].format(body) if body else "")
        out.append("\n".join(lines) + (f" :blue-badge[{number}]" if kind == "note" else ""))
        pos = e
    out.append(escape_markdown(text[pos:]))
    lines = []
    for line in "".join(out).split("\n"):
        body = line.lstrip(" \t")       # leading spaces would make a code block
        lines.append("\u00a0" * (len(line) - len(body)) + body)
    return "  \n".join(lines)
