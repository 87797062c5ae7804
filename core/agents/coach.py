"""Metacognitive Coach: 1-2 questions about the student's own learning process."""
from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from core.agents.common import Ids, as_data, bounded_text, call, truncate

ROLE = "coach"


class CoachQuestions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    questions: Annotated[list[bounded_text(200, min_chars=3)], Field(min_length=1, json_schema_extra={"maxItems": 2}),
                         AfterValidator(truncate(2))]


def run(llm, *, text: str, ids: Ids = Ids()):
    return call(llm, ROLE, CoachQuestions, ids, submission=as_data(text))
