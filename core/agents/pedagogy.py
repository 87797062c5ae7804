"""Pedagogy judge (seed 003, dimension 4): the seed's three criteria, 1-5 each, with a short
justification: (1) leads forward without giving the answer away, (2) addresses the student's
actual work and level, (3) ends with a question or a concrete next step."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from core import prompts
from core.judging import judges
from core.agents.common import Job, answer_key_text, as_data, bounded_text, call

PROMPT = prompts.Spec("pedagogy", frozenset({"language", "question", "answer_key", "target_grade", "submission", "comment"}))
TEMPERATURE = judges.TEMPERATURE     # a judge (core.judging.judges)
IF_FAILED = "the comment's teaching quality was not judged"
CRITERIA = {"leads": "leads forward without giving the answer away",
            "level": "addresses the student's actual work and level",
            "next_step": "ends with a question or a concrete next step"}
PASS_MIN = 3          # a criterion below this sends the item to a teacher


class PedagogyVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # Reasoning before the verdict (seed 001): the justification, then the three scores.
    justification: bounded_text(400)
    leads: Literal[1, 2, 3, 4, 5]
    level: Literal[1, 2, 3, 4, 5]
    next_step: Literal[1, 2, 3, 4, 5]


def question_text(job: Job) -> str:
    """The task the comment answers, as the judge's prompt states it."""
    return (job.assignment.get("prompt") or job.assignment.get("title") or "(not given)").strip()


def run(llm, job: Job):
    return call(llm, PROMPT, PedagogyVerdict, job, temperature=TEMPERATURE,
                inputs={"text": job.text, "comment": job.comment, "question": job.assignment.get("prompt") or ""},
                question=question_text(job), answer_key=answer_key_text(job.answer_key),
                target_grade=f"{job.target_grade:g}", submission=as_data(job.text), comment=job.comment)


def total(output: dict) -> int:
    """The sum of the three criteria (3-15): what a pairwise comparison compares."""
    return sum(int(output.get(k) or 0) for k in CRITERIA)


def low(output: dict, minimum: int = PASS_MIN) -> list[str]:
    return [k for k in CRITERIA if int(output.get(k) or 0) < minimum]


def attention(output: dict) -> list[str]:
    weak = low(output)
    if not weak:
        return []
    parts = ", ".join(f"{CRITERIA[k]} ({output[k]}/5)" for k in weak)
    return [f"The pedagogy judge rated the comment low on: {parts}. {output.get('justification', '')}".strip()]


def describe(output: dict, rubric) -> list[tuple[str, str]]:
    blocks = [("heading", "Teaching quality (1-5)")]
    for key, text in CRITERIA.items():
        score = output.get(key)
        blocks.append(("warning" if score is not None and score < PASS_MIN else "text", f"{score}/5 · {text}"))
    if output.get("justification"):
        blocks.append(("text", output["justification"]))
    return blocks
