"""Evaluator: per criterion a short evidence quote from the student's text, reasoning, a
score from the rubric's levels and 1-2 areas for improvement.

The order is the point: with strict JSON output a model writes the fields in schema order, so
it quotes the evidence and reasons before it commits to a score (score first, and it would
justify whatever it had already written). The score type is a Literal of the rubric's own
levels, built at run time, so an answer of 12 on a 0-3 scale fails validation
(grammar-constrained servers ignore integer min/max).

Examples the teacher scored blind on this assignment (core.calibration.anchors) go into the
prompt as few-shot anchors; they are part of the prompt hash the call is logged and cached
under, so new anchors mean a new answer, never a stale cached one. The rubric's grader guidance
(notes per criterion for markers, never shown to students) goes into its own slot and into the
prompt hash the same way.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, create_model

from core import injection, language, prompts
from core.agents.common import Job, as_data, bounded_text, call, compact, scale_text, truncate
from core.offline import heuristics, reasoning
from core.rubric import Rubric

PROMPT = prompts.Spec("evaluator", frozenset({"language", "assignment", "key_concepts", "scale", "rubric", "guidance", "keys",
                                             "anchors", "submission"}))
NO_ANCHORS = "(none yet)"
NO_GUIDANCE = "(none)"

# The second line of defence against prompt injection (core.injection): the Evaluator reports
# whether the text holds instructions aimed at it. One top-level field, after the criteria.
INSTRUCTIONS = injection.REPORT_FIELD

# The reasoning the teacher reads beside each score: the prompt asks for at most REASONING_WORDS
# words (every word is paid for again by each role that reads the notes; OpenAI's strict mode
# takes no length bound, so the prompt is what saves the tokens). The schema cuts a longer one at
# REASONING_CHARS, no tighter: the offline baseline's own reasoning runs to 266 characters on the
# demo, and its calibrated and learned labels add 60-80 more.
REASONING_WORDS, REASONING_CHARS = 30, 400
# Areas for improvement per criterion, as the prompt asks: one (the comment needs 2-3 actions in
# all, which three criteria give; the offline baseline writes one and the Aggregator and the
# Coach read them), two on a rubric of fewer than AREAS_FEW_CRITERIA criteria. Each is paid for
# as output and again by the Equity Monitor, the Coach and the Aggregator. The schema still takes
# two (a second one is kept, not refused).
AREAS_WORDS, AREAS_FEW_CRITERIA = 15, 3


def areas_per_criterion(rubric: Rubric) -> int:
    """How many areas for improvement the prompt asks for per criterion of this rubric."""
    return 2 if len(rubric.criteria) < AREAS_FEW_CRITERIA else 1


class InstructionsToAI(BaseModel):
    model_config = ConfigDict(extra="forbid")
    found: bool = False
    quote: bounded_text(200) = ""


@lru_cache(maxsize=64)
def _schema(rubric_json: str) -> type[BaseModel]:
    rubric = Rubric.model_validate_json(rubric_json)
    levels = tuple(rubric.levels)
    suffix = rubric.content_hash[:8]
    criterion = create_model(
        f"CriterionEvaluation_{rubric.scale_min}_{rubric.scale_max}",
        __config__=ConfigDict(extra="forbid"),
        evidence_quote=(bounded_text(200), ...),
        reasoning=(bounded_text(REASONING_CHARS, min_chars=1), ...),
        score=(Literal[levels], ...),
        areas_for_improvement=(Annotated[list[bounded_text(200)],
                                         Field(min_length=1, json_schema_extra={"maxItems": 2}),
                                         AfterValidator(truncate(2))], ...),
    )
    return create_model(f"Evaluation_{suffix}", __config__=ConfigDict(extra="forbid"),
                        **{key: (criterion, ...) for key in rubric.keys},
                        **{INSTRUCTIONS: (InstructionsToAI, InstructionsToAI())})


def schema_for(rubric: Rubric) -> type[BaseModel]:
    """The Evaluator's answer for this rubric: one object per criterion key."""
    return _schema(rubric.to_json())


def rubric_text(rubric: Rubric) -> str:
    lines = []
    for c in rubric.criteria:
        head = f"{c.key} ({c.title})" + (f": {c.description}" if c.description else "")
        lines.append(head)
        for level in sorted(c.levels, reverse=True):
            lines.append(f"  {level}: {c.levels[level]}")
    return "\n".join(lines)


