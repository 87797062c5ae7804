"""LoggedLLM (call log, cache, cost), db.llm_calls, settings overrides, and the fakes themselves.
Real SQLite on a temp file throughout."""
from __future__ import annotations

import threading
from typing import Literal

import pytest
from pydantic import BaseModel

from core import llm as llmmod
from core.errors import ConfigError, LLMAuthError, LLMInvalidOutput, LLMTimeout
from core.llm import CallContext, LoggedLLM, OpenAICompatibleLLM
from core.settings import Settings, load_settings
import db
from db import llm_calls
from fake_llm import FakeTransport, ScriptedLLM, StubOpenAIServer, UnexpectedCall
import factories
from stored import column_names, index_columns, stored_text


class Verdict(BaseModel):
    verdict: Literal["CONFIDENT", "REVISE"]
    score: Literal[0, 1, 2, 3] = 0


OK = {"verdict": "CONFIDENT", "score": 2}
MSGS = [{"role": "user", "content": "Reflection by Student-0001: I learned a lot."}]


def ctx(**kw):
    return CallContext(**{"agent": "reviewer", "prompt_name": "reviewer", "prompt_hash": "h1", **kw})


def rows(conn):
    return list(conn.query("SELECT * FROM llm_calls ORDER BY id"))


# --- cache --------------------------------------------------------------------------------
def test_identical_call_is_served_from_cache_without_reaching_the_model(conn, db_path):
    fake = ScriptedLLM({"reviewer": [OK]}, models={"reviewer": "gpt-4o-mini"})
    llm = LoggedLLM(fake, db_path)
    first = llm.complete(MSGS, Verdict, role="reviewer", ctx=ctx())
    second = llm.complete(MSGS, Verdict, role="reviewer", ctx=ctx())   # fake has nothing left
    fake.assert_all_used()
    assert len(fake.calls) == 1
    assert second.cache_hit and not first.cache_hit
    assert second.data == first.data and second.cost_usd == 0 and second.usage.tokens_in == 0
    ok, hit = rows(conn)
    assert (ok["status"], ok["cache_hit"]) == ("ok", 0)
    assert (hit["status"], hit["cache_hit"], hit["cost_usd"], hit["tokens_in"]) == ("cache_hit", 1, 0, 0)
    assert hit["cache_key"] == ok["cache_key"] and hit["response"] == ok["response"]
    assert f"call #{ok['id']}" in hit["note"]


@pytest.mark.parametrize("change", [
    {"ctx": ctx(prompt_hash="h2")},
    {"temperature": 0.0},
    {"messages": [{"role": "user", "content": "A different reflection."}]},
])
def test_changed_prompt_temperature_or_input_misses_the_cache(db_path, change):
    fake = ScriptedLLM({"reviewer": [OK, OK]})
    llm = LoggedLLM(fake, db_path)
    llm.complete(MSGS, Verdict, role="reviewer", ctx=ctx())
    resp = llm.complete(change.get("messages", MSGS), Verdict, role="reviewer", ctx=change.get("ctx", ctx()),
                        temperature=change.get("temperature"))
    assert not resp.cache_hit
    fake.assert_all_used()


def test_changed_schema_misses_the_cache(db_path):
    class Other(BaseModel):
        verdict: Literal["CONFIDENT", "REVISE"]

    fake = ScriptedLLM({"reviewer": [OK, {"verdict": "REVISE"}]})
    llm = LoggedLLM(fake, db_path)
    llm.complete(MSGS, Verdict, role="reviewer", ctx=ctx())
    assert not llm.complete(MSGS, Other, role="reviewer", ctx=ctx()).cache_hit


def test_errors_are_never_served_from_cache_and_read_cache_false_bypasses_it(conn, db_path):
    fake = ScriptedLLM({"reviewer": [LLMTimeout("slow"), OK, OK]})
    llm = LoggedLLM(fake, db_path)
    with pytest.raises(LLMTimeout):
        llm.complete(MSGS, Verdict, role="reviewer", ctx=ctx())
    assert not llm.complete(MSGS, Verdict, role="reviewer", ctx=ctx()).cache_hit
    assert not LoggedLLM(fake, db_path, read_cache=False).complete(MSGS, Verdict, role="reviewer", ctx=ctx()).cache_hit
    assert [r["status"] for r in rows(conn)] == ["error", "ok", "ok"]


