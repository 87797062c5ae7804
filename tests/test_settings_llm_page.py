"""AppTest of the Settings page's "Language model & prices" tab (no real LLM call: the
connection test goes to a closed local port and must end in a clear st.error)."""
from __future__ import annotations

import socket

import db as dbmod
from db import llm_calls
from shown import plain

PAGE = "pages/settings.py"
SECRET = "sk-page-SECRET-abcdef0123456789"


def _texts(at) -> str:
    parts = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "text"):
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [str(t.value) for t in at.text_input]
    return "\n".join(parts)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unconfigured_endpoint_says_offline_and_disables_the_test(app_test):
    at = app_test(PAGE).run()
    assert not at.exception, at.exception
    assert any("offline baseline" in i.value for i in at.info)
    assert at.button(key="llm_test_connection").disabled
    assert "API key:** not set" in _texts(at)
    # Issue 11 item 13: it said the base URL was OpenAI's while running offline.
    assert "openai.com" not in _texts(at) and "Base URL:** none" in _texts(at)


def test_key_is_never_shown_and_failed_connection_test_is_a_clear_error(app_test, conn, monkeypatch):
    base_url = f"http://127.0.0.1:{_closed_port()}/v1"
    monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", base_url)
    monkeypatch.setenv("FAIRMARK_LLM_API_KEY", SECRET)
    at = app_test(PAGE).run()
    assert not at.exception, at.exception
    assert base_url in _texts(at) and "API key:** set" in _texts(at)
    at.button(key="llm_test_connection").click().run()
    assert not at.exception, at.exception
    assert any("Cannot reach" in e.value for e in at.error)
    assert SECRET not in _texts(at)
    last = llm_calls.get_last_connection_test(conn)
    assert last["ok"] is False and "Cannot reach" in last["error"]
    assert conn.execute("SELECT agent, status FROM llm_calls").fetchall() == [("settings", "error")]
    at.run()
    assert any("Last test" in c.value and "failed" in c.value for c in at.caption)


def test_same_model_warning_needs_a_configured_endpoint(app_test):
    """Without an endpoint the offline baseline drafts: no model to compare, no warning."""
    at = app_test(PAGE).run()
    assert not at.exception, at.exception
    assert not any("same model family as the Aggregator" in w.value for w in at.warning)


def test_same_reviewer_and_aggregator_model_is_warned_and_saving_a_judge_clears_it(app_test, conn, monkeypatch):
    monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", f"http://127.0.0.1:{_closed_port()}/v1")
    at = app_test(PAGE).run()
    assert any("same model family as the Aggregator" in w.value for w in at.warning)
    at.text_input(key="llm_model_reviewer").input("claude-judge")
    at.number_input(key="llm_concurrency").set_value(3)
    next(b for b in at.button if b.label == "Save model settings").click().run()
    assert not at.exception, at.exception
    assert llm_calls.get_llm_overrides(conn) == {"models": {"reviewer": "claude-judge"}, "concurrency": 3}
    assert not any("same model family as the Aggregator" in w.value for w in at.warning)
    assert any("Saved the model settings" in s.value for s in at.success)
    assert dbmod.loads(conn.execute("SELECT after FROM audit_log WHERE action = 'edit_llm_settings'").fetchone()[0])["concurrency"] == 3


def test_environment_value_is_not_stored_as_an_override(app_test, conn, monkeypatch):
    monkeypatch.setenv("FAIRMARK_MODEL_REVIEWER", "env-judge")
    monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", f"http://127.0.0.1:{_closed_port()}/v1")
    at = app_test(PAGE).run()
    assert at.text_input(key="llm_model_reviewer").value == "env-judge"
    assert not any("same model family as the Aggregator" in w.value for w in at.warning)
    next(b for b in at.button if b.label == "Save model settings").click().run()
    assert llm_calls.get_llm_overrides(conn) == {}


def test_price_table_is_shown_and_unpriced_models_are_warned(app_test, conn):
    llm_calls.insert_call(conn, agent="evaluator", model="mystery-7b", prompt_name="e", prompt_hash="h",
                          input_hash="i", temperature=0.3, cache_key="k", status="ok", tokens_in=10)
    at = app_test(PAGE).run()
    assert not at.exception, at.exception
    assert any("mystery-7b" in plain(w.value) for w in at.warning)
    at.button(key="llm_save_prices").click().run()         # unchanged table saves cleanly
    assert any("Saved 4 prices" in s.value for s in at.success)
    assert {p["model"] for p in llm_calls.list_prices(conn)} == {"gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "offline"}