def guidance_text(rubric: Rubric) -> str:
    """The grader guidance per criterion key (one line each), or NO_GUIDANCE."""
    lines = [f"{c.key}: {' '.join(c.guidance.split())}" for c in rubric.criteria if c.guidance.strip()]
    return "\n".join(lines) or NO_GUIDANCE


def anchors_text(anchors: list[dict], rubric: Rubric) -> str:
    """The teacher's blind-scored examples, one JSON object per line: the text stays a JSON
    string, so words inside it cannot pose as another example or another score."""
    if not anchors:
        return NO_ANCHORS
    return "\n".join(compact({"scores": {k: a["scores"][k] for k in rubric.keys if k in a["scores"]},
                               "text": a["text"]}) for a in anchors)


def prompt_values(rubric: Rubric, assignment: dict, text: str, language_code: str = "en") -> dict:
    """Everything the Evaluator's prompt is filled with (the run estimate renders it too).
    `assignment["anchors"]` are the blind-scored examples (core.calibration.anchors);
    `language_code` is the course's."""
    concepts = assignment.get("key_concepts") or []
    return dict(
        assignment=(assignment.get("prompt") or assignment.get("title") or "").strip() or "(not given)",
        key_concepts=", ".join(concepts) if concepts else "(none given)",
        scale=scale_text(rubric), rubric=rubric_text(rubric), guidance=guidance_text(rubric),
        keys=", ".join(rubric.keys),
        anchors=anchors_text(assignment.get("anchors") or [], rubric), submission=as_data(text),
        language=language.prompt_line(language_code))


# A scoring role answers at temperature 0 (the cascade's first judge; seed 001), whatever the
# writers' temperature in Settings.
TEMPERATURE = 0.0


def run(llm, job: Job, *, role: str | None = None, temperature: float = TEMPERATURE, tier: int | None = None,
        sample: int = 0):
    """Score the submission. The judge cascade (core.judging.scoring) also asks other judges
    (`role`), at other temperatures and as numbered self-consistency `sample`s."""
    scorer = job.assignment.get("offline_scorer")    # the assignment's learned offline scorer (core.offline.scorer)
    inputs = {"rubric": job.rubric, "key_concepts": job.key_concepts, "text": job.text,
              "prompt": job.assignment.get("prompt") or "", "scorer": scorer}
    values = prompt_values(job.rubric, job.assignment, job.text, job.language)
    extra = values["anchors"] if values["anchors"] != NO_ANCHORS else ""
    if values["guidance"] != NO_GUIDANCE:       # per rubric, like the anchors: part of the prompt hash
        extra = "\n".join(filter(None, [extra, values["guidance"]]))
    if scorer is not None and getattr(llm, "provider", None) == "offline" and scorer.cache_tag:
        extra = "\n".join(filter(None, [extra, scorer.cache_tag]))   # a retrained scorer is a new answer
    return call(llm, PROMPT, schema_for(job.rubric), job, inputs=inputs, role=role, temperature=temperature,
                tier=tier, sample=sample, hash_extra=extra, **values)


def scores(data: BaseModel | dict) -> dict[str, int]:
    items = data.items() if isinstance(data, dict) else data
    return {key: int(item["score"] if isinstance(item, dict) else item.score) for key, item in items
            if key != INSTRUCTIONS}


def offline(inputs: dict) -> dict:
    return {**heuristics.evaluate(inputs["text"], inputs["rubric"], inputs["key_concepts"],
                                  prompt=inputs.get("prompt", ""), scorer=inputs.get("scorer"),
                                  language=inputs.get("language", "en")),
            INSTRUCTIONS: heuristics.instructions_report(inputs["text"])}


def describe(output: dict, rubric: Rubric) -> list[tuple[str, str]]:
    blocks = []
    for crit in rubric.criteria:
        ev = output.get(crit.key) or {}
        blocks.append(("heading", f"{crit.title}: {ev.get('score', '—')}"))
        # The offline baseline's reasoning as a Message (the page says it in the reader's language).
        blocks.append(("text", reasoning.text_of(ev.get("reasoning", ""), cut_at=REASONING_CHARS)))
        blocks += [("text", f"• {area}") for area in ev.get("areas_for_improvement") or []]
    return blocks
