"""Aggregator: the student-facing comment from the Evaluator's notes, the Equity Monitor's
rewrites and the Coach's questions (<= 120 words, strengths first, 2-3 actions)."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from core import prompts
from core.agents.common import Job, answer_key_text, bounded_text, call, compact, scale_text, source_text
from core.offline import heuristics
from core.rubric import Rubric

PROMPT = prompts.Spec("aggregator", frozenset({"target_grade", "scale", "evaluation", "equity", "questions",
                                               "answer_key", "source"}))


class Comment(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # Bounded in the schema only (about 150 words): a longer comment is not cut but caught by
    # the word-count check and revised.
    comment: bounded_text(1000, min_chars=1, cut=False)


def evaluation_notes(rubric: Rubric, evaluation: dict, fields: tuple[str, ...] | None = None) -> str:
    """Per criterion: title, score, reasoning, areas and evidence quote (compact JSON); only
    `fields` of each when given. Read by the Aggregator, the Coach and the Reviewer (seed 000)."""
    return compact({key: {"title": rubric.criterion(key).title,
                          **{f: v for f, v in evaluation[key].items() if fields is None or f in fields}}
                    for key in rubric.keys if key in evaluation})


def run(llm, job: Job):
    evaluation = job.outputs["evaluator"]
    flags = (job.outputs.get("equity") or {}).get("flags", [])
    questions = (job.outputs.get("coach") or {}).get("questions", [])
    inputs = {"rubric": job.rubric, "evaluation": evaluation, "questions": questions, "target_grade": job.target_grade}
    return call(llm, PROMPT, Comment, job, inputs=inputs, target_grade=f"{job.target_grade:g}",
                scale=scale_text(job.rubric), evaluation=evaluation_notes(job.rubric, evaluation),
                equity=compact(flags), questions=compact(questions), answer_key=answer_key_text(job.answer_key),
                source=source_text(job))


def offline(inputs: dict) -> dict:
    return {"comment": heuristics.compose_comment(inputs["rubric"], inputs["evaluation"], inputs["questions"],
                                                  inputs.get("target_grade"))}
