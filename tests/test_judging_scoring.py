"""Seed 001's cascade on the scores (core.judging.scoring) through the real pipeline, with
scripted judges: every branch, the tiebreak, weights, vetoes, made-up quotes and the routing."""
import pytest

import factories
from assess_script import RICH_TEXT, evaluation_for, good_llm
from core import pipeline
from core.signoff import triage
from core.errors import LLMAuthError, LLMConfigFault, LLMServerError
from core.judging import scoring
from core.judging.cascade import Vote
from core.llm import LoggedLLM
from core.rubric import default_rubric, parse_rubric
from core.settings import JudgeSpec
from core.signoff import bulk
from db import drafts, votes
from fake_llm import WithProbs
from core.accounts.access import Actor

B, C = JudgeSpec(name="b", model="model-b"), JudgeSpec(name="c", model="model-c", weight=1.0)


def setup(conn, text=RICH_TEXT, rubric=None):
    c = factories.course(conn, rubric=rubric)
    sid = factories.student(conn, c["course_id"])
    return c, factories.submission(conn, c["assignment_id"], sid, text)


def unsure_probs(keys, level=2):
    """Every criterion only 60 % sure of `level`."""
    return {f"{k}.score": {str(level): 0.6, str(level + 1): 0.4} for k in keys}


def answer(score, **by_key):
    """An Evaluator answer (callable for ScriptedLLM): `score` everywhere, `by_key` overrides."""
    def make(messages, schema):
        out = evaluation_for(schema, score=score)
        for k, v in by_key.items():
            out[k]["score"] = v
        return out
    return make


def assess(conn, db_path, sub, llm):
    draft_id = pipeline.assess_one(db_path, sub, llm=llm)
    d = drafts.get_draft(conn, draft_id)
    row = next(conn.query("SELECT status, priority FROM submissions WHERE id = ?", [sub]))
    return d, row, votes.of(conn, "submission", sub, draft_id=draft_id)


def judged(d):
    return d["judging"]


def test_a_confident_first_judge_settles_with_one_call_and_its_votes_are_stored(conn, db_path):
    c, sub = setup(conn)
    llm = good_llm(judges=(B, C))
    d, row, cast = assess(conn, db_path, sub, llm)
    assert len(llm.calls_for("evaluator")) == 1 and not llm.calls_for("judge:b")
    assert llm.calls_for("evaluator")[0].temperature == 0.0 and llm.calls_for("evaluator")[0].ctx.tier == 1
    assert judged(d)["route"] == "confident" and judged(d)["settled"] and d["confidence"] == 1.0
    assert [(v["judge"], v["tier"], v["score"], v["confidence"]) for v in cast] == \
        [("fake-evaluator", 1, 2.0, 1.0)] * len(c["rubric"].keys)
    assert row["priority"] == triage.REST


def test_low_confidence_without_judges_goes_to_the_unsure_group(conn, db_path):
    c, sub = setup(conn)
    llm = good_llm()
    llm.script("evaluator", lambda m, s: WithProbs(evaluation_for(s), unsure_probs(c["rubric"].keys)))
    d, row, _ = assess(conn, db_path, sub, llm)
    assert judged(d)["route"] == "low_confidence" and judged(d)["unsure"] == sorted(c["rubric"].keys)
    assert "no second judge" in judged(d)["notes"][0]
    assert d["confidence"] == 0.6 and d["status"] == "drafted" and row["priority"] == triage.UNSURE