# --- the call log ---------------------------------------------------------------------------
def test_ok_row_records_context_tokens_latency_request_id_and_mode(conn, db_path):
    c = factories.course(conn)
    run_id = conn.execute("INSERT INTO runs (course_id, provider) VALUES (?, 'openai')", [c["course_id"]]).lastrowid
    sid = factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]))
    conn.conn.commit()
    t = FakeTransport(FakeTransport.reply(OK, tokens_in=300, tokens_out=40, tokens_cached=100, request_id="req-9"))
    inner = OpenAICompatibleLLM(Settings(llm_base_url="http://x/v1"), transport=t)
    LoggedLLM(inner, db_path).complete(MSGS, Verdict, role="reviewer",
                                       ctx=ctx(run_id=run_id, submission_id=sid))
    (row,) = rows(conn)
    assert row["run_id"] == run_id and row["submission_id"] == sid
    assert (row["agent"], row["model"], row["prompt_name"], row["prompt_hash"]) == ("reviewer", "gpt-4o-mini", "reviewer", "h1")
    assert (row["tokens_in"], row["tokens_out"], row["tokens_cached"]) == (300, 40, 100)
    assert row["request_id"] == "req-9" and row["temperature"] == 0.3 and row["attempts"] == 1
    assert row["response_mode"] == "json_schema" and row["latency_ms"] >= 0
    assert Verdict.model_validate_json(row["response"]).verdict == "CONFIDENT"


def test_failed_call_is_logged_with_error_attempts_and_tokens_then_reraised(conn, db_path):
    t = FakeTransport(FakeTransport.reply("nope", tokens_in=10, tokens_out=3),
                      FakeTransport.reply('{"verdict": "MAYBE"}', tokens_in=20, tokens_out=4))
    inner = OpenAICompatibleLLM(Settings(llm_base_url="http://x/v1"), transport=t)
    with pytest.raises(LLMInvalidOutput):
        LoggedLLM(inner, db_path).complete(MSGS, Verdict, role="reviewer", ctx=ctx())
    (row,) = rows(conn)
    assert row["status"] == "error" and row["error"].startswith("LLMInvalidOutput: ")
    assert (row["attempts"], row["tokens_in"], row["tokens_out"]) == (2, 30, 7)
    assert row["response"] is None and row["cost_usd"] > 0


def test_unexpected_exception_is_logged_and_reraised_unchanged(conn, db_path):
    fake = ScriptedLLM({"reviewer": [RuntimeError("bug in agent")]})
    with pytest.raises(RuntimeError, match="bug in agent"):
        LoggedLLM(fake, db_path).complete(MSGS, Verdict, role="reviewer", ctx=ctx())
    assert rows(conn)[0]["error"] == "RuntimeError: bug in agent"


# --- cost ---------------------------------------------------------------------------------
def test_cost_comes_from_the_editable_price_table(conn, db_path):
    def call():
        t = FakeTransport(FakeTransport.reply(OK, tokens_in=1000, tokens_out=500, tokens_cached=200))
        inner = OpenAICompatibleLLM(Settings(llm_base_url="http://x/v1"), transport=t)
        return LoggedLLM(inner, db_path, read_cache=False).complete(MSGS, Verdict, role="reviewer", ctx=ctx())

    # seeded gpt-4o-mini: 0.15 in, 0.075 cached in, 0.60 out per million tokens
    assert call().cost_usd == pytest.approx((800 * 0.15 + 200 * 0.075 + 500 * 0.60) / 1e6)
    llm_calls.replace_prices(conn, [{"model": "gpt-4o-mini", "input_per_mtok": 1, "cached_input_per_mtok": 0,
                                   "output_per_mtok": 2}])
    assert call().cost_usd == pytest.approx((800 * 1 + 500 * 2) / 1e6)
    assert [r["cost_usd"] for r in rows(conn)] == pytest.approx([0.000435, 0.0018])


