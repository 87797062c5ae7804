"""The synthetic demo course: its planted problems are found by the Stage 1 heuristics where they
can be (reading grade, missing objective, length) and by the demo's scripted judge otherwise
(invented fact, weak hook); the cost per lesson comes from the call log; judge-expert agreement
is a check of the plumbing (lessons, verdicts and judge were written together)."""
import pytest

from bench.lesson_judge import DemoJudge
from core.lessons import agreement, costs, demo, runs
from core.llm import LoggedLLM
from db import lessons as lessons_db
from core.accounts.access import Actor

PRICES = {"deepseek-chat": {"input_per_mtok": 0.27, "cached_input_per_mtok": 0.07, "output_per_mtok": 1.10},
          "gpt-4o-mini": {"input_per_mtok": 0.15, "cached_input_per_mtok": 0.075, "output_per_mtok": 0.60}}


def review_demo(conn, db_path, llm=None) -> int:
    cid = demo.load_demo(conn, actor=Actor("test", role="admin"))["course_id"]
    runs.execute(db_path, runs.create(conn, course_id=cid, provider="offline", actor=Actor("test", role="admin")), llm, actor=Actor("test", role="admin"))
    return cid


def by_title(conn, cid):
    out = {}
    for lesson in lessons_db.queue(conn, cid):
        out[lesson["title"]] = {**lesson, "record": lessons_db.review(conn, lesson["current_review_id"])["record"]}
    return out


def failed_checks(record):
    return {c["name"] for c in record["heuristics"] if not c["passed"] and c["severity"] != "info"}


def test_the_offline_heuristics_find_the_grade_drift_the_missing_objective_and_the_short_lesson(conn, db_path):
    cid = review_demo(conn, db_path)
    lessons = by_title(conn, cid)
    assert {"drift", "reading"} <= failed_checks(lessons["Measuring the weather"]["record"])
    assert failed_checks(lessons["Wind"]["record"]) == {"objectives"}
    assert "length" in failed_checks(lessons["Why we have seasons"]["record"])
    for clean in ("The water cycle", "Rain, snow and hail", "Weather and climate",
                  "Clouds and what they tell us", "Storms and staying safe"):   # the last two need a judge
        assert failed_checks(lessons[clean]["record"]) == set(), clean
    found = agreement.lesson_agreement(conn, cid, actor=Actor("test", role="admin"))
    assert {(p["problem"], p["found_by"]) for p in found["planted"]} == {
        ("a reading grade that drifts upward", "stage 1"), ("a missing objective", "stage 1"),
        ("too short", "stage 1"), ("an invented fact", None), ("a weak hook", None), ("a missing objective", None)}
    assert found["raters"]["expert"]["offline"] == 8


def test_the_scripted_judge_finds_the_invented_fact_and_the_weak_hook_and_fixes_them(conn, db_path):
    judge = DemoJudge()
    cid = review_demo(conn, db_path, LoggedLLM(judge, db_path, prices=PRICES))
    lessons = by_title(conn, cid)
    clouds = lessons["Clouds and what they tell us"]
    assert clouds["record"]["first"]["scores"]["factual_integrity"] < 0.6 and "factual_integrity" in \
        clouds["record"]["first"]["vetoed"]
    assert clouds["record"]["first"]["tier"] == 2          # CLEV: the second judge agreed
    fix = lessons_db.fixes(conn, clouds["current_review_id"])[0]
    assert fix["section"] == "How clouds form" and "Pierre Nuage" in fix["before"] and "Pierre Nuage" not in fix["after"]
    storms = lessons["Storms and staying safe"]
    assert storms["record"]["first"]["scores"]["engagement_tone"] < 0.6
    assert lessons_db.fixes(conn, storms["current_review_id"])[0]["section"] == "Storms and staying safe"
    # Stage 1 settled two lessons without a call; the judge never saw them
    assert {t for _, t in judge.calls} == set(lessons) - {"Measuring the weather", "Why we have seasons"}
    view = agreement.lesson_agreement(conn, cid, actor=Actor("test", role="admin"))
    assert view["found"] == 5 and view["n_planted"] == 6                # the deliberate miss stays missed
    expert = view["raters"]["expert"]
    assert expert["n"] == 8 and expert["agreement"] == pytest.approx(7 / 8) and expert["offline"] == 0
    # Honest numbers (review finding 15): 7 of 8 is an interval over lessons, not a point.
    lo, hi = expert["ci"]
    assert expert["lessons"] == 8 and lo < 7 / 8 <= hi <= 1 and lo <= 0.75 and expert["ci_note"] is None
    assert [r["lesson"] for r in view["rows"] if not r["agree"]] == ["Weather and climate"]


def test_the_cost_per_lesson_comes_from_the_call_log(conn, db_path):
    cid = review_demo(conn, db_path, LoggedLLM(DemoJudge(), db_path, prices=PRICES))
    spent = costs.course_costs(conn, cid, actor=Actor("test", role="admin"))
    rows = {r["title"]: r for r in spent["rows"]}
    assert rows["Why we have seasons"]["calls"] == 0 and rows["Clouds and what they tell us"]["calls"] >= 4
    logged = next(conn.query("SELECT COUNT(*) AS n, SUM(cost_usd) AS usd FROM llm_calls WHERE lesson_id IS NOT NULL"))
    assert spent["calls"] == logged["n"] and spent["cost_usd"] == pytest.approx(logged["usd"], abs=1e-6)
    assert spent["per_lesson_usd"] == pytest.approx(logged["usd"] / 8, abs=1e-6)
    assert 0 < spent["per_lesson_usd"] < 0.01
    again = runs.create(conn, course_id=cid, provider="offline", redo=True, actor=Actor("test", role="admin"))
    runs.execute(db_path, again, LoggedLLM(DemoJudge(), db_path, prices=PRICES), actor=Actor("test", role="admin"))
    assert runs.progress(conn, again, actor=Actor("test", role="admin"))["cost_usd"] == 0 and runs.progress(conn, again, actor=Actor("test", role="admin"))["cache_hits"] > 0
