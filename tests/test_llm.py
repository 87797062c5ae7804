"""OpenAICompatibleLLM: structured-output fallback, re-ask, retries and error mapping.

The logic is scripted through FakeTransport (no HTTP); the SDK error mapping runs the real
openai SDK against a tiny real HTTP server (StubOpenAIServer)."""
from __future__ import annotations

import json
import math
import socket
from typing import Literal

import pytest
from pydantic import BaseModel

from core import llm as llmmod
from core.llm import chat
from core.errors import (LLMAuthError, LLMBadRequest, LLMConnectionError, LLMInvalidOutput,
                         LLMRateLimited, LLMRefusal, LLMServerError, LLMTimeout, LLMTruncated)
from core.llm import CallContext, OpenAICompatibleLLM
from core.settings import Settings
from fake_llm import FakeTransport, StubOpenAIServer


class Criterion(BaseModel):
    score: Literal[0, 1, 2, 3]
    reasoning: str
    areas_for_improvement: list[str] = []


class Evaluation(BaseModel):
    concept_understanding: Criterion
    clarity: Criterion


GOOD = {"concept_understanding": {"score": 2, "reasoning": "Mostly clear.", "areas_for_improvement": ["x"]},
        "clarity": {"score": 3, "reasoning": "Polished.", "areas_for_improvement": []}}
OUT_OF_RANGE = {**GOOD, "clarity": {"score": 12, "reasoning": "?", "areas_for_improvement": []}}
CTX = CallContext(agent="evaluator", prompt_name="evaluator", prompt_hash="p1")
MSGS = [{"role": "system", "content": "You score reflections."}, {"role": "user", "content": "Text."}]


def make(*steps, max_retries: int = 3, **kw):
    transport = FakeTransport(*steps)
    slept: list[float] = []
    settings = Settings(llm_base_url="http://unused/v1", max_retries=max_retries,
                        models={"reviewer": "judge-model"})
    llm = OpenAICompatibleLLM(settings, transport=transport, sleep=slept.append, rand=lambda: 0.5, **kw)
    return llm, transport, slept


def bad_request(msg="response_format json_schema is not supported", status=400):
    err = LLMBadRequest(msg)
    err.status_code = status
    return err


# --- schema generation -------------------------------------------------------------------
def test_schema_inlines_nested_models_closes_objects_and_keeps_literal_ints_as_enum():
    js = llmmod.json_schema_for(Evaluation)
    assert "$defs" not in js and "$ref" not in str(js)
    crit = js["properties"]["clarity"]
    assert crit["properties"]["score"]["enum"] == [0, 1, 2, 3]
    for obj in (js, crit):
        assert obj["additionalProperties"] is False
        assert obj["required"] == list(obj["properties"])
    assert "default" not in str(crit["properties"]["areas_for_improvement"])
    assert llmmod.is_strict_compatible(js)


def test_the_schema_sent_carries_no_titles_and_keeps_every_field_name():
    """The provider bills the response schema as prompt tokens on every call: pydantic's titles
    ("Areas For Improvement" for areas_for_improvement) repeat the names and are not sent; a
    field that is itself called "title" stays."""
    class Named(BaseModel):
        title: str
        evaluation: Evaluation

    llm, t, _ = make(FakeTransport.reply({"title": "x", "evaluation": GOOD}))
    llm.complete(MSGS, Named, role="evaluator", ctx=CTX)
    sent = t.requests[0]["response_format"]["json_schema"]["schema"]

    def keywords(node, out):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "properties":
                    for sub in v.values():
                        keywords(sub, out)
                else:
                    out.add(k)
                    keywords(v, out)
        elif isinstance(node, list):
            for v in node:
                keywords(v, out)
        return out

    assert "title" not in keywords(sent, set())
    assert list(sent["properties"]) == ["title", "evaluation"] and sent["required"] == ["title", "evaluation"]
    clarity = sent["properties"]["evaluation"]["properties"]["clarity"]
    assert list(clarity["properties"]) == ["score", "reasoning", "areas_for_improvement"]
    assert llmmod.sent_schema(Named) == json.dumps(sent, ensure_ascii=False)   # what bench.tokens and the estimate count


