"""Equity Monitor: reads only the Evaluator's notes (never the reflection) and flags phrases
that judge the person, assume a culture or language, or discourage a weaker student."""
from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from core.language.interface import N_
from core import prompts
from core.agents.common import Job, bounded_text, call, for_equity, truncate
from core.offline import heuristics

PROMPT = prompts.Spec("equity", frozenset({"language", "evaluation"}))
IF_FAILED = N_("the wording of the feedback was not checked for bias")


class Flag(BaseModel):
    model_config = ConfigDict(extra="forbid")
    phrase: bounded_text(200, min_chars=1)
    why: bounded_text(300)
    rewrite: bounded_text(300)


class EquityReport(BaseModel):
    model_config = ConfigDict(extra="forbid")
    flags: Annotated[list[Flag], Field(json_schema_extra={"maxItems": 5}), AfterValidator(truncate(5))]


def run(llm, job: Job):
    """Sees `for_equity(...)`: scores, reasoning, areas; no quotes."""
    notes = for_equity(job.outputs["evaluator"])
    return call(llm, PROMPT, EquityReport, job, inputs={"notes": notes}, evaluation=notes)


def offline(inputs: dict) -> dict:
    return heuristics.equity_flags(inputs["notes"], inputs.get("language") or "en")


def describe(output: dict, rubric) -> list[tuple[str, str]]:
    flags = output.get("flags") or []
    if not flags:
        return [("text", "No flagged phrases.")]
    return [("text", f"Phrase: {fl.get('phrase', '')}\nWhy: {fl.get('why', '')}\nRewrite: {fl.get('rewrite', '')}")
            for fl in flags]
