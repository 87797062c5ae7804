"""Aggregator: the student-facing comment from the Evaluator's notes, the Equity Monitor's
rewrites and the Coach's questions (<= 120 words, strengths first, 2-3 actions), and the student's
previous released comment with the teacher's marks (it says so when this reflection follows
last week's next step; with none it must not invent any history), and up to 3 of the teachers'
bank comments for the criteria and levels scored, as style examples (core.courses.comment_bank)."""
from __future__ import annotations

from core import prompts
from core.agents.common import (Comment, Job, answer_key_text, bank_examples, bank_text, call, compact,
                                evaluation_notes, follow_up_text, previous_text, scale_text, source_text)
from core.language.interface import N_
from core.offline import heuristics

IF_FAILED = N_("there is no drafted comment: write one or regenerate")   # the scores stand; a teacher writes it

PROMPT = prompts.Spec("aggregator", frozenset({"language", "target_grade", "scale", "evaluation", "equity", "questions",
                                               "answer_key", "source", "bank", "previous", "follow_up"}))


def run(llm, job: Job):
    evaluation = job.outputs["evaluator"]
    flags = (job.outputs.get("equity") or {}).get("flags", [])
    questions = (job.outputs.get("coach") or {}).get("questions", [])
    inputs = {"rubric": job.rubric, "evaluation": evaluation, "questions": questions, "target_grade": job.target_grade,
              "previous": job.previous, "bank": bank_examples(job)}
    return call(llm, PROMPT, Comment, job, inputs=inputs, target_grade=f"{job.target_grade:g}",
                scale=scale_text(job.rubric), evaluation=evaluation_notes(job.rubric, evaluation),
                equity=compact(flags), questions=compact(questions), answer_key=answer_key_text(job.answer_key),
                source=source_text(job), bank=bank_text(job), previous=previous_text(job), follow_up=follow_up_text(job))


def offline(inputs: dict) -> dict:
    return {"comment": heuristics.compose_comment(inputs["rubric"], inputs["evaluation"], inputs["questions"],
                                                  inputs.get("target_grade"),
                                                  acted=(inputs.get("previous") or {}).get("acted"),
                                                  language=inputs.get("language") or "en")}
