"""Building an LLM: the settings in force (the Settings page's overrides applied), the provider
(the configured OpenAI-compatible endpoint or the offline baseline), and a connection test."""
from __future__ import annotations

import hashlib
import os

from pydantic import BaseModel

import db
from core.errors import ConfigError
from core.language.interface import Message
from core.llm.chat import OpenAICompatibleLLM
from core.llm.logged import LoggedLLM
from core.llm.protocol import CallContext, Transport
from core.judging.judges import FEEDBACK_JUDGES
from core.llm.routed import RoutedLLM
from core.settings import JudgeSpec, Settings, judge_endpoint, load_settings
from db import llm_calls

PROVIDERS = ("offline", "openai")


def effective_settings(settings: Settings | None = None, conn=None) -> Settings:
    """Settings (loaded when not given) with the admin's UI overrides (Settings page,
    `app_settings` table) applied.

    Precedence for models, judges, the cascade's thresholds, temperature, timeout, retries and
    concurrency: Settings page > environment > secrets.toml > default. The endpoints (base URLs)
    and keys come only from the environment or secrets."""
    settings = settings or load_settings()
    if conn is None:
        own = db.connect(settings.db_path)
        try:
            over, judging = llm_calls.get_llm_overrides(own), llm_calls.get_judging_overrides(own)
        finally:
            own.close()
    else:
        over, judging = llm_calls.get_llm_overrides(conn), llm_calls.get_judging_overrides(conn)
    if not over and not judging:
        return settings
    update = {k: over[k] for k in ("llm_model", "temperature", "timeout_s", "max_retries", "concurrency")
              if over.get(k) not in (None, "")}
    if over.get("models"):
        update["models"] = {**settings.models, **{r: m for r, m in over["models"].items() if m}}
    update.update({k: judging[k] for k in llm_calls.CASCADE_LIMITS if judging.get(k) not in (None, "")})
    if judging.get("judges") is not None:
        update["judges"] = [JudgeSpec(**j) for j in judging["judges"]]
    return settings.model_copy(update=update)


def from_settings(settings, db_path=None, *, transport: Transport | None = None,
                  read_cache: bool = True, apply_overrides: bool = True,
                  judges: list[JudgeSpec] | None = None, **kwargs) -> LoggedLLM:
    """The logged, cached OpenAI-compatible LLM the pipeline uses, each judge (default: the
    settings' judges; the lesson review passes its seats with endpoints of their own) on its
    own endpoint. Raises ConfigError when no endpoint is configured (the pipeline then uses the
    offline provider)."""
    db_path = str(db_path or settings.db_path)
    if apply_overrides:
        conn = db.connect(db_path)
        try:
            settings = effective_settings(settings, conn)
        finally:
            conn.close()
    if not settings.llm_configured:
        raise ConfigError(Message("No language model is configured: set FAIRMARK_LLM_BASE_URL and/or "
                                  "FAIRMARK_LLM_API_KEY (environment or .streamlit/secrets.toml), or use "
                                  "the offline baseline."))
    inner = OpenAICompatibleLLM(settings, transport=transport, **kwargs)
    judges = settings.judges if judges is None else judges
    if judges:
        inner = RoutedLLM(inner, [(j, OpenAICompatibleLLM(judge_settings(settings, j), **kwargs))
                                  for j in judges], borrowed=borrowed_judges(settings))
    return LoggedLLM(inner, db_path, read_cache=read_cache)


def borrowed_judges(settings: Settings) -> dict[str, str]:
    """Comment judge role -> the judge whose model and endpoint it borrows (the family rule)."""
    return {role: j.name for role in FEEDBACK_JUDGES if (j := settings.feedback_judge(role)) is not None}


