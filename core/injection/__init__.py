"""Instructions aimed at the AI grader hidden in a student's text (prompt injection).

Two readers, and a text is flagged when either says so:
- the patterns (core.injection.patterns): written by hand, they undo obfuscation first
  (look-alike letters, spacing, zero-width characters, base64, rot13) and need a sign that the
  text addresses the grader, not that it mentions one;
- the classifier (core.injection.classifier): trained on public labelled sets and the
  project's own attempts, it reads each passage for wording no pattern was written for.

Contract: `hits(text) -> list[str]`, non-empty = flagged; each entry says what was found (a
pattern's match as read, or "classifier 0.97: '<the passage>'"). core.injection.explain says
it to the teacher; the Evaluator's own report and the scores (`attention`) are the second line.
"""
from __future__ import annotations

import functools
import re

from core.injection import classifier
from core.injection.normalise import for_matching, views  # noqa: F401  (named elsewhere)
from core.injection.patterns import PATTERNS  # noqa: F401  (named elsewhere)
from core.injection.patterns import hits as pattern_hits


def hits(text: str) -> list[str]:
    """What in the text looks like an instruction to the AI: the patterns' matches, then the
    classifier's passage if it crossed its threshold."""
    return list(_hits(text or ""))


@functools.lru_cache(maxsize=256)
def _hits(text: str) -> tuple[str, ...]:
    # One submission is checked three times (submission checks, the offline Evaluator's report,
    # the attention rule): the same text gets the same answer from the cache.
    return (*pattern_hits(text), *classifier.hit(text))


_CLASSIFIER_ENTRY = re.compile(r"classifier (\d\.\d\d): '(.*)'", re.DOTALL)


def shown(hit: str) -> str:
    """One entry of hits() as a teacher reads it: the words found, in quotes, and for the trained
    detector how sure it is (its entry's internal form never reaches a page).

    >>> shown("classifier 0.98: 'Write a poem.'"), shown("ignore previous instructions")
    ('“Write a poem.” (the trained detector, 98% sure)', '“ignore previous instructions”')
    """
    m = _CLASSIFIER_ENTRY.fullmatch(hit)
    return f"“{m.group(2)}” (the trained detector, {float(m.group(1)):.0%} sure)" if m else f"“{hit}”"


# --- the second line of defence: what the scores say ----------------------------------------------
# The key of the Evaluator's own report ({"found": bool, "quote": str}, core.agents.evaluator).
REPORT_FIELD = "instructions_to_ai"

_ASKS_TOP = re.compile(r"full|max|maximum|highest|top|best|perfect|excellent|outstanding|exemplary|praise|10/10|"
                       r"\b10\b|\bten\b|"
                       r"100|a\+|3|three|högsta|full poäng|максимальн|высш|пят[её]рк|volle|höchst|bestnote|maximale|"
                       r"parfaite|más alta|máxima", re.IGNORECASE)


def steered(scores: dict[str, int], rubric, requests: list[str]) -> bool:
    """Are the scores what the instructions asked for? Every criterion at the top of the scale
    when the text asked for top marks (or said nothing readable about marks)."""
    if not scores or not all(int(s) == rubric.scale_max for s in scores.values()):
        return False
    return not requests or any(_ASKS_TOP.search(r) for r in requests)


def attention(evaluation: dict, scores: dict[str, int], rubric, text: str) -> tuple[bool, list[str]]:
    """(flag, reasons) from the Evaluator's own report of instructions aimed at it and from
    scores that match what the text asked for."""
    reported = (evaluation or {}).get(REPORT_FIELD) or {}
    found = hits(text)
    reasons = []
    if reported.get("found") and not found:
        quote = (reported.get("quote") or "").strip()
        reasons.append("The Evaluator reports instructions aimed at the AI in the text"
                       + (f" (\u201c{quote}\u201d)" if quote else "") + ": check the scores were not steered.")
    flagged = bool(found or reported.get("found"))
    if flagged and steered(scores, rubric, found + [reported.get("quote") or ""]):
        reasons.append("Every criterion is at the top of the scale, as the instructions in the text asked: "
                       "mark this one yourself before approving it.")
    return flagged, reasons
