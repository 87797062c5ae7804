"""Lesson review through the real openai SDK against a real OpenAI-compatible server
(llama-cpp-python + SmolLM2-135M-Instruct, fixture `llama_server`).

A 135M model is no judge: what this proves is the plumbing. The lesson text's own token
logprobs come back through the completions endpoint with `echo` (an entropy for every
sentence); the judge's answer is asked for over real HTTP with logprobs, validated against the
verdict schema (or recorded as a failed review with the reason); every call is in the call log
with the lesson's id and real token counts.
"""
from __future__ import annotations

from core.lessons import review
from core.llm import echo, from_settings
from db import lessons as lessons_db
from lesson_helpers import add_lesson

SHORT = b"""---
title: Evaporation
target_grade: 5
objectives:
  - Explain how the sun's heat makes water evaporate
sources: The sun heats water and some of it evaporates into water vapour.
min_words: 20
---
# Evaporation

Where does a puddle go on a sunny day? In this lesson we find out.

## The sun at work

First, the sun warms the water in the puddle. Some of the water turns into a gas called water vapour. In 1850 a scientist named Anna Berg proved that puddles dry in ten minutes.

## Summary

In summary, the sun makes water evaporate. Remember the puddle next time.
"""


def test_a_lesson_is_judged_and_its_own_entropy_measured_by_a_real_server(llama_server, conn, db_path):
    lid = add_lesson(conn, SHORT)
    settings = llama_server.settings(db_path, lesson_logprobs_base_url=llama_server.base_url, max_retries=0)
    llm = from_settings(settings, db_path, logprobs=True, max_tokens=900)
    sent = []
    transport = llm.inner.transport
    llm.inner.transport = lambda request: (sent.append(request), transport(request))[1]
    endpoint = echo.endpoint(settings)
    assert endpoint.model == llama_server.model and endpoint.api_key == llama_server.api_key

    out = review.review_lesson(db_path, lid, llm, options=review.Options(echo=endpoint))

    rv = lessons_db.review(conn, out["review_id"])
    assert rv is not None, llama_server.log()
    record = rv["record"]
    calls = {c["agent"]: c for c in conn.query("SELECT * FROM llm_calls WHERE lesson_id = ? ORDER BY id", [lid])}
    assert all(c["model"] == llama_server.model for c in calls.values())
    # The lesson's own logprobs, through the completions endpoint with echo: every sentence scored.
    ent = record["entropy"]
    assert "skipped" not in ent, ent
    assert calls["lesson_logprobs"]["status"] == "ok" and calls["lesson_logprobs"]["tokens_in"] > 50
    assert len(ent["sentences"]) == 7 and all(s["bits"] is not None and s["bits"] >= 0 for s in ent["sentences"])
    assert ent["threshold"] >= 2.0 and all(f["bits"] >= ent["threshold"] for f in ent["flags"])
    # The judge was asked over real HTTP for a verdict with token logprobs.
    assert sent and all(r["logprobs"] is True and r["temperature"] == 0.0 for r in sent)
    judge_call = calls["lesson_judge"]
    assert judge_call["tokens_in"] > 300 and judge_call["tokens_out"] > 0
    print(f"\nlesson judge over real HTTP: {out['status']} ({rv['error'] or out['tier']}); judge call "
          f"{judge_call['tokens_in']} tokens in, {judge_call['tokens_out']} out, {judge_call['latency_ms'] / 1000:.0f} s; "
          f"echo call {calls['lesson_logprobs']['latency_ms'] / 1000:.0f} s")
    if out["status"] == "failed":
        # A 135M model may not finish the verdict: the lesson says why, and nothing is half-written.
        assert rv["error"] and judge_call["status"] == "error" and judge_call["error"]
        assert lessons_db.get(conn, lid)["status"] == "failed" and lessons_db.fixes(conn, rv["id"]) == []
        return
    votes = record["first"]["votes"]
    assert votes and all(v["confidence"] is not None for v in votes), votes      # from the answer's logprobs
    assert out["tier"] in ("ready", "sampled", "needs_review")
