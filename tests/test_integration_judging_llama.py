"""The judge cascade through the real openai SDK against real OpenAI-compatible servers:
llama-cpp-python 0.3.36 serving SmolLM2-135M-Instruct (the session's `llama_server` for the
Evaluator, and a second server from a config file serving the same weights under two more model
aliases, `judge-b` and `judge-c`, for the consensus step, reached through
FAIRMARK_JUDGE_<NAME>_BASE_URL / _API_KEY).

What is real here: HTTP, logprobs from the server, the structured-output fallback, the call
log with tiers and score probabilities, the routing of each judge to its own endpoint, the
votes, the stored confidence and the queue group. The writing roles (Equity Monitor, Coach,
Aggregator, Reviewer) are scripted: a 135M model writes comments that fail the checks, which
would send every item to "needs attention" and hide the judging this file is about (the whole
pipeline through the real server is tests/test_integration_pipeline_llama.py).

Forcing: the cascade's band-cut margin is set to 5 (the whole 0-3 scale), so the Evaluator's
answer is never settled alone and the consensus step always runs. A three-way disagreement
cannot be forced on three copies of one model at temperature 0, so in that test judges b and c
are small HTTP servers (tests.fake_llm.StubOpenAIServer) that answer, through the same SDK
path, with scores that differ from the Evaluator's and from each other.
"""
from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import factories
from assess_script import good_llm
from conftest_llama import (API_KEY, LlamaServer, _free_port, _require_llama_server, _stop, _wait_ready,
                            smollm2_gguf)
from core import checks, llm as llmmod, pipeline
from core.signoff import triage
from core.injection import REPORT_FIELD
from core.rubric import parse_rubric
from core.settings import JudgeSpec
from db import drafts, llm_calls, votes
from fake_llm import StubOpenAIServer

RUBRIC = parse_rubric({"name": "Two criteria", "scale_min": 0, "scale_max": 3, "criteria": [
    {"key": "clarity", "title": "Clarity", "levels": {0: "Incoherent.", 1: "Hard to follow.",
                                                      2: "Understandable with minor issues.", 3: "Clear and polished."}},
    {"key": "depth", "title": "Reflection depth", "levels": {0: "No reflection.", 1: "Superficial.",
                                                              2: "Names a question to explore.",
                                                              3: "Insightful questions."}}]})
TEXT = ("This week I learned that temperature controls how random a language model's answers are. At work I "
        "asked a chatbot to draft the same email five times: at a low temperature the drafts were almost the "
        "same, at a high temperature they were creative but sometimes wrong. I now wonder how a company should "
        "choose the temperature for customer answers, and whether a lower temperature also hides the model's "
        "uncertainty from the reader. Next week I will test this with questions I know the answers to, and I "
        "will write down how often the model invents a source. I also noticed that the same prompt gave a "
        "different tone each time, which matters when many people send similar requests. My question for the "
        "course is how we can measure whether an answer is reliable before we trust it.")


@pytest.fixture(scope="module")
def judge_server():
    """A second llama-cpp-python server serving SmolLM2 under the aliases judge-b and judge-c."""
    _require_llama_server()
    gguf, port = str(smollm2_gguf()), _free_port()
    folder = Path(tempfile.mkdtemp(prefix="fairmark-judges-"))
    models = [{"model": gguf, "model_alias": alias, "n_ctx": 4096, "n_threads": 2, "verbose": False}
              for alias in ("judge-b", "judge-c")]
    (folder / "config.json").write_text(json.dumps({"host": "127.0.0.1", "port": port, "api_key": API_KEY,
                                                    "models": models}))
    log_path = folder / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--config_file", str(folder / "config.json")],
                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    server = LlamaServer(base_url=f"http://127.0.0.1:{port}/v1", model="judge-b", api_key=API_KEY,
                         log_path=log_path, process=proc)
    try:
        _wait_ready(server)
        yield server
    finally:
        _stop(proc)


class ScoringThroughServers:
    """The Evaluator and the judges through the real LLM (real SDK, real servers); the writing
    roles scripted (see the module docstring)."""

    def __init__(self, real, writers):
        self.real, self.writers = real, writers
        self.provider, self.judges = real.provider, real.judges

    def _pick(self, role):
        return self.real if role == "evaluator" or role.startswith("judge:") else self.writers

    def model_for(self, role):
        return self._pick(role).model_for(role)

    def complete(self, messages, schema, *, role, ctx, temperature=None):
        return self._pick(role).complete(messages, schema, role=role, ctx=ctx, temperature=temperature)


def setup(conn, monkeypatch, judge_urls: dict[str, str]):
    assert len(TEXT.split()) >= 100            # a shorter text is flagged and never reaches the judges
    c = factories.course(conn, rubric=RUBRIC)
    sub = factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]), TEXT)
    for name, url in judge_urls.items():
        monkeypatch.setenv(f"FAIRMARK_JUDGE_{name.upper()}_BASE_URL", url)
        monkeypatch.setenv(f"FAIRMARK_JUDGE_{name.upper()}_API_KEY", API_KEY)
    llm_calls.save_judging_overrides(conn, {"cascade_band_margin": 5.0})      # force the consensus step
    return c, sub


