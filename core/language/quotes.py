"""Whether a quotation occurs in a text, whatever the typography: the Evaluator's evidence quotes
and the comment's quotations are checked against the student's text this way (core.checks).
Swedish writes ”…”, Russian «…» and „…“, English "…" and “…”; dashes come as - – — −; Russian
writes ё or е for the same letter. All of these compare equal.
"""
from __future__ import annotations

import re
import unicodedata


def normalise(text: str) -> str:
    """Lower case, straight quotes (also « » „ ‚ ‹ ›), one hyphen, a dash (— – −, or a hyphen
    with a space beside it) as " - ", ё as е (Russian writes either), collapsed whitespace, no surrounding punctuation.

    >>> normalise("«Ещё — “пример”»") == normalise('"еще - "пример""') == normalise("еще–”пример”")
    True
    """
    text = unicodedata.normalize("NFKC", text or "").lower()
    text = text.translate(_TYPOGRAPHY)
    text = re.sub(r"\s*\u2014\s*|\s+-\s*|\s*-\s+", " - ", text)   # "слово—слово", "слово — слово", "слово - слово"
    text = re.sub(r"\s+", " ", text).strip()
    return text.strip(" .,;:!?\"'()[]-")


_TYPOGRAPHY = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u2039": "'", "\u203a": "'",
                             "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
                             "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "\u2014", "\u2212": "\u2014",
                             "\u2026": "...", "\u00ad": None, "ё": "е"})


def quote_found(quote: str, source: str) -> bool:
    q = normalise(quote)
    if not q:
        return True
    # "..." inside a quote marks an omission: every piece must occur, in order.
    pos, src = 0, normalise(source)
    for piece in [p.strip(" .,;:!?\"'") for p in q.split("...")]:
        if not piece:
            continue
        i = src.find(piece, pos)
        if i < 0:
            return False
        pos = i + len(piece)
    return True
