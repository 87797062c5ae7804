"""The lesson text's own token logprobs, from a completions endpoint that echoes the prompt
(llama.cpp's server does), logged and cached like every other call.

    endpoint = echo.endpoint(settings)          # None when not configured: skip with a note
    data = echo.prompt_logprobs(endpoint, text, db_path=..., ctx=CallContext(...))

`data` is {tokens, text_offset, token_logprobs, top_logprobs}; core.lessons.entropy turns it
into entropy per sentence. The answer is cached on (model, text): re-reviewing an unchanged
lesson costs nothing. The HTTP part is `openai_client.echo_transport` (the only openai importer);
tests pass their own transport.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Callable

import db
from core.errors import LLMError
from core.llm.logged import cache_key
from core.llm.openai_client import echo_transport, redact
from core.llm.protocol import CallContext
from db import llm_calls

TOP = 5                     # alternatives per token: enough for an entropy estimate
PROMPT_HASH = "echo-logprobs-v1"


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    model: str
    api_key: str | None = None
    timeout_s: float = 120.0


def endpoint(settings) -> Endpoint | None:
    """The configured echo endpoint (FAIRMARK_LESSON_LOGPROBS_BASE_URL, _MODEL, _API_KEY), or
    None. The model defaults to the main model; the key to the main key on the same server."""
    if not settings.lesson_logprobs_base_url:
        return None
    same = settings.lesson_logprobs_base_url == settings.llm_base_url
    return Endpoint(settings.lesson_logprobs_base_url, settings.lesson_logprobs_model or settings.llm_model,
                    settings.lesson_logprobs_api_key or (settings.llm_api_key if same else None),
                    max(settings.timeout_s, 120.0))


def prompt_logprobs(ep: Endpoint, text: str, *, db_path, ctx: CallContext,
                    transport: Callable[[dict], dict] | None = None, read_cache: bool = True) -> dict:
    in_hash = hashlib.sha256(text.encode("utf-8")).hexdigest()
    key = cache_key(ep.model, PROMPT_HASH, in_hash, 0.0)
    row = dict(run_id=ctx.run_id, submission_id=ctx.submission_id, lesson_id=ctx.lesson_id, agent=ctx.agent,
               model=ep.model, prompt_name=ctx.prompt_name, prompt_hash=PROMPT_HASH, input_hash=in_hash,
               temperature=0.0, cache_key=key)
    conn = db.connect(db_path)
    try:
        if read_cache and (hit := llm_calls.cached_response(conn, key)) is not None:
            llm_calls.insert_call(conn, **row, response=hit["response"], status="cache_hit", cache_hit=1, attempts=0,
                                  note=f"served from cache (call #{hit['id']})")
            return json.loads(hit["response"])
        send = transport or echo_transport(base_url=ep.base_url, api_key=ep.api_key, timeout_s=ep.timeout_s)
        request = {"model": ep.model, "prompt": text, "max_tokens": 1, "temperature": 0.0, "echo": True,
                   "logprobs": TOP}
        t0 = time.perf_counter()
        try:
            out = send(request)
        except LLMError as exc:
            llm_calls.insert_call(conn, **row, status="error", error=f"{type(exc).__name__}: {redact(str(exc))}",
                                  latency_ms=(time.perf_counter() - t0) * 1000)
            raise
        data = {k: out[k] for k in ("tokens", "text_offset", "token_logprobs", "top_logprobs")}
        price = llm_calls.get_price(conn, ep.model)
        cost = llm_calls.cost_usd(price, out.get("tokens_in", 0), out.get("tokens_out", 0)) if price else 0.0
        llm_calls.insert_call(conn, **row, response=json.dumps(data, ensure_ascii=False), status="ok",
                              tokens_in=out.get("tokens_in", 0), tokens_out=out.get("tokens_out", 0),
                              latency_ms=(time.perf_counter() - t0) * 1000, cost_usd=cost,
                              request_id=out.get("request_id"), response_mode="echo",
                              note="" if price else f"no price for model '{ep.model}': cost counted as 0")
        return data
    finally:
        conn.close()