def test_an_unsure_first_judge_and_an_agreeing_second_settle_the_item_without_the_third(conn, db_path):
    c, sub = setup(conn)
    llm = good_llm(judges=(B, C))
    llm.script("evaluator", lambda m, s: WithProbs(evaluation_for(s), unsure_probs(c["rubric"].keys)))
    llm.script("judge:b", answer(2))
    d, row, cast = assess(conn, db_path, sub, llm)
    assert len(llm.calls_for("judge:b")) == 1 and not llm.calls_for("judge:c")
    assert llm.calls_for("judge:b")[0].ctx.tier == 2 and llm.calls_for("judge:b")[0].temperature == 0.0
    assert judged(d)["route"] == "consensus" and judged(d)["tier"] == 2 and not judged(d)["unsure"]
    assert d["confidence"] == 1.0 and row["priority"] == triage.REST
    assert sorted({(v["judge"], v["tier"]) for v in cast}) == [("fake-evaluator", 1), ("model-b", 2)]
    llm.assert_all_used()


def test_the_third_judge_breaks_a_tie_per_criterion_and_its_reasoning_comes_with_the_score(conn, db_path):
    c, sub = setup(conn)
    llm = good_llm(judges=(B, C))
    llm.script("evaluator", lambda m, s: WithProbs(evaluation_for(s), unsure_probs(c["rubric"].keys)))
    llm.script("judge:b", answer(2, clarity=3))

    def third(messages, schema):
        out = answer(2, clarity=3)(messages, schema)
        out["clarity"]["reasoning"] = "The third judge's reasons for a 3."
        return out
    llm.script("judge:c", third)
    d, row, cast = assess(conn, db_path, sub, llm)
    assert d["scores"]["clarity"] == 3 and d["scores"]["concept_understanding"] == 2
    # The composite evaluation: clarity's reasoning from a judge that gave 3 (b, the first one).
    assert d["outputs"]["evaluator"]["clarity"]["score"] == 3
    assert d["outputs"]["evaluator"]["clarity"]["reasoning"] != "The third judge's reasons for a 3."
    assert judged(d)["route"] == "consensus" and not judged(d)["unsure"]
    assert judged(d)["criteria"]["clarity"]["confidence"] == pytest.approx(0.667, abs=1e-3)
    assert len([v for v in cast if v["criterion"] == "clarity"]) == 3 and row["priority"] == triage.REST


def test_three_different_answers_end_in_the_unsure_group_with_the_median(conn, db_path):
    c, sub = setup(conn)
    llm = good_llm(judges=(B, C))
    llm.script("evaluator", lambda m, s: WithProbs(evaluation_for(s, score=1), unsure_probs(c["rubric"].keys, 1)))
    llm.script("judge:b", answer(1, clarity=2))
    llm.script("judge:c", answer(1, clarity=3))
    d, row, _ = assess(conn, db_path, sub, llm)
    assert judged(d)["unsure"] == ["clarity"] and judged(d)["disagree"] and judged(d)["route"] == "judges_disagree"
    assert d["scores"]["clarity"] == 2 and row["priority"] == triage.UNSURE and d["status"] == "drafted"


def test_weights_can_outvote_two_light_judges(conn, db_path):
    c, sub = setup(conn)
    light = (JudgeSpec(name="b", model="model-b", weight=0.3), JudgeSpec(name="c", model="model-c", weight=0.3))
    llm = good_llm(judges=light)
    llm.script("evaluator", lambda m, s: WithProbs(evaluation_for(s), unsure_probs(c["rubric"].keys)))
    llm.script("judge:b", answer(3))
    llm.script("judge:c", answer(3))
    d, _, cast = assess(conn, db_path, sub, llm)
    assert set(d["scores"].values()) == {2}                       # 1.0 for 2 against 0.6 for 3
    assert not judged(d)["unsure"] and d["confidence"] == pytest.approx(0.625, abs=1e-3)
    assert {v["weight"] for v in cast if v["tier"] == 2} == {0.3}


def test_a_failed_judge_costs_its_vote_and_the_others_decide(conn, db_path):
    c, sub = setup(conn)
    llm = good_llm(judges=(B, C))
    llm.script("evaluator", lambda m, s: WithProbs(evaluation_for(s), unsure_probs(c["rubric"].keys)))
    llm.script("judge:b", LLMServerError("HTTP 503"))
    llm.script("judge:c", answer(2))
    d, row, _ = assess(conn, db_path, sub, llm)
    assert any("judge b (model-b) failed: LLMServerError" in n for n in judged(d)["notes"])
    assert not judged(d)["unsure"] and row["priority"] == triage.REST


