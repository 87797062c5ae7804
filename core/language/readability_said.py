"""core.language.readability's values and targets as Messages, said in the reader's language: the
readability check of a draft (core.checks) and the eval rule (core.evals.rules) give them in their
details and labels ("LIX 42 (medium)", "LIX 30-40 (easy) for grade 8"), the band said too.
"""
from __future__ import annotations

import math

from core.language import normalise as language_code
from core.language import readability as reading
from core.language.interface import N_, Message

# The reading-ease bands of Swedish LIX and Russian Flesch (core.language.readability.band).
BAND_NAMES = (N_("very easy"), N_("easy"), N_("fairly easy"), N_("medium"), N_("standard"), N_("fairly difficult"),
              N_("difficult"), N_("very difficult"))


def _band(v: float, language: str) -> Message:
    return Message(reading.band(v, language))


def value_shown(v: float, language: str) -> Message:
    """core.language.readability.shown as a Message: "LIX 42 (medium)", the band said too.

    >>> [value_shown(42.0, "sv") == reading.shown(42.0, "sv"), value_shown(72.0, "ru") == reading.shown(72.0, "ru")]
    [True, True]
    """
    language = language_code(language)
    if language == "sv":
        return Message("LIX {value} ({band})", value=f"{v:g}", band=_band(v, language))
    return Message("Flesch reading ease (Oborneva) {value} ({band})", value=f"{v:g}", band=_band(v, language))


def target_shown(grade: float, language: str) -> Message:
    """core.language.readability.target_shown (Swedish, Russian) as a Message.

    >>> all(target_shown(g, lang) == reading.target_shown(g, lang) for g in (3, 8, 16, 20) for lang in ("sv", "ru"))
    True
    """
    language = language_code(language)
    easy, hard = reading.target_range(grade, language)
    values = {"grade": f"{float(grade):g}", "easy": f"{easy:g}", "hard": f"{hard:g}"}
    if language == "sv":
        if math.isfinite(hard):
            return Message("LIX {easy}-{hard} ({band}) for grade {grade}", band=_band(easy, "sv"), **values)
        return Message("LIX {easy} or more ({band}) for grade {grade}", band=_band(easy, "sv"), **values)
    if math.isfinite(hard):
        return Message("reading ease {hard}-{easy} ({band}) for grade {grade}", band=_band(hard, "ru"), **values)
    return Message("reading ease below {easy} ({band}) for grade {grade}", band=_band(easy - 1, "ru"), **values)