def test_open_dict_fields_are_sent_non_strict():
    class ByCriterion(BaseModel):
        scores: dict[str, Literal[0, 1, 2, 3]]

    js = llmmod.json_schema_for(ByCriterion)
    assert not llmmod.is_strict_compatible(js)
    llm, t, _ = make(FakeTransport.reply({"scores": {"a": 1}}))
    llm.complete(MSGS, ByCriterion, role="evaluator", ctx=CTX)
    assert t.requests[0]["response_format"]["json_schema"]["strict"] is False


# --- happy path and request shape ----------------------------------------------------------
def test_first_call_uses_strict_json_schema_default_temperature_and_role_model():
    llm, t, _ = make(FakeTransport.reply(GOOD, tokens_in=70, tokens_out=30, tokens_cached=40,
                                         request_id="req-1"))
    resp = llm.complete(MSGS, Evaluation, role="reviewer", ctx=CTX)
    req = t.requests[0]
    assert req["model"] == "judge-model" and req["temperature"] == 0.3
    assert req["response_format"]["type"] == "json_schema"
    assert req["response_format"]["json_schema"]["strict"] is True
    assert resp.data.clarity.score == 3 and resp.model == "judge-model"
    assert (resp.usage.tokens_in, resp.usage.tokens_out, resp.usage.tokens_cached) == (70, 30, 40)
    assert resp.request_id == "req-1" and resp.attempts == 1 and resp.response_mode == "json_schema"


def test_temperature_override_and_code_fences_tolerated():
    llm, t, _ = make(FakeTransport.reply("```json\n" + Evaluation.model_validate(GOOD).model_dump_json() + "\n```"))
    resp = llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX, temperature=0.0)
    assert t.requests[0]["temperature"] == 0.0 and resp.data.concept_understanding.score == 2


# --- structured-output fallback -------------------------------------------------------------
def test_json_schema_refused_falls_back_to_json_object_with_schema_and_remembers_per_model():
    llm, t, _ = make(bad_request(), FakeTransport.reply(GOOD), FakeTransport.reply(GOOD),
                     FakeTransport.reply(GOOD))
    resp = llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert resp.response_mode == "json_object_schema" and resp.attempts == 2
    assert t.requests[1]["response_format"]["schema"]["properties"]["clarity"]["properties"]["score"]["enum"] == [0, 1, 2, 3]
    llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)          # same model: no refused try
    llm.complete(MSGS, Evaluation, role="reviewer", ctx=CTX)           # other model starts fresh
    assert t.formats == ["json_schema", "json_object_schema", "json_object_schema", "json_schema"]
    assert llm.mode_for("gpt-4o-mini") == "json_object_schema"
    t.assert_all_used()


