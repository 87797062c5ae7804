"""The lesson judge: its answer's schema, one judge's vote, and seed 001's cascade over the
panel (core.judging.cascade with a continuous 0-1 scale).

Tier 1 is one judge at temperature 0. It settles the lesson when its weighted score is above
0.85 (and no veto) or under 0.50 and its own answer is sure (core.judging.confidence: at least
HIGH_CONFIDENCE from its token entropy; unknown confidence is not sure); otherwise the second
judge votes at temperature 0.15, and a third only where those two differ by more than
TOLERANCE on some dimension. Per dimension the votes combine as a weighted mean.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, Field

from core.agents.common import bounded_text, truncate
from core.errors import LLMConfigFault, LLMError
from core.judging.cascade import Scale, Vote, run
from core.judging.confidence import Confidence
from core.language.interface import Message, N_
from core.lessons import entropy, rubric, sections
from core.lessons.roles import JUDGE, JudgeModel
from core.lessons.spec import LessonSpec
from core.llm.protocol import CallContext, LLMResponse

TOLERANCE = 0.1           # two judges agree on a dimension when their scores are this close
SCALE = Scale("continuous", TOLERANCE)
CLEAR_PASS, CLEAR_FAIL = 0.85, 0.50
FIRST_TEMPERATURE, CONSENSUS_TEMPERATURE = 0.0, 0.15

SEVERITIES = {"critical": N_("critical"), "major": N_("major"), "minor": N_("minor")}   # an issue's, shown with t()
Dim = Literal["factual_integrity", "pedagogical_alignment", "clarity_structure", "engagement_tone"]
# Scores on a 0.05 grid, as an enum in the schema: grammar-constrained servers (llama.cpp) do not
# enforce a number's minimum/maximum, but they do enforce an enum. An answer between two steps
# (an API model writing 0.83) is rounded to the nearest step rather than re-asked.
SCORE_STEPS = tuple(round(i * 0.05, 2) for i in range(21))


def _on_grid(v):
    return round(float(v) * 20) / 20 if isinstance(v, (int, float)) and 0 <= v <= 1 else v


Score = Annotated[Literal[SCORE_STEPS], BeforeValidator(_on_grid)]


class DimensionScore(BaseModel):
    reasoning: bounded_text(300)
    score: Score


class Issue(BaseModel):
    dimension: Dim
    severity: Literal["critical", "major", "minor"]
    location: bounded_text(80)
    quote: bounded_text(200)
    fix: bounded_text(200)


class LessonVerdict(BaseModel):
    # Ask for the answer's token logprobs (core.llm.openai_client): the judge's confidence and
    # the per-sentence entropy come from them, though the scores are not bounded integers.
    WANTS_LOGPROBS: ClassVar[bool] = True
    issues: Annotated[list[Issue], AfterValidator(truncate(6))] = Field(default_factory=list,
                                                                        json_schema_extra={"maxItems": 6})
    factual_integrity: DimensionScore
    pedagogical_alignment: DimensionScore
    clarity_structure: DimensionScore
    engagement_tone: DimensionScore
    strengths: Annotated[list[bounded_text(120)], AfterValidator(truncate(3))] = Field(
        default_factory=list, json_schema_extra={"maxItems": 3})
    fix_recommendation: bounded_text(200) = ""

    def scores(self) -> dict[str, float]:
        return {k: getattr(self, k).score for k in rubric.KEYS}


@dataclass
class LessonJob:
    """One lesson as the lesson roles see it (for the prompt and the call log)."""
    lesson_id: int | None
    title: str
    text: str
    spec: LessonSpec
    stage1: str = "- not run"
    run_id: int | None = None

    def ctx(self, role: str, prompt) -> CallContext:
        return CallContext(agent=role, prompt_name=prompt.name, prompt_hash=prompt.hash, run_id=self.run_id,
                           lesson_id=self.lesson_id)


@dataclass
class Spend:
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0

    def add(self, resp: LLMResponse | None = None, *, exc: Exception | None = None) -> None:
        usage = resp.usage if resp is not None else getattr(exc, "usage", None)
        self.calls += 1
        if usage is not None:
            self.tokens_in += usage.tokens_in
            self.tokens_out += usage.tokens_out
        self.cost_usd += resp.cost_usd if resp is not None else 0.0

    def __add__(self, other: "Spend") -> "Spend":
        return self.merge(other)

    def merge(self, other: "Spend") -> "Spend":
        return Spend(self.calls + other.calls, self.tokens_in + other.tokens_in, self.tokens_out + other.tokens_out,
                     round(self.cost_usd + other.cost_usd, 8))

    def amount(self, priced: bool) -> float:
        """Dollars when the models are priced, else tokens: what the 5x fix-cost rule compares."""
        return self.cost_usd if priced else float(self.tokens_in + self.tokens_out)


def objectives_text(spec: LessonSpec) -> str:
    return "\n".join(f"{i}. {o}" for i, o in enumerate(spec.objectives, 1)) or "(none given)"


def messages(job: LessonJob) -> list[dict]:
    names = "; ".join(s.name for s in sections.split(job.text))
    return JUDGE.prompt.load().render(
        rubric=rubric.rubric_text(), target_grade=f"{job.spec.target_grade:g}", title=job.title,
        audience=job.spec.audience or "(not given)", archetype=job.spec.archetype,
        objectives=objectives_text(job.spec), sections=names, stage1=job.stage1, lesson=job.text)


def vote(member: JudgeModel, job: LessonJob, tier: int, spend: Spend, failures: list[str]) -> Vote | None:
    """One judge's verdict as a cascade vote (None when it failed after its retries: the
    reason goes to `failures`). A fault every call would hit (the key is refused) propagates."""
    prompt = JUDGE.prompt.load()
    temperature = FIRST_TEMPERATURE if tier == 1 else CONSENSUS_TEMPERATURE
    try:
        resp = member.llm.complete(messages(job), LessonVerdict, role=member.role,
                                   ctx=job.ctx(member.seat, prompt), temperature=temperature)
    except LLMConfigFault:
        raise
    except LLMError as exc:
        spend.add(exc=exc)
        failures.append(f"{member.name}: {exc}")
        return None
    spend.add(resp)
    verdict: LessonVerdict = resp.data
    conf = entropy.judge_confidence(resp.raw, resp.logprobs)
    known = conf["confidence"] is not None
    note = "" if known else "the answer came without logprobs: confidence unknown, so it settles nothing alone"
    answer = {"judge": member.name, "tier": tier, "verdict": verdict.model_dump(), "confidence": conf["confidence"],
              "unsure": conf["unsure"], "cache_hit": resp.cache_hit, "note": note}
    return Vote(member.name, tier, verdict.scores(), dict.fromkeys(rubric.KEYS, conf["confidence"]), answer=answer)


HIGH_CONFIDENCE = 0.8      # the seed: "if confidence > 0.8 -> accept"


def _settled(v: Vote) -> bool:
    w = rubric.weigh(v.scores)
    clear = (w.score > CLEAR_PASS and not w.vetoed) or w.score < CLEAR_FAIL
    return clear and Confidence.weakest(v.confidence.values(), "entropy").sure(HIGH_CONFIDENCE)


@dataclass
class Judgment:
    scores: dict[str, float]
    weighed: rubric.Weighed
    votes: list[Vote]
    tier: int
    unsure: list[str]
    notes: list[str] = field(default_factory=list)
    spend: Spend = field(default_factory=Spend)

    def answers(self) -> list[dict]:
        return [v.answer for v in self.votes]

    def issues(self) -> list[dict]:
        """Every judge's issues, the same quote once, most severe first."""
        seen, out = set(), []
        for a in self.answers():
            for i in a["verdict"]["issues"]:
                key = (i["dimension"], i["quote"].strip().lower())
                if key not in seen:
                    seen.add(key)
                    out.append({**i, "judge": a["judge"]})
        order = {"critical": 0, "major": 1, "minor": 2}
        return sorted(out, key=lambda i: order[i["severity"]])

    def critique(self, dimension: str) -> str:
        """What the judges said about one dimension: their reasoning and that dimension's issues."""
        lines = [a["verdict"][dimension]["reasoning"] for a in self.answers()]
        lines += [f"{i['severity']} issue in {i['location']}: \"{i['quote']}\" -> {i['fix']}"
                  for i in self.issues() if i["dimension"] == dimension]
        return "\n".join(f"- {x}" for x in lines if x)

    def confidences(self) -> list[float | None]:
        return [a["confidence"] for a in self.answers()]

    def record(self) -> dict:
        return {"scores": self.scores, "score": self.weighed.score, "vetoed": self.weighed.vetoed,
                "tier": self.tier, "unsure": self.unsure, "notes": self.notes, "votes": self.answers(),
                "spend": vars(self.spend)}


def judge(panel: list[JudgeModel], job: LessonJob) -> Judgment:
    """The cascade over the panel. Raises LLMError when the first judge gives no verdict."""
    spend, failures = Spend(), []
    if not panel:
        raise LLMError(Message("No judge is configured for lessons: set FAIRMARK_MODEL_LESSON_JUDGE."))
    first = panel[0]

    def first_vote(tier: int) -> Vote:
        v = vote(first, job, tier, spend, failures)
        if v is None:
            raise LLMError(Message("The lesson judge gave no verdict: {failure}", failure=failures[-1]))
        return v

    others = [lambda tier, m=m: vote(m, job, tier, spend, failures) for m in panel[1:3]]
    out = run(first_vote, others, scale=SCALE, settled=_settled)
    scores = {k: round(v, 3) for k, v in out.scores.items()}
    return Judgment(scores, rubric.weigh(scores), out.votes, out.tier, out.unsure, out.notes + failures, spend)