def test_when_every_judge_fails_the_first_judges_scores_stand_without_a_disagreement(conn, db_path):
    c, sub = setup(conn)
    llm = good_llm(judges=(B, C))
    llm.script("evaluator", answer(1))                     # confident, but at the band cut
    llm.script("judge:b", LLMServerError("HTTP 503"))
    llm.script("judge:c", LLMServerError("HTTP 503"))
    d, row, cast = assess(conn, db_path, sub, llm)
    assert judged(d)["route"] == "judges_failed" and not judged(d)["disagree"] and not judged(d)["unsure"]
    assert len(judged(d)["notes"]) == 2 and {v["tier"] for v in cast} == {1} and row["priority"] == triage.LOW_BAND


def test_a_judges_refused_key_stops_the_run(conn, db_path):
    c, sub = setup(conn)
    llm = good_llm(judges=(B,))
    llm.script("evaluator", lambda m, s: WithProbs(evaluation_for(s), unsure_probs(c["rubric"].keys)))
    llm.script("judge:b", LLMAuthError("Judge 'b': refused the API key"))
    with pytest.raises(LLMConfigFault):
        pipeline.assess_one(db_path, sub, llm=llm)
    assert drafts.latest_draft_id(conn, sub) is None


def test_a_confident_answer_near_the_band_cut_still_gets_the_consensus_step(conn, db_path):
    c, sub = setup(conn)
    llm = good_llm(judges=(B, C))
    llm.script("evaluator", answer(1))       # mean 1.0: exactly the 0-3 rubric's band cut
    llm.script("judge:b", answer(1))
    d, row, _ = assess(conn, db_path, sub, llm)
    assert judged(d)["near_band_cut"] and judged(d)["route"] == "consensus" and len(llm.calls_for("judge:b")) == 1
    assert row["priority"] == triage.LOW_BAND


def test_without_logprobs_a_self_consistency_sample_measures_confidence(conn, db_path):
    _, sub = setup(conn)
    inner = good_llm(score_probs=None)
    llm = LoggedLLM(inner, db_path)
    d, row, _ = assess(conn, db_path, sub, llm)
    calls = list(conn.query("SELECT temperature, cache_key, tier FROM llm_calls WHERE agent = 'evaluator' ORDER BY id"))
    assert [c["temperature"] for c in calls] == [0.0, 0.7, 0.7] and len({c["cache_key"] for c in calls}) == 3
    assert {c["tier"] for c in calls} == {1}
    assert [c.ctx.sample for c in inner.calls_for("evaluator")] == [0, 1, 2]
    assert judged(d)["route"] == "confident" and judged(d)["criteria"]["clarity"]["source"] == "samples"
    # A re-run is answered from the cache, samples included, with the same confidence.
    again = drafts.get_draft(conn, pipeline.assess_submission(db_path, sub, llm))
    assert again["confidence"] == d["confidence"] == 1.0
    assert conn.execute("SELECT COUNT(*) FROM llm_calls WHERE agent = 'evaluator' AND cache_hit = 1").fetchone()[0] == 3


def test_a_disagreeing_sample_stops_the_sampling_and_hands_over_to_the_judges(conn, db_path):
    c, sub = setup(conn)
    llm = good_llm(score_probs=None, judges=(B,))
    llm.script("evaluator", answer(2), answer(2, clarity=3))
    llm.script("judge:b", answer(2))
    d, _, _ = assess(conn, db_path, sub, llm)
    assert len(llm.calls_for("evaluator")) == 2          # the second sample could not help: not asked
    assert judged(d)["criteria"]["clarity"]["probs"] == {"2": 0.5, "3": 0.5}
    assert judged(d)["route"] == "consensus" and d["scores"]["clarity"] == 2


