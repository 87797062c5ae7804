"""How hard a text is to read, with a formula that exists for its language, against the
assignment's target reading level (stored as a school grade, 1-18, `assignment set
--target-grade`; the grade is the same setting in every language and is mapped per language):

- English: the Flesch-Kincaid grade (Kincaid et al. 1975), compared with the target grade
  directly (± 2 grades: core.checks argues the tolerance).
- Swedish: LIX (Björnsson, "Läsbarhet", 1968): words per sentence + the percentage of words
  longer than six letters. The published bands (as lix.se and Björnsson give them): under 30
  very easy (children's books), 30-40 easy (fiction, popular magazines), 40-50 medium (ordinary
  newspaper text), 50-60 difficult (official texts), over 60 very difficult (bureaucratic and
  academic Swedish). LIX has no grade scale, so FairMark maps the target grade to a band (its
  own choice, documented in docs/teacher.md): grades 1-6 very easy, 7-9 easy, 10-12 medium,
  13-15 difficult, 16-18 very difficult. Tolerance: 5 LIX points (half a band) either side.
- Russian: Oborneva's adaptation of the Flesch Reading Ease (I. V. Oborneva, "Автоматизированная
  оценка сложности учебных текстов на основе статистических параметров", PhD thesis, Moscow,
  2006): 206.835 - 1.3 × words per sentence - 60.1 × syllables per word, read on Flesch's own
  0-100 scale, whose published grade table (Flesch, "The Art of Readable Writing", 1949) maps
  the target: grade 5 or below 90-100, 6 80-90, 7 70-80, 8-9 60-70, 10-12 50-60, 13-16 30-50,
  17-18 below 30. Tolerance: 10 points (one of Flesch's bands) either side.

Syllables: English from pyphen's hyphenation (as before); Swedish = vowel groups (a e i o u y
å ä ö é, a run of vowels counts once); Russian = vowel letters (а е ё и о у ы э ю я: in
Russian spelling every vowel letter is its own syllable, so each "group" is one letter).

>>> assess("Du skriver tydligt. Vad vill du pröva nästa vecka?", 10, "sv")["verdict"]
'easier'
>>> round(lix("Du skriver tydligt. Vad vill du pröva nästa vecka?"), 1)
26.7
"""
from __future__ import annotations

import math
import re

import pyphen
import textstat

from core.language import normalise
from core.language import words as w

_PYPHEN = pyphen.Pyphen(lang="en_US")
_VOWEL_GROUP = {"sv": re.compile(r"[aeiouyåäöé]+", re.IGNORECASE), "ru": re.compile(r"[аеёиоуыэюя]", re.IGNORECASE)}

FORMULA = {"en": "Flesch-Kincaid grade", "sv": "LIX", "ru": "Flesch reading ease (Oborneva)"}
TOLERANCE = {"en": 2.0, "sv": 5.0, "ru": 10.0}
# (upper bound of the value, the band as a teacher reads it); LIX: higher is harder.
LIX_BANDS = ((30, "very easy"), (40, "easy"), (50, "medium"), (60, "difficult"), (math.inf, "very difficult"))
# Flesch reading ease: (lower bound, band, the highest school grade it suits); lower is harder.
FLESCH_BANDS = ((90, "very easy", 5), (80, "easy", 6), (70, "fairly easy", 7), (60, "standard", 9),
                (50, "fairly difficult", 12), (30, "difficult", 16), (-math.inf, "very difficult", 18))
_LIX_FOR_GRADE = ((6, 0), (9, 1), (12, 2), (15, 3), (18, 4))      # highest grade -> LIX band index


def fk_grade(text: str) -> float:
    """Flesch-Kincaid grade from textstat's word and sentence counts.

    Syllables come from pyphen (textstat's own fallback) because textstat's English path
    downloads NLTK's cmudict at run time, which fails offline and would make grades differ
    between machines.
    """
    n_words = textstat.lexicon_count(text or "")
    if not n_words:
        return 0.0
    sentences = max(1, textstat.sentence_count(text))
    syllables = sum(len(_PYPHEN.positions(x)) + 1 for x in re.findall(r"[A-Za-z]+", text))
    return round(0.39 * n_words / sentences + 11.8 * syllables / n_words - 15.59, 1)


def syllables(word: str, language: str) -> int:
    """Syllables of one word: vowel groups (Swedish), vowel letters (Russian), at least one."""
    language = normalise(language)
    if language == "en":
        return len(_PYPHEN.positions(word)) + 1
    return max(1, len(_VOWEL_GROUP[language].findall(word)))


