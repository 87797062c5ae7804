"""Seed 001's human-in-the-loop tiers, the lessons queue order, and the 10 % sample.

    ready         > 0.85 with high confidence in every vote: publish after a teacher's approval
    sampled       0.75-0.85, or a vote whose confidence is moderate or unknown (no logprobs:
                  core.judging.confidence, unknown is unsure): a 10 % sample is queued for a
                  teacher's review
    needs_review  < 0.75 after fixes, a veto, low confidence in every vote, judges who could
                  not agree, a critical factual flag, fixes that cost more than 5x the first
                  judgment, a clear Stage 1 failure, or no judge at all (the offline baseline)

Every lesson still needs a teacher's approval before export; the tier says how closely to look.

>>> decide(Evidence(score=0.9, confidences=[0.95])).tier
'ready'
>>> decide(Evidence(score=0.8)).tier, decide(Evidence(score=0.9, confidences=[0.6])).tier
('sampled', 'sampled')
>>> decide(Evidence(score=0.9, confidences=[None])).reasons
["A judge's confidence is unknown (its answer came without logprobs): a teacher spot-checks it."]
>>> d = decide(Evidence(score=0.95, vetoed=["factual_integrity"]))
>>> d.tier, d.reasons
('needs_review', ['Factual integrity is under its veto threshold: the lesson fails whatever its total.'])
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from core.judging.confidence import Confidence
from core.language.interface import Message, N_
from core.lessons.judge import HIGH_CONFIDENCE
from core.lessons.rubric import BY_KEY, PASS_MARK
from core.offline import LABEL as OFFLINE_LABEL

READY_ABOVE = 0.85
LOW_CONFIDENCE = 0.5
FIX_COST_LIMIT = 5.0       # fixing may cost at most this many times the first judgment
SAMPLE_SHARE = 0.10

TIERS = ("ready", "sampled", "needs_review")
LABELS = {"ready": N_("Ready to publish"), "sampled": N_("Spot-check tier"), "needs_review": N_("Needs a full review"),
          None: N_("Not reviewed yet")}   # marked for translation: pages show them with t()
# Queue groups, lower first: what needs a teacher most comes first.
LOWER = {"factual_integrity": N_("factual integrity"), "pedagogical_alignment": N_("pedagogical alignment"),
         "clarity_structure": N_("clarity & structure"), "engagement_tone": N_("engagement & tone")}   # in a sentence
PRIORITY = {"needs_review": 0, "sample": 1, "sampled": 2, "ready": 3, "failed": 0, "uploaded": 9, "approved": 7}


@dataclass
class Evidence:
    """What the tier is decided from (all of it is stored with the review)."""
    score: float | None = None               # weighted score of the final version; None: no judge ran
    vetoed: list[str] = field(default_factory=list)
    confidences: list[float | None] = field(default_factory=list)   # one per vote
    unsure: list[str] = field(default_factory=list)                 # dimensions the judges split on
    critical_flags: list[str] = field(default_factory=list)
    first_cost: float = 0.0                  # the first judgment's cost (dollars, or tokens unpriced)
    fix_cost: float = 0.0                    # every refinement round's cost, same unit
    clear_failures: list[str] = field(default_factory=list)        # Stage 1 clear failures
    offline: bool = False


@dataclass(frozen=True)
class Decision:
    tier: str
    reasons: list[str]


def decide(e: Evidence) -> Decision:
    reasons: list[str] = []   # Messages: English as they read; save() keeps their form for the page
    if e.offline:
        reasons.append(Message("{baseline}: only the Stage 1 checks ran; facts, alignment and engagement were not "
                               "judged.", baseline=Message(OFFLINE_LABEL)))
    reasons += [Message("Stage 1: {failure}", failure=f) for f in e.clear_failures]
    if e.score is None and not reasons:
        reasons.append(Message("No judge gave a verdict."))
    reasons += [Message("{dimension} is under its veto threshold: the lesson fails whatever its total.",
                        dimension=Message(BY_KEY[k].label)) for k in e.vetoed]
    if e.score is not None and e.score < PASS_MARK:
        reasons.append(Message("Score {score} is under {mark} after the fixes.", score=f"{e.score:.2f}", mark=PASS_MARK))
    confs = [Confidence(c, "entropy") for c in e.confidences]
    if confs and all(c.low(LOW_CONFIDENCE) for c in confs):
        reasons.append(Message("Every judge's answer had low confidence (high token entropy)."))
    reasons += [Message("The judges could not agree on {dimension}.", dimension=Message(LOWER[k])) for k in e.unsure]
    reasons += [Message("Critical factual flag: {flag}", flag=f) for f in e.critical_flags]
    if e.fix_cost > FIX_COST_LIMIT * e.first_cost > 0:
        reasons.append(Message("Fixing cost {ratio}x the first judgment (limit {limit}x).",
                               ratio=f"{e.fix_cost / e.first_cost:.1f}", limit=f"{FIX_COST_LIMIT:g}"))
    if reasons:
        return Decision("needs_review", reasons)
    weakest = Confidence.weakest([c.value for c in confs])
    if e.score > READY_ABOVE and weakest.sure(HIGH_CONFIDENCE):
        return Decision("ready", [])
    if e.score <= READY_ABOVE:
        why = [Message("Score {score} is in the spot-check band ({low}-{high}).", score=f"{e.score:.2f}",
                       low=PASS_MARK, high=READY_ABOVE)]
    elif not weakest.known:
        why = [Message("A judge's confidence is unknown (its answer came without logprobs): a teacher spot-checks it.")]
    else:
        why = [Message("A judge's answer had only moderate confidence.")]
    return Decision("sampled", why)




def priority(status: str, tier: str | None, in_sample: bool = False) -> int:
    """The queue group of a lesson (lower = look first)."""
    if status in ("approved", "failed", "uploaded"):
        return PRIORITY[status]
    if tier == "sampled" and in_sample:
        return PRIORITY["sample"]
    return PRIORITY.get(tier or "uploaded", 9)


def draw_sample(lesson_ids: list[int], seed: int, share: float = SAMPLE_SHARE) -> list[int]:
    """The sampled tier's lessons a teacher reviews: ceil(10 %), at least one when there are any,
    drawn reproducibly (the run's id is the seed).

    >>> len(draw_sample(list(range(25)), seed=1)), draw_sample([], seed=1)
    (3, [])
    """
    if not lesson_ids:
        return []
    k = max(1, math.ceil(share * len(lesson_ids)))
    return sorted(random.Random(seed).sample(sorted(lesson_ids), k))
