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
    settings = llama_server.settings(db_path, lesson_logprobs_base_url=llama_server.base_url, max_retries=1)
    llm = from_settings(settings, db_path, logprobs=True, max_tokens=1500)
    endpoint = echo.endpoint(settings)
    assert endpoint.model == llama_server.model and endpoint.api_key == llama_server.api_key

    out = review.review_lesson(db_path, lid, llm, options=review.Options(echo=endpoint))

    rv = lessons_db.review(conn, out["review_id"])
    assert rv is not None, llama_server.log()
    calls = list(conn.query("SELECT * FROM llm_calls WHERE lesson_id = ? ORDER BY id", [lid]))
    assert calls and all(c["model"] == llama_server.model for c in calls)
    judge_calls = [c for c in calls if c["agent"] == "lesson_judge"]
    assert judge_calls and all(c["tokens_in"] > 300 for c in judge_calls if c["status"] == "ok")
    if out["status"] == "failed":
        # A tiny model may not manage the verdict schema: the lesson says why, nothing half-written.
        assert rv["error"] and lessons_db.get(conn, lid)["status"] == "failed"
        assert all(c["error"] for c in judge_calls if c["status"] == "error")
        return
    record = rv["record"]
    # The lesson's own logprobs, through the completions endpoint with echo.
    ent = record["entropy"]
    assert "skipped" not in ent, ent
    echo_call = next(c for c in calls if c["agent"] == "lesson_logprobs")
    assert echo_call["status"] == "ok" and echo_call["tokens_in"] > 50
    assert ent["sentences"] and all(s["bits"] is not None and s["bits"] >= 0 for s in ent["sentences"])
    assert ent["threshold"] >= 2.0
    # The judge's own answer came with token logprobs: its confidence is known.
    votes = record["first"]["votes"]
    assert votes and all(v["confidence"] is not None for v in votes), votes
    assert out["tier"] in ("ready", "sampled", "needs_review")
    assert set(record["first"]["scores"]) == {"factual_integrity", "pedagogical_alignment", "clarity_structure",
                                              "engagement_tone"}
