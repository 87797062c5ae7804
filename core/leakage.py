"""Does a feedback comment give the answer away? Seed 003's rule check against the answer key.

The seed's rule, exactly:
- a numeric answer is given away when a number in the reply lies within `tolerance` of it,
  relative, and at least `tolerance` absolute: |x - answer| <= tolerance * max(|answer|, 1),
  with tolerance 1 % by default; numbers that already occur in the question do not count;
- a text answer is given away when it occurs in the reply, case-insensitively.

How numbers are read. Every number the seed's pattern (-?\\d+(?:[.,]\\d+)?) reads is read the
same way (so "3,0" is 3.0: a decimal comma), and a few readings are added, all towards caution,
because a missed leak reaches a student while a false alarm only costs a revision:
thousands separators ("1,000", "1 000", "1.000.000"), percentages ("25 %" is also 0.25),
fractions ("3/4" is also 0.75), scientific notation ("1.5e3") and the Unicode minus ("−2").
A hyphen between two digits ("2-3") is read both as a range and as a sign. Units do not matter
("3.0 m/s", "3kg"). Numbers written as words ("three") are not read: the grounding and
pedagogy judges are the second line there. An empty answer never counts as given away.

>>> gives_away_answer("After one step w becomes 3.0.", 3.0, question="What is w after one step?")
True
>>> gives_away_answer("Recompute the gradient first, then take one step.", 3.0)
False
>>> gives_away_answer("Start from w = 3 as the question says.", 3.0, question="w starts at 3; what is w after 0 steps?")
False
>>> gives_away_answer("Det blir 2,97 ungefär.", 3.0)       # decimal comma, within 1 %
True
>>> gives_away_answer("It is about 2.9.", 3.0)            # 3.3 % off
False
>>> gives_away_answer("The loss drops to -0.5 per step.", -0.5)
True
>>> gives_away_answer("A length of 12.01 m.", 12)         # units do not matter
True
>>> gives_away_answer("Close to 0.009.", 0.0)             # at least 0.01 absolute
True
>>> gives_away_answer("Try writing DEF ANTAL_VOKALER(text): first.", "def antal_vokaler")
True
>>> gives_away_answer("Think about how to count vowels.", "def antal_vokaler")
False
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from core.language.interface import Message

DEFAULT_TOLERANCE = 0.01
KINDS = ("number", "text")

_SEED = re.compile(r"-?\d+(?:[.,]\d+)?")                 # the seed's own pattern
_MINUS = str.maketrans({"\u2212": "-", "\u2012": "-", "\u2013": "-", "\ufe63": "-", "\uff0d": "-"})
_GROUPED = re.compile(r"(?<![\d.,])-?\d{1,3}(?:([,. \u00a0\u202f])\d{3})+(?:[.,]\d+)?(?![\d])")
_PERCENT = re.compile(r"(-?\d+(?:[.,]\d+)?)\s*(?:%|percent\b|per cent\b|procent\b)", re.IGNORECASE)
_FRACTION = re.compile(r"(?<![\d.,/])(-?\d+)\s*/\s*(\d+)(?![\d/]|[.,]\d)")
_SCIENTIFIC = re.compile(r"-?\d+(?:[.,]\d+)?[eE][-+]?\d+")
_DASHED = re.compile(r"(?<=\d)-(\d+(?:[.,]\d+)?)")       # "2-3": also the unsigned 3
# The numbers of a numbered list of actions ("(1) ... (2) ...", "3. " or "3) " starting a line)
# label the steps; they state nothing (the comments' own format: core.checks.check_actions).
_LIST_MARKER = re.compile(r"\(\d{1,2}\)|(?:^|(?<=\n))[ \t]*\d{1,2}[.)](?=\s)")


@dataclass(frozen=True)
class AnswerKey:
    """An assignment's answer: `kind` number | text, `value` as the teacher typed it, the
    relative `tolerance` of a numeric answer and the `question` whose numbers do not count."""
    kind: str
    value: str
    tolerance: float = DEFAULT_TOLERANCE
    question: str = ""

    @property
    def answer(self) -> float | str:
        """The value the rule compares with: a float for a numeric key ("3,0" -> 3.0)."""
        if self.kind == "number":
            return parse_number(self.value)
        return self.value


def key_of(assignment: dict) -> AnswerKey | None:
    """The answer key of an assignment row (None without one). A key stored before keys had a
    kind is numeric when it reads as a plain number, else text.

    >>> key_of({"answer_key": "3,0", "prompt": "What is w?"})
    AnswerKey(kind='number', value='3,0', tolerance=0.01, question='What is w?')
    >>> key_of({"answer_key": "  "}) is None
    True
    """
    value = str(assignment.get("answer_key") or "").strip()
    if not value:
        return None
    kind = assignment.get("answer_kind")
    if kind not in KINDS:
        try:
            parse_number(value)
            kind = "number"
        except ValueError:
            kind = "text"
    tolerance = assignment.get("answer_tolerance")
    return AnswerKey(kind, value, DEFAULT_TOLERANCE if tolerance is None else float(tolerance),
                     str(assignment.get("prompt") or ""))


def parse_number(text: str) -> float:
    """A number as a teacher types it: decimal comma or point, Unicode minus, spaces ignored.

    >>> parse_number(" −2,5 "), parse_number("1 000"), parse_number("3")
    (-2.5, 1000.0, 3.0)
    """
    cleaned = re.sub(r"[\s\u00a0\u202f]", "", str(text).translate(_MINUS)).replace(",", ".")
    try:
        value = float(cleaned)
    except ValueError:
        raise ValueError(Message("{text!r} is not a number: type digits with a decimal point or comma, e.g. 3.5",
                                 text=text)) from None
    if not math.isfinite(value):
        raise ValueError(Message("{text!r} is not a finite number", text=text))
    return value


def _float(token: str) -> float | None:
    try:
        return float(token.replace(",", "."))
    except ValueError:
        return None


def numbers(text: str) -> list[tuple[str, float]]:
    """Every (as written, value) reading of the numbers in `text` (see the module docstring).

    >>> sorted({v for _, v in numbers("1,000 students, 25 % of them, 3/4 or 2-3")})
    [-3.0, 0.25, 0.75, 1.0, 2.0, 3.0, 4.0, 25.0, 1000.0]
    >>> numbers("Next: (1) redo it. (3) check it.\\n2. Then ask: is it 3?")
    [('3', 3.0)]
    """
    text = _LIST_MARKER.sub(" ", (text or "").translate(_MINUS))
    found: list[tuple[str, float]] = []

    def add(written: str, value: float | None) -> None:
        if value is not None and math.isfinite(value):
            found.append((written.strip(), value))

    for m in _SEED.finditer(text):
        add(m.group(0), _float(m.group(0)))
    for m in _DASHED.finditer(text):
        add(m.group(1), _float(m.group(1)))
    for m in _GROUPED.finditer(text):
        sep = m.group(1)
        digits = m.group(0)
        # The grouping separator goes; a different last separator is the decimal mark.
        body, _, tail = digits.rpartition(sep)
        rest = re.match(r"(\d{3})(?:[.,](\d+))?$", tail)
        if rest:
            whole = body.replace(sep, "") + rest.group(1)
            add(digits, _float(whole + (f".{rest.group(2)}" if rest.group(2) else "")))
    for m in _PERCENT.finditer(text):
        value = _float(m.group(1))
        add(m.group(0), None if value is None else value / 100)
    for m in _FRACTION.finditer(text):
        if int(m.group(2)):
            add(m.group(0), int(m.group(1)) / int(m.group(2)))
    for m in _SCIENTIFIC.finditer(text):
        add(m.group(0), _float(m.group(0)))
    return found


def _close(x: float, answer: float, tolerance: float) -> bool:
    return abs(x - answer) <= tolerance * max(abs(answer), 1.0)


def _normal_text(text: str) -> str:
    return re.sub(r"\s+", " ", str(text or "")).strip().lower()


def leaks(reply: str, answer: float | int | str, *, question: str = "",
          tolerance: float = DEFAULT_TOLERANCE) -> list[str]:
    """What in `reply` gives `answer` away, as written there (empty: nothing).

    >>> leaks("Is it 3.0, or 3,01, or 4?", 3)
    ['3.0', '3,01']
    """
    if isinstance(answer, str):
        key = _normal_text(answer)
        return [answer.strip()] if key and key in _normal_text(reply) else []
    in_question = {round(v, 9) for _, v in numbers(question)}
    hits: list[str] = []
    for written, value in numbers(reply):
        if round(value, 9) in in_question:
            continue
        if _close(value, float(answer), tolerance) and written not in hits:
            hits.append(written)
    return hits


def gives_away_answer(reply: str, answer: float | int | str, *, question: str = "",
                      tolerance: float = DEFAULT_TOLERANCE) -> bool:
    """Seed 003's `ger_bort_facit`: is the answer key in the reply? (module docstring)"""
    return bool(leaks(reply, answer, question=question, tolerance=tolerance))


def check(comment: str, key: AnswerKey | None) -> list[dict]:
    """The comment check (core.checks shape) for an assignment with an answer key; none without.

    >>> check("w becomes 3.", AnswerKey("number", "3,0"))[0]["passed"]
    False
    >>> check("w becomes 3.", None)
    []
    """
    if key is None or not str(key.value).strip():
        return []
    found = leaks(comment, key.answer, question=key.question, tolerance=key.tolerance)
    detail = (Message("the comment states {found}, the answer the student must find themselves (answer key: "
                      "{answer}); lead them towards it with a question or a hint instead",
                      found=", ".join(f'"{f}"' for f in found), answer=key.value)
              if found else Message("the answer key is not in the comment"))
    return [{"name": "leakage", "label": Message("Does not give the answer away"), "passed": not found,
             "detail": detail, "severity": "info" if not found else "fail"}]
