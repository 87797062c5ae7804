"""The call log and the cache: `LoggedLLM` wraps any LLM (the OpenAI-compatible client, the
offline baseline, a test fake), so every implementation is logged, priced and cached the same
way. The cache key is (model, prompt hash, input hash, temperature[, sample index]): a re-run
of unchanged work is answered from the log and costs nothing, with the score probabilities the
original call's logprobs gave and, for a schema that reads its confidence from the answer's own
token logprobs (`WANTS_LOGPROBS`: the lesson judge), those tokens and the raw text they align
to, so a cache hit keeps its confidence (core.judging.confidence: unknown is unsure, so a
cached answer without them would judge differently from the first). A self-consistency
sample (core.judging) has its index in the key, so samples at the same temperature differ."""
from __future__ import annotations

import functools
import hashlib
import json
import threading
import time

from pydantic import BaseModel, ValidationError

import db
from core.errors import LLMError
from core.llm.openai_client import redact
from core.llm.protocol import CallContext, LLMResponse, T, Usage
from db import llm_calls, location


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


def cache_key(model: str, prompt_hash: str, in_hash: str, temperature: float, sample: int = 0) -> str:
    parts = [model, prompt_hash, in_hash, round(float(temperature), 4)]
    if sample:          # only samples carry an index: every other key stays what it always was
        parts.append(int(sample))
    return hashlib.sha256(_canonical(parts).encode()).hexdigest()


def _kept_logprobs(schema, resp: LLMResponse) -> str | None:
    """The answer's token logprobs and raw text, only for schemas that read confidence from
    them (the others' confidence is in score_probs; a whole answer's tokens are large)."""
    if not (resp.logprobs and getattr(schema, "WANTS_LOGPROBS", False)):
        return None
    return db.dumps({"raw": resp.raw, "tokens": resp.logprobs})


class LoggedLLM:
    """Wraps any LLM: answers identical work from the cache, writes one llm_calls row per call
    (ok, cache_hit or error), and prices it. Safe to call from many threads: every call opens
    its own connection (WAL + busy timeout come from db.connect)."""

    def __init__(self, inner, db_path, prices: dict | None = None, *, read_cache: bool = True,
                 price_factor: float = 1.0):
        self.inner = inner
        self.price_factor = price_factor   # 0.5: a batch engine's answers cost half (core.llm.batch)
        self.db_path = str(db_path)
        self.prices = prices          # {model: {input_per_mtok, cached_input_per_mtok, output_per_mtok}}
        self.read_cache = read_cache
        self.provider = inner.provider
        self._local = threading.local()   # one connection per worker thread, reused across calls
        self._on_server = location.is_postgresql(self.db_path)

    def _conn(self):
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = db.connect(self.db_path)
        return conn

    def _let_go(self) -> None:
        """Before the provider's call (seconds; hours in batch mode, 500 submissions at once): a
        PostgreSQL connection held meanwhile is a server process held against max_connections, so
        it is closed and opened again for the call's row. A SQLite connection is a file handle: kept."""
        conn = getattr(self._local, "conn", None)
        if self._on_server and conn is not None:
            self._local.conn = None
            conn.close()

    def __repr__(self) -> str:
        return f"LoggedLLM({self.inner!r})"

    def model_for(self, role: str) -> str:
        return self.inner.model_for(role)

    @property
    def temperature(self) -> float:
        return getattr(self.inner, "temperature", 0.3)

    @property
    def judges(self) -> tuple:
        """The judges of the cascade's consensus step this LLM can route to (core.llm.routed)."""
        return tuple(getattr(self.inner, "judges", ()))

    def _price(self, conn, model: str) -> dict | None:
        if self.prices is not None:
            return self.prices.get(model)
        return llm_calls.get_price(conn, model)

    def complete(self, messages: list[dict], schema: type[T], *, role: str, ctx: CallContext,
                 temperature: float | None = None) -> LLMResponse[T]:
        try:
            return self._complete(messages, schema, role=role, ctx=ctx, temperature=temperature)
        finally:
            # After the call's row, too: the thread may now wait for other agents' calls (a run's
            # thread waits on the Coach's and the Equity Monitor's, hours in batch mode), and on
            # PostgreSQL a kept connection is a server process held all that time (74 of a batch
            # run's threads held one each while they waited).
            self._let_go()

    def _complete(self, messages: list[dict], schema: type[T], *, role: str, ctx: CallContext,
                  temperature: float | None = None) -> LLMResponse[T]:
        model = self.inner.model_for(role)
        temp = self.temperature if temperature is None else temperature
        in_hash = input_hash(messages, schema)
        key = cache_key(model, ctx.prompt_hash, in_hash, temp, ctx.sample)
        row = dict(run_id=ctx.run_id, submission_id=ctx.submission_id, lesson_id=ctx.lesson_id,
                   rubric_draft_id=ctx.rubric_draft_id, agent=ctx.agent,
                   model=model,
                   prompt_name=ctx.prompt_name, prompt_hash=ctx.prompt_hash, input_hash=in_hash,
                   temperature=temp, cache_key=key, tier=ctx.tier)
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
                    probs, kept = hit["score_probs"], hit["answer_logprobs"] or {}
                    llm_calls.insert_call(conn, **row, response=hit["response"], status="cache_hit",
                                          cache_hit=1, latency_ms=latency, attempts=0, note=note,
                                          score_probs=None if probs is None else db.dumps(probs))
                    return LLMResponse(data=data, model=model, raw=kept.get("raw") or hit["response"], usage=Usage(),
                                       latency_ms=latency, cache_hit=True, cost_usd=0.0,
                                       attempts=0, note=note, score_probs=probs, logprobs=kept.get("tokens"))
        self._let_go()
        t0 = time.perf_counter()
        try:
            resp = self.inner.complete(messages, schema, role=role, ctx=ctx, temperature=temperature)
        except LLMError as exc:
            conn = self._conn()
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
            llm_calls.insert_call(self._conn(), **row, status="error",
                                  error=f"{type(exc).__name__}: {redact(str(exc))}"[:2000],
                                  latency_ms=(time.perf_counter() - t0) * 1000)
            raise
        conn = self._conn()
        resp.cost_usd, note = self._cost(conn, model, resp.usage)
        resp.note = "; ".join(x for x in (resp.note, note) if x)
        stored = resp.data.model_dump_json()
        llm_calls.insert_call(
            conn, **row, response=stored, status="ok", tokens_in=resp.usage.tokens_in,
            tokens_out=resp.usage.tokens_out, tokens_cached=resp.usage.tokens_cached,
            latency_ms=resp.latency_ms, cost_usd=resp.cost_usd, request_id=resp.request_id,
            attempts=resp.attempts, note=resp.note, response_mode=resp.response_mode,
            score_probs=None if resp.score_probs is None else db.dumps(resp.score_probs),
            answer_logprobs=_kept_logprobs(schema, resp))
        return resp

    def _cost(self, conn, model: str, usage: Usage) -> tuple[float, str]:
        price = self._price(conn, model)
        if price is None:
            if not (usage.tokens_in or usage.tokens_out):
                return 0.0, ""
            return 0.0, f"no price for model '{model}': cost counted as 0 (add it in Settings)"
        cost = llm_calls.cost_usd(price, usage.tokens_in, usage.tokens_out, usage.tokens_cached)
        if self.price_factor != 1.0:
            return cost * self.price_factor, f"batch rate (x{self.price_factor:g})"
        return cost, ""
