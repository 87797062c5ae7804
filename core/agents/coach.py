"""Metacognitive Coach: 1-2 questions about the student's own learning process, from the
Evaluator's output (seed 000): per criterion the score, the areas for improvement and the
evidence quote, which is the student's own words the questions may quote; what its prompt
starts from. The whole reflection is not sent (the quotes are the text it needs), nor the
reasoning (the Aggregator and the Reviewer read it): each costs tokens on every call. Last week's
released comment comes last (per student, after the shared part): a question may follow it up."""
from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from core.language.interface import N_
from core import prompts
from core.agents.common import Job, bounded_text, call, evaluation_notes, follow_up_text, previous_text, truncate
from core.offline import heuristics

PROMPT = prompts.Spec("coach", frozenset({"language", "evaluation", "previous", "follow_up"}))
IF_FAILED = N_("the feedback has no coaching question from it")
READ_FIELDS = ("score", "areas_for_improvement", "evidence_quote")


class CoachQuestions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    questions: Annotated[list[bounded_text(200, min_chars=3)], Field(min_length=1, json_schema_extra={"maxItems": 2}),
                         AfterValidator(truncate(2))]


def run(llm, job: Job):
    evaluation = job.outputs.get("evaluator") or {}
    return call(llm, PROMPT, CoachQuestions, job, inputs={"text": job.text, "key_concepts": job.key_concepts},
                evaluation=evaluation_notes(job.rubric, evaluation, READ_FIELDS) if evaluation else "(none)",
                previous=previous_text(job), follow_up=follow_up_text(job))


def offline(inputs: dict) -> dict:
    return {"questions": heuristics.coach_questions(inputs["text"], inputs["key_concepts"],
                                                    inputs.get("language") or "en")}


def describe(output: dict, rubric) -> list[tuple[str, str]]:
    return [("text", f"? {q}") for q in output.get("questions") or []]