def _letters(token: str) -> str:
    return "".join(c for c in token if c.isalpha())


def lix(text: str) -> float:
    """LIX: words per sentence + 100 × words of more than six letters / words."""
    toks = [t for t in w.tokens(text, "sv") if _letters(t)]
    if not toks:
        return 0.0
    n_sent = max(1, len(w.sentences(text, "sv")))
    long = sum(1 for t in toks if len(_letters(t)) > 6)
    return round(len(toks) / n_sent + 100 * long / len(toks), 1)


def oborneva(text: str) -> float:
    """Oborneva's Flesch reading ease for Russian: 206.835 - 1.3 ASL - 60.1 ASW."""
    toks = [t for t in w.tokens(text, "ru") if _letters(t)]
    if not toks:
        return 100.0
    n_sent = max(1, len(w.sentences(text, "ru")))
    n_syl = sum(syllables(t, "ru") for t in toks)
    return round(206.835 - 1.3 * len(toks) / n_sent - 60.1 * n_syl / len(toks), 1)


def value(text: str, language: str = "en") -> float:
    language = normalise(language)
    return {"en": fk_grade, "sv": lix, "ru": oborneva}[language](text)


def band(v: float, language: str) -> str:
    """The published band a value falls in ("medium", "fairly easy"); "" for English."""
    language = normalise(language)
    if language == "sv":
        return next(name for top, name in LIX_BANDS if v < top)
    if language == "ru":
        return next(name for low, name, _ in FLESCH_BANDS if v >= low)
    return ""


def target_range(grade: float, language: str) -> tuple[float, float]:
    """The values that read at the target school grade: (easiest, hardest) for Swedish LIX
    (low, high) and Russian Flesch (high, low); (grade, grade) for English."""
    language, g = normalise(language), float(grade)
    if language == "sv":
        i = next((band_i for top_grade, band_i in _LIX_FOR_GRADE if g <= top_grade), 4)
        lows = (0, 30, 40, 50, 60)
        return (lows[i], LIX_BANDS[i][0])
    if language == "ru":
        i = next((j for j, (_, _, top_grade) in enumerate(FLESCH_BANDS) if g <= top_grade), len(FLESCH_BANDS) - 1)
        high = 100.0 if i == 0 else FLESCH_BANDS[i - 1][0]
        return (high, FLESCH_BANDS[i][0])
    return (g, g)


def shown(v: float, language: str) -> str:
    """A value as a teacher reads it: "LIX 42 (medium)", "Flesch reading ease (Oborneva) 72
    (fairly easy)"; English grades are shown by core.checks.grade_text."""
    language = normalise(language)
    return f"{FORMULA[language]} {v:g} ({band(v, language)})"


def target_shown(grade: float, language: str) -> str:
    language = normalise(language)
    easy, hard = target_range(grade, language)
    if language == "sv":
        return f"LIX {easy:g}-{hard:g} ({band(easy, 'sv')}) for grade {float(grade):g}" if math.isfinite(hard) \
            else f"LIX {easy:g} or more ({band(easy, 'sv')}) for grade {float(grade):g}"
    if language == "ru":
        return (f"reading ease {hard:g}-{easy:g} ({band(hard, 'ru')}) for grade {float(grade):g}" if math.isfinite(hard)
                else f"reading ease below {easy:g} ({band(easy - 1, 'ru')}) for grade {float(grade):g}")
    return f"grade {float(grade):g}"


def assess(text: str, target_grade: float | None, language: str = "en", tolerance: float | None = None) -> dict:
    """{value, verdict: "ok" | "harder" | "easier" | "none" (no target), formula}: harder or
    easier than the target's range by more than the language's tolerance."""
    language = normalise(language)
    v = value(text, language)
    tol = TOLERANCE[language] if tolerance is None else float(tolerance)
    out = {"value": v, "formula": FORMULA[language], "language": language}
    if target_grade is None:
        return {**out, "verdict": "none"}
    easy, hard = target_range(target_grade, language)
    harder_by = {"en": v - hard, "sv": v - hard, "ru": hard - v}[language]
    easier_by = {"en": easy - v, "sv": easy - v, "ru": v - easy}[language]
    verdict = "harder" if harder_by > tol else "easier" if easier_by > tol else "ok"
    return {**out, "verdict": verdict}
