"""The openai SDK seam: the only module in FairMark that imports `openai`.

What touches the SDK is here and nothing else: the chat transport (`openai_transport`,
`sdk_transport`: request dict -> RawCompletion, the SDK's retries off), SDK errors mapped once
to core.errors with a message that says what to do (`map_sdk_error`; the API key redacted from
every message), and the completions endpoint that echoes a prompt's own token logprobs
(`echo_transport`, for the lesson review). How a structured call goes (modes, retries, re-ask,
logprobs) is the client's, core.llm.chat.OpenAICompatibleLLM, which only sees a Transport.
"""
from __future__ import annotations

import email.utils
import re
import time
from typing import Callable

from core.errors import (
    LLMAuthError,
    LLMBadRequest,
    LLMConnectionError,
    LLMError,
    LLMNotFound,
    LLMRateLimited,
    LLMServerError,
    LLMTimeout,
)
from core.language.interface import Message
from core.llm.protocol import RawCompletion, Transport, Usage

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

    where = _where(base_url)
    detail = redact(str(getattr(exc, "message", "") or exc), api_key)[:500]
    if isinstance(exc, LLMError):
        return exc
    if isinstance(exc, openai.APITimeoutError) and not _unreachable(exc):
        return LLMTimeout(Message("The language model at {where} did not answer in time. Try again later, "
                                  "raise FAIRMARK_TIMEOUT, or lower the concurrency.", where=where))
    if isinstance(exc, openai.APIConnectionError):
        # Refused, unknown host or no answer to the connection attempt: the endpoint itself is
        # unreachable (a setting to fix when it never works), unlike an answer cut off midway.
        if _unreachable(exc):
            err = LLMConnectionError(Message("Cannot reach the language model at {where} ({detail}). Check "
                                             "FAIRMARK_LLM_BASE_URL and that the server is running.",
                                             where=where, detail=detail))
            err.unreachable = True
            return err
        return LLMConnectionError(Message("The connection to the language model at {where} broke off before the "
                                          "answer was complete ({detail}). This is usually temporary: retry the run "
                                          "later; if it persists, check FAIRMARK_LLM_BASE_URL and the network.",
                                          where=where, detail=detail))
    if isinstance(exc, openai.RateLimitError):
        wait = _retry_after_seconds(getattr(getattr(exc, "response", None), "headers", None))
        err = LLMRateLimited(Message("The language model at {where} is rate-limiting requests (HTTP 429: "
                                     "{detail}). Lower the concurrency in Settings or wait and retry.",
                                     where=where, detail=detail), retry_after=wait)
        return err
    if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
        return _refused_key(where, exc.status_code, detail)
    if isinstance(exc, openai.NotFoundError):
        err = _unknown_model(where, model, detail)
        err.status_code = 404
        return err
    if isinstance(exc, openai.APIStatusError):
        return status_error(exc.status_code, detail, where=where, model=model, code=getattr(exc, "code", None),
                            retry_after=_retry_after_seconds(getattr(exc.response, "headers", None)))
    if isinstance(exc, openai.APIResponseValidationError):
        return LLMServerError(Message("The language model at {where} sent a malformed response ({detail}). "
                                      "Check that the base URL is an OpenAI-compatible API.",
                                      where=where, detail=detail))
    return LLMError(Message("Unexpected error calling the language model at {where}: {kind}: {detail}",
                            where=where, kind=type(exc).__name__, detail=detail))


def _where(base_url: str | None) -> str:
    """The endpoint a message names: its address, else the OpenAI API (a Message)."""
    return base_url or Message("the OpenAI API")


def _refused_key(where, status, detail: str) -> LLMAuthError:
    return LLMAuthError(Message("The language model at {where} refused the API key (HTTP {status}: {detail}). Set a "
                                "valid FAIRMARK_LLM_API_KEY in the environment or .streamlit/secrets.toml.",
                                where=where, status=status, detail=detail))


def _unknown_model(where, model: str, detail: str) -> LLMNotFound:
    return LLMNotFound(Message("The language model at {where} does not know model '{model}' or the endpoint (HTTP "
                               "404: {detail}). Check the model name in Settings and the base URL (it usually ends "
                               "in /v1).", where=where, model=model, detail=detail))


