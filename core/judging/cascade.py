"""Seed 001's judge cascade, generic over what is judged and how it is scored.

    tier 0  the caller's free checks: a clear case never reaches a judge
    tier 1  one judge at temperature 0: settled when the caller's `settled(vote)` says so
            (every criterion confident and away from a decision boundary)
    tier 2  CLEV: a judge from another model; if it agrees with tier 1 on every criterion the
            item is settled, otherwise a third judge breaks the tie

Per criterion the result is the weighted majority of the votes on an ordinal scale (the
weighted median when no level has a majority) or the weighted mean on a continuous 0-1 scale.
A criterion whose judges could not agree (all three differ, or a judge failed and the two left
differ) is "unsure": the item goes to a teacher. Calls are saved by asking the second and third
judges only where the first is unsure. Seed 001 reports 67 % fewer calls than voting three
times; that is the saving on an item settled at tier 1 (1 call of 3), the most any cascade can
save while every item needs its first judge; with its own 20 % of items at 3 calls it is 53 %.

The cascade knows nothing of prompts or models: a judge is a callable `tier -> Vote | None`
(None when it failed after its retries; the caller records why).

>>> a = lambda tier: Vote("a", tier, {"x": 2}, {"x": 0.95})
>>> run(a, [], scale=ORDINAL, settled=lambda v: v.confidence["x"] >= 0.85).tier
1
>>> b = lambda tier: Vote("b", tier, {"x": 2})
>>> c = lambda tier: Vote("c", tier, {"x": 3})
>>> out = run(lambda t: Vote("a", t, {"x": 3}), [b, c], scale=ORDINAL, settled=lambda v: False)
>>> out.scores, [v.judge for v in out.votes], out.unsure
({'x': 3.0}, ['a', 'b', 'c'], [])
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Vote:
    judge: str                                   # which judge (a model alias)
    tier: int                                    # 1, or 2 for the consensus step
    scores: Mapping[str, float]                  # criterion -> level (ordinal) or 0..1 (continuous)
    confidence: Mapping[str, float | None] = field(default_factory=dict)  # criterion -> 0..1, None unknown
    weight: float = 1.0
    answer: object = None                        # the judge's full answer, for the record


@dataclass(frozen=True)
class Scale:
    """How votes on one criterion compare and combine."""
    kind: str                 # "ordinal" | "continuous"
    tolerance: float = 0.0    # continuous: scores within this distance agree

    def agree(self, a: float, b: float) -> bool:
        return a == b if self.kind == "ordinal" else abs(a - b) <= self.tolerance + 1e-12

    def combine(self, values: Sequence[float], weights: Sequence[float]) -> float:
        """Weighted majority (median on ties) for levels; weighted mean for continuous scores.

        >>> ORDINAL.combine([1, 2, 2], [1, 1, 1]), ORDINAL.combine([1, 3], [1, 1])
        (2.0, 1.0)
        >>> ORDINAL.combine([1, 2, 3], [1, 1, 1]), ORDINAL.combine([1, 3], [0.4, 0.6])
        (2.0, 3.0)
        >>> round(Scale("continuous", 0.1).combine([0.8, 0.6], [3, 1]), 3)
        0.75
        """
        if self.kind == "continuous":
            return float(sum(v * w for v, w in zip(values, weights)) / sum(weights))
        totals: dict[float, float] = {}
        for v, w in zip(values, weights):
            totals[float(v)] = totals.get(float(v), 0.0) + w
        best = max(totals.values())
        leaders = [v for v, t in totals.items() if math.isclose(t, best)]
        if len(leaders) == 1:
            return leaders[0]
        return weighted_median(values, weights)


ORDINAL = Scale("ordinal")


def weighted_median(values: Sequence[float], weights: Sequence[float]) -> float:
    """The smallest value at which half of the weight is reached (the lower median on ties).

    >>> weighted_median([3, 1, 2], [1, 1, 1]), weighted_median([1, 3], [1, 1]), weighted_median([1, 3], [1, 2])
    (2.0, 1.0, 3.0)
    """
    pairs = sorted(zip(map(float, values), weights))
    half, run_total = sum(weights) / 2, 0.0
    for v, w in pairs:
        run_total += w
        if run_total >= half - 1e-12:
            return v
    return pairs[-1][0]


@dataclass
class Outcome:
    scores: dict[str, float]          # the result per criterion
    votes: list[Vote]                 # every vote cast, in order
    tier: int                         # 1: settled by the first judge; 2: after the consensus step
    unsure: list[str]                 # criteria the judges could not agree on
    notes: list[str] = field(default_factory=list)
    # False when the first judge was not sure and no other judge was there to settle it
    settled: bool = True

    @property
    def disagreed(self) -> bool:
        return bool(self.unsure)


Judge = Callable[[int], "Vote | None"]
# The notes an Outcome may carry (callers that record why a judge failed can leave these out).
NO_SECOND_JUDGE = "no second judge is configured: the first judge's scores stand"
SECOND_FAILED, THIRD_FAILED = "the second judge failed", "the third judge failed"


def run(first: Judge, others: Sequence[Judge], *, scale: Scale, settled: Callable[[Vote], bool]) -> Outcome:
    """Judge one item: the first judge, then (unless settled) the consensus step with `others`
    (the second judge, then the third only where the two disagree). The first judge failing is
    the caller's business (it raises or returns None: then there is nothing to settle)."""
    v1 = first(1)
    if v1 is None:
        raise ValueError("the first judge gave no vote")
    if settled(v1) or not others:
        sure = settled(v1)
        notes = [] if sure else [NO_SECOND_JUDGE]
        return Outcome({k: float(s) for k, s in v1.scores.items()}, [v1], 1, [], notes, settled=sure)
    votes, notes = [v1], []
    v2 = others[0](2)
    if v2 is None:
        notes.append(SECOND_FAILED)
    else:
        votes.append(v2)
        if all(scale.agree(v1.scores[k], v2.scores.get(k, math.nan)) for k in v1.scores):
            return _combine(votes, scale, 2, notes)
    if len(others) > 1:
        v3 = others[1](2)
        if v3 is None:
            notes.append(THIRD_FAILED)
        else:
            votes.append(v3)
    return _combine(votes, scale, 2, notes)


def _combine(votes: list[Vote], scale: Scale, tier: int, notes: list[str]) -> Outcome:
    scores, unsure = {}, []
    for key in votes[0].scores:
        cast = [(float(v.scores[key]), v.weight) for v in votes if key in v.scores]
        values, weights = [c[0] for c in cast], [c[1] for c in cast]
        scores[key] = scale.combine(values, weights)
        if not _some_pair_agrees(values, scale):
            unsure.append(key)
    return Outcome(scores, votes, tier, unsure, notes, settled=not unsure)


def _some_pair_agrees(values: list[float], scale: Scale) -> bool:
    """With one vote there is no consensus to speak of; with two or three, at least one pair
    must agree (two of three is a majority; all three differing is not)."""
    if len(values) < 2:
        return False
    return any(scale.agree(a, b) for i, a in enumerate(values) for b in values[i + 1:])
