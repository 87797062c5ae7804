"""The judge cascade in the app (AppTest): the Settings tab for judges and thresholds, the Costs
page's tiers against blanket 3x voting, and the review item's Judges tab."""
from __future__ import annotations

import factories
from assess_script import RICH_TEXT, evaluation_for, good_llm
from core import pipeline
from core.llm import LoggedLLM
from core.settings import JudgeSpec
from db import llm_calls
from fake_llm import WithProbs

SETTINGS = "pages/settings.py"


def _texts(at) -> str:
    parts = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "text"):
        parts += [str(e.value) for e in getattr(at, kind)]
    return "\n".join(parts)


def test_the_judges_tab_saves_judges_and_thresholds_and_shows_their_endpoints(app_test, conn, monkeypatch):
    monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", "http://main.example/v1")
    monkeypatch.setenv("FAIRMARK_JUDGE_B_BASE_URL", "http://judge-b.example/v1")
    monkeypatch.setenv("FAIRMARK_JUDGE_B_API_KEY", "sk-judge-b-SECRET")
    llm_calls.save_judging_overrides(conn, {"judges": [{"name": "b", "model": "other-family", "weight": 1.5},
                                                       {"name": "c", "model": "gpt-4o-mini", "weight": 1}]})
    at = app_test(SETTINGS).run()
    assert not at.exception, at.exception
    frames = [d.value for d in at.dataframe]
    endpoints = next(f for f in frames if "Endpoint" in f.columns).set_index("Judge")
    assert endpoints.loc["b", "Endpoint"] == "http://judge-b.example/v1" and endpoints.loc["b", "Key"] == "set"
    assert endpoints.loc["c", "Endpoint"] == "the main endpoint" and endpoints.loc["c", "Key"] == "the main key"
    assert any("Judge c uses the Evaluator's own model" in w.value for w in at.warning)
    assert "sk-judge-b-SECRET" not in _texts(at)

    at.number_input(key="cascade_band_margin").set_value(0.5)
    at.button(key="FormSubmitter:cascade_form-Save thresholds").click().run()
    assert not at.exception, at.exception
    saved = llm_calls.get_judging_overrides(conn)
    assert saved["cascade_band_margin"] == 0.5 and [j["name"] for j in saved["judges"]] == ["b", "c"]
    assert any("Saved the thresholds" in s.value for s in at.success)

    at.button(key="judging_reset").click().run()
    assert llm_calls.get_judging_overrides(conn) == {}


def test_the_costs_page_shows_calls_and_dollars_per_tier_against_blanket_voting(app_test, conn, db_path):
    c = factories.course(conn)
    llm_calls.save_price(conn, "fake-evaluator", 1.0, 2.0)
    llm_calls.save_price(conn, "model-b", 2.0, 4.0)
    inner = good_llm(judges=(JudgeSpec(name="b", model="model-b"),))
    for i, probs in enumerate([None, "unsure"]):
        sub = factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]), f"{RICH_TEXT} {i}")
        if probs:
            inner.script("evaluator", lambda m, s: WithProbs(evaluation_for(s), {
                f"{k}.score": {"2": 0.6, "3": 0.4} for k in c["rubric"].keys}))
            inner.script("judge:b", lambda m, s: evaluation_for(s))
        pipeline.assess_one(db_path, sub, llm=LoggedLLM(inner, db_path))
    at = app_test("pages/costs.py")
    at.session_state["course_id"] = c["course_id"]
    at.session_state["assignment_id"] = c["assignment_id"]
    at.run()
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Judge calls per item"] == "1.50"                     # 3 scoring calls, 2 items
    assert metrics["Blanket 3× voting would have made"] == "6 calls"
    # 3 x 2 items x (a first call: 100 in, 20 out at $1/$2 = $0.00014; a judge's at $2/$4 = $0.00028)
    assert metrics["Blanket 3× voting would have cost"] == "$0.0014"
    tiers = next(d.value for d in at.dataframe if "Tier" in d.value.columns).set_index("Tier")
    assert tiers.loc[1, "Calls"] == 2 and tiers.loc[2, "Calls"] == 1


def test_the_review_item_shows_how_the_scores_were_judged(app_test, conn, db_path):
    c = factories.course(conn)
    sub = factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]), RICH_TEXT)
    llm = good_llm(judges=(JudgeSpec(name="b", model="model-b"), JudgeSpec(name="c", model="model-c")))
    llm.script("evaluator", lambda m, s: WithProbs(evaluation_for(s, score=1), {
        f"{k}.score": {"1": 0.5, "2": 0.5} for k in c["rubric"].keys}))
    llm.script("judge:b", lambda m, s: {**evaluation_for(s, score=1), "clarity": evaluation_for(s, score=2)["clarity"]})
    llm.script("judge:c", lambda m, s: {**evaluation_for(s, score=1), "clarity": evaluation_for(s, score=3)["clarity"]})
    pipeline.assess_one(db_path, sub, llm=llm)
    at = app_test("pages/review.py")
    at.query_params["item"] = str(sub)
    at.run()
    assert not at.exception, at.exception
    assert "Judges" in [t.label for t in at.tabs]
    texts = _texts(at).replace("\u2060", "").replace("\\", "")   # as a teacher reads it (no escapes)
    assert "could not agree on every criterion" in texts and "Unsure: Clarity" in texts
    assert texts.index("Concept understanding: 1: 50%") < texts.index("Clarity: 1: 50%")   # the rubric's order
    assert "Low confidence / judges disagree" in texts            # its queue group
    cast = next(d.value for d in at.dataframe if "judge" in d.value.columns)
    assert set(cast["judge"]) == {"fake-evaluator", "model-b", "model-c"}