def test_unknown_model_costs_zero_with_a_note(conn, db_path):
    fake = ScriptedLLM({"reviewer": [OK]}, models={"reviewer": "mystery-7b"})
    resp = LoggedLLM(fake, db_path).complete(MSGS, Verdict, role="reviewer", ctx=ctx())
    assert resp.cost_usd == 0 and "no price for model 'mystery-7b'" in resp.note
    assert "no price" in rows(conn)[0]["note"]
    assert llm_calls.unpriced_models(conn) == ["mystery-7b"]


def test_explicit_prices_override_the_table(db_path):
    fake = ScriptedLLM({"reviewer": [OK]}, models={"reviewer": "m"}, usage=llmmod.Usage(1_000_000, 0))
    prices = {"m": {"input_per_mtok": 2.0, "cached_input_per_mtok": 0, "output_per_mtok": 0}}
    assert LoggedLLM(fake, db_path, prices=prices).complete(MSGS, Verdict, role="reviewer", ctx=ctx()).cost_usd == 2.0


def test_replace_prices_rejects_bad_rows_without_changing_anything(conn):
    before = llm_calls.list_prices(conn)
    with pytest.raises(ConfigError, match="row 2.*output_per_mtok"):
        llm_calls.replace_prices(conn, [{"model": "a", "input_per_mtok": 1, "output_per_mtok": 1},
                                      {"model": "b", "input_per_mtok": 1, "output_per_mtok": "lots"}])
    with pytest.raises(ConfigError, match="negative"):
        llm_calls.replace_prices(conn, [{"model": "a", "input_per_mtok": -1, "output_per_mtok": 1}])
    with pytest.raises(ConfigError, match="twice"):
        llm_calls.replace_prices(conn, [{"model": "a", "input_per_mtok": 1, "output_per_mtok": 1}] * 2)
    assert llm_calls.list_prices(conn) == before
    assert llm_calls.replace_prices(conn, [{"model": "a", "input_per_mtok": 1, "output_per_mtok": 1}]) == 1
    assert llm_calls.get_price(conn, "a")["cached_input_per_mtok"] == 0
    assert conn.execute("SELECT action FROM audit_log").fetchall()[-1][0] == "edit_prices"


# --- aggregates -----------------------------------------------------------------------------
def test_totals_per_agent_and_per_run_are_sql_aggregates(conn, db_path):
    c = factories.course(conn)
    runs = [conn.execute("INSERT INTO runs (course_id, provider) VALUES (?, 'openai')", [c["course_id"]]).lastrowid
            for _ in range(2)]
    conn.conn.commit()
    fake = ScriptedLLM(models={"reviewer": "gpt-4o-mini", "coach": "gpt-4o-mini"},
                       usage=llmmod.Usage(1000, 100))
    fake.always("reviewer", OK).always("coach", OK)
    llm = LoggedLLM(fake, db_path)
    llm.complete(MSGS, Verdict, role="reviewer", ctx=ctx(run_id=runs[0]))
    llm.complete(MSGS, Verdict, role="coach", ctx=ctx(agent="coach", prompt_hash="c", run_id=runs[0]))
    llm.complete(MSGS, Verdict, role="reviewer", ctx=ctx(run_id=runs[1]))   # cache hit
    by_run = {r["run_id"]: r for r in llm_calls.totals_by_run(conn)}
    assert by_run[runs[0]]["calls"] == 2 and by_run[runs[0]]["tokens_in"] == 2000
    assert by_run[runs[1]]["cache_hits"] == 1 and by_run[runs[1]]["cost_usd"] == 0
    by_agent = {r["agent"]: r for r in llm_calls.totals_by_agent(conn, course_id=c["course_id"])}
    assert by_agent["reviewer"]["calls"] == 2 and by_agent["reviewer"]["cache_hits"] == 1
    assert by_agent["coach"]["cost_usd"] == pytest.approx((1000 * 0.15 + 100 * 0.6) / 1e6)
    assert llm_calls.totals(conn, run_id=runs[0])["calls"] == 2


