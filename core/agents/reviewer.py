"""Reflexion Reviewer: the comment against the Evaluator's scores, reasoning and evidence (seed
000) and the checks; CONFIDENT or REVISE."""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from core.language.interface import N_
from core import prompts
from core.judging import judges
from core.agents.common import Job, bounded_text, call, compact, evaluation_notes, scale_text, truncate
from core.offline import heuristics
from core.rubric import Rubric
from core.signoff.labels import verdict_label

PROMPT = prompts.Spec("reviewer", frozenset({"language", "scale", "evaluation", "comment", "checks"}))
REVIEWED_FIELDS = ("score", "reasoning", "evidence_quote")
IF_FAILED = N_("the comment was not reviewed against the scores")
TEMPERATURE = judges.TEMPERATURE     # a judge (core.judging.judges)


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # Reasoning before the verdict (seed 001): the verdict is conditioned on the explanation the
    # model has already written, not rationalised after it.
    explanation: bounded_text(500)
    fixes: Annotated[list[bounded_text(300)], Field(json_schema_extra={"maxItems": 5}), AfterValidator(truncate(5))]
    verdict: Literal["CONFIDENT", "REVISE"]


def failed_checks(checks: list[dict]) -> list[dict]:
    """Only the checks that did not pass (label, severity, detail): fewer tokens."""
    return [{"check": c["label"], "severity": c["severity"], "detail": c["detail"]} for c in checks if not c["passed"]]


def assessment(rubric: Rubric, evaluation: dict | None, scores: dict[str, int]) -> str:
    """What the Reviewer checks the comment against: per criterion the score, the reasoning and
    the evidence quote (the scores alone when there is no evaluation)."""
    if not evaluation:
        return compact({rubric.criterion(k).title: {"score": v} for k, v in scores.items()})
    current = {k: {**evaluation[k], "score": scores.get(k, evaluation[k].get("score"))} for k in evaluation}
    return evaluation_notes(rubric, current, REVIEWED_FIELDS)


def run(llm, job: Job):
    bad = failed_checks(job.checks)
    return call(llm, PROMPT, Verdict, job, inputs={"failed_checks": bad}, temperature=TEMPERATURE,
                scale=scale_text(job.rubric),
                evaluation=assessment(job.rubric, job.outputs.get("evaluator"), job.scores), comment=job.comment,
                checks=compact(bad) if bad else "all checks passed")


def offline(inputs: dict) -> dict:
    return heuristics.review(inputs["failed_checks"])


def describe(output: dict, rubric) -> list[tuple[str, str]]:
    # The offline baseline's rule-based review stores no verdict (issue 21): none is shown.
    blocks = [("heading", verdict_label(output["verdict"]))] if output.get("verdict") else []
    if output.get("explanation"):
        blocks.append(("text", output["explanation"]))
    blocks += [("text", f"Fix: {fix}") for fix in output.get("fixes") or []]
    return blocks
