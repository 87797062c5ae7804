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

Building one:  `from_settings(settings, db_path)` -> LoggedLLM(OpenAICompatibleLLM(...)).

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
Everything that touches HTTP sits in a `Transport` (request dict -> RawCompletion), so tests
script the logic above with `tests.fake_llm.FakeTransport` and no HTTP mocks.
"""
from __future__ import annotations

import copy
import email.utils
import functools
import hashlib
import json
import logging
import random
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Generic, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from core.errors import (ConfigError, LLMAuthError, LLMBadRequest, LLMConnectionError, LLMError,
                         LLMInvalidOutput, LLMRateLimited, LLMRefusal, LLMServerError, LLMTimeout,
                         LLMTruncated)

T = TypeVar("T", bound=BaseModel)
log = logging.getLogger(__name__)


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
    # Added: which structured-output mode the server accepted, and a note for the call log
    # (e.g. "no price for model X").
    response_mode: str | None = None
    note: str = ""


class LLM(Protocol):
    provider: str

    def model_for(self, role: str) -> str: ...

    def complete(self, messages: list[dict], schema: type[T], *, role: str, ctx: CallContext,
                 temperature: float | None = None) -> LLMResponse[T]: ...


# ----------------------------------------------------------------------------------------
# The raw completion layer
# ----------------------------------------------------------------------------------------
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

MODES = ("json_schema", "json_object_schema", "json_object")
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
    if isinstance(exc, openai.APITimeoutError):
        return LLMTimeout(f"The language model at {where} did not answer in time. Try again later, "
                          "raise FAIRMARK_TIMEOUT, or lower the concurrency.")
    if isinstance(exc, openai.APIConnectionError):
        return LLMConnectionError(f"Cannot reach the language model at {where} ({detail}). Check "
                                  "FAIRMARK_LLM_BASE_URL and that the server is running.")
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
        err = LLMBadRequest(f"The language model at {where} does not know model '{model}' or the "
                            f"endpoint (HTTP 404: {detail}). Check the model name in Settings and "
                            "the base URL (it usually ends in /v1).")
        err.status_code = 404
        return err
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        # llama-cpp-python answers an unknown response_format type with HTTP 500 (its request
        # validation error, not a server fault): a refusal of the mode, not worth retrying.
        format_refused = status in (400, 422) or (
            status >= 500 and re.search(r"response_format|json_schema", detail) is not None)
        if getattr(exc, "code", None) == "context_length_exceeded" or "maximum context length" in detail:
            err = LLMBadRequest(f"The input is too long for model '{model}' at {where} ({detail}). "
                                "Use a model with a larger context window or shorten the submission.")
            err.status_code = status
            err.format_refused = False
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
                                 "429). Lower the concurrency or wait.",
                                 retry_after=_retry_after_seconds(exc.response.headers))
        else:
            err = LLMBadRequest(f"The language model at {where} rejected the request for model "
                                f"'{model}' (HTTP {status}: {detail}). If this persists, check the "
                                "model name and whether the server supports this request.")
        err.status_code = status
        err.format_refused = format_refused
        return err
    if isinstance(exc, openai.APIResponseValidationError):
        return LLMServerError(f"The language model at {where} sent a malformed response "
                              f"({detail}). Check that the base URL is an OpenAI-compatible API.")
    return LLMError(f"Unexpected error calling the language model at {where}: "
                    f"{type(exc).__name__}: {detail}")


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
        request_id = raw.headers.get("x-request-id") or getattr(completion, "id", None)
        if not getattr(completion, "choices", None):
            raise LLMServerError(f"The language model at {base_url or 'OpenAI'} returned no answer "
                                 "(empty choices). Retry later.")
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

    return send


# ----------------------------------------------------------------------------------------
# JSON schema from a pydantic model
# ----------------------------------------------------------------------------------------
def json_schema_for(schema: type[BaseModel]) -> dict:
    """The model's JSON schema with $refs inlined (small servers' grammar builders handle
    plain nested objects best), `default`s dropped, and every object closed
    (additionalProperties false, all properties required), as strict mode demands.
    Literal ints stay `enum`s, which grammar-constrained servers do enforce (unlike min/max)."""
    raw = schema.model_json_schema()
    defs = raw.pop("$defs", {})

    def walk(node, depth=0):
        if depth > 40:
            raise ConfigError(f"Schema {schema.__name__} is recursive; agents' schemas must not be.")
        if isinstance(node, list):
            return [walk(x, depth + 1) for x in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            target = defs[node["$ref"].split("/")[-1]]
            merged = {**copy.deepcopy(target), **{k: v for k, v in node.items() if k != "$ref"}}
            return walk(merged, depth + 1)
        out = {k: walk(v, depth + 1) for k, v in node.items() if k != "default"}
        if out.get("type") == "object" and "properties" in out:
            out["required"] = list(out["properties"])
            out.setdefault("additionalProperties", False)
        return out

    return walk(raw)


def is_strict_compatible(js: dict) -> bool:
    """Strict json_schema needs closed objects; a dict[str, X] field (open keys) is not."""
    if isinstance(js, dict):
        if js.get("type") == "object" and js.get("additionalProperties", False) is not False:
            return False
        if js.get("type") == "object" and "properties" not in js:
            return False
        return all(is_strict_compatible(v) for v in js.values())
    if isinstance(js, list):
        return all(is_strict_compatible(v) for v in js)
    return True


def _schema_instruction(schema: type[BaseModel], js: dict) -> str:
    return ("Answer with one JSON object only, no prose and no code fences, that matches this "
            f"JSON schema ({schema.__name__}):\n" + json.dumps(js, ensure_ascii=False))


# Length bounds steer grammar-constrained servers (json_object + schema); strict json_schema
# servers may refuse such keywords, and pydantic enforces the bounds anyway, so strict mode
# gets the schema without them.
_STRICT_UNSUPPORTED = ("maxLength", "minLength", "maxItems", "minItems", "pattern")


def _without_length_bounds(node):
    if isinstance(node, dict):
        return {k: _without_length_bounds(v) for k, v in node.items() if k not in _STRICT_UNSUPPORTED}
    if isinstance(node, list):
        return [_without_length_bounds(v) for v in node]
    return node


def _response_format(mode: str, schema: type[BaseModel], js: dict) -> dict:
    if mode == "json_schema":
        js = _without_length_bounds(js)
        return {"type": "json_schema",
                "json_schema": {"name": schema.__name__[:64], "schema": js,
                                "strict": is_strict_compatible(js)}}
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": js}
    return {"type": "json_object"}


def _with_schema_in_system(messages: list[dict], text: str) -> list[dict]:
    msgs = [dict(m) for m in messages]
    if msgs and msgs[0].get("role") == "system":
        msgs[0]["content"] = f"{msgs[0].get('content', '')}\n\n{text}"
    else:
        msgs.insert(0, {"role": "system", "content": text})
    return msgs


def _strip_fences(text: str) -> str:
    """Small models wrap JSON in ```json fences even in JSON mode."""
    t = text.strip()
    m = re.match(r"^```(?:json)?\s*(.*?)\s*```$", t, re.S)
    return m.group(1) if m else t


# ----------------------------------------------------------------------------------------
# Logprobs -> probability of each score label
# ----------------------------------------------------------------------------------------
def _int_value_offsets(text: str) -> list[tuple[str, int]]:
    """(dotted key path, char offset) of every integer value in a JSON text."""
    out: list[tuple[str, int]] = []
    stack: list[list] = []       # per container: [kind, current key or index]
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            s = text[i + 1:j]
            k = j + 1
            while k < n and text[k] in " \t\r\n":
                k += 1
            if stack and stack[-1][0] == "obj" and k < n and text[k] == ":":
                stack[-1][1] = s
            i = j + 1
            continue
        if c in "{[":
            stack.append(["obj" if c == "{" else "arr", 0 if c == "[" else None])
        elif c in "}]":
            if stack:
                stack.pop()
        elif c == "," and stack and stack[-1][0] == "arr":
            stack[-1][1] += 1
        elif c in "-0123456789":
            j = i
            while j < n and text[j] in "-+.eE0123456789":
                j += 1
            if re.fullmatch(r"-?\d+", text[i:j]):
                path = ".".join(str(s[1]) for s in stack if s[1] is not None)
                out.append((path, i))
            i = j
            continue
        i += 1
    return out


def score_probs_from_logprobs(text: str, logprobs: list[dict] | None,
                              labels_by_field: dict[str, set[int]]) -> dict | None:
    """{field path: {label: probability}} for bounded-integer fields, from the top logprobs of
    the token where each value starts. Only labels the schema allows are kept, renormalised."""
    if not logprobs or not labels_by_field:
        return None
    starts, pos = [], 0
    for tok in logprobs:
        starts.append(pos)
        pos += len(tok.get("token", ""))
    if pos != len(text):        # tokens don't reassemble the text (e.g. fences stripped)
        joined = "".join(t.get("token", "") for t in logprobs)
        shift = joined.find(text)
        if shift < 0:
            return None
        starts = [s - shift for s in starts]
    result: dict[str, dict[str, float]] = {}
    for path, offset in _int_value_offsets(text):
        leaf = path.split(".")[-1]
        labels = labels_by_field.get(leaf)
        if not labels:
            continue
        idx = max((k for k, s in enumerate(starts) if s <= offset), default=None)
        if idx is None:
            continue
        cands = logprobs[idx].get("top_logprobs") or [logprobs[idx]]
        probs: dict[str, float] = {}
        for cand in cands:
            tok = cand.get("token", "").strip()
            if tok.lstrip("-").isdigit() and int(tok) in labels:
                probs[tok] = probs.get(tok, 0.0) + pow(2.718281828459045, cand.get("logprob", -99))
        total = sum(probs.values())
        if total > 0:
            result[path] = {k: v / total for k, v in sorted(probs.items())}
    return result or None


def bounded_int_fields(js: dict) -> dict[str, set[int]]:
    """Field name -> allowed integer labels, for every enum-of-ints property in a schema."""
    found: dict[str, set[int]] = {}

    def walk(node):
        if isinstance(node, dict):
            for name, prop in (node.get("properties") or {}).items():
                enum = prop.get("enum") if isinstance(prop, dict) else None
                if enum and all(isinstance(v, int) and not isinstance(v, bool) for v in enum):
                    found.setdefault(name, set()).update(enum)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(js)
    return found


# ----------------------------------------------------------------------------------------
# The OpenAI-compatible client
# ----------------------------------------------------------------------------------------
_MODE_MEMORY: dict[str, dict[str, int]] = {}     # base URL -> {model: mode index}
_MODE_LOCK = threading.Lock()


class OpenAICompatibleLLM:
    """OpenAI, Azure OpenAI's v1 endpoint, vLLM, Ollama, llama.cpp, LM Studio: one code path."""

    provider = "openai"

    def __init__(self, settings, *, transport: Transport | None = None,
                 sleep: Callable[[float], None] = time.sleep, rand: Callable[[], float] = random.random,
                 max_tokens: int | None = 1024, logprobs: bool = False):
        self.settings = settings
        self.temperature = settings.temperature
        self.max_retries = max(0, int(settings.max_retries))
        self.max_tokens = max_tokens
        self.logprobs = logprobs
        self._sleep, self._rand = sleep, rand
        # model -> index into MODES that worked. With the real SDK this is shared by every
        # client of the same endpoint in the process (a Regenerate click builds a new client and
        # should not pay for a refused request again); an injected transport gets its own.
        self._modes: dict[str, int] = {}
        if transport is None:
            transport = self._sdk_transport()
            self._modes = _MODE_MEMORY.setdefault(settings.llm_base_url or "openai", {})
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

    # -- one HTTP request, with retries of transient faults --------------------------------
    def _send(self, request: dict, counter: list[int]) -> RawCompletion:
        retries = 0
        while True:
            counter[0] += 1
            try:
                return self.transport(request)
            except LLMError as exc:
                if not exc.retryable or retries >= self.max_retries:
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
                      js: dict | None = None, temperature: float | None = None) -> dict:
        """The keyword arguments of chat.completions.create for one structured-output mode."""
        js = json_schema_for(schema) if js is None else js
        temperature = self.temperature if temperature is None else temperature
        if mode == "json_object":
            messages = _with_schema_in_system(messages, _schema_instruction(schema, js))
        req = {"model": model, "messages": messages, "temperature": temperature,
               "response_format": _response_format(mode, schema, js)}
        if self.max_tokens:
            req["max_tokens"] = self.max_tokens
        if self.logprobs:
            req["logprobs"] = True
            req["top_logprobs"] = 5
        return req

    def _send_structured(self, model: str, messages: list[dict], schema, js: dict,
                         temperature: float, counter: list[int]) -> tuple[RawCompletion, str]:
        start = self._modes.get(model, 0)
        known_good = model in self._modes
        for idx in range(start, len(MODES)):
            mode = MODES[idx]
            try:
                raw = self._send(self.build_request(model, messages, mode, schema, js, temperature), counter)
            except LLMBadRequest as exc:
                # A refused response_format is a 400/422. Only fall back from modes not yet known
                # to work for this model; a 400 in a known-good mode is a real bad request.
                refused = getattr(exc, "format_refused", getattr(exc, "status_code", 400) in (400, 422))
                if known_good or idx == len(MODES) - 1 or not refused:
                    raise
                log.info("model %s refused response_format %s; falling back", model, mode)
                continue
            with _MODE_LOCK:
                self._modes[model] = idx
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
                text = _strip_fences(raw.content or "")
                try:
                    data = schema.model_validate_json(text)
                except ValidationError as exc:
                    last_error = _short_validation_error(exc)
                    convo = convo + [
                        {"role": "assistant", "content": raw.content or ""},
                        {"role": "user", "content": (
                            "Your answer was not valid: " + last_error + "\nReply again with only "
                            "the corrected JSON object, matching the schema exactly.")}]
                    continue
                return LLMResponse(
                    data=data, model=model, raw=text, usage=usage,
                    latency_ms=(time.perf_counter() - t0) * 1000, request_id=raw.request_id,
                    attempts=counter[0], response_mode=mode,
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


def _short_validation_error(exc: ValidationError) -> str:
    parts = []
    for e in exc.errors()[:8]:
        loc = ".".join(str(x) for x in e.get("loc", ())) or "(whole answer)"
        parts.append(f"{loc}: {e.get('msg')}")
    return "; ".join(parts)


# ----------------------------------------------------------------------------------------
# Call log and cache
# ----------------------------------------------------------------------------------------
def _canonical(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


@functools.lru_cache(maxsize=256)
def _schema_json(schema: type[BaseModel]) -> dict:
    """Once per schema class: pydantic rebuilds the JSON schema on every call (0.3-1.3 ms of
    CPU on the pipeline's critical path). Read-only: callers only serialise it."""
    return schema.model_json_schema()


def input_hash(messages: list[dict], schema: type[BaseModel]) -> str:
    payload = {"messages": messages, "schema": schema.__name__,
               "schema_json": _schema_json(schema)}
    return hashlib.sha256(_canonical(payload).encode()).hexdigest()


def cache_key(model: str, prompt_hash: str, in_hash: str, temperature: float) -> str:
    return hashlib.sha256(_canonical([model, prompt_hash, in_hash, round(float(temperature), 4)])
                          .encode()).hexdigest()


class LoggedLLM:
    """Wraps any LLM: answers identical work from the cache, writes one llm_calls row per call
    (ok, cache_hit or error), and prices it. Safe to call from many threads: every call opens
    its own connection (WAL + busy timeout come from db.connect)."""

    def __init__(self, inner, db_path, prices: dict | None = None, *, read_cache: bool = True):
        self.inner = inner
        self.db_path = str(db_path)
        self.prices = prices          # {model: {input_per_mtok, cached_input_per_mtok, output_per_mtok}}
        self.read_cache = read_cache
        self.provider = inner.provider
        self._local = threading.local()   # one connection per worker thread, reused across calls

    def _conn(self):
        import db

        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = db.connect(self.db_path)
        return conn

    def __repr__(self) -> str:
        return f"LoggedLLM({self.inner!r})"

    def model_for(self, role: str) -> str:
        return self.inner.model_for(role)

    @property
    def temperature(self) -> float:
        return getattr(self.inner, "temperature", 0.3)

    def _price(self, conn, model: str) -> dict | None:
        from db import llm_calls

        if self.prices is not None:
            return self.prices.get(model)
        return llm_calls.get_price(conn, model)

    def complete(self, messages: list[dict], schema: type[T], *, role: str, ctx: CallContext,
                 temperature: float | None = None) -> LLMResponse[T]:
        import db
        from db import llm_calls

        model = self.inner.model_for(role)
        temp = self.temperature if temperature is None else temperature
        in_hash = input_hash(messages, schema)
        key = cache_key(model, ctx.prompt_hash, in_hash, temp)
        row = dict(run_id=ctx.run_id, submission_id=ctx.submission_id, agent=ctx.agent, model=model,
                   prompt_name=ctx.prompt_name, prompt_hash=ctx.prompt_hash, input_hash=in_hash,
                   temperature=temp, cache_key=key)
        conn = self._conn()
        if self.read_cache:
            t0 = time.perf_counter()
            hit = llm_calls.cached_response(conn, key)
            if hit is not None:
                try:
                    data = schema.model_validate_json(hit["response"])
                except ValidationError:
                    data = None         # schema changed under the same name: call again
                if data is not None:
                    latency = (time.perf_counter() - t0) * 1000
                    note = f"served from cache (call #{hit['id']})"
                    llm_calls.insert_call(conn, **row, response=hit["response"], status="cache_hit",
                                          cache_hit=1, latency_ms=latency, attempts=0, note=note)
                    return LLMResponse(data=data, model=model, raw=hit["response"], usage=Usage(),
                                       latency_ms=latency, cache_hit=True, cost_usd=0.0,
                                       attempts=0, note=note)
        t0 = time.perf_counter()
        try:
            resp = self.inner.complete(messages, schema, role=role, ctx=ctx, temperature=temperature)
        except LLMError as exc:
            usage = getattr(exc, "usage", None) or Usage()
            cost, note = self._cost(conn, model, usage)
            llm_calls.insert_call(
                conn, **row, status="error", error=f"{type(exc).__name__}: {redact(str(exc))}",
                tokens_in=usage.tokens_in, tokens_out=usage.tokens_out,
                tokens_cached=usage.tokens_cached, cost_usd=cost,
                latency_ms=getattr(exc, "latency_ms", (time.perf_counter() - t0) * 1000),
                attempts=getattr(exc, "attempts", 1), note=note)
            raise
        except Exception as exc:
            # A bug, not a model fault: still recorded, then re-raised unchanged.
            llm_calls.insert_call(conn, **row, status="error",
                                  error=f"{type(exc).__name__}: {redact(str(exc))}"[:2000],
                                  latency_ms=(time.perf_counter() - t0) * 1000)
            raise
        resp.cost_usd, note = self._cost(conn, model, resp.usage)
        resp.note = "; ".join(x for x in (resp.note, note) if x)
        stored = resp.data.model_dump_json()
        llm_calls.insert_call(
            conn, **row, response=stored, status="ok", tokens_in=resp.usage.tokens_in,
            tokens_out=resp.usage.tokens_out, tokens_cached=resp.usage.tokens_cached,
            latency_ms=resp.latency_ms, cost_usd=resp.cost_usd, request_id=resp.request_id,
            attempts=resp.attempts, note=resp.note,
            response_mode=resp.response_mode)
        return resp

    def _cost(self, conn, model: str, usage: Usage) -> tuple[float, str]:
        from db import llm_calls

        price = self._price(conn, model)
        if price is None:
            if not (usage.tokens_in or usage.tokens_out):
                return 0.0, ""
            return 0.0, f"no price for model '{model}': cost counted as 0 (add it in Settings)"
        return llm_calls.cost_usd(price, usage.tokens_in, usage.tokens_out, usage.tokens_cached), ""


# ----------------------------------------------------------------------------------------
# Building an LLM from settings
# ----------------------------------------------------------------------------------------
def effective_settings(settings, conn=None):
    """Settings with the admin's UI overrides (Settings page, `app_settings` table) applied.

    Precedence for models, temperature, timeout, retries and concurrency: Settings page >
    environment > secrets.toml > default. The endpoint (base URL) and key come only from the
    environment or secrets."""
    from db import llm_calls

    if conn is None:
        import db

        own = db.connect(settings.db_path)
        try:
            over = llm_calls.get_llm_overrides(own)
        finally:
            own.close()
    else:
        over = llm_calls.get_llm_overrides(conn)
    if not over:
        return settings
    update = {k: over[k] for k in ("llm_model", "temperature", "timeout_s", "max_retries", "concurrency")
              if over.get(k) not in (None, "")}
    if over.get("models"):
        update["models"] = {**settings.models, **{r: m for r, m in over["models"].items() if m}}
    return settings.model_copy(update=update)


def from_settings(settings, db_path=None, *, transport: Transport | None = None,
                  read_cache: bool = True, apply_overrides: bool = True, **kwargs) -> LoggedLLM:
    """The logged, cached OpenAI-compatible LLM the pipeline uses. Raises ConfigError when no
    endpoint is configured (the pipeline then uses the offline provider)."""
    import db

    db_path = str(db_path or settings.db_path)
    if apply_overrides:
        conn = db.connect(db_path)
        try:
            settings = effective_settings(settings, conn)
        finally:
            conn.close()
    if not settings.llm_configured:
        raise ConfigError("No language model is configured: set FAIRMARK_LLM_BASE_URL and/or "
                          "FAIRMARK_LLM_API_KEY (environment or .streamlit/secrets.toml), or use "
                          "the offline baseline.")
    inner = OpenAICompatibleLLM(settings, transport=transport, **kwargs)
    return LoggedLLM(inner, db_path, read_cache=read_cache)


class ConnectionCheck(BaseModel):
    ok: bool


def test_connection(settings, db_path=None, *, role: str = "evaluator",
                    transport: Transport | None = None) -> dict:
    """One tiny call to the configured endpoint (never cached, logged as agent 'settings').
    Returns {model, latency_ms, tokens_in, tokens_out, mode, request_id}; raises an LLMError
    or ConfigError with a message to show."""
    # Quick to fail: no retries and a short timeout (a person is waiting on the button).
    settings = effective_settings(settings)
    settings = settings.model_copy(update={"max_retries": 0, "timeout_s": min(settings.timeout_s, 30.0)})
    llm = from_settings(settings, db_path, transport=transport, read_cache=False, apply_overrides=False,
                        max_tokens=64)
    prompt = "Reply with the JSON object {\"ok\": true}."
    ctx = CallContext(agent="settings", prompt_name="connection_test",
                      prompt_hash=hashlib.sha256(prompt.encode()).hexdigest()[:16])
    resp = llm.complete([{"role": "user", "content": prompt}], ConnectionCheck, role=role, ctx=ctx,
                        temperature=0.0)
    return {"model": resp.model, "latency_ms": round(resp.latency_ms), "tokens_in": resp.usage.tokens_in,
            "tokens_out": resp.usage.tokens_out, "mode": resp.response_mode,
            "request_id": resp.request_id}


test_connection.__test__ = False     # not a pytest test, despite the name