# --- threads ------------------------------------------------------------------------------
def test_many_threads_log_every_call(conn, db_path):
    fake = ScriptedLLM().always("reviewer", OK)
    llm = LoggedLLM(fake, db_path, read_cache=False)
    errors: list[Exception] = []

    def work(i):
        try:
            for j in range(5):
                llm.complete([{"role": "user", "content": f"{i}-{j}"}], Verdict, role="reviewer", ctx=ctx())
        except Exception as exc:            # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    assert conn.execute("SELECT COUNT(*), COUNT(DISTINCT input_hash) FROM llm_calls").fetchone() == (40, 40)


# --- the key never reaches the database -----------------------------------------------------
def test_api_key_is_never_written_to_any_table(conn, db_path, monkeypatch):
    secret = "sk-live-VERYSECRET-0123456789abcdef"
    monkeypatch.setenv("FAIRMARK_LLM_API_KEY", secret)
    with StubOpenAIServer() as srv:
        monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", srv.base_url)
        monkeypatch.setenv("FAIRMARK_MAX_RETRIES", "0")
        settings = load_settings()
        srv.respond(200, srv.completion('{"verdict": "CONFIDENT", "score": 1}'))
        srv.respond(401, {"error": {"message": f"Incorrect API key provided: {secret}"}})
        srv.respond(200, srv.completion('{"ok": true}'))
        llm = llmmod.from_settings(settings, db_path)
        llm.complete(MSGS, Verdict, role="reviewer", ctx=ctx())
        with pytest.raises(LLMAuthError):
            llm.complete(MSGS, Verdict, role="reviewer", ctx=ctx(prompt_hash="other"))
        llmmod.test_connection(settings, db_path)
    llm_calls.save_llm_overrides(conn, {"concurrency": 2})
    text = stored_text(conn)                             # every table's values (and SQLite's file)
    assert "Incorrect API key" in text                   # the error was recorded ...
    assert secret not in text and "VERYSECRET" not in text  # ... without the key


# --- settings overrides and building the LLM ------------------------------------------------
def test_ui_overrides_win_over_environment_for_models_and_limits(conn, db_path, monkeypatch):
    monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", "http://localhost:1/v1")
    monkeypatch.setenv("FAIRMARK_MODEL_REVIEWER", "env-judge")
    monkeypatch.setenv("FAIRMARK_CONCURRENCY", "4")
    llm_calls.save_llm_overrides(conn, {"models": {"aggregator": "ui-writer", "coach": ""}, "concurrency": 2,
                                      "max_retries": 1})
    eff = llmmod.effective_settings(load_settings(), conn)
    assert eff.model_for("aggregator") == "ui-writer" and eff.model_for("reviewer") == "env-judge"
    assert eff.model_for("coach") == "gpt-4o-mini" and eff.concurrency == 2 and eff.max_retries == 1
    built = llmmod.from_settings(load_settings(), db_path, transport=FakeTransport())
    assert built.model_for("aggregator") == "ui-writer" and built.inner.max_retries == 1


def test_save_overrides_validates_ranges_and_refuses_endpoint_or_key(conn):
    with pytest.raises(ConfigError, match="concurrency"):
        llm_calls.save_llm_overrides(conn, {"concurrency": 0})
    with pytest.raises(ConfigError, match="Unknown"):
        llm_calls.save_llm_overrides(conn, {"llm_api_key": "sk-x"})
    assert llm_calls.get_llm_overrides(conn) == {}


def test_from_settings_without_endpoint_or_key_is_a_config_error(db_path):
    with pytest.raises(ConfigError, match="offline"):
        llmmod.from_settings(load_settings(), db_path)


