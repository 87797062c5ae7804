"""The learned offline scorer as a free judge (core.judging.scoring.FREE_JUDGES): when a
language model scores, the assignment's learned model votes too, at no model cost.

It votes only on criteria scored by a model (learned, or blended with word count) that beat
word count alone in cross-validation (`Scorer.trusted`; word count alone is no judge); its vote
is stored (tier 0), never counted in the result nor in judge agreement (core.judging.judges: the
free judge). A disagreement of more than one level with the result makes the item "unsure"
(core.judging.scoring): a model with a typical error of half a level says nothing by being one
level off.
"""
from __future__ import annotations

from core.judging.cascade import Vote
from core.judging.judges import FREE_TIER
from core.offline.scorer import JUDGE


def vote(job) -> Vote | None:
    scorer = job.assignment.get("offline_scorer")
    keys = scorer.trusted() if scorer is not None else []
    if not keys:
        return None
    scored = scorer.model.score(job.text, job.assignment.get("prompt") or "", job.key_concepts)
    return Vote(f"{JUDGE} v{scorer.version}", FREE_TIER, {k: scored[k]["score"] for k in keys}, {}, 1.0,
                {k: {"score": scored[k]["score"], "pushes": scored[k]["pushes"]} for k in keys})