def test_both_schema_modes_refused_falls_back_to_plain_json_mode_with_schema_in_system_message():
    llm, t, _ = make(bad_request(), bad_request("422 validation", 422), FakeTransport.reply(GOOD))
    resp = llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert t.formats == ["json_schema", "json_object_schema", "json_object"]
    assert t.requests[2]["response_format"] == {"type": "json_object"}
    system = t.requests[2]["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("You score reflections.")
    assert '"enum": [0, 1, 2, 3]' in system["content"]
    assert resp.response_mode == "json_object"


def test_bad_request_in_a_mode_known_to_work_is_raised_not_fallen_back():
    llm, t, _ = make(FakeTransport.reply(GOOD), bad_request("context length exceeded"))
    llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    with pytest.raises(LLMBadRequest, match="context length"):
        llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert t.formats == ["json_schema", "json_schema"]


def test_every_mode_refused_raises_the_last_bad_request():
    llm, t, _ = make(bad_request(), bad_request(), bad_request("no json mode either"))
    with pytest.raises(LLMBadRequest, match="no json mode either") as info:
        llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert info.value.attempts == 3


# --- validation and re-ask ------------------------------------------------------------------
def test_invalid_json_is_reasked_once_with_the_error_then_succeeds():
    llm, t, _ = make(FakeTransport.reply("{not json", tokens_in=50, tokens_out=10),
                     FakeTransport.reply(GOOD, tokens_in=80, tokens_out=30))
    resp = llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert resp.data.clarity.score == 3 and resp.attempts == 2
    assert (resp.usage.tokens_in, resp.usage.tokens_out) == (130, 40)   # both asks are paid for
    reask = t.requests[1]["messages"]
    assert reask[-2] == {"role": "assistant", "content": "{not json"}
    assert reask[-1]["role"] == "user" and "not valid" in reask[-1]["content"]
    assert reask[:2] == MSGS


def test_out_of_range_literal_score_is_reasked_with_the_field_named():
    llm, t, _ = make(FakeTransport.reply(OUT_OF_RANGE), FakeTransport.reply(GOOD))
    resp = llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert resp.data.clarity.score == 3
    assert "clarity.score" in t.requests[1]["messages"][-1]["content"]


def test_second_invalid_answer_raises_invalid_output_after_exactly_two_requests():
    llm, t, _ = make(FakeTransport.reply(OUT_OF_RANGE), FakeTransport.reply("[]"))
    with pytest.raises(LLMInvalidOutput, match="Evaluation") as info:
        llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert len(t.requests) == 2 and info.value.attempts == 2
    assert info.value.usage.tokens_in == 100          # recorded for the call log
    assert "stronger model" in str(info.value)


# --- refusals, truncation -------------------------------------------------------------------
def test_refusal_field_raises_refusal_without_retry():
    llm, t, _ = make(FakeTransport.reply(None, refusal="I can't help with that."))
    with pytest.raises(LLMRefusal, match="declined"):
        llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert len(t.requests) == 1


def test_content_filter_finish_reason_is_a_refusal():
    llm, t, _ = make(FakeTransport.reply("", finish_reason="content_filter"))
    with pytest.raises(LLMRefusal):
        llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)


def test_length_finish_reason_raises_truncated():
    llm, t, _ = make(FakeTransport.reply('{"concept_understanding": {"sco', finish_reason="length"))
    with pytest.raises(LLMTruncated, match="token limit"):
        llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert len(t.requests) == 1


# --- retries ------------------------------------------------------------------------------
def test_timeouts_are_retried_with_exponential_backoff_then_raise():
    llm, t, slept = make(LLMTimeout("t1"), LLMTimeout("t2"), LLMTimeout("t3"), max_retries=2)
    with pytest.raises(LLMTimeout, match="t3") as info:
        llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert len(t.requests) == 3 and info.value.attempts == 3
    assert slept == [0.5, 1.0]              # base 0.5 s doubling; jitter factor 1.0 at rand=0.5


def test_jitter_spreads_the_backoff():
    llm, _, slept = make(LLMTimeout("t"), FakeTransport.reply(GOOD))
    llm._rand = lambda: 0.0
    llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert slept == [0.25]


def test_rate_limit_honours_retry_after_and_caps_it():
    llm, t, slept = make(LLMRateLimited("429", retry_after=7), LLMRateLimited("429", retry_after=3600),
                         FakeTransport.reply(GOOD))
    resp = llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert slept == [7.0, chat.RETRY_AFTER_CAP_S] and resp.attempts == 3


def test_server_error_is_retried_then_succeeds():
    llm, t, slept = make(LLMServerError("502"), FakeTransport.reply(GOOD))
    assert llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX).attempts == 2
    assert len(slept) == 1


def test_auth_error_is_not_retried():
    llm, t, slept = make(LLMAuthError("bad key"))
    with pytest.raises(LLMAuthError):
        llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert len(t.requests) == 1 and slept == []


def test_zero_retries_means_one_request():
    llm, t, slept = make(LLMServerError("500"), max_retries=0)
    with pytest.raises(LLMServerError):
        llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert len(t.requests) == 1