def test_connection_test_makes_one_uncached_call(conn, db_path):
    t = FakeTransport(FakeTransport.reply('{"ok": true}'), FakeTransport.reply('{"ok": true}'))
    settings = Settings(llm_base_url="http://x/v1", db_path=str(db_path))
    for _ in range(2):
        result = llmmod.test_connection(settings, db_path, transport=t)
    assert result["model"] == "gpt-4o-mini" and result["mode"] == "json_schema"
    assert [r["status"] for r in rows(conn)] == ["ok", "ok"] and rows(conn)[0]["agent"] == "settings"
    assert t.requests[0]["temperature"] == 0.0


# --- the fakes are strict -------------------------------------------------------------------
def test_scripted_llm_fails_loudly_on_unexpected_calls_and_unused_answers():
    fake = ScriptedLLM({"coach": [{"verdict": "REVISE"}]})
    with pytest.raises(UnexpectedCall, match="'reviewer'"):
        fake.complete(MSGS, Verdict, role="reviewer", ctx=ctx())
    with pytest.raises(AssertionError, match="coach"):
        fake.assert_all_used()
    with pytest.raises(UnexpectedCall, match="does not fit"):
        ScriptedLLM({"coach": [{"verdict": "MAYBE"}]}).complete(MSGS, Verdict, role="coach", ctx=ctx())

    class Other(BaseModel):
        x: int

    with pytest.raises(UnexpectedCall, match="asked for Verdict"):
        ScriptedLLM({"coach": [Other(x=1)]}).complete(MSGS, Verdict, role="coach", ctx=ctx())


def test_scripted_llm_records_messages_and_supports_callables_and_exceptions():
    fake = ScriptedLLM({"coach": [lambda m, s: {"verdict": "REVISE" if "bad" in m[0]["content"] else "CONFIDENT"},
                                  LLMTimeout("x")]})
    assert fake.complete([{"role": "user", "content": "bad"}], Verdict, role="coach", ctx=ctx()).data.verdict == "REVISE"
    with pytest.raises(LLMTimeout):
        fake.complete(MSGS, Verdict, role="coach", ctx=ctx())
    fake.assert_all_used()
    assert "Student-0001" in fake.all_text() and "bad" in fake.all_text()
    assert [c.role for c in fake.calls_for("coach")] == ["coach", "coach"]


def test_fake_transport_fails_on_unscripted_request():
    inner = OpenAICompatibleLLM(Settings(llm_base_url="http://x/v1"), transport=FakeTransport())
    with pytest.raises(UnexpectedCall):
        inner.complete(MSGS, Verdict, role="reviewer", ctx=ctx())


def test_migration_adds_note_and_mode_columns(conn):
    assert {"note", "response_mode", "cache_key", "status"} <= column_names(conn, "llm_calls")
    assert ["cache_key", "status"] in index_columns(conn, "llm_calls")


def test_a_call_holds_no_postgresql_connection_once_it_returns(conn, db_path):
    """A run's thread calls the Evaluator, then waits for the Coach's and the Equity Monitor's calls
    on other threads (hours in batch mode): on PostgreSQL the connection kept for the call's row was
    a server process held all that while (74 of a 200-submission batch run's threads). On SQLite the
    connection is a file handle, kept for the thread's next call."""
    fake = ScriptedLLM({"reviewer": [OK, LLMTimeout("slow")]}, models={"reviewer": "gpt-4o-mini"})
    llm = LoggedLLM(fake, db_path)
    on_server = db.on_postgresql(conn)
    llm.complete(MSGS, Verdict, role="reviewer", ctx=ctx())                  # a call answered
    assert (getattr(llm._local, "conn", None) is None) == on_server
    assert llm.complete(MSGS, Verdict, role="reviewer", ctx=ctx()).cache_hit  # served from the cache
    assert (getattr(llm._local, "conn", None) is None) == on_server
    with pytest.raises(LLMTimeout):                                            # a call that failed
        llm.complete(MSGS, Verdict, role="reviewer", ctx=ctx(prompt_hash="h2"))
    assert (getattr(llm._local, "conn", None) is None) == on_server
    assert [r["status"] for r in rows(conn)] == ["ok", "cache_hit", "error"]
