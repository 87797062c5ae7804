"""What every agent shares: the call context and compact JSON for prompt data."""
from __future__ import annotations

import json
from dataclasses import dataclass

from core import prompts
from core.llm.protocol import LLM, CallContext, LLMResponse

_SUBMISSION_TAG = "submission"


@dataclass(frozen=True)
class Ids:
    """Which run and submission a call belongs to (for the call log)."""
    run_id: int | None = None
    submission_id: int | None = None


def compact(obj) -> str:
    """JSON without spaces: every token in a prompt costs money."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def as_data(text: str, tag: str = _SUBMISSION_TAG) -> str:
    """Student text as data: remove anything that could close or open the delimiter.

    Prompt.render strips every prompt delimiter from every value anyway (prompts.DELIMITERS);
    this keeps the submission's own tag out even when the text is used outside a prompt."""
    return prompts.strip_delimiters(text or "", (tag,)).strip()


def call(llm: LLM, role: str, schema, ids: Ids, temperature: float | None = None, **values) -> LLMResponse:
    prompt = prompts.load(role)
    messages = prompt.render(**values)
    ctx = CallContext(agent=role, prompt_name=prompt.name, prompt_hash=prompt.hash,
                      run_id=ids.run_id, submission_id=ids.submission_id)
    return llm.complete(messages, schema, role=role, ctx=ctx, temperature=temperature)


def scale_text(rubric) -> str:
    return f"integer scores {rubric.scale_min}-{rubric.scale_max}"


def bounded_text(max_chars: int, *, min_chars: int = 0, cut: bool = True):
    """A string bounded in the JSON schema (maxLength), so grammar-constrained servers stop a
    small model from rambling into its token limit. With `cut`, a longer answer from a server
    that does not enforce the bound is shortened instead of re-asked (not worth a call)."""
    from typing import Annotated

    from pydantic import AfterValidator, Field

    field = Field(min_length=min_chars, json_schema_extra={"maxLength": max_chars}) if min_chars else \
        Field(json_schema_extra={"maxLength": max_chars})
    if cut:
        return Annotated[str, field, AfterValidator(lambda v: v[:max_chars])]
    return Annotated[str, field]


def truncate(limit: int):
    """A validator that keeps the first `limit` items: extra items are not worth a re-ask."""
    def _cut(v):
        return v[:limit]
    return _cut
