"""An assignment's answer key and source text: validated, then saved with its audit row.

The Settings page's assignment editor and the command line call `set_answer_key`; the leakage
rule (core.leakage) reads the key on every drafted comment, the grounding judge the source.
"""
from __future__ import annotations

from core.accounts import access
from core import leakage
from core.courses import catalogue
from core.accounts.access import Actor
from core.errors import ConfigError
from core.language.interface import Message

MAX_SOURCE_CHARS = 20_000


def fields(kind: str | None, value: str | None, tolerance: float | str | None = None,
           source: str | None = None) -> dict:
    """The assignment columns for an answer key (kind None or "none", or an empty value: no key).

    >>> fields("number", "3,0", "2")["answer_tolerance"]
    0.02
    >>> fields("none", "anything")["answer_key"] is None
    True
    """
    value = (value or "").strip()
    out: dict = {}
    if kind in (None, "", "none") or not value:
        out.update(answer_key=None, answer_kind=None, answer_tolerance=None)
    elif kind not in leakage.KINDS:
        raise ConfigError(Message("Answer key kind must be 'number' or 'text', not {kind!r}", kind=kind))
    else:
        tol = None
        if kind == "number":
            try:
                leakage.parse_number(value)
            except ValueError as e:
                raise ConfigError(Message("Answer key: {error}, or choose the kind 'text'",
                                          error=e.args[0] if len(e.args) == 1 else str(e))) from None
            tol = _tolerance(tolerance)
        out.update(answer_key=value, answer_kind=kind, answer_tolerance=tol)
    if source is not None:
        if len(source) > MAX_SOURCE_CHARS:
            raise ConfigError(Message("The source text has {count:,} characters; keep it under {max:,} (the part of "
                                      "the lesson the feedback may draw on)", count=len(source), max=MAX_SOURCE_CHARS))
        out["source_text"] = source.strip()
    return out


def _tolerance(tolerance) -> float:
    """Tolerance in percent as a person types it ("1", "0,5") -> a fraction (0.01)."""
    if tolerance in (None, ""):
        return leakage.DEFAULT_TOLERANCE
    try:
        pct = leakage.parse_number(str(tolerance))
    except ValueError:
        raise ConfigError(Message("Tolerance must be a percentage such as 1 or 0.5, not {tolerance!r}",
                                  tolerance=tolerance)) from None
    if not 0 <= pct <= 50:
        raise ConfigError(Message("Tolerance must be between 0 and 50 %, not {pct:g}", pct=pct))
    return round(pct / 100, 6)


def set_answer_key(conn, assignment_id: int, *, kind: str | None, value: str | None,
                   tolerance: float | str | None = None, source: str | None = None, actor: Actor) -> dict:
    """Set (or with kind None, clear) the answer key and, when given, the source text of an
    assignment; one transaction with its audit row. `tolerance` is in percent (default 1).
    Returns what changed."""
    access.check(conn, actor, "upload", assignment=assignment_id)
    return catalogue.edit_assignment(conn, assignment_id, actor=actor, **fields(kind, value, tolerance, source))


def describe(assignment: dict) -> str:
    """One line for pages and the CLI.

    >>> describe({"answer_key": "3", "answer_kind": "number", "answer_tolerance": 0.01})
    'number 3 (±1 %)'
    """
    key = leakage.key_of(assignment)
    if key is None:
        return "no answer key"
    if key.kind == "number":
        return f"number {key.value} (±{key.tolerance * 100:g} %)"
    return f"text “{key.value}”"
