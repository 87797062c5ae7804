"""Pedagogy judge (seed 003, dimension 4): the seed's three criteria, 1-5 each, with a short
justification: (1) leads forward without giving the answer away, (2) addresses the student's
actual work and level, (3) ends with a question or a concrete next step."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from core.language.interface import N_, Message
from core import prompts
from core.judging import judges
from core.agents.common import Job, answer_key_text, as_data, bounded_text, call

PROMPT = prompts.Spec("pedagogy", frozenset({"language", "question", "answer_key", "target_grade", "submission", "comment"}))
TEMPERATURE = judges.TEMPERATURE     # a judge (core.judging.judges)
IF_FAILED = N_("the comment's teaching quality was not judged")
CRITERIA = {"leads": N_("leads forward without giving the answer away"),
            "level": N_("addresses the student's actual work and level"),
            "next_step": N_("ends with a question or a concrete next step")}
LOW = N_("The pedagogy judge rated the comment low on: {criteria}.")
LOW_WHY = N_("The pedagogy judge rated the comment low on: {criteria}. {justification}")
RATED = N_("{criterion} ({score}/5)")
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


def rated(key: str, score) -> Message:
    return Message(RATED, criterion=Message(CRITERIA[key]), score=score)


def low_reason(criteria: Message, justification: str) -> Message:
    """FairMark's sentence; the judge's justification (its words) after it as it is."""
    justification = justification.rstrip()
    return Message(LOW_WHY, criteria=criteria, justification=justification) if justification else \
        Message(LOW, criteria=criteria)


def attention(output: dict) -> list[Message]:
    weak = low(output)
    if not weak:
        return []
    return [low_reason(Message.joined(", ", [rated(k, output[k]) for k in weak]), f"{output.get('justification', '')}")]


def describe(output: dict, rubric) -> list[tuple[str, str]]:
    blocks = [("heading", "Teaching quality (1-5)")]
    for key, text in CRITERIA.items():
        score = output.get(key)
        blocks.append(("warning" if score is not None and score < PASS_MIN else "text", f"{score}/5 · {text}"))
    if output.get("justification"):
        blocks.append(("text", output["justification"]))
    return blocks
