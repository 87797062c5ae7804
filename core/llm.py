"""The one boundary to language models. The only module that imports `openai`.

CONTRACT (agents and pipeline rely on this; the implementation fills in the rest):

    class LLM(Protocol):
        provider: str                       # "openai" | "fake" | ...
        def model_for(self, role: str) -> str: ...
        def complete(self, messages: list[dict], schema: type[T], *, role: str,
                     ctx: CallContext, temperature: float | None = None) -> LLMResponse[T]: ...

`complete` returns a validated instance of the pydantic `schema` (in `.data`) or raises a
`core.errors.LLMError` subclass after the allowed retries. Call logging and the cache are a
wrapper (`LoggedLLM`) around any LLM, so every implementation is logged the same way.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)


@dataclass
class Usage:
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = 0


@dataclass
class CallContext:
    """What the call log needs to know about a call, besides the call itself."""
    agent: str                      # evaluator | equity | coach | aggregator | reviewer | ...
    prompt_name: str
    prompt_hash: str
    run_id: int | None = None
    submission_id: int | None = None


@dataclass
class LLMResponse(Generic[T]):
    data: T
    model: str
    raw: str = ""
    usage: Usage = field(default_factory=Usage)
    latency_ms: float = 0.0
    request_id: str | None = None
    cache_hit: bool = False
    cost_usd: float = 0.0
    attempts: int = 1
    # Probability of each score token when the server returns logprobs: {field: {label: p}}
    score_probs: dict | None = None


class LLM(Protocol):
    provider: str

    def model_for(self, role: str) -> str: ...

    def complete(self, messages: list[dict], schema: type[T], *, role: str, ctx: CallContext,
                 temperature: float | None = None) -> LLMResponse[T]: ...
