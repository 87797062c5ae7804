"""The LLM boundary for the judge cascade: logprobs on by default and remembered per model, score
probabilities through the cache, tiers and samples in the call log, judges routed to their own
endpoints, and the judge settings (environment, Settings page overrides)."""
from __future__ import annotations

import json
import math
from typing import Literal

import pytest
from pydantic import BaseModel

from core import llm as llmmod
from core.errors import ConfigError, LLMAuthError, LLMBadRequest
from core.llm import CallContext, LoggedLLM, OpenAICompatibleLLM, RoutedLLM, judge_role
from core.settings import JudgeSpec, Settings, judge_endpoint, load_settings
from db import llm_calls
from fake_llm import FakeTransport, StubOpenAIServer
from core.accounts.access import Actor


class Criterion(BaseModel):
    score: Literal[0, 1, 2, 3]
    reasoning: str


class Evaluation(BaseModel):
    clarity: Criterion


class Comment(BaseModel):
    comment: str


ANSWER = '{"clarity":{"score":2,"reasoning":"ok"}}'
MSGS = [{"role": "user", "content": "Score this."}]


def ctx(**kw):
    return CallContext(agent="evaluator", prompt_name="evaluator", prompt_hash="p1", **kw)


def logprobs_of(text: str, p: float = 0.9) -> list[dict]:
    i = text.index(":2") + 1
    return [{"token": text[:i], "logprob": 0.0},
            {"token": "2", "logprob": math.log(p), "top_logprobs": [{"token": "2", "logprob": math.log(p)},
                                                                   {"token": "3", "logprob": math.log(1 - p)}]},
            {"token": text[i + 1:], "logprob": 0.0}]


def client(*steps, model="m"):
    t = FakeTransport(*steps)
    return OpenAICompatibleLLM(Settings(llm_base_url="http://unused/v1", llm_model=model), transport=t), t


def refused(msg="logprobs are not supported by this model"):
    err = LLMBadRequest(msg)
    err.status_code, err.format_refused = 400, False
    return err


def test_scoring_calls_ask_for_logprobs_by_default_and_other_calls_do_not():
    llm, t = client(FakeTransport.reply(ANSWER, logprobs=logprobs_of(ANSWER)), FakeTransport.reply({"comment": "Hi."}))
    resp = llm.complete(MSGS, Evaluation, role="evaluator", ctx=ctx())
    llm.complete(MSGS, Comment, role="aggregator", ctx=ctx())
    assert t.requests[0]["logprobs"] is True and t.requests[0]["top_logprobs"] == 5
    assert "logprobs" not in t.requests[1]
    assert resp.score_probs == {"clarity.score": pytest.approx({"2": 0.9, "3": 0.1})}
    assert llm.gives_logprobs("m") is True


def test_a_server_that_refuses_logprobs_is_asked_again_without_and_not_asked_again():
    llm, t = client(refused(), FakeTransport.reply(ANSWER), FakeTransport.reply(ANSWER))
    first = llm.complete(MSGS, Evaluation, role="evaluator", ctx=ctx())
    llm.complete(MSGS, Evaluation, role="evaluator", ctx=ctx())
    assert [r.get("logprobs") for r in t.requests] == [True, None, None]
    assert first.score_probs is None and llm.gives_logprobs("m") is False
    assert t.formats == ["json_schema"] * 3          # not mistaken for a refused response_format


def test_a_server_that_ignores_logprobs_is_not_asked_again():
    llm, t = client(FakeTransport.reply(ANSWER), FakeTransport.reply(ANSWER))
    llm.complete(MSGS, Evaluation, role="evaluator", ctx=ctx())
    llm.complete(MSGS, Evaluation, role="evaluator", ctx=ctx())
    assert [r.get("logprobs") for r in t.requests] == [True, None] and llm.gives_logprobs("m") is False


def test_logprobs_can_be_switched_off():
    t = FakeTransport(FakeTransport.reply(ANSWER))
    llm = OpenAICompatibleLLM(Settings(llm_base_url="http://x/v1"), transport=t, logprobs=False)
    llm.complete(MSGS, Evaluation, role="evaluator", ctx=ctx())
    assert "logprobs" not in t.requests[0]


