"""Which layout of the offline comment (core.offline.heuristics._layouts: the same words, from
short sentences to long ones) reads nearest the assignment's target level: by the Flesch-Kincaid
grade in English, by the language's own formula in Swedish and Russian (LIX, Oborneva's Flesch:
core.language.readability), as the readability check measures them (core.checks)."""
from __future__ import annotations

from core import checks
from core.language import readability


def nearest_grade(layouts: list[str], target: float) -> str:
    """The layout reading nearest the target grade: one within the checks' tolerance if any;
    otherwise rather simpler than harder (harder than target + tolerance fails the check)."""
    graded = [(checks.fk_grade(c), c) for c in layouts]
    ok = [g for g in graded if abs(g[0] - target) <= checks.READABILITY_TOLERANCE]
    easier = [g for g in graded if g[0] <= target + checks.READABILITY_TOLERANCE]
    return min(ok or easier or graded, key=lambda g: abs(g[0] - target))[1]


def nearest_level(layouts: list[str], target: float, language: str) -> str:
    """`nearest_grade` in Swedish or Russian, read by the readability check's own formula
    (core.language.readability.assess): a layout the check passes, the one nearest the middle of
    the target's band; else one only simpler than the band (a warning); else the least hard."""
    easy, hard = readability.target_range(target, language)
    lower_is_harder = language == "ru"          # Flesch reading ease: lower is harder; LIX: higher

    def outside(v: float) -> tuple[float, float]:   # (how much harder, how much easier) than the band
        return ((hard - v, v - easy) if lower_is_harder else (v - hard, easy - v))

    assessed = []
    for i, c in enumerate(layouts):
        found = readability.assess(c, target, language)
        harder_by, easier_by = outside(found["value"])
        assessed.append((found["verdict"], max(harder_by, easier_by), harder_by, i, c))
    ok = [a for a in assessed if a[0] == "ok"]
    if ok:
        return min(ok, key=lambda a: (a[1], a[3]))[4]
    easier = [a for a in assessed if a[0] == "easier"]
    if easier:
        return min(easier, key=lambda a: (a[1], a[3]))[4]
    return min(assessed, key=lambda a: (a[2], a[3]))[4]
