"""How sure a judge is: one `Confidence` type for every judge (reflections' Evaluator and judges,
the lesson judges, the feedback judges), and for a reflection's scores the distribution over the
rubric's levels, from the score tokens' logprobs (core.llm.logprobs) or from a self-consistency
sample, and what the cascade reads from it.

One meaning of "unsure" everywhere: a confidence nobody could measure (no logprobs, no sample)
is *unknown*, and unknown is never sure. An item the AI is unsure about gets a teacher's eyes,
so a judge that cannot say how sure it is does not settle anything alone.

>>> Confidence(0.9).sure(0.8), Confidence(None).sure(0.8), Confidence(None).low(0.5), Confidence(0.3).low(0.5)
(True, False, False, True)
>>> Confidence.weakest([0.9, None, 0.95]).known, Confidence.weakest([0.9, 0.85]).value
(False, 0.85)

Per criterion: `probs` {level: p}, `expected` (the mean level), `entropy` (bits: 0 when one
level has all the mass, 2 when four levels are equally likely), `p_answer` (the probability of
the level the judge answered) and `source` ("logprobs" | "samples").

>>> s = stats({"2": 0.9, "3": 0.1}, 2, "logprobs")
>>> s["p_answer"], s["expected"], s["entropy"]
(0.9, 2.1, 0.469)
>>> confident(s, min_confidence=0.85, ev_tolerance=0.3), confident(stats({"1": 0.55, "2": 0.45}, 1, "logprobs"))
(True, False)
>>> by_criterion({"clarity.score": {"2": 0.9, "3": 0.1}}, {"clarity": 2, "depth": 1}) is None
True
>>> from_samples([{"x": 2}, {"x": 2}, {"x": 3}])["x"]
{'2': 0.667, '3': 0.333}
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

MIN_CONFIDENCE, EV_TOLERANCE = 0.85, 0.3   # ours (issue 14); seed 001's 0.85 is a clear-pass score, its confidence cut 0.8


@dataclass(frozen=True)
class Confidence:
    """How sure one judge is of one answer: a probability in 0..1, or None when unknown (the
    server gave no logprobs and nothing else measured it). `source` says where it came from:
    "logprobs" | "samples" | "entropy" (the lesson judge's answer tokens) | "votes" | None."""
    value: float | None
    source: str | None = None

    @property
    def known(self) -> bool:
        return self.value is not None

    def sure(self, threshold: float) -> bool:
        """At least `threshold`; unknown is not sure."""
        return self.value is not None and self.value >= threshold - 1e-9

    def low(self, threshold: float) -> bool:
        """Known to be under `threshold` (unknown is not known to be low: it is unsure, not wrong)."""
        return self.value is not None and self.value < threshold - 1e-9

    @classmethod
    def weakest(cls, values: Iterable[float | None], source: str | None = None) -> "Confidence":
        """The least sure of several (one unknown makes the whole unknown: it could be anything)."""
        values = list(values)
        if not values or any(v is None for v in values):
            return cls(None, source)
        return cls(min(values), source)

    def describe(self) -> str:
        """In a teacher's words."""
        return "unknown (the model gave no logprobs)" if self.value is None else f"{self.value:.0%}"


UNKNOWN = Confidence(None)


def stats(probs: Mapping, answer: int, source: str) -> dict:
    """The cascade's view of one criterion's distribution (probabilities rounded to 3 places)."""
    clean = {str(int(k)): float(v) for k, v in probs.items() if float(v) > 0}
    total = sum(clean.values()) or 1.0
    clean = {k: v / total for k, v in sorted(clean.items(), key=lambda kv: int(kv[0]))}
    expected = sum(int(k) * p for k, p in clean.items())
    entropy = -sum(p * math.log2(p) for p in clean.values() if p > 0)
    return {"probs": {k: round(p, 3) for k, p in clean.items()}, "expected": round(expected, 3),
            "entropy": round(abs(entropy), 3), "p_answer": round(clean.get(str(int(answer)), 0.0), 3),
            "answer": int(answer), "source": source}


def confident(stat: Mapping | None, min_confidence: float = MIN_CONFIDENCE, ev_tolerance: float = EV_TOLERANCE) -> bool:
    """The answered level is at least `min_confidence` probable and the expected score within
    `ev_tolerance` of it. Unknown confidence (None) is not confident."""
    if not stat:
        return False
    return (Confidence(stat["p_answer"], stat.get("source")).sure(min_confidence)
            and abs(stat["expected"] - stat["answer"]) <= ev_tolerance + 1e-9)


def by_criterion(score_probs: Mapping | None, scores: Mapping[str, int]) -> dict[str, dict] | None:
    """{criterion: {level: p}} from a response's score_probs ({"<criterion>.score": {...}}), or
    None unless every criterion has a distribution (a partial one cannot settle an item)."""
    if not score_probs:
        return None
    out = {}
    for key in scores:
        probs = score_probs.get(f"{key}.score") or score_probs.get(key)
        if not probs:
            return None
        out[key] = dict(probs)
    return out


def from_samples(answers: list[Mapping[str, int]]) -> dict[str, dict[str, float]]:
    """{criterion: {level: share of the answers}}: a self-consistency sample's distribution."""
    out: dict[str, dict[str, float]] = {}
    for key in answers[0]:
        counts: dict[str, int] = {}
        for a in answers:
            counts[str(int(a[key]))] = counts.get(str(int(a[key])), 0) + 1
        out[key] = {k: round(n / len(answers), 3) for k, n in sorted(counts.items(), key=lambda kv: int(kv[0]))}
    return out


def can_still_be_confident(answers: list[Mapping[str, int]], first: Mapping[str, int], total: int,
                           min_confidence: float = MIN_CONFIDENCE) -> bool:
    """Whether the sample could still make every first answer `min_confidence` probable if all
    `total - len(answers)` answers still to come agreed with it (else stop sampling early).

    >>> can_still_be_confident([{"x": 2}, {"x": 3}], {"x": 2}, 3)
    False
    >>> can_still_be_confident([{"x": 2}, {"x": 2}], {"x": 2}, 3)
    True
    """
    left = total - len(answers)
    return all((sum(a[k] == v for a in answers) + left) / total >= min_confidence - 1e-9 for k, v in first.items())