def test_a_flagged_submission_is_drafted_once_and_goes_to_a_teacher(conn, db_path):
    c, sub = setup(conn, text="I learned about temperature and bias this week. " * 5)   # under 100 words
    llm = good_llm(judges=(B, C), score_probs=None)
    llm.script("evaluator", lambda m, s: WithProbs(evaluation_for(s), unsure_probs(c["rubric"].keys)))
    d, row, cast = assess(conn, db_path, sub, llm)
    assert len(llm.calls_for("evaluator")) == 1 and not llm.calls_for("judge:b")
    assert judged(d)["route"] == "flagged" and d["status"] == "needs_attention" and row["priority"] == triage.NEEDS_ATTENTION
    assert {v["tier"] for v in cast} == {1}


def test_a_veto_sends_the_item_to_a_teacher_and_out_of_bulk_approval(conn, db_path):
    data = default_rubric().model_dump()
    data["criteria"][0]["veto_below"] = 2
    rubric = parse_rubric(data)
    c, sub = setup(conn, rubric=rubric)
    llm = good_llm()
    llm.script("evaluator", answer(3, concept_understanding=1))
    d, row, _ = assess(conn, db_path, sub, llm)
    assert d["status"] == "needs_attention" and row["priority"] == triage.NEEDS_ATTENTION
    assert judged(d)["vetoed"] == ["concept_understanding"]
    assert any(r.startswith("Veto: Concept understanding scored 1, below its veto level 2") for r in d["attention_reasons"])
    assert bulk.sample_state(conn, c["assignment_id"], actor=Actor("test", role="admin")).candidates == 0


def test_a_made_up_evidence_quote_sends_the_item_to_a_teacher_without_revising_the_comment(conn, db_path):
    c, sub = setup(conn)
    llm = good_llm()
    llm.script("evaluator", lambda m, s: evaluation_for(s, quote="the model told me I am a genius"))
    d, row, _ = assess(conn, db_path, sub, llm)
    evidence = next(ch for ch in d["checks"] if ch["name"] == "evidence")
    assert not evidence["passed"] and evidence["severity"] == "fail"
    assert d["status"] == "needs_attention" and any("evidence quotes are not in the submission" in r
                                                    for r in d["attention_reasons"])
    assert not llm.calls_for("reviser") and d["rounds"] == 0            # nothing a revision could fix
    assert "evidence" not in str(llm.calls_for("reviewer")[0].messages[1]["content"]).lower().split("<checks>")[1]
    assert bulk.sample_state(conn, c["assignment_id"], actor=Actor("test", role="admin")).candidates == 0
    # A real quote passes and leaves the item drafted.
    llm2 = good_llm()
    llm2.script("evaluator", lambda m, s: evaluation_for(s, quote="how bias enters the training data"))
    d2, _, _ = assess(conn, db_path, sub, llm2)
    assert d2["status"] == "drafted"


def test_a_free_judge_that_disagrees_makes_the_item_unsure(conn, db_path, monkeypatch):
    c, sub = setup(conn)
    monkeypatch.setattr(scoring, "FREE_JUDGES", [lambda job: Vote("learned-scorer", 0, {"clarity": 0})])
    d, row, cast = assess(conn, db_path, sub, good_llm())
    assert judged(d)["unsure"] == ["clarity"] and row["priority"] == triage.UNSURE
    assert ("learned-scorer", 0, 0.0) in {(v["judge"], v["tier"], v["score"]) for v in cast}


def test_the_offline_baseline_casts_no_votes(conn, db_path):
    _, sub = setup(conn)
    d, row, cast = assess(conn, db_path, sub, None)
    assert d["provider"] == "offline" and judged(d)["route"] == "offline" and cast == []
    assert conn.execute("SELECT COUNT(*) FROM llm_calls WHERE agent = 'evaluator'").fetchone()[0] == 1
