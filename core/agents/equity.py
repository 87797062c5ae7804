"""Equity Monitor: reads only the Evaluator's notes (never the reflection) and flags phrases
that judge the person, assume a culture or language, or discourage a weaker student."""
from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from core.agents.common import Ids, bounded_text, call, truncate

ROLE = "equity"


class Flag(BaseModel):
    model_config = ConfigDict(extra="forbid")
    phrase: bounded_text(200, min_chars=1)
    why: bounded_text(300)
    rewrite: bounded_text(300)


class EquityReport(BaseModel):
    model_config = ConfigDict(extra="forbid")
    flags: Annotated[list[Flag], Field(json_schema_extra={"maxItems": 5}), AfterValidator(truncate(5))]


def run(llm, *, evaluator_notes: str, ids: Ids = Ids()):
    """`evaluator_notes` is `evaluator.for_equity(...)`: scores, reasoning, areas; no quotes."""
    return call(llm, ROLE, EquityReport, ids, evaluation=evaluator_notes)