def status_error(status: int, detail: str, *, where: str, model: str, code: str | None = None,
                 retry_after: float | None = None) -> LLMError:
    """The project's error for an HTTP error status from the endpoint (a synchronous call's, or
    one line of a batch's output), with a message that says what to do."""
    # llama-cpp-python answers an unknown response_format type with HTTP 500 (its request
    # validation error, not a server fault): a refusal of the mode, not worth retrying.
    format_refused = status in (400, 422) or (
        status >= 500 and re.search(r"response_format|json_schema", detail) is not None)
    if code == "context_length_exceeded" or "maximum context length" in detail:
        err = LLMBadRequest(Message("The input is too long for model '{model}' at {where} ({detail}). "
                                    "Use a model with a larger context window or shorten the submission.",
                                    model=model, where=where, detail=detail))
        err.status_code = status
        err.format_refused = False
        return err
    if status in (401, 403):
        return _refused_key(where, status, detail)
    if status == 404:
        err = _unknown_model(where, model, detail)
        err.status_code = 404
        return err
    if format_refused and status >= 500:
        err = LLMBadRequest(Message("The language model at {where} does not accept this structured-output mode "
                                    "(HTTP {status}: {detail}).", where=where, status=status, detail=detail))
        err.status_code = status
        err.format_refused = True
        return err
    if status >= 500:
        err = LLMServerError(Message("The language model at {where} failed (HTTP {status}: {detail}). "
                                     "This is usually temporary: retry the run later.",
                                     where=where, status=status, detail=detail))
    elif status == 408:
        err = LLMTimeout(Message("The language model at {where} timed out (HTTP 408). Try again later.",
                                 where=where))
    elif status == 429:
        err = LLMRateLimited(Message("The language model at {where} is rate-limiting requests (HTTP 429). Lower "
                                     "the concurrency or wait.", where=where), retry_after=retry_after)
    else:
        err = LLMBadRequest(Message("The language model at {where} rejected the request for model '{model}' (HTTP "
                                    "{status}: {detail}). If this persists, check the model name and whether the "
                                    "server supports this request.",
                                    where=where, model=model, status=status, detail=detail))
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
    return LLMServerError(Message("The language model at {where} sent an answer that is not a valid chat completion "
                                  "({detail}). This is usually a passing fault of the server or a proxy: retry the "
                                  "run later; if it persists, check that FAIRMARK_LLM_BASE_URL is an "
                                  "OpenAI-compatible API (usually ending in /v1).",
                                  where=_where(base_url), detail=detail[:200]))


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


def sdk_transport(settings) -> Transport:
    """The transport of an OpenAICompatibleLLM (core.llm.chat) built from settings: an SDK client
    for the endpoint with its own retries off. The key is passed to the SDK and nowhere else."""
    import openai

    key = settings.llm_api_key or NO_KEY
    client = openai.OpenAI(api_key=key, base_url=settings.llm_base_url or None,
                           timeout=settings.timeout_s, max_retries=0)
    return openai_transport(client, base_url=settings.llm_base_url, api_key=settings.llm_api_key)



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
            raise LLMBadRequest(Message("The completions endpoint at {where} returned no prompt logprobs for model "
                                        "'{model}': it does not echo them. Point FAIRMARK_LESSON_LOGPROBS_BASE_URL "
                                        "at a server that does (llama.cpp's) or unset it.",
                                        where=base_url or "OpenAI", model=request.get("model")))
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
        return LLMServerError(Message("The batch at {where} did not run this request ({message}). It is asked "
                                      "again in the next batch.", where=_where(base_url), message=message))
    return status_error(status, redact(message)[:500], where=_where(base_url),
                        model=str(body.get("model", "")) if isinstance(body, dict) else "",
                        code=error.get("code") if isinstance(error, dict) else None)


class _Headers(dict):
    """What _raw_completion reads from a raw response: its headers."""

    @property
    def headers(self):
        return self
