"""The OpenAI-compatible client, OpenAICompatibleLLM: one structured chat call. OpenAI, Azure
OpenAI's v1 endpoint, vLLM, Ollama, llama.cpp's server and LM Studio all go through it. Its HTTP
is a `Transport` (request dict -> RawCompletion): the openai SDK's (core.llm.openai_client, the
only module that imports `openai`), or a test's `tests.fake_llm.FakeTransport`, so the logic
below is tested without HTTP mocks.

How a call goes (OpenAICompatibleLLM.complete):
1. structured output, best mode first, falling back when the server refuses a mode (HTTP 400/
   422, or llama-cpp-python's HTTP 500 naming response_format): json_schema (strict) ->
   {"type": "json_object", "schema": ...} -> {"type": "json_object"} with the schema in the
   system message. The mode that worked is remembered per endpoint and model for the process,
   so the fallback costs one refused request per model.
2. transient faults (timeout, 429, 5xx, connection) are retried here with exponential backoff
   and jitter, at most `settings.max_retries` times; the SDK's own retries are off so the two
   never multiply. A 429's Retry-After is honoured (capped).
3. the answer is validated with pydantic; invalid JSON or a validation error gets ONE re-ask
   with the error appended, then LLMInvalidOutput.
4. scoring calls (a schema with bounded integer fields, e.g. the Evaluator's levels) ask for
   logprobs, which give each score's probability; which models give them is remembered
   (core.llm.logprobs.LogprobsMemory).
"""
from __future__ import annotations

import logging
import random
import threading
import time
from typing import Callable

from pydantic import ValidationError

from core.errors import LLMBadRequest, LLMError, LLMInvalidOutput, LLMRefusal, LLMTruncated
from core.language.interface import Message
from core.llm.logprobs import LogprobsMemory, bounded_int_fields, score_probs_from_logprobs
from core.llm.openai_client import redact, sdk_transport
from core.llm.protocol import CallContext, LLMResponse, RawCompletion, T, Transport, Usage
from core.llm.structured import (
    parse_answer,
    MODES,
    json_schema_for,
    response_format,
    schema_instruction,
    short_validation_error,
    strip_fences,
    with_schema_in_system,
)

log = logging.getLogger(__name__)

RETRY_AFTER_CAP_S = 60.0     # never sleep longer than this on a server's Retry-After
BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 20.0

_MODE_MEMORY: dict[str, dict[str, int]] = {}     # base URL -> {model: mode index}
_LOGPROBS_MEMORY: dict[str, dict[str, bool]] = {}  # base URL -> {model: gives logprobs}
_MODE_LOCK = threading.Lock()


