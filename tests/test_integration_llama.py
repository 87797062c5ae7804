"""The real openai SDK against a real OpenAI-compatible server: llama-cpp-python 0.3.36 serving
SmolLM2-135M-Instruct on a free loopback port (fixture `llama_server`, tests/conftest_llama.py).

What this server does with each structured-output mode (asserted below, so a server upgrade that
changes it is noticed):
- {"type": "json_schema", ...}: refused with HTTP 500 whose body is the request validation error
  "Input should be 'text' or 'json_object'" (not a 400), so core.llm treats a 5xx naming
  response_format as a refused mode, falls back without retrying, and remembers the fallback.
- {"type": "json_object", "schema": ...}: accepted; the schema becomes a grammar, so the answer
  is schema-shaped JSON and Literal/enum scores stay in range.
- {"type": "json_object"} with the schema only in the system message: accepted, but this
  135M model then writes JSON of its own design (not the schema): the last-resort mode only
  works with capable models, and pydantic validation plus the re-ask catch the rest.
"""
from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel, Field

from core import llm as llmmod
from core.errors import LLMAuthError, LLMBadRequest, LLMTruncated
from core.llm import CallContext, OpenAICompatibleLLM
from db import llm_calls


class CriterionScore(BaseModel):
    score: Literal[0, 1, 2, 3]
    reasoning: str = Field(max_length=40)   # the grammar bounds it too: keeps the test quick


class Evaluation(BaseModel):
    clarity: CriterionScore
    reflection_depth: CriterionScore


class Score(BaseModel):
    score: Literal[0, 1, 2, 3]


SYSTEM = ("You assess a student's reflection. Score clarity and reflection_depth from 0 to 3 and "
          "give one short sentence of reasoning for each. Answer in JSON.")
REFLECTIONS = [
    "This week I learned that temperature controls how random a language model's answers are.",
    "I was surprised that the model made up a citation. Next time I will check sources first.",
]


def messages(text: str) -> list[dict]:
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"<reflection>\n{text}\n</reflection>"}]


def ctx(agent="evaluator", **kw) -> CallContext:
    return CallContext(agent=agent, prompt_name="integration", prompt_hash="integration-v1", **kw)


def test_server_refuses_json_schema_and_grammar_constrains_json_object_with_schema(llama_server):
    llm = OpenAICompatibleLLM(llama_server.settings(), max_tokens=40)
    msgs = [{"role": "user", "content": "Rate this reflection from 0 to 3: 'I learned a lot.'"}]
    with pytest.raises(LLMBadRequest, match="response_format") as info:
        llm.transport(llm.build_request(llama_server.model, msgs, "json_schema", Score))
    assert info.value.status_code == 500 and info.value.format_refused

    raw = llm.transport(llm.build_request(llama_server.model, msgs, "json_object_schema", Score))
    assert Score.model_validate_json(raw.content).score in (0, 1, 2, 3)   # grammar: in range
    assert raw.usage.tokens_in > 0 and raw.usage.tokens_out > 0 and raw.request_id

    llm.max_tokens = 8
    raw = llm.transport(llm.build_request(llama_server.model, msgs, "json_object", Score))
    assert raw.content and raw.finish_reason in ("stop", "length")  # accepted (content unconstrained)


def test_real_calls_are_validated_logged_with_real_tokens_priced_and_cached(llama_server, conn, db_path):
    llm_calls.save_price(conn, llama_server.model, input_per_mtok=1.0, output_per_mtok=2.0)
    llm = llmmod.from_settings(llama_server.settings(db_path), db_path, max_tokens=160, logprobs=True)
    first = llm.complete(messages(REFLECTIONS[0]), Evaluation, role="evaluator", ctx=ctx())
    second = llm.complete(messages(REFLECTIONS[1]), Evaluation, role="evaluator", ctx=ctx())
    again = llm.complete(messages(REFLECTIONS[0]), Evaluation, role="evaluator", ctx=ctx())

    assert isinstance(first.data, Evaluation) and isinstance(second.data, Evaluation)
    assert first.response_mode == second.response_mode == "json_object_schema"
    # json_schema was refused (at the first call of the process), and the fallback remembered:
    assert llm.inner.mode_for(llama_server.model) == "json_object_schema"
    assert second.attempts == 1
    assert again.cache_hit and again.data == first.data and again.cost_usd == 0
    assert first.score_probs and set(first.score_probs) <= {"clarity.score", "reflection_depth.score"}
    for probs in first.score_probs.values():
        assert sum(probs.values()) == pytest.approx(1.0)

    rows = list(conn.query("SELECT * FROM llm_calls ORDER BY id"))
    assert [r["status"] for r in rows] == ["ok", "ok", "cache_hit"]
    for row, resp in zip(rows[:2], (first, second)):
        assert row["tokens_in"] == resp.usage.tokens_in > 20       # the real prompt was counted
        assert row["tokens_out"] == resp.usage.tokens_out > 5
        assert row["request_id"] and row["latency_ms"] > 0 and row["model"] == llama_server.model
        assert row["cost_usd"] == pytest.approx((row["tokens_in"] * 1.0 + row["tokens_out"] * 2.0) / 1e6)
        assert Evaluation.model_validate_json(row["response"])
    assert rows[2]["tokens_in"] == 0 and rows[2]["cache_key"] == rows[0]["cache_key"]


def test_token_limit_is_a_recorded_truncation(llama_server, conn, db_path):
    llm = llmmod.from_settings(llama_server.settings(db_path), db_path, max_tokens=4)
    with pytest.raises(LLMTruncated, match="token limit"):
        llm.complete(messages(REFLECTIONS[1]), Evaluation, role="evaluator", ctx=ctx())
    (row,) = conn.query("SELECT status, error, tokens_out FROM llm_calls")
    assert row["status"] == "error" and row["error"].startswith("LLMTruncated") and row["tokens_out"] == 4


def test_wrong_key_is_an_auth_error_recorded_without_the_key(llama_server, conn, db_path):
    wrong = "sk-wrong-key-0123456789abcdef"
    llm = llmmod.from_settings(llama_server.settings(db_path, llm_api_key=wrong), db_path)
    with pytest.raises(LLMAuthError, match="refused the API key"):
        llm.complete(messages(REFLECTIONS[0]), Evaluation, role="evaluator", ctx=ctx())
    (row,) = conn.query("SELECT * FROM llm_calls")
    assert row["status"] == "error" and row["attempts"] == 1
    assert wrong not in open(db_path, "rb").read().decode("utf-8", "replace")


def test_connection_button_call_succeeds(llama_server, db_path):
    result = llmmod.test_connection(llama_server.settings(db_path), db_path)
    assert result["model"] == llama_server.model and result["tokens_in"] > 0