# --- logprobs -----------------------------------------------------------------------------
def test_logprobs_become_score_probabilities_over_allowed_labels():
    text = '{"concept_understanding":{"score":2,"reasoning":"a","areas_for_improvement":[]},"clarity":{"score":3,"reasoning":"b","areas_for_improvement":[]}}'
    i2, i3 = text.index(":2") + 1, text.index(":3") + 1
    tokens = [text[:i2], "2", text[i2 + 1:i3], "3", text[i3 + 1:]]
    lp = [{"token": tok, "logprob": 0.0, "top_logprobs": []} for tok in tokens]
    lp[1]["top_logprobs"] = [{"token": "2", "logprob": math.log(0.6)}, {"token": "1", "logprob": math.log(0.2)},
                             {"token": "7", "logprob": math.log(0.2)}]
    lp[3]["top_logprobs"] = [{"token": "3", "logprob": 0.0}]
    llm, t, _ = make(FakeTransport.reply(text, logprobs=lp), logprobs=True)
    resp = llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert t.requests[0]["logprobs"] is True
    probs = resp.score_probs
    assert set(probs) == {"concept_understanding.score", "clarity.score"}
    assert probs["concept_understanding.score"] == pytest.approx({"1": 0.25, "2": 0.75})  # "7" not a label
    assert probs["clarity.score"] == {"3": 1.0}


def test_no_logprobs_means_no_score_probs():
    llm, _, _ = make(FakeTransport.reply(GOOD))
    assert llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX).score_probs is None


# --- the real SDK against a real (stub) HTTP server: error mapping --------------------------
SECRET = "sk-test-SECRET0123456789"


def real(srv, max_retries=2, timeout=5.0):
    slept: list[float] = []
    s = Settings(llm_base_url=srv.base_url, llm_api_key=SECRET, max_retries=max_retries, timeout_s=timeout)
    return OpenAICompatibleLLM(s, sleep=slept.append, rand=lambda: 0.5), slept


def test_sdk_429_retry_after_header_is_honoured_and_request_id_captured():
    with StubOpenAIServer() as srv:
        srv.respond(429, {"error": {"message": "Rate limit reached"}}, headers={"retry-after": "3"})
        srv.respond(200, srv.completion(Evaluation.model_validate(GOOD).model_dump_json(), cached_tokens=4),
                    headers={"x-request-id": "req-abc"})
        llm, slept = real(srv)
        resp = llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert slept == [3.0] and len(srv.requests) == 2
    assert resp.request_id == "req-abc" and resp.usage.tokens_in == 12 and resp.usage.tokens_cached == 4
    assert {k.lower(): v for k, v in srv.requests[0]["headers"].items()}["authorization"] == f"Bearer {SECRET}"


def test_sdk_own_retries_are_off_so_one_failure_is_one_request():
    with StubOpenAIServer() as srv:
        srv.respond(500, {"error": {"message": "boom"}})
        llm, slept = real(srv, max_retries=0)
        with pytest.raises(LLMServerError, match="HTTP 500"):
            llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert len(srv.requests) == 1 and srv.unexpected == 0


def test_sdk_401_maps_to_auth_error_without_the_key_in_the_message():
    with StubOpenAIServer() as srv:
        srv.respond(401, {"error": {"message": f"Incorrect API key provided: {SECRET}"}})
        llm, slept = real(srv)
        with pytest.raises(LLMAuthError) as info:
            llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert len(srv.requests) == 1 and slept == []
    assert SECRET not in str(info.value) and "FAIRMARK_LLM_API_KEY" in str(info.value)


def test_sdk_400_on_json_schema_falls_back_over_real_http():
    with StubOpenAIServer() as srv:
        srv.respond(400, {"error": {"message": "Unsupported response_format type"}})
        srv.respond(200, srv.completion(Evaluation.model_validate(GOOD).model_dump_json()))
        llm, _ = real(srv)
        resp = llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert resp.response_mode == "json_object_schema"
    assert srv.requests[1]["body"]["response_format"]["type"] == "json_object"


def test_sdk_finish_reason_length_and_refusal_over_real_http():
    with StubOpenAIServer() as srv:
        srv.respond(200, srv.completion('{"concept', finish_reason="length"))
        srv.respond(200, srv.completion(None, refusal="I cannot assist."))
        llm, _ = real(srv)
        with pytest.raises(LLMTruncated):
            llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
        with pytest.raises(LLMRefusal):
            llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)


