"""The LLM protocol: what agents and the pipeline may rely on, whatever the model behind it.

    class LLM(Protocol):
        provider: str                       # "openai" | "offline" | "fake" | ...
        def model_for(self, role: str) -> str: ...
        def complete(self, messages: list[dict], schema: type[T], *, role: str,
                     ctx: CallContext, temperature: float | None = None) -> LLMResponse[T]: ...

`complete` returns a validated instance of the pydantic `schema` (in `.data`) or raises a
`core.errors.LLMError` subclass after the allowed retries. Call logging and the cache are a
wrapper (`core.llm.logged.LoggedLLM`) around any LLM, so every implementation is logged the
same way.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Generic, Protocol, TypeVar

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
    # The judge cascade (core.judging): the tier a scoring call belongs to (call log), and the
    # index of a self-consistency sample (part of the cache key, so samples differ; 0 = none).
    tier: int | None = None
    sample: int = 0
    lesson_id: int | None = None    # lesson review (core.lessons): costs per lesson come from the log
    rubric_draft_id: int | None = None  # the Rubric builder's draft (data care deletes its calls with it)
    # The call's facts in structured form (rubric, text, earlier agents' outputs), for
    # providers that do not read prompts (the offline baseline). Not part of the cache key:
    # the rendered messages already are.
    inputs: dict | None = field(default=None, repr=False, compare=False)


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
    # Which structured-output mode the server accepted, and a note for the call log
    # (e.g. "no price for model X").
    response_mode: str | None = None
    note: str = ""
    # The answer's own token logprobs ([{token, logprob, top_logprobs}]) when the server
    # returned them; cached with the raw text only for schemas that read their confidence from
    # them (`WANTS_LOGPROBS`, the lesson judge: core.llm.logged).
    logprobs: list[dict] | None = field(default=None, repr=False)


class LLM(Protocol):
    provider: str

    def model_for(self, role: str) -> str: ...

    def complete(self, messages: list[dict], schema: type[T], *, role: str, ctx: CallContext,
                 temperature: float | None = None) -> LLMResponse[T]: ...


@dataclass
class RawCompletion:
    """What a transport returns: one chat completion, reduced to what we use."""
    content: str | None
    finish_reason: str | None = "stop"
    refusal: str | None = None
    usage: Usage = field(default_factory=Usage)
    request_id: str | None = None
    # [{"token": str, "logprob": float, "top_logprobs": [{"token", "logprob"}, ...]}, ...]
    logprobs: list[dict] | None = None


# A transport sends one request (the keyword arguments of chat.completions.create) and
# returns a RawCompletion, or raises a core.errors.LLMError subclass (SDK errors mapped).
Transport = Callable[[dict], RawCompletion]
