"""Words and sentences in English, Swedish and Russian: the one word split and the one sentence
split every feedback check uses (the 120-word limit, sentence length, readability, the
strengths-first opening, the Coach's question).

A word is a run of letters or digits (any script: å ä ö, Cyrillic with ё) that may go on
through a hyphen, an apostrophe or a full stop ("well-known", "из-за", "don't", "t.ex.",
"e.g.", "т.е."), and through a comma, colon or slash between digits ("3,5", "10:30", "3/4").
Anything else separates words: "слово,слово" is two words, "Stockholm–Uppsala" (en dash) two,
a dash or a number in brackets on its own is punctuation or one word ("—" none, "(1)" one).
A web address or an e-mail address is one word, as typed.

A sentence ends at ".", "!", "?" or "…" (one or more) followed by a space and a capital letter,
a digit, a quote or a dash, or at a line break or the end of the text. So a lower-case word
after a full stop goes on the sentence ("т. е. это", "bl. a. att"), and the few abbreviations
listed below (the language's and English's) do too when a capital follows ("t.ex. Kolb", "см. Выготский", "e.g. Kolb").
This is kept simple on purpose: an abbreviation not listed, followed by a capital, ends a
sentence.

>>> count("It's a well-known idea — e.g. (1) this."), count("Ett ord,ett till — och 3,5 kg.")
(7, 7)
>>> sentences("Bra början, t.ex. Kolb. Vad hände sen?", "sv")
['Bra början, t.ex. Kolb.', 'Vad hände sen?']
>>> sentences("Т. е. это так. См. Выготский, он прав.", "ru")
['Т. е. это так.', 'См. Выготский, он прав.']
"""
from __future__ import annotations

import functools
import re

from core.language import normalise

_JOIN = "-\u2010\u2011'\u2019\u02bc."     # hyphens, apostrophes and the full stop join letters
_WORD = re.compile(rf"[^\W_]+(?:(?:[{re.escape(_JOIN)}]|(?<=\d)[,:/](?=\d))[^\W_]+)*")
_ADDRESS = re.compile(r"://|@|^www\.", re.IGNORECASE)

# Abbreviations after which a capital letter does not start a new sentence (lower case, with
# their full stops, compared with the end of the text before the break).
ABBREVIATIONS = {
    "en": ("e.g.", "i.e.", "cf.", "vs.", "dr.", "mr.", "mrs.", "ms.", "prof.", "pp."),
    "sv": ("t.ex.", "bl.a.", "d.v.s.", "dvs.", "s.k.", "ca.", "p.g.a.", "jfr.", "kap.", "s.", "t.o.m.", "fr.o.m.",
           "prof.", "dr."),
    "ru": ("т.е.", "т.к.", "см.", "ср.", "напр.", "г.", "гг.", "в.", "вв.", "с.", "стр.", "рис.", "им.", "проф.",
           "акад.", "доц.", "и.о."),
}
_BREAK = re.compile(r"(?<=[.!?\u2026])([\"'\u201d\u00bb)]*)\s+|\n\s*")


def tokens(text: str | None, language: str = "en") -> list[str]:
    """The words of `text`, in order (see the module's rule; the same for every language)."""
    out: list[str] = []
    for chunk in (text or "").split():
        if _ADDRESS.search(chunk):
            out.append(chunk)
        else:
            out += _WORD.findall(chunk)
    return out


def count(text: str | None, language: str = "en") -> int:
    """The one word count (core.text.words is this)."""
    n = 0
    for chunk in (text or "").split():
        n += 1 if _ADDRESS.search(chunk) else sum(1 for _ in _WORD.finditer(chunk))
    return n


@functools.lru_cache(maxsize=8)
def _abbreviations(language: str) -> tuple[str, ...]:
    listed = set(ABBREVIATIONS.get(normalise(language), ())) | set(ABBREVIATIONS["en"])
    # Spaced forms ("т. е.", "bl. a.") are the same abbreviation.
    listed |= {a.replace(".", ". ").strip() for a in listed}
    return tuple(sorted(listed, key=len, reverse=True))


def sentences(text: str | None, language: str = "en") -> list[str]:
    """The sentences of `text`, stripped, in order (see the module's rule)."""
    text = text or ""
    abbreviations = _abbreviations(language)
    out, start = [], 0
    for m in _BREAK.finditer(text):
        if "\n" not in m.group(0):
            nxt = text[m.end():m.end() + 1]
            if nxt and nxt.isalpha() and not nxt.isupper():
                continue                                   # "т. е. это": a lower-case word goes on
            before = text[start:m.start()].lower()   # (closing quotes are not in an abbreviation)
            if any(before.endswith(a) and (len(before) == len(a) or not before[-len(a) - 1].isalnum())
                   for a in abbreviations):
                continue                                   # "t.ex. Kolb", "см. Выготский"
        piece = text[start:m.start() + len(m.group(1) or "")].strip()
        if piece:
            out.append(piece)
        start = m.end()
    if text[start:].strip():
        out.append(text[start:].strip())
    return out