def test_logprobs_are_stored_and_an_ambiguous_item_is_judged_by_two_other_model_configurations(
        llama_server, judge_server, conn, db_path, monkeypatch):
    c, sub = setup(conn, monkeypatch, {"b": judge_server.base_url, "c": judge_server.base_url})
    settings = llama_server.settings(db_path, judges=[JudgeSpec(name="b", model="judge-b"),
                                                      JudgeSpec(name="c", model="judge-c")])
    real = llmmod.from_settings(settings, db_path, max_tokens=400)
    draft = drafts.get_draft(conn, pipeline.assess_one(db_path, sub, llm=ScoringThroughServers(real, good_llm())))

    calls = list(conn.query("SELECT model, tier, status, score_probs FROM llm_calls WHERE agent = 'evaluator' "
                            "ORDER BY id"))
    first = calls[0]
    assert (first["model"], first["tier"], first["status"]) == (llama_server.model, 1, "ok"), llama_server.log()
    probs = json.loads(first["score_probs"])                                   # logprobs came back
    assert set(probs) == {"clarity.score", "depth.score"}
    assert all(sum(p.values()) == pytest.approx(1.0, abs=0.01) for p in probs.values())
    judging = draft["judging"]
    for key in ("clarity", "depth"):
        crit = judging["criteria"][key]
        assert crit["source"] == "logprobs" and crit["p_answer"] > 0 and crit["entropy"] >= 0
    assert draft["confidence"] is not None and judging["near_band_cut"] and judging["tier"] == 2

    # The consensus step ran on the other server, one model alias per judge.
    judge_calls = [c for c in calls[1:] if c["tier"] == 2]
    assert judge_calls and {c["model"] for c in judge_calls} <= {"judge-b", "judge-c"} and judge_calls[0]["model"] == "judge-b"
    assert all(c["status"] == "ok" for c in judge_calls), judge_server.log()
    cast = votes.of(conn, "submission", sub, draft_id=draft["id"])
    per_criterion = {k: [v for v in cast if v["criterion"] == k] for k in ("clarity", "depth")}
    assert all(2 <= len(v) <= 3 for v in per_criterion.values())
    assert {v["judge"] for v in cast} >= {llama_server.model, "judge-b"}
    assert {v["tier"] for v in cast} == {1, 2}


def test_a_forced_three_way_disagreement_ends_in_the_unsure_group(llama_server, conn, db_path, monkeypatch):
    first_scores: dict[str, int] = {}

    def judge_answer(shift: int):
        def answer(body):
            # Judges b and c agree with each other on depth (against the Evaluator) and differ from
            # the Evaluator and from each other on clarity.
            s = first_scores
            out = {"clarity": (s["clarity"] + shift) % 4, "depth": (s["depth"] + 1) % 4}
            content = {k: {"score": v, "reasoning": f"Judge answer for {k}.", "evidence_quote": "",
                           "areas_for_improvement": [f"Work on {k}."]} for k, v in out.items()}
            return StubOpenAIServer.completion(json.dumps(content), model=body["model"])
        return answer

    with StubOpenAIServer() as b, StubOpenAIServer() as c_srv:
        b.respond(200, judge_answer(1))
        c_srv.respond(200, judge_answer(2))
        c, sub = setup(conn, monkeypatch, {"b": b.base_url, "c": c_srv.base_url})
        settings = llama_server.settings(db_path, judges=[JudgeSpec(name="b", model="judge-b"),
                                                          JudgeSpec(name="c", model="judge-c")])
        real = llmmod.from_settings(settings, db_path, max_tokens=400)
        send = real.inner.main.transport

        def capture(request):                      # the Evaluator's real answer, for the stubs
            raw = send(request)
            answer = json.loads(raw.content, strict=False)     # raw line breaks in strings, as core reads them
            first_scores.update({k: v["score"] for k, v in answer.items()
                                 if isinstance(v, dict) and "score" in v})   # not its report on instructions
            if (answer.get(REPORT_FIELD) or {}).get("found") is True:
                # The 135M model sometimes "finds" instructions in a plain text; that flag would
                # (rightly) outrank the unsure group this test is about. "true" becomes "0   ":
                # the same length, so the scores' logprobs stay aligned with the text.
                content = re.sub(r'("found"\s*:\s*)true', lambda m: m.group(1) + "0   ", raw.content)
                raw = dataclasses.replace(raw, content=content)
            # Likewise a quote the small model made up (a failed evidence check, rightly "needs
            # attention"): blanked to spaces of the same length, which the check reads as no quote.
            made_up = [v["evidence_quote"] for v in answer.values() if isinstance(v, dict)
                       and v.get("evidence_quote") and not checks.quote_found(v["evidence_quote"], TEXT)]
            if made_up:
                raw = dataclasses.replace(raw, content=re.sub(
                    r'("evidence_quote"\s*:\s*")((?:[^"\\]|\\.)*)"',
                    lambda m: m.group(1) + (" " * len(m.group(2)) if not checks.quote_found(
                        json.loads('"' + m.group(2) + '"', strict=False), TEXT) else m.group(2)) + '"',
                    raw.content))
            return raw
        real.inner.main.transport = capture
        draft = drafts.get_draft(conn, pipeline.assess_one(db_path, sub, llm=ScoringThroughServers(real, good_llm())))

    assert b.requests and c_srv.requests and not b.unexpected and not c_srv.unexpected
    assert b.requests[0]["body"]["model"] == "judge-b" and c_srv.requests[0]["body"]["model"] == "judge-c"
    judging = draft["judging"]
    assert judging["unsure"] == ["clarity"] and judging["route"] == "judges_disagree", judging
    clarity = sorted(v["score"] for v in votes.of(conn, "submission", sub, draft_id=draft["id"])
                     if v["criterion"] == "clarity")
    assert len(clarity) == 3 and len(set(clarity)) == 3 and draft["scores"]["clarity"] == clarity[1]   # the median
    assert draft["scores"]["depth"] == (first_scores["depth"] + 1) % 4                   # two of three
    row = next(conn.query("SELECT status, priority FROM submissions WHERE id = ?", [sub]))
    assert (row["status"], row["priority"]) == ("drafted", triage.UNSURE), draft["attention_reasons"]
