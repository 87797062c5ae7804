"""The one boundary to language models.

    protocol.py       the LLM protocol (LLM, CallContext, LLMResponse, Usage) and the Transport seam
    chat.py           OpenAICompatibleLLM, the OpenAI-compatible client: structured-output
                      fallback, retries, re-ask, logprobs ("how a call goes"), over a Transport
    openai_client.py  the openai SDK seam, the only module that imports `openai`: the SDK
                      transports (chat, and the lesson review's echo call) and error mapping
    structured.py     JSON schema from a pydantic model, response formats, tidying answers
    logprobs.py       the probability of each score label, from the server's logprobs;
                      which models give logprobs (LogprobsMemory)
    logged.py         LoggedLLM: the call log and the cache around any LLM
    routed.py         RoutedLLM: the main model and each judge on its own endpoint
    factory.py        settings in force, providers (`make_llm`, `make_batch_llm`), the connection test
    batch.py          batch mode: the Batcher behind a run's transport (/v1/files + /v1/batches)

Callers import from here: `from core.llm import CallContext, make_llm`. Modules that the
factory itself depends on (the offline provider, the agents) import `core.llm.protocol`
directly, so the package never imports itself in a circle.

Building one: `make_llm(provider, db_path)` -> LoggedLLM(OfflineLLM | OpenAICompatibleLLM |
RoutedLLM(OpenAICompatibleLLM, judges)).
"""
from core.llm.factory import (
                              PROVIDERS,
                              ConnectionCheck,
                              check_provider,
                              default_provider,
                              effective_settings,
                              from_settings,
                              judge_settings,
                              make_batch_llm,
                              make_llm,
                              test_connection,
)
from core.llm.logged import LoggedLLM, cache_key, input_hash
from core.llm.logprobs import bounded_int_fields, score_probs_from_logprobs
from core.llm.chat import OpenAICompatibleLLM
from core.llm.openai_client import map_sdk_error, openai_transport, redact
from core.llm.protocol import LLM, CallContext, LLMResponse, RawCompletion, Transport, Usage
from core.llm.routed import RoutedLLM, judge_role
from core.llm.prompt_cache import cached_tokens
from core.llm.structured import MODES, is_strict_compatible, json_schema_for, sent_schema

__all__ = [
    "LLM", "CallContext", "LLMResponse", "Usage", "RawCompletion", "Transport",
    "OpenAICompatibleLLM", "map_sdk_error", "openai_transport", "redact",
    "MODES", "json_schema_for", "is_strict_compatible", "sent_schema", "cached_tokens",
    "score_probs_from_logprobs", "bounded_int_fields",
    "LoggedLLM", "input_hash", "cache_key",
    "RoutedLLM", "judge_role", "judge_settings",
    "PROVIDERS", "effective_settings", "from_settings", "make_llm", "make_batch_llm", "default_provider",
    "check_provider",
    "test_connection", "ConnectionCheck",
]