def test_a_cache_hit_keeps_the_score_probabilities_and_the_log_keeps_the_tier(conn, db_path):
    inner, t = client(FakeTransport.reply(ANSWER, logprobs=logprobs_of(ANSWER, 0.7)))
    llm = LoggedLLM(inner, db_path)
    first = llm.complete(MSGS, Evaluation, role="evaluator", ctx=ctx(tier=1), temperature=0.0)
    again = llm.complete(MSGS, Evaluation, role="evaluator", ctx=ctx(tier=1), temperature=0.0)
    assert again.cache_hit and again.score_probs == first.score_probs == {"clarity.score": pytest.approx({"2": 0.7, "3": 0.3})}
    rows = list(conn.query("SELECT status, tier, score_probs FROM llm_calls ORDER BY id"))
    assert [(r["status"], r["tier"]) for r in rows] == [("ok", 1), ("cache_hit", 1)]
    assert json.loads(rows[0]["score_probs"])["clarity.score"]["2"] == pytest.approx(0.7)


def test_samples_have_their_index_in_the_cache_key_and_other_keys_are_unchanged():
    base = llmmod.cache_key("m", "p", "h", 0.7)
    assert llmmod.cache_key("m", "p", "h", 0.7, 0) == base
    assert len({base, llmmod.cache_key("m", "p", "h", 0.7, 1), llmmod.cache_key("m", "p", "h", 0.7, 2)}) == 3


def test_a_judge_is_routed_to_its_own_client_and_model():
    main, tm = client(model="main-model")
    judge, tj = client(FakeTransport.reply(ANSWER), model="judge-model")
    routed = RoutedLLM(main, [(JudgeSpec(name="b", model="judge-model"), judge)])
    resp = routed.complete(MSGS, Evaluation, role=judge_role("b"), ctx=ctx(tier=2))
    assert resp.model == "judge-model" and tj.requests[0]["model"] == "judge-model" and not tm.requests
    assert routed.model_for(judge_role("b")) == "judge-model" and routed.model_for("evaluator") == "main-model"
    assert [j.name for j in routed.judges] == ["b"]


def test_a_judges_error_names_the_judge_and_its_environment_variables():
    main, _ = client()
    judge, _ = client(LLMAuthError("The language model refused the API key (HTTP 401)."))
    routed = RoutedLLM(main, [(JudgeSpec(name="big-judge", model="x"), judge)])
    with pytest.raises(LLMAuthError, match=r"Judge 'big-judge'.*FAIRMARK_JUDGE_BIG_JUDGE_BASE_URL"):
        routed.complete(MSGS, Evaluation, role=judge_role("big-judge"), ctx=ctx())


def test_the_reviewer_borrows_a_judges_model_and_endpoint_when_it_has_none_of_its_own():
    settings = Settings(llm_api_key="sk-main", judges=[JudgeSpec(name="b", model="claude-ish")])
    assert settings.model_for("reviewer") == "claude-ish" and settings.reviewer_judge().name == "b"
    assert settings.model_for("aggregator") == "gpt-4o-mini"
    own = settings.model_copy(update={"models": {"reviewer": "gpt-4o"}})
    assert own.model_for("reviewer") == "gpt-4o" and own.reviewer_judge() is None
    # Without judges, another role's model of another family, on the main endpoint.
    other = Settings(models={"evaluator": "claude-3-haiku"})
    assert other.model_for("reviewer") == "claude-3-haiku" and other.reviewer_judge() is None
    # The family rule (issue 22): another model of the writer's family is no alternative.
    assert Settings(models={"evaluator": "gpt-4o"}).model_for("reviewer") == "gpt-4o-mini"
    assert Settings().model_for("reviewer") == "gpt-4o-mini"          # one model: nothing else to take


def test_factory_routes_judges_and_the_reviewer(monkeypatch, db_path):
    monkeypatch.setenv("FAIRMARK_JUDGE_B_BASE_URL", "http://judge-b.example/v1")
    monkeypatch.setenv("FAIRMARK_JUDGE_B_API_KEY", "sk-judge-b")
    settings = Settings(llm_api_key="sk-main", db_path=str(db_path), judges=[JudgeSpec(name="b", model="jb")])
    llm = llmmod.from_settings(settings, db_path)
    assert [j.name for j in llm.judges] == ["b"] and llm.model_for("reviewer") == "jb"
    assert llm.model_for(judge_role("b")) == "jb"
    own = llmmod.judge_settings(settings, settings.judges[0])
    assert (own.llm_base_url, own.llm_api_key, own.llm_model) == ("http://judge-b.example/v1", "sk-judge-b", "jb")


