"""Seed 001's weighted rubric (OSCQR-based) with vetoes: a critical failure in factual
integrity or pedagogical alignment fails the lesson whatever its total.

>>> r = weigh({"factual_integrity": 0.9, "pedagogical_alignment": 0.8, "clarity_structure": 0.7,
...            "engagement_tone": 0.6})
>>> r.score, r.vetoed, r.passed
(0.775, [], True)
>>> r = weigh({"factual_integrity": 0.55, "pedagogical_alignment": 1, "clarity_structure": 1, "engagement_tone": 1})
>>> r.score, r.vetoed, r.passed
(0.843, ['factual_integrity'], False)
"""
from __future__ import annotations

from dataclasses import dataclass

from core.language.interface import N_


@dataclass(frozen=True)
class Dimension:
    key: str
    label: str
    weight: float
    veto_below: float | None      # a score under this fails the lesson whatever the total
    asks: str                     # what the judge checks (OSCQR standard in brackets)
    section_hint: str             # where a fix usually belongs when no quote points elsewhere


DIMENSIONS = (
    Dimension("factual_integrity", N_("Factual integrity"), 0.35, 0.6,
              "no invented or wrong facts, names, dates or numbers; claims agree with the source material",
              "body"),
    Dimension("pedagogical_alignment", N_("Pedagogical alignment"), 0.25, 0.5,
              "covers every learning objective at the audience's level; goes beyond definitions to "
              "application and open questions (OSCQR 2, 30)", "body"),
    Dimension("clarity_structure", N_("Clarity & structure"), 0.20, None,
              "introduction -> body -> conclusion with signposting; reading level fits the audience "
              "throughout (OSCQR 19, 34)", "conclusion"),
    Dimension("engagement_tone", N_("Engagement & tone"), 0.20, None,
              "a hook that draws the learner in; real-world examples, analogies; a warm, not "
              "patronising tone (OSCQR 31)", "introduction"),
)
KEYS = tuple(d.key for d in DIMENSIONS)
BY_KEY = {d.key: d for d in DIMENSIONS}
PASS_MARK = 0.75          # below this (after fixes) a teacher reviews the whole lesson


@dataclass(frozen=True)
class Weighed:
    score: float                  # weighted total, 0..1
    vetoed: list[str]             # dimensions under their veto threshold
    scores: dict[str, float]

    @property
    def passed(self) -> bool:
        return not self.vetoed and self.score >= PASS_MARK


def weigh(scores: dict[str, float]) -> Weighed:
    """The weighted total (rounded to 3 places) and the vetoed dimensions."""
    missing = [k for k in KEYS if k not in scores]
    if missing:
        raise ValueError(f"no score for {missing}")
    total = sum(BY_KEY[k].weight * float(scores[k]) for k in KEYS)
    vetoed = [d.key for d in DIMENSIONS if d.veto_below is not None and float(scores[d.key]) < d.veto_below]
    return Weighed(round(total, 3), vetoed, {k: float(scores[k]) for k in KEYS})


def weakest(scores: dict[str, float]) -> str:
    """The dimension a fix should target: a vetoed one first, then the one whose shortfall
    costs the most weighted points."""
    vetoed = [d for d in DIMENSIONS if d.veto_below is not None and scores[d.key] < d.veto_below]
    if vetoed:
        return min(vetoed, key=lambda d: scores[d.key] - d.veto_below).key
    return max(DIMENSIONS, key=lambda d: d.weight * (1 - scores[d.key])).key


def rubric_text() -> str:
    """The rubric as the judge reads it."""
    lines = []
    for d in DIMENSIONS:
        veto = f"; VETO: below {d.veto_below} fails the lesson" if d.veto_below is not None else ""
        lines.append(f"- {d.key} ({d.label}, weight {d.weight:.0%}{veto}): {d.asks}")
    return "\n".join(lines)
