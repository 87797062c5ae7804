"""The Rubric builder without a language model: a template per common shape, picked from the
teacher's description by simple parsing (the kind of work, how many criteria, which scale), and
said plainly to be a template.

>>> shape("a weekly reflection on applying statistics at work, 3 criteria, 0–3")
Shape(kind='reflection', criteria=3, scale_min=0, scale_max=3)
>>> shape("Argumentative essay, four criteria scored 1 to 6")
Shape(kind='essay', criteria=4, scale_min=1, scale_max=6)
>>> shape("short answer question")
Shape(kind='short_answer', criteria=1, scale_min=0, scale_max=2)
>>> [c["key"] for c in template(shape("lab report, 2 criteria"))["criteria"]]
['method', 'results']
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from core.language.interface import N_, Message

MAX_CRITERIA, MAX_LEVELS = 8, 11

# kind -> (words that name it, default criteria count, default scale, criteria (key, title, focus))
KINDS = {
    "reflection": (("reflection", "reflect", "journal", "learning log"), 3, (0, 3), (
        ("understanding", "Understanding", "explains the week's ideas accurately in their own words"),
        ("application", "Application", "applies the ideas to a concrete situation from their work or life"),
        ("reflection_depth", "Reflection depth", "questions assumptions and says what they would do next"),
        ("clarity", "Clarity", "writes in a clear, organised way"),
    )),
    "essay": (("essay", "argument", "paper"), 4, (1, 6), (
        ("argument", "Argument", "states a clear position and develops it"),
        ("evidence", "Evidence", "supports each claim with relevant, accurate evidence"),
        ("organisation", "Organisation", "orders the ideas logically with clear paragraphs"),
        ("language", "Language", "uses precise, correct language"),
        ("sources", "Use of sources", "cites and discusses its sources"),
    )),
    "short_answer": (("short answer", "short-answer", "quiz", "question"), 1, (0, 2), (
        ("correctness", "Correctness", "gives a correct, complete answer"),
        ("justification", "Justification", "shows the reasoning behind the answer"),
    )),
    "lab_report": (("lab report", "lab", "experiment", "report"), 3, (0, 4), (
        ("method", "Method", "describes what was done so that it could be repeated"),
        ("results", "Results", "presents the results accurately"),
        ("analysis", "Analysis", "interprets the results and their limits"),
        ("presentation", "Presentation", "presents the report clearly"),
    )),
}
# From the lowest level to the highest; a scale of n levels takes n of them, spread evenly.
_QUALITY = ("Missing or off-topic:", "Minimal:", "Partial:", "Adequate:", "Clear:", "Strong:", "Excellent:")
_NUMBERS = {w: i for i, w in enumerate(("zero one two three four five six seven eight nine ten").split())}
_COUNT = re.compile(r"\b(\d+|" + "|".join(_NUMBERS) + r")\s+(?:criteria|criterion|dimensions|traits)\b", re.I)
_SCALE = re.compile(r"\b(\d{1,2})\s*(?:-|–|—|to|\.\.)\s*(\d{1,2})\b")


@dataclass(frozen=True)
class Shape:
    kind: str
    criteria: int
    scale_min: int
    scale_max: int


def shape(description: str) -> Shape:
    """The kind, criteria count and scale a description names (the kind's defaults otherwise)."""
    text = (description or "").lower()
    kind = next((k for k, (words, *_rest) in KINDS.items() if any(w in text for w in words)), "reflection")
    _words, count, (lo, hi), _crit = KINDS[kind]
    if m := _COUNT.search(text):
        count = int(m.group(1)) if m.group(1).isdigit() else _NUMBERS[m.group(1).lower()]
    if (m := _SCALE.search(text)) and int(m.group(1)) < int(m.group(2)):
        lo, hi = int(m.group(1)), int(m.group(2))
    count = min(max(count, 1), MAX_CRITERIA)
    hi = min(hi, lo + MAX_LEVELS - 1)
    return Shape(kind, count, lo, hi)


def _descriptors(focus: str, lo: int, hi: int) -> dict[int, str]:
    n = hi - lo + 1
    words = [_QUALITY[round(i * (len(_QUALITY) - 1) / (n - 1))] for i in range(n)]
    return {lo + i: f"{word} {focus}." for i, word in enumerate(words)}


def template(s: Shape, name: str = "") -> dict:
    """The template rubric (a dict parse_rubric accepts) for a shape."""
    _words, _count, _scale, pool = KINDS[s.kind]
    crits = list(pool[:s.criteria]) + [(f"criterion_{i}", f"Criterion {i}", "meets this criterion")
                                       for i in range(len(pool) + 1, s.criteria + 1)]
    label = s.kind.replace("_", " ")
    return {"name": name or f"{label.capitalize()} rubric (template)",
            "description": f"Template for a {label}: {s.criteria} criteria scored {s.scale_min}-{s.scale_max}.",
            "scale_min": s.scale_min, "scale_max": s.scale_max,
            "criteria": [{"key": key, "title": title, "description": focus[0].upper() + focus[1:] + ".",
                          "levels": _descriptors(focus, s.scale_min, s.scale_max), "guidance": ""}
                         for key, title, focus in crits]}


# The kinds as the template's note names them ("a lab report rubric").
KIND_WORDS = {"reflection": N_("reflection"), "essay": N_("essay"), "short_answer": N_("short answer"),
              "lab_report": N_("lab report")}


def plural(singular: str, many: str) -> tuple[str, str]:
    """Marks a message's two English forms (tests/i18n_scan.py reads them); Message.plural picks one."""
    return singular, many


NOTE = plural("This is a template, not written by a language model: a {kind} rubric with {count} criterion scored "
              "{low}–{high}, chosen from your description. Edit the wording before you save it.",
              "This is a template, not written by a language model: a {kind} rubric with {count} criteria scored "
              "{low}–{high}, chosen from your description. Edit the wording before you save it.")


def note(s: Shape) -> Message:
    """What the teacher is told about a template (a Message: a page shows it in the reader's language).

    >>> str(note(Shape("lab_report", 1, 0, 2)))[:96]
    'This is a template, not written by a language model: a lab report rubric with 1 criterion scored'
    """
    kind = KIND_WORDS.get(s.kind)
    return Message.plural(NOTE[0], NOTE[1], s.criteria, kind=Message(kind) if kind else s.kind.replace("_", " "),
                          low=s.scale_min, high=s.scale_max)
