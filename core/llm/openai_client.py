"""The OpenAI-compatible client: the only module in FairMark that imports `openai`.

OpenAI, Azure OpenAI's v1 endpoint, vLLM, Ollama, llama.cpp's server and LM Studio all go
through one code path. SDK errors are mapped here, once, to core.errors with a message that
says what to do; the API key is redacted from every message.

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
   logprobs, which give each score's probability (core.llm.logprobs). Whether a model gives
   them is found out once and remembered like the modes: a server that refuses the parameter
   (HTTP 400 naming logprobs) is asked again without it, and one that ignores it is not asked
   again.
Everything that touches HTTP sits in a `Transport` (request dict -> RawCompletion), so tests
script the logic above with `tests.fake_llm.FakeTransport` and no HTTP mocks.
"""
from __future__ import annotations

import email.utils
import logging
import random
import re
import threading
import time
from typing import Callable

from pydantic import ValidationError

from core.errors import (
    LLMAuthError,
    LLMBadRequest,
    LLMConnectionError,
    LLMError,
    LLMInvalidOutput,
    LLMNotFound,
    LLMRateLimited,
    LLMRefusal,
    LLMServerError,
    LLMTimeout,
    LLMTruncated,
)
from core.llm.logprobs import bounded_int_fields, score_probs_from_logprobs
from core.llm.protocol import CallContext, LLMResponse, RawCompletion, T, Transport, Usage
from core.llm.structured import (
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
NO_KEY = "no-key"            # local servers (llama.cpp, vLLM, Ollama) ignore the key


def redact(text: str, secret: str | None = None) -> str:
    """Remove an API key (and anything shaped like one) from a message before it is shown or
    logged: OpenAI's 401 message quotes part of the key."""
    if secret and secret != NO_KEY:
        text = text.replace(secret, "***")
    return re.sub(r"\b(sk|key|pk)-[A-Za-z0-9_\-*]{4,}", r"\1-***", text)


def _retry_after_seconds(headers) -> float | None:
    """Retry-After as seconds (`retry-after-ms`, `retry-after: <seconds | HTTP date>`)."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


def map_sdk_error(exc: Exception, *, base_url: str | None = None, model: str = "",
                  api_key: str | None = None) -> LLMError:
    """Map an openai SDK exception to the project's error, once, with a message saying what to
    do. The key is redacted from every message."""
    import openai

    where = base_url or "the OpenAI API"
    detail = redact(str(getattr(exc, "message", "") or exc), api_key)[:500]
    if isinstance(exc, LLMError):
        return exc
    if isinstance(exc, openai.APITimeoutError) and not _unreachable(exc):
        return LLMTimeout(f"The language model at {where} did not answer in time. Try again later, "
                          "raise FAIRMARK_TIMEOUT, or lower the concurrency.")
    if isinstance(exc, openai.APIConnectionError):
        # Refused, unknown host or no answer to the connection attempt: the endpoint itself is
        # unreachable (a setting to fix when it never works), unlike an answer cut off midway.
        if _unreachable(exc):
            err = LLMConnectionError(f"Cannot reach the language model at {where} ({detail}). Check "
                                     "FAIRMARK_LLM_BASE_URL and that the server is running.")
            err.unreachable = True
            return err
        return LLMConnectionError(f"The connection to the language model at {where} broke off before the "
                                  f"answer was complete ({detail}). This is usually temporary: retry the run "
                                  "later; if it persists, check FAIRMARK_LLM_BASE_URL and the network.")
    if isinstance(exc, openai.RateLimitError):
        wait = _retry_after_seconds(getattr(getattr(exc, "response", None), "headers", None))
        err = LLMRateLimited(f"The language model at {where} is rate-limiting requests (HTTP 429: "
                             f"{detail}). Lower the concurrency in Settings or wait and retry.",
                             retry_after=wait)
        return err
    if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
        return LLMAuthError(f"The language model at {where} refused the API key (HTTP "
                            f"{exc.status_code}: {detail}). Set a valid FAIRMARK_LLM_API_KEY in the "
                            "environment or .streamlit/secrets.toml.")
    if isinstance(exc, openai.NotFoundError):
        err = LLMNotFound(f"The language model at {where} does not know model '{model}' or the "
                            f"endpoint (HTTP 404: {detail}). Check the model name in Settings and "
                            "the base URL (it usually ends in /v1).")
        err.status_code = 404
        return err
    if isinstance(exc, openai.APIStatusError):
        return status_error(exc.status_code, detail, where=where, model=model, code=getattr(exc, "code", None),
                            retry_after=_retry_after_seconds(getattr(exc.response, "headers", None)))
    if isinstance(exc, openai.APIResponseValidationError):
        return LLMServerError(f"The language model at {where} sent a malformed response "
                              f"({detail}). Check that the base URL is an OpenAI-compatible API.")
    return LLMError(f"Unexpected error calling the language model at {where}: "
                    f"{type(exc).__name__}: {detail}")


def status_error(status: int, detail: str, *, where: str, model: str, code: str | None = None,
                 retry_after: float | None = None) -> LLMError:
    """The project's error for an HTTP error status from the endpoint (a synchronous call's, or
    one line of a batch's output), with a message that says what to do."""
    # llama-cpp-python answers an unknown response_format type with HTTP 500 (its request
    # validation error, not a server fault): a refusal of the mode, not worth retrying.
    format_refused = status in (400, 422) or (
        status >= 500 and re.search(r"response_format|json_schema", detail) is not None)
    if code == "context_length_exceeded" or "maximum context length" in detail:
        err = LLMBadRequest(f"The input is too long for model '{model}' at {where} ({detail}). "
                            "Use a model with a larger context window or shorten the submission.")
        err.status_code = status
        err.format_refused = False
        return err
    if status in (401, 403):
        return LLMAuthError(f"The language model at {where} refused the API key (HTTP {status}: {detail}). Set a "
                            "valid FAIRMARK_LLM_API_KEY in the environment or .streamlit/secrets.toml.")
    if status == 404:
        err = LLMNotFound(f"The language model at {where} does not know model '{model}' or the "
                          f"endpoint (HTTP 404: {detail}). Check the model name in Settings and "
                          "the base URL (it usually ends in /v1).")
        err.status_code = 404
        return err
    if format_refused and status >= 500:
        err = LLMBadRequest(f"The language model at {where} does not accept this structured-"
                            f"output mode (HTTP {status}: {detail}).")
        err.status_code = status
        err.format_refused = True
        return err
    if status >= 500:
        err = LLMServerError(f"The language model at {where} failed (HTTP {status}: {detail}). "
                             "This is usually temporary: retry the run later.")
    elif status == 408:
        err = LLMTimeout(f"The language model at {where} timed out (HTTP 408). Try again later.")
    elif status == 429:
        err = LLMRateLimited(f"The language model at {where} is rate-limiting requests (HTTP "
                             "429). Lower the concurrency or wait.", retry_after=retry_after)
    else:
        err = LLMBadRequest(f"The language model at {where} rejected the request for model "
                            f"'{model}' (HTTP {status}: {detail}). If this persists, check the "
                            "model name and whether the server supports this request.")
    err.status_code = status
    err.format_refused = format_refused
    return err


def _unreachable(exc: Exception) -> bool:
    """Did the connection itself fail (refused, unknown host, connect timeout)? The SDK chains
    its HTTP library's exception (httpx or httpx2, by SDK version), so it is matched by name."""
    return type(exc.__cause__).__name__ in ("ConnectError", "ConnectTimeout")


def malformed_answer(base_url: str | None, detail: str) -> LLMServerError:
    """A 200 whose body is not a chat completion (an HTML error page from a proxy, JSON cut off):
    a server fault like a 502, so it is retried; the message says what to check if it lasts."""
    return LLMServerError(f"The language model at {base_url or 'the OpenAI API'} sent an answer that is "
                          f"not a valid chat completion ({detail[:200]}). This is usually a passing "
                          "fault of the server or a proxy: retry the run later; if it persists, check "
                          "that FAIRMARK_LLM_BASE_URL is an OpenAI-compatible API (usually ending in /v1).")


def openai_transport(client, *, base_url: str | None = None, api_key: str | None = None) -> Transport:
    """The real transport: one `client.chat.completions.create` call with the SDK's retries off."""
    import openai

    def send(request: dict) -> RawCompletion:
        try:
            raw = client.chat.completions.with_raw_response.create(**request)
            completion = raw.parse()
        except (openai.OpenAIError, LLMError) as exc:
            raise map_sdk_error(exc, base_url=base_url, model=request.get("model", ""),
                                api_key=api_key) from None
        except ValueError as exc:   # json.JSONDecodeError: the body is not JSON, or cut off
            raise malformed_answer(base_url, f"{type(exc).__name__}: {exc}") from None
        try:
            return _raw_completion(raw, completion)
        except (AttributeError, TypeError, IndexError, KeyError, ValueError) as exc:
            # A body that parsed but is not a chat completion (e.g. text/html parsed as a string).
            raise malformed_answer(base_url, f"{type(exc).__name__}: {redact(str(exc), api_key)}") from None

    return send


def _raw_completion(raw, completion) -> RawCompletion:
    """The parts of a parsed chat completion FairMark uses (raises on a body of another shape)."""
    request_id = raw.headers.get("x-request-id") or getattr(completion, "id", None)
    if not getattr(completion, "choices", None):
        raise ValueError("no choices in the answer")
    choice = completion.choices[0]
    u = completion.usage
    usage = Usage()
    if u is not None:
        details = getattr(u, "prompt_tokens_details", None)
        usage = Usage(tokens_in=u.prompt_tokens or 0, tokens_out=u.completion_tokens or 0,
                      tokens_cached=(getattr(details, "cached_tokens", None) or 0) if details else 0)
    logprobs = None
    if choice.logprobs is not None and choice.logprobs.content:
        logprobs = [{"token": t.token, "logprob": t.logprob,
                     "top_logprobs": [{"token": x.token, "logprob": x.logprob}
                                      for x in (t.top_logprobs or [])]}
                    for t in choice.logprobs.content]
    return RawCompletion(content=choice.message.content, finish_reason=choice.finish_reason,
                         refusal=getattr(choice.message, "refusal", None), usage=usage,
                         request_id=request_id, logprobs=logprobs)


# ----------------------------------------------------------------------------------------
# The OpenAI-compatible client
# ----------------------------------------------------------------------------------------
_MODE_MEMORY: dict[str, dict[str, int]] = {}     # base URL -> {model: mode index}
_LOGPROBS_MEMORY: dict[str, dict[str, bool]] = {}  # base URL -> {model: gives logprobs}
_MODE_LOCK = threading.Lock()


def _refuses_logprobs(exc: LLMBadRequest) -> bool:
    return getattr(exc, "status_code", None) in (400, 422) and "logprob" in str(exc).lower()


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
        self._gives_logprobs: dict[str, bool] = {}
        if transport is None:
            transport = self._sdk_transport()
            self._modes = _MODE_MEMORY.setdefault(settings.llm_base_url or "openai", {})
            self._gives_logprobs = _LOGPROBS_MEMORY.setdefault(settings.llm_base_url or "openai", {})
        self.transport = transport

    def _sdk_transport(self) -> Transport:
        import openai

        s = self.settings
        # The key is passed to the SDK and nowhere else (not stored on self, never logged).
        key = s.llm_api_key or NO_KEY
        client = openai.OpenAI(api_key=key, base_url=s.llm_base_url or None,
                               timeout=s.timeout_s, max_retries=0)
        return openai_transport(client, base_url=s.llm_base_url, api_key=s.llm_api_key)

    def __repr__(self) -> str:
        return f"OpenAICompatibleLLM(base_url={self.settings.llm_base_url!r})"

    def model_for(self, role: str) -> str:
        return self.settings.model_for(role)

    def mode_for(self, model: str) -> str:
        """The structured-output mode this model last accepted (json_schema before any call)."""
        return MODES[self._modes.get(model, 0)]

    def gives_logprobs(self, model: str) -> bool | None:
        """Whether this model returned logprobs when asked (None: not asked yet)."""
        return self._gives_logprobs.get(model)

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
                    # Never reached at all: maybe a wrong endpoint. core.runs decides whether
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

    def _wants_logprobs(self, model: str, js: dict) -> bool:
        """Only scoring calls (bounded integer fields) need them, and only from a model that
        has not shown it gives none."""
        return self.logprobs and self._gives_logprobs.get(model, True) and bool(bounded_int_fields(js))

    def _send_structured(self, model: str, messages: list[dict], schema, js: dict,
                         temperature: float, counter: list[int]) -> tuple[RawCompletion, str]:
        start = self._modes.get(model, 0)
        known_good = model in self._modes
        idx = start
        while idx < len(MODES):
            mode = MODES[idx]
            logprobs = self._wants_logprobs(model, js)
            try:
                raw = self._send(self.build_request(model, messages, mode, schema, js, temperature, logprobs),
                                 counter)
            except LLMBadRequest as exc:
                if logprobs and _refuses_logprobs(exc):
                    # The server does not do logprobs: remember it and ask again without them.
                    log.info("model %s refused logprobs; asking without them", model)
                    with _MODE_LOCK:
                        self._gives_logprobs[model] = False
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
                    self._gives_logprobs[model] = bool(raw.logprobs)
            return raw, mode
        raise AssertionError("unreachable")

    @staticmethod
    def _check_finish(raw: RawCompletion, model: str) -> None:
        if raw.refusal or raw.finish_reason == "content_filter":
            why = redact(raw.refusal or "content filter")[:300]
            raise LLMRefusal(f"Model '{model}' declined to answer ({why}). The submission may "
                             "contain content the provider filters: review it by hand.")
        if raw.finish_reason == "length":
            raise LLMTruncated(f"Model '{model}' stopped at its token limit before finishing the "
                               "answer. Use a model with a larger context or shorten the input.")

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
                    data = schema.model_validate_json(text)
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
            raise LLMInvalidOutput(
                f"Model '{model}' did not return valid {schema.__name__} JSON, even after being "
                f"shown the error ({last_error[:300]}). Retry the item, or use a stronger model "
                f"for the {role} role in Settings.")
        except LLMError as exc:
            # The call log records what a failed call cost and how often it tried.
            exc.attempts = counter[0]
            exc.usage = usage
            exc.latency_ms = (time.perf_counter() - t0) * 1000
            raise


# ----------------------------------------------------------------------------------------
# Prompt logprobs (lesson review): a separate, self-contained call to the completions endpoint
# ----------------------------------------------------------------------------------------
def echo_transport(*, base_url: str | None, api_key: str | None, timeout_s: float = 60.0) -> Callable[[dict], dict]:
    """A transport for the completions endpoint asked to echo the prompt with its own token
    logprobs (`echo=True, logprobs=k, max_tokens=1`): llama.cpp's server answers it; chat-only
    APIs do not. request dict -> {tokens, text_offset, token_logprobs, top_logprobs, tokens_in,
    tokens_out, request_id}, or a core.errors.LLMError saying what to do."""
    import openai

    client = openai.OpenAI(api_key=api_key or NO_KEY, base_url=base_url or None, timeout=timeout_s, max_retries=0)

    def send(request: dict) -> dict:
        try:
            resp = client.completions.create(**request)
        except openai.OpenAIError as exc:
            raise map_sdk_error(exc, base_url=base_url, model=request.get("model", ""), api_key=api_key) from None
        lp = getattr(resp.choices[0], "logprobs", None) if resp.choices else None
        if lp is None or not lp.tokens or not lp.text_offset:
            raise LLMBadRequest(f"The completions endpoint at {base_url or 'OpenAI'} returned no prompt logprobs "
                                f"for model '{request.get('model')}': it does not echo them. Point "
                                "FAIRMARK_LESSON_LOGPROBS_BASE_URL at a server that does (llama.cpp's) or unset it.")
        usage = resp.usage
        return {"tokens": list(lp.tokens), "text_offset": [int(o) for o in lp.text_offset],
                "token_logprobs": list(lp.token_logprobs or []),
                "top_logprobs": [dict(t) if t else None for t in (lp.top_logprobs or [])],
                "tokens_in": getattr(usage, "prompt_tokens", 0) or 0,
                "tokens_out": getattr(usage, "completion_tokens", 0) or 0, "request_id": getattr(resp, "id", None)}

    return send


# ----------------------------------------------------------------------------------------
# Batch endpoint (issue 18): /v1/files + /v1/batches, the provider's own engine at half price
# ----------------------------------------------------------------------------------------
class BatchEndpoint:
    """The file and batch endpoints of an OpenAI-compatible server (OpenAI's Batch API; vLLM
    serves the same format): upload a JSONL file of chat requests, create a batch, poll it,
    read its output. core.llm.batch drives it; every SDK error is mapped like a chat call's."""

    def __init__(self, settings):
        import openai

        self.base_url = settings.llm_base_url
        self._key = settings.llm_api_key
        self._client = openai.OpenAI(api_key=settings.llm_api_key or NO_KEY, base_url=settings.llm_base_url or None,
                                     timeout=settings.timeout_s, max_retries=2)

    def _call(self, what: Callable):
        import openai

        try:
            return what()
        except openai.OpenAIError as exc:
            raise map_sdk_error(exc, base_url=self.base_url, api_key=self._key) from None

    def submit(self, lines: list[dict], metadata: dict | None = None) -> dict:
        """Upload the requests ({custom_id, method, url, body} each) and start a batch:
        {"batch_id", "input_file_id"}."""
        import json

        data = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode("utf-8")
        f = self._call(lambda: self._client.files.create(file=("fairmark-batch.jsonl", data), purpose="batch"))
        b = self._call(lambda: self._client.batches.create(input_file_id=f.id, endpoint="/v1/chat/completions",
                                                           completion_window="24h", metadata=metadata or None))
        return {"batch_id": b.id, "input_file_id": f.id}

    def status(self, batch_id: str) -> dict:
        """{"status" (validating | in_progress | finalizing | completed | failed | expired |
        cancelling | cancelled), "output_file_id", "error_file_id", "errors"}."""
        b = self._call(lambda: self._client.batches.retrieve(batch_id))
        errors = [getattr(e, "message", str(e)) for e in (getattr(getattr(b, "errors", None), "data", None) or [])]
        return {"status": b.status, "output_file_id": b.output_file_id, "error_file_id": b.error_file_id,
                "errors": errors}

    def lines(self, file_id: str | None) -> list[dict]:
        """The JSONL lines of an output or error file ([] for none)."""
        import json

        if not file_id:
            return []
        raw = self._call(lambda: self._client.files.content(file_id).content)
        return [json.loads(x) for x in raw.decode("utf-8").splitlines() if x.strip()]


def batch_result(line: dict, base_url: str | None) -> RawCompletion | LLMError:
    """One line of a batch's output or error file as a chat transport's result: the completion,
    or the error a synchronous call with that status would have raised (so the client retries,
    falls back or re-asks exactly as it does for synchronous calls)."""
    from openai.types.chat import ChatCompletion

    response = line.get("response") or {}
    status = int(response.get("status_code") or 0)
    body = response.get("body") or {}
    if status == 200:
        try:
            completion = ChatCompletion.model_validate(body)
            return _raw_completion(_Headers({"x-request-id": response.get("request_id")}), completion)
        except (ValueError, AttributeError, TypeError, IndexError, KeyError) as exc:
            return malformed_answer(base_url, f"{type(exc).__name__}: {exc}")
    error = (body.get("error") if isinstance(body, dict) else None) or line.get("error") or {}
    message = (error.get("message") if isinstance(error, dict) else str(error)) or f"HTTP {status}"
    if not status:   # the batch could not run this request at all (expired, failed batch)
        return LLMServerError(f"The batch at {base_url or 'the OpenAI API'} did not run this request ({message}). "
                              "It is asked again in the next batch.")
    return status_error(status, redact(message)[:500], where=base_url or "the OpenAI API",
                        model=str(body.get("model", "")) if isinstance(body, dict) else "",
                        code=error.get("code") if isinstance(error, dict) else None)


class _Headers(dict):
    """What _raw_completion reads from a raw response: its headers."""

    @property
    def headers(self):
        return self