def test_sdk_404_unknown_model_is_a_bad_request_naming_the_model():
    with StubOpenAIServer() as srv:
        srv.respond(404, {"error": {"message": "model not found"}})
        llm, _ = real(srv)
        llm._modes["gpt-4o-mini"] = 0                       # a known-good mode: no fallback
        with pytest.raises(LLMBadRequest, match="gpt-4o-mini"):
            llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)


def test_sdk_timeout_maps_to_llm_timeout_and_is_retried():
    with StubOpenAIServer() as srv:
        srv.respond(200, srv.completion("{}"), delay=2.0)
        srv.respond(200, srv.completion("{}"), delay=2.0)
        llm, slept = real(srv, max_retries=1, timeout=0.3)
        with pytest.raises(LLMTimeout, match="did not answer in time"):
            llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert len(slept) == 1


def test_connection_refused_maps_to_connection_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]            # closed once the block ends: nothing listens
    settings = Settings(llm_base_url=f"http://127.0.0.1:{port}/v1", max_retries=1, timeout_s=2)
    slept: list[float] = []
    llm = OpenAICompatibleLLM(settings, sleep=slept.append)
    with pytest.raises(LLMConnectionError, match="Cannot reach") as info:
        llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert info.value.attempts == 2 and len(slept) == 1


def test_repr_and_attributes_never_hold_the_key():
    llm = OpenAICompatibleLLM(Settings(llm_base_url="http://x/v1", llm_api_key=SECRET),
                              transport=FakeTransport())
    assert SECRET not in repr(llm) and SECRET not in repr(llm.settings)
    assert SECRET not in str({k: v for k, v in vars(llm).items() if k != "settings"})


def test_redact_removes_key_shaped_strings():
    assert llmmod.redact(f"bad key {SECRET} here") == "bad key sk-*** here"
    assert "abc123secret" not in llmmod.redact("token abc123secret", "abc123secret")


def test_llama_cpp_style_500_naming_response_format_is_a_refused_mode_not_retried():
    """llama-cpp-python 0.3.36 answers json_schema with HTTP 500 carrying its validation error."""
    llama_body = {"error": {"message": "1 validation error: {'type': 'literal_error', 'loc': ('body', "
                            "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}",
                            "type": "internal_server_error"}}
    with StubOpenAIServer() as srv:
        srv.respond(500, llama_body)
        srv.respond(200, srv.completion(Evaluation.model_validate(GOOD).model_dump_json()))
        llm, slept = real(srv, max_retries=3)
        resp = llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert slept == [] and len(srv.requests) == 2 and resp.response_mode == "json_object_schema"


def test_plain_500_is_still_a_retried_server_error():
    with StubOpenAIServer() as srv:
        srv.respond(500, {"error": {"message": "out of memory"}})
        srv.respond(200, srv.completion(Evaluation.model_validate(GOOD).model_dump_json()))
        llm, slept = real(srv)
        assert llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX).response_mode == "json_schema"
    assert len(slept) == 1


def test_context_length_exceeded_is_a_clear_bad_request_without_fallback():
    body = {"error": {"message": "This model's maximum context length is 2048 tokens. However, you requested "
                                 "4055 tokens (3031 in the messages, 1024 in the completion).",
                      "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}
    with StubOpenAIServer() as srv:
        srv.respond(400, body)
        llm, slept = real(srv)
        with pytest.raises(LLMBadRequest, match="too long for model 'gpt-4o-mini'"):
            llm.complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
    assert len(srv.requests) == 1 and slept == []


def test_fallback_is_remembered_across_clients_of_the_same_endpoint():
    ok = Evaluation.model_validate(GOOD).model_dump_json()
    with StubOpenAIServer() as srv:
        srv.respond(400, {"error": {"message": "response_format json_schema unsupported"}})
        srv.respond(200, srv.completion(ok)).respond(200, srv.completion(ok))
        real(srv)[0].complete(MSGS, Evaluation, role="evaluator", ctx=CTX)
        again = real(srv)[0].complete(MSGS, Evaluation, role="evaluator", ctx=CTX)   # e.g. Regenerate
    assert again.attempts == 1
    assert [r["body"]["response_format"]["type"] for r in srv.requests] == ["json_schema", "json_object", "json_object"]
