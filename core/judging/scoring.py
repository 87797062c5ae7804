"""Seed 001's cascade on a reflection's scores: the pipeline's score stage.

    tier 0  the submission's deterministic flags (short, code, injection, not English): a teacher
            looks anyway, so the Evaluator drafts once and no further judge is asked
    tier 1  the Evaluator at temperature 0. Its confidence per criterion comes from the score
            tokens' logprobs; where the model gives none, from a small self-consistency sample
            (`samples` more answers at temperature 0.7, each with its index in the cache key,
            stopped as soon as agreement is out of reach). Settled when every criterion is
            confident (its score >= `min_confidence` probable and the expected score within
            `ev_tolerance` of it) and the expected mean score is more than `band_margin` from
            the rubric's band cut (the low/high band decision is where a wrong score hurts)
    tier 2  CLEV (core.judging.cascade): the first judge of Settings' list, the second only when
            the two disagree; per criterion the weighted majority (median on ties). The family
            rule (core.judging.judges.pick): judges of the Evaluator's family are not asked while
            a judge of another family is configured; with one family only, the item says so

The item is "unsure" (core.signoff.triage) when the first judge was not confident and nobody could settle
it, or when the judges could not agree on a criterion (all three differ), or when a free judge
disagrees (`FREE_JUDGES`). A criterion scored below its `veto_below` sends the item to a
teacher whatever the total.

Where it is stored: the judges' votes in `judge_votes` (db.votes); the per-criterion
distribution, expected score, entropy and the route in `drafts.judging`; the lowest
per-criterion confidence in `drafts.confidence`; each call's tier in the call log.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from core.agents import Job, evaluator
from core.errors import LLMConfigFault, LLMError
from core.judging import cascade, confidence, judges as panel
from core.judging.cascade import ORDINAL, Outcome, Vote, run
from core.judging.judges import FREE_TOLERANCE
from core.language.interface import Message
from core.llm.routed import judge_role
from core.offline import judge as offline_judge
from core.rubric import Rubric

SAMPLE_TEMPERATURE = 0.7
OFFLINE_PROVIDER = "offline"     # core.offline.provider.OfflineLLM.provider: no judges, no samples


@dataclass(frozen=True)
class Config:
    min_confidence: float = confidence.MIN_CONFIDENCE
    ev_tolerance: float = confidence.EV_TOLERANCE
    band_margin: float | None = 0.3          # None: the band cut plays no part
    samples: int = 2
    sample_temperature: float = SAMPLE_TEMPERATURE

    @classmethod
    def from_settings(cls, settings) -> "Config":
        return cls(settings.cascade_min_confidence, settings.cascade_ev_tolerance, settings.cascade_band_margin,
                   settings.cascade_samples)


# Free judges (issue 15's learned offline scorer): callables job -> Vote | None, asked after
# the cascade at no model cost. Their votes are stored (tier 0), never counted in the result nor
# in judge agreement (core.judging.judges); a free judge more than FREE_TOLERANCE levels from
# the result makes the item unsure.
FREE_JUDGES: list[Callable[[Job], Vote | None]] = [offline_judge.vote]


@dataclass
class Scored:
    evaluation: dict                     # per criterion, the answer of a judge that gave the resulting score
    scores: dict[str, int]
    confidence: float | None             # the lowest per-criterion confidence (None: unknown)
    unsure: bool                         # low confidence nobody settled, or judges that could not agree
    disagree: bool                       # judges (or a free judge) disagreed on some criterion
    judging: dict                        # drafts.judging
    votes: list[dict]                    # db.votes rows
    reasons: list[str] = field(default_factory=list)   # why a teacher must look (vetoes)


def score(llm, job: Job, config: Config = Config(), *, flagged: bool = False) -> Scored:
    """Score one submission through the cascade. The Evaluator's failure raises (the item
    fails); a sample's or a judge's failure only costs its vote (noted). A judge's
    configuration fault (a refused key) raises: every further item would lose its judges."""
    notes: list[str] = []
    first = evaluator.run(llm, job, temperature=evaluator.TEMPERATURE, tier=1)
    answer = evaluator.scores(first.data)
    dists, source = confidence.by_criterion(first.score_probs, answer), "logprobs"
    can_ask_more = llm.provider != OFFLINE_PROVIDER and not flagged
    if dists is None and can_ask_more and config.samples > 0:
        dists, source = _self_consistency(llm, job, answer, config, notes), "samples"
    stats = {k: confidence.stats(dists[k], answer[k], source) for k in answer} if dists else {}
    v1 = Vote(llm.model_for("evaluator"), 1, answer, {k: s["p_answer"] for k, s in stats.items()}, 1.0,
              first.data.model_dump())
    expected = {k: stats[k]["expected"] if k in stats else float(v) for k, v in answer.items()}
    near_cut = config.band_margin is not None and abs(mean_score(job.rubric, expected) - job.rubric.band_cut) \
        <= config.band_margin + 1e-9
    confident = bool(stats) and all(confidence.confident(s, config.min_confidence, config.ev_tolerance)
                                    for s in stats.values())

    if not can_ask_more:
        why = "offline baseline: no judges" if llm.provider == OFFLINE_PROVIDER else \
            "flagged for a teacher (tier 0): no consensus step"
        outcome = Outcome({k: float(v) for k, v in answer.items()}, [v1], 1, [], [why], settled=confident)
    judged_by: panel.Panel | None = None
    if can_ask_more:
        judged_by = panel.pick(list(getattr(llm, "judges", ())), writer=v1.judge, model_of=lambda spec: spec.model)
        notes += judged_by.notes + ([judged_by.one_family] if judged_by.one_family else [])
        judges = [_judge(llm, job, spec, notes) for spec in judged_by.kept]
        outcome = run(lambda tier: v1, judges, scale=ORDINAL, settled=lambda v: confident and not near_cut)
    notes = [n for n in outcome.notes if n not in (cascade.SECOND_FAILED, cascade.THIRD_FAILED)] + notes  # ours say why
    final = {k: int(v) for k, v in outcome.scores.items()}

    free = [v for v in (src(job) for src in FREE_JUDGES) if v is not None] if can_ask_more else []
    free_disagree = sorted({k for v in free for k in final
                            if k in v.scores and not FREE_TOLERANCE.agree(v.scores[k], final[k])})
    if len(outcome.votes) > 1:
        unsure_criteria = list(outcome.unsure)
    elif can_ask_more:
        # unknown confidence (no logprobs, no sample) is unsure, as for every judge (core.judging.confidence)
        unsure_criteria = [k for k in final
                           if not confidence.confident(stats.get(k), config.min_confidence, config.ev_tolerance)]
    else:
        unsure_criteria = []     # the offline baseline, or flagged: a teacher looks anyway
    unsure_criteria = sorted(set(unsure_criteria) | set(free_disagree))
    notes += [_free_note(v, k, final[k], job.rubric) for v in free for k in free_disagree if k in v.scores]
    per_criterion = _confidence_of_result(outcome, final, stats)
    known = [c for c in per_criterion.values() if c is not None]
    vetoed = job.rubric.vetoed(final)
    judging = {
        "tier": outcome.tier, "route": _route(outcome, flagged, llm.provider, bool(stats)),
        "settled": outcome.settled and not unsure_criteria, "unsure": unsure_criteria,
        # (one vote left because the other judges failed is no disagreement)
        "disagree": (len(outcome.votes) > 1 and bool(outcome.unsure)) or bool(free_disagree),
        "criteria": {k: {**stats.get(k, {"source": None}), "confidence": per_criterion[k]} for k in final},
        "expected_mean": round(mean_score(job.rubric, expected), 3), "band_cut": job.rubric.band_cut,
        "near_band_cut": near_cut, "judges": [v.judge for v in outcome.votes] + [v.judge for v in free],
        "vetoed": vetoed, "notes": notes,
        # the family rule's sentence when only one model family judged (None: several did)
        "one_family": judged_by.one_family if judged_by else None,
    }
    # The offline baseline is no judge: its scores are not votes.
    votes = [] if llm.provider == OFFLINE_PROVIDER else [_row(v, k) for v in [*outcome.votes, *free] for k in v.scores]
    return Scored(evaluation=_evaluation(outcome, final), scores=final,
                  confidence=round(min(known), 3) if known and len(known) == len(final) else None,
                  unsure=bool(unsure_criteria), disagree=judging["disagree"], judging=judging, votes=votes,
                  reasons=[veto_reason(job.rubric, k, final[k]) for k in vetoed])


def mean_score(rubric: Rubric, values: dict[str, float]) -> float:
    """The mean score the bands are cut on (weighted when the rubric has weights), as the
    review queue and bulk approval compute it."""
    if any(c.weight for c in rubric.criteria):
        return rubric.total(values)
    return sum(values[k] for k in rubric.keys) / len(rubric.keys)


def veto_reason(rubric: Rubric, key: str, score: int) -> Message:
    c = rubric.criterion(key)
    return vetoed(c.title, score, c.veto_below)


def vetoed(criterion: str, score, veto) -> Message:
    """Why a veto sends the item to a teacher (the criterion's title, the teacher's, as it is)."""
    return Message("Veto: {criterion} scored {score}, below its veto level {veto}. The rubric fails the item on this "
                   "criterion whatever the total: check the score before approving.", criterion=criterion, score=score,
                   veto=veto)


def _self_consistency(llm, job: Job, first: dict[str, int], config: Config, notes: list[str]) -> dict | None:
    """The first answer plus up to `config.samples` answers at the sample temperature, each with
    its own index (so the cache keeps them apart); None when a sample failed before the
    distribution could say anything."""
    answers, total = [first], 1 + config.samples
    for i in range(1, config.samples + 1):
        if not confidence.can_still_be_confident(answers, first, total, config.min_confidence):
            break
        try:
            resp = evaluator.run(llm, job, temperature=config.sample_temperature, tier=1, sample=i)
        except LLMConfigFault:
            raise
        except LLMError as e:
            notes.append(f"self-consistency sample {i} failed ({type(e).__name__}): confidence unknown")
            return None
        answers.append(evaluator.scores(resp.data))
    return confidence.from_samples(answers)


def _judge(llm, job: Job, spec, notes: list[str]):
    def cast(tier: int) -> Vote | None:
        try:
            resp = evaluator.run(llm, job, role=judge_role(spec.name), temperature=evaluator.TEMPERATURE, tier=tier)
        except LLMConfigFault:
            raise
        except LLMError as e:
            notes.append(f"judge {spec.name} ({spec.model}) failed: {type(e).__name__}: {str(e)[:300]}")
            return None
        answer = evaluator.scores(resp.data)
        dists = confidence.by_criterion(resp.score_probs, answer)
        conf = {k: confidence.stats(dists[k], answer[k], "logprobs")["p_answer"] for k in answer} if dists else {}
        return Vote(spec.model, tier, answer, conf, spec.weight, resp.data.model_dump())
    return cast


def _free_note(v: Vote, key: str, result: int, rubric: Rubric) -> str:
    """What the review item says when a free judge is far off (with its reasons when it gave any)."""
    title = rubric.criterion(key).title if key in rubric.keys else key
    why = (v.answer or {}).get(key, {}).get("pushes") if isinstance(v.answer, dict) else None
    reasons = f" ({', '.join(f'{label} {points:+.2f}' for label, points in why)})" if why else ""
    return f"{v.judge} gave {title} {v.scores[key]:g}, more than one level from {result}{reasons}: check it."


def _confidence_of_result(outcome: Outcome, final: dict[str, int], stats: dict) -> dict[str, float | None]:
    """Per criterion: the first judge's probability of its score when it stood alone; after the
    consensus step, the weighted share of the votes that gave the result (1.0 when two agree)."""
    if len(outcome.votes) == 1:
        return {k: stats[k]["p_answer"] if k in stats else None for k in final}
    out = {}
    for k, result in final.items():
        cast = [v for v in outcome.votes if k in v.scores]
        weight = sum(v.weight for v in cast)
        out[k] = round(sum(v.weight for v in cast if int(v.scores[k]) == result) / weight, 3) if weight else None
    return out


def _evaluation(outcome: Outcome, final: dict[str, int]) -> dict:
    """Per criterion the answer (reasoning, areas, evidence) of the first judge whose score is the
    result, so the comment and the Reviewer read reasons that match the scores. The first judge's
    answer also gives the fields that are not criteria (its report of instructions aimed at it)."""
    first = outcome.votes[0].answer
    out = {k: v for k, v in first.items() if k not in final} if isinstance(first, dict) else {}
    for k, result in final.items():
        voter = next((v for v in outcome.votes if int(v.scores.get(k, -10**9)) == result), outcome.votes[0])
        out[k] = {**voter.answer[k], "score": result}
    return out


def _route(outcome: Outcome, flagged: bool, provider: str, known: bool) -> str:
    if provider == OFFLINE_PROVIDER:
        return "offline"
    if flagged:
        return "flagged"
    if len(outcome.votes) > 1:
        return "judges_disagree" if outcome.unsure else "consensus"
    if outcome.tier == 2:
        return "judges_failed"
    if outcome.settled:
        return "confident"
    return "low_confidence" if known else "confidence_unknown"


def _row(v: Vote, key: str) -> dict:
    return {"criterion": key, "judge": v.judge, "tier": v.tier, "score": float(v.scores[key]),
            "confidence": v.confidence.get(key), "weight": v.weight}


ROUTES = {
    "confident": "Settled by the first judge: every criterion's score was confident.",
    "consensus": "The first judge was not sure enough, so other judges voted; the result is their majority.",
    "judges_disagree": "The judges could not agree on every criterion: check the scores.",
    "low_confidence": "The first judge was not sure and no other judge could settle it: check the scores.",
    "judges_failed": "Other judges were needed but failed (see the notes): the first judge's scores stand.",
    "confidence_unknown": "The model gave no confidence and no other judge voted.",
    "flagged": "Sent to a teacher by the submission's flags; no other judge was asked.",
    "offline": "Offline baseline: no judges.",
}


def describe(judging: dict, rubric: Rubric) -> list[tuple[str, str]]:
    """What the review item shows about how the scores were judged: (kind, text) blocks as in
    core.agents.common.text_blocks."""
    if not judging:
        return []
    blocks = [("heading", "How the scores were judged"), ("text", ROUTES.get(judging.get("route"), ""))]
    criteria = judging.get("criteria") or {}
    for key in [*(k for k in rubric.keys if k in criteria), *(k for k in criteria if k not in rubric.keys)]:
        c, title = criteria[key], rubric.criterion(key).title if key in rubric.keys else key
        if c.get("probs"):
            dist = ", ".join(f"{lvl}: {p:.0%}" for lvl, p in c["probs"].items())
            blocks.append(("text", f"{title}: {dist} (expected {c['expected']:.2f}, entropy {c['entropy']:.2f} bits, "
                                   f"from {c['source']})"))
    for key in judging.get("unsure") or []:
        blocks.append(("warning", f"Unsure: {rubric.criterion(key).title if key in rubric.keys else key}"))
    blocks += [("text", f"Note: {n}") for n in judging.get("notes") or []]
    return blocks