class OpenAICompatibleLLM:
    """OpenAI, Azure OpenAI's v1 endpoint, vLLM, Ollama, llama.cpp, LM Studio: one code path."""

    provider = "openai"

    def __init__(self, settings, *, transport: Transport | None = None,
                 sleep: Callable[[float], None] = time.sleep, rand: Callable[[], float] = random.random,
                 max_tokens: int | None = 1024, logprobs: bool = True):
        self.settings = settings
        self.temperature = settings.temperature
        self.max_retries = max(0, int(settings.max_retries))
        self.max_tokens = max_tokens
        self.logprobs = logprobs      # ask scoring calls for logprobs where the model gives them
        self._sleep, self._rand = sleep, rand
        # model -> index into MODES that worked. With the real SDK this is shared by every
        # client of the same endpoint in the process (a Regenerate click builds a new client and
        # should not pay for a refused request again); an injected transport gets its own.
        self._modes: dict[str, int] = {}
        known: dict[str, bool] = {}
        if transport is None:
            transport = sdk_transport(settings)
            self._modes = _MODE_MEMORY.setdefault(settings.llm_base_url or "openai", {})
            known = _LOGPROBS_MEMORY.setdefault(settings.llm_base_url or "openai", {})
        self._logprobs = LogprobsMemory(known)
        self.transport = transport

    def __repr__(self) -> str:
        return f"OpenAICompatibleLLM(base_url={self.settings.llm_base_url!r})"

    def model_for(self, role: str) -> str:
        return self.settings.model_for(role)

    def mode_for(self, model: str) -> str:
        """The structured-output mode this model last accepted (json_schema before any call)."""
        return MODES[self._modes.get(model, 0)]

    def gives_logprobs(self, model: str) -> bool | None:
        """Whether this model returned logprobs when asked (None: not asked yet)."""
        return self._logprobs.gives(model)

    # -- one HTTP request, with retries of transient faults --------------------------------
    def _send(self, request: dict, counter: list[int]) -> RawCompletion:
        retries = 0
        reached = False      # did any attempt get an answer (of any kind) from the endpoint?
        while True:
            counter[0] += 1
            try:
                return self.transport(request)
            except LLMError as exc:
                reached = reached or not getattr(exc, "unreachable", False)
                if not exc.retryable or retries >= self.max_retries:
                    # Never reached at all: maybe a wrong endpoint. core.runs.guard decides whether
                    # it is (the same fault on several items in a row) or a passing outage.
                    exc.config_suspect = exc.config_suspect or not reached
                    raise
                retries += 1
                self._sleep(self._delay(exc, retries))

    def _delay(self, exc: LLMError, retry: int) -> float:
        after = getattr(exc, "retry_after", None)
        if after is not None:
            return min(float(after), RETRY_AFTER_CAP_S)
        backoff = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** (retry - 1))
        return backoff * (0.5 + self._rand())     # jitter: 50%..150% so workers don't sync up

    # -- structured output with fallback ----------------------------------------------------
    def build_request(self, model: str, messages: list[dict], mode: str, schema,
                      js: dict | None = None, temperature: float | None = None,
                      logprobs: bool | None = None) -> dict:
        """The keyword arguments of chat.completions.create for one structured-output mode
        (`logprobs`: ask for them; by default when this client asks for logprobs at all)."""
        js = json_schema_for(schema) if js is None else js
        logprobs = self.logprobs if logprobs is None else logprobs
        temperature = self.temperature if temperature is None else temperature
        if mode == "json_object":
            messages = with_schema_in_system(messages, schema_instruction(schema, js))
        req = {"model": model, "messages": messages, "temperature": temperature,
               "response_format": response_format(mode, schema, js)}
        if self.max_tokens:
            req["max_tokens"] = self.max_tokens
        if logprobs:
            req["logprobs"] = True
            req["top_logprobs"] = 5
        return req

    def _send_structured(self, model: str, messages: list[dict], schema, js: dict,
                         temperature: float, counter: list[int]) -> tuple[RawCompletion, str]:
        start = self._modes.get(model, 0)
        known_good = model in self._modes
        idx = start
        while idx < len(MODES):
            mode = MODES[idx]
            logprobs = self.logprobs and self._logprobs.wants(model, js, schema)
            try:
                raw = self._send(self.build_request(model, messages, mode, schema, js, temperature, logprobs),
                                 counter)
            except LLMBadRequest as exc:
                if logprobs and self._logprobs.refused(exc):
                    # The server does not do logprobs: remember it and ask again without them.
                    log.info("model %s refused logprobs; asking without them", model)
                    self._logprobs.answered(model, got=False)
                    continue
                # A refused response_format is a 400/422. Only fall back from modes not yet known
                # to work for this model; a 400 in a known-good mode is a real bad request.
                refused = getattr(exc, "format_refused", getattr(exc, "status_code", 400) in (400, 422))
                if known_good or idx == len(MODES) - 1 or not refused:
                    raise
                log.info("model %s refused response_format %s; falling back", model, mode)
                idx += 1
                continue
            with _MODE_LOCK:
                self._modes[model] = idx
            if logprobs:
                # A server that ignores the parameter answers without them: stop asking.
                self._logprobs.answered(model, got=bool(raw.logprobs))
            return raw, mode
        raise AssertionError("unreachable")

    @staticmethod
    def _check_finish(raw: RawCompletion, model: str) -> None:
        if raw.refusal or raw.finish_reason == "content_filter":
            why = redact(raw.refusal)[:300] if raw.refusal else Message("content filter")
            raise LLMRefusal(Message("Model '{model}' declined to answer ({why}). The submission may contain "
                                     "content the provider filters: review it by hand.", model=model, why=why))
        if raw.finish_reason == "length":
            raise LLMTruncated(Message("Model '{model}' stopped at its token limit before finishing the answer. Use a "
                                       "model with a larger context or shorten the input.", model=model))

    def complete(self, messages: list[dict], schema: type[T], *, role: str, ctx: CallContext,
                 temperature: float | None = None) -> LLMResponse[T]:
        model = self.model_for(role)
        temp = self.temperature if temperature is None else temperature
        js = json_schema_for(schema)
        counter = [0]
        usage = Usage()
        t0 = time.perf_counter()
        convo = list(messages)
        last_error = ""
        try:
            for _ in range(2):            # the answer, then at most one re-ask
                raw, mode = self._send_structured(model, convo, schema, js, temp, counter)
                usage.tokens_in += raw.usage.tokens_in
                usage.tokens_out += raw.usage.tokens_out
                usage.tokens_cached += raw.usage.tokens_cached
                self._check_finish(raw, model)
                text = strip_fences(raw.content or "")
                try:
                    data = parse_answer(schema, text)
                except ValidationError as exc:
                    last_error = short_validation_error(exc)
                    convo = convo + [
                        {"role": "assistant", "content": raw.content or ""},
                        {"role": "user", "content": (
                            "Your answer was not valid: " + last_error + "\nReply again with only "
                            "the corrected JSON object, matching the schema exactly.")}]
                    continue
                return LLMResponse(
                    data=data, model=model, raw=text, usage=usage,
                    latency_ms=(time.perf_counter() - t0) * 1000, request_id=raw.request_id,
                    attempts=counter[0], response_mode=mode, logprobs=raw.logprobs,
                    score_probs=score_probs_from_logprobs(text, raw.logprobs, bounded_int_fields(js)))
            raise LLMInvalidOutput(Message(
                "Model '{model}' did not return valid {schema} JSON, even after being shown the error ({error}). "
                "Retry the item, or use a stronger model for the {role} role in Settings.",
                model=model, schema=schema.__name__, error=last_error[:300], role=role))
        except LLMError as exc:
            # The call log records what a failed call cost and how often it tried.
            exc.attempts = counter[0]
            exc.usage = usage
            exc.latency_ms = (time.perf_counter() - t0) * 1000
            raise