def judge_settings(settings: Settings, judge: JudgeSpec) -> Settings:
    """The settings a judge's client uses: its model, and its own endpoint and key when the
    environment or secrets name one (FAIRMARK_JUDGE_<NAME>_BASE_URL / _API_KEY); otherwise the
    main endpoint and key. The main key is never sent to a judge's own endpoint."""
    base, key = judge_endpoint(judge)
    update = {"llm_model": judge.model, "models": {}, "judges": []}
    if base or key:
        update.update(llm_base_url=base, llm_api_key=key)
    return settings.model_copy(update=update)


def default_provider(settings: Settings | None = None) -> str:
    """openai when an endpoint or key is configured, else the offline baseline."""
    return "openai" if (settings or load_settings()).llm_configured else "offline"


def _unknown(provider: str) -> ConfigError:
    return ConfigError(Message("unknown provider {provider!r}; use one of {providers}", provider=provider,
                               providers=", ".join(PROVIDERS)))


def check_provider(provider: str, settings: Settings) -> None:
    """Refuse a provider that does not exist or has nothing configured, before a run starts."""
    if provider not in PROVIDERS:
        raise _unknown(provider)
    if provider == "openai" and not settings.llm_configured:
        raise ConfigError(Message("No language model is configured (FAIRMARK_LLM_BASE_URL / FAIRMARK_LLM_API_KEY); "
                                  "choose the offline baseline or configure an endpoint."))


def make_llm(provider: str, db_path, settings: Settings | None = None, *, read_cache: bool = True):
    """The logged, cached LLM for a provider (the offline baseline is logged too, at $0).
    `read_cache=False` asks the model again even for identical work (Regenerate)."""
    if provider == "offline":
        from core.offline.provider import OfflineLLM  # lazy: only runs with the offline baseline need it

        return LoggedLLM(OfflineLLM(), db_path, read_cache=read_cache)
    if provider == "openai":
        return from_settings(settings or load_settings(), db_path, read_cache=read_cache)
    raise _unknown(provider)


def make_batch_llm(db_path, *, run_id: int | None = None, settings: Settings | None = None, **batcher_options):
    """The logged, cached LLM of a run in batch mode and its batcher (close it when the run's
    items are done): the configured endpoint's chat calls go through its /v1/batches engine
    (core.llm.batch), priced at the batch rate. Judges on their own endpoints stay synchronous."""
    from core.llm.batch import BATCH_PRICE, Batcher, SampleTagged
    from core.llm.openai_client import BatchEndpoint

    db_path = str(db_path)
    settings = settings or load_settings()
    conn = db.connect(db_path)
    try:
        settings = effective_settings(settings, conn)
    finally:
        conn.close()
    check_provider("openai", settings)
    for name, env in (("quiet_s", "FAIRMARK_BATCH_QUIET_S"), ("poll_s", "FAIRMARK_BATCH_POLL_S")):
        if os.environ.get(env):
            batcher_options.setdefault(name, float(os.environ[env]))
    batcher = Batcher(BatchEndpoint(settings), db_path, run_id=run_id, **batcher_options)
    # A batch request waits for its wave: no client-side timeout or retries of time (the batch
    # engine's 24 hours are the limit); faults of single lines are retried in the next wave.
    inner = SampleTagged(OpenAICompatibleLLM(settings, transport=batcher.transport, sleep=lambda s: None))
    if settings.judges:
        inner = RoutedLLM(inner, [(j, OpenAICompatibleLLM(judge_settings(settings, j)))
                                  for j in settings.judges], borrowed=borrowed_judges(settings))
    return LoggedLLM(inner, db_path, price_factor=BATCH_PRICE), batcher


class ConnectionCheck(BaseModel):
    ok: bool


def test_connection(settings, db_path=None, *, role: str = "evaluator",
                    transport: Transport | None = None) -> dict:
    """One tiny call to the configured endpoint (never cached, logged as agent 'settings').
    Returns {model, latency_ms, tokens_in, tokens_out, mode, request_id}; raises an LLMError
    or ConfigError whose message is a Message (the provider's own error text a value in it),
    which the page shows in the reader's language."""
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