def test_a_judge_with_its_own_endpoint_never_gets_the_main_key(monkeypatch):
    monkeypatch.setenv("FAIRMARK_JUDGE_C_BASE_URL", "http://judge-c.example/v1")
    settings = Settings(llm_base_url="http://main/v1", llm_api_key="sk-main")
    own = llmmod.judge_settings(settings, JudgeSpec(name="c", model="jc"))
    assert own.llm_base_url == "http://judge-c.example/v1" and own.llm_api_key is None
    shared = llmmod.judge_settings(settings, JudgeSpec(name="d", model="jd"))
    assert (shared.llm_base_url, shared.llm_api_key, shared.llm_model) == ("http://main/v1", "sk-main", "jd")


def test_judges_and_thresholds_come_from_the_environment_or_secrets(monkeypatch, tmp_path):
    monkeypatch.setenv("FAIRMARK_JUDGES", '[{"name": "b", "model": "m-b", "weight": 0.5}, {"name": "c", "model": "m-c"}]')
    monkeypatch.setenv("FAIRMARK_CASCADE_MIN_CONFIDENCE", "0.9")
    s = load_settings()
    assert [(j.name, j.model, j.weight) for j in s.judges] == [("b", "m-b", 0.5), ("c", "m-c", 1.0)]
    assert s.cascade_min_confidence == 0.9 and s.cascade_samples == 2 and s.cascade_band_margin == 0.3
    monkeypatch.setenv("FAIRMARK_JUDGES", "b=m-b")
    with pytest.raises(ConfigError, match="JSON list"):
        load_settings()
    secrets = tmp_path / "secrets.toml"
    secrets.write_text('FAIRMARK_JUDGE_B_API_KEY = "sk-from-secrets"\n')
    assert judge_endpoint("b", env={}, secrets_path=secrets) == (None, "sk-from-secrets")


def test_the_settings_page_overrides_judges_and_thresholds_and_refuses_bad_rows(conn):
    saved = llm_calls.save_judging_overrides(conn, {"judges": [{"name": "b", "model": "m-b", "weight": 2},
                                                               {"name": "", "model": "", "weight": None}],
                                                    "cascade_band_margin": 0.5}, actor=Actor("admin", role="admin"))
    assert saved == {"judges": [{"name": "b", "model": "m-b", "weight": 2.0}], "cascade_band_margin": 0.5}
    eff = llmmod.effective_settings(Settings(judges=[JudgeSpec(name="env", model="e")]), conn)
    assert [j.name for j in eff.judges] == ["b"] and eff.cascade_band_margin == 0.5
    for rows, message in [([{"name": "b c", "model": "x"}], "must start with a letter"),
                          ([{"name": "b", "model": ""}], "enter the judge's model"),
                          ([{"name": "a-b", "model": "x"}, {"name": "A_B", "model": "y"}], "clashes with row 1"),
                          ([{"name": "b", "model": "x", "weight": 0}], "above 0")]:
        with pytest.raises(ConfigError, match=message):
            llm_calls.save_judging_overrides(conn, {"judges": rows})
    with pytest.raises(ConfigError, match="lowest probability of a confident score must be between"):
        llm_calls.save_judging_overrides(conn, {"cascade_min_confidence": 0.2})
    assert llm_calls.get_judging_overrides(conn) == saved        # a refused save changes nothing
    llm_calls.save_judging_overrides(conn, {"judges": []})
    assert llmmod.effective_settings(Settings(judges=[JudgeSpec(name="env", model="e")]), conn).judges == []


def test_the_real_sdk_sends_logprobs_and_a_judges_own_key_to_its_own_server(monkeypatch, db_path):
    with StubOpenAIServer() as main, StubOpenAIServer() as judge:
        main.respond(200, main.completion(ANSWER))
        judge.respond(200, judge.completion(ANSWER))
        monkeypatch.setenv("FAIRMARK_JUDGE_B_BASE_URL", judge.base_url)
        monkeypatch.setenv("FAIRMARK_JUDGE_B_API_KEY", "sk-judge-only")
        settings = Settings(llm_base_url=main.base_url, llm_api_key="sk-main-only", db_path=str(db_path),
                            judges=[JudgeSpec(name="b", model="judge-model")], max_retries=0)
        llm = llmmod.from_settings(settings, db_path)
        llm.complete(MSGS, Evaluation, role="evaluator", ctx=ctx(tier=1), temperature=0.0)
        llm.complete(MSGS, Evaluation, role=judge_role("b"), ctx=ctx(tier=2), temperature=0.0)
    assert main.requests[0]["body"]["logprobs"] is True and judge.requests[0]["body"]["model"] == "judge-model"
    headers = {k.lower(): v for k, v in judge.requests[0]["headers"].items()}
    assert headers["authorization"] == "Bearer sk-judge-only"
    assert "sk-main-only" not in json.dumps(judge.requests)
