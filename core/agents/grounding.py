"""Grounding judge (seed 003, dimension 2): is every claim in the comment supported by the
student's own text or the assignment's source? Invented names, dates or facts fail it."""
from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from core.language.interface import N_, Message
from core import prompts
from core.judging import judges
from core.agents.common import Job, as_data, bounded_text, call, source_text

PROMPT = prompts.Spec("grounding", frozenset({"language", "submission", "source", "comment"}))
TEMPERATURE = judges.TEMPERATURE     # a judge (core.judging.judges)
IF_FAILED = N_("the comment was not checked against the student's text and the source")


def _claims(items: list[str]) -> list[str]:
    """Drop "claims" without a letter: a small model echoes the prompt's template ("...")."""
    return [c for c in items if any(ch.isalpha() for ch in c)][:5]


class GroundingVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # Reasoning before the verdict (seed 001): the explanation and the claims, then `grounded`.
    explanation: bounded_text(400)
    unsupported: Annotated[list[bounded_text(200)], Field(json_schema_extra={"maxItems": 5}), AfterValidator(_claims)]
    grounded: bool


def run(llm, job: Job):
    return call(llm, PROMPT, GroundingVerdict, job, temperature=TEMPERATURE,
                inputs={"text": job.text, "source": job.source, "comment": job.comment},
                submission=as_data(job.text), source=source_text(job), comment=job.comment)


def passed(output: dict) -> bool:
    """Grounded, and no unsupported claim listed (a verdict that lists one is not grounded)."""
    return bool(output.get("grounded")) and not output.get("unsupported")


UNSUPPORTED = N_("The grounding judge found claims that neither the student's text nor the source supports: {claims}")
SEE_NOTE = N_("see the judge's note")


def attention(output: dict) -> list[Message]:
    """FairMark's sentence (a Message); the claims the judge listed, its words, inside it as they are."""
    if passed(output):
        return []
    claims = "; ".join(output.get("unsupported") or []) or output.get("explanation") or Message(SEE_NOTE)
    return [Message(UNSUPPORTED, claims=claims)]


def describe(output: dict, rubric) -> list[tuple[str, str]]:
    blocks = [("heading", "Grounded in the student's text and the source: " + ("yes" if passed(output) else "NO"))]
    blocks += [("warning", f"Unsupported: {claim}") for claim in output.get("unsupported") or []]
    if output.get("explanation"):
        blocks.append(("text", output["explanation"]))
    return blocks
