"""The benchmarks in bench/ run on tiny sizes and print what docs/benchmarks.md quotes (no timing
assertions: this machine is shared; the figures themselves come from `python -m bench.*`)."""
import json

import pytest

from bench import cascade, pages, pipeline, synth, tokens


def last_json(capsys) -> dict:
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_pipeline_benchmark_runs_the_real_pipeline_and_reruns_from_the_cache(capsys):
    out = pipeline.main(["--n", "8", "--latency", "0.01", "--concurrency", "4", "--naive-n", "3", "--rerun"])
    assert last_json(capsys) == out
    for key in ("n", "concurrency", "latency", "wall_s", "bound_s", "ratio_to_bound", "naive_s",
                "speedup_vs_naive", "naive_n"):
        assert key in out
    assert (out["n"], out["concurrency"], out["latency"], out["naive_n"]) == (8, 4, 0.01, 3)
    assert out["bound_s"] == pytest.approx(2 * 5 * 0.01)     # 5 stages on the critical path (judges last)
    assert out["wall_s"] >= out["bound_s"] and out["ratio_to_bound"] > 0 and out["speedup_vs_naive"] > 0
    assert out["naive_extrapolated"] is True and out["naive_s"] > out["naive_measured_s"]
    # The bound holds only without revision rounds: 7 calls per item (the seed's five and issue 16's
    # two judges of the feedback), every item drafted.
    assert (out["calls_per_item"], out["revise_rounds"], out["drafted"], out["first_run_cache_hits"]) == (7.0, 0, 8, 0)
    assert out["rerun_calls"] == 56 and out["rerun_cache_share"] == 1.0 and out["rerun_wall_ratio"] > 0


def test_tokens_benchmark_counts_every_agent_and_prices_it(capsys):
    out = tokens.main(["--limit", "3"])
    assert last_json(capsys) == out
    assert out["reflections"] == 3
    for scenario in ("offline", "at_limits"):
        agents = out[scenario]["per_agent"]
        assert set(tokens._seed_roles()) <= set(agents)
        for role in tokens._seed_roles():
            assert agents[role]["prompt_tokens"] > agents[role]["schema_tokens"] > 0    # the schema is billed
            assert agents[role]["completion_tokens"] > 0
        total = out[scenario]["per_reflection"]
        assert total["cost_usd"] == pytest.approx(
            ((total["prompt_tokens"] - total["cached_tokens"]) * 0.15 + total["cached_tokens"] * 0.075
             + total["completion_tokens"] * 0.60) / 1e6, rel=1e-3)
        assert total["cost_uncached_usd"] == pytest.approx(
            (total["prompt_tokens"] * 0.15 + total["completion_tokens"] * 0.60) / 1e6, rel=1e-3)
        assert 2.5 < out[scenario]["chars_per_token"] < 6.5
    plain = out["at_limits"]["per_agent"]
    # The Evaluator's schema, rubric and instructions are the same for every submission and come
    # first: the second and third calls read them from the cache (the first never does).
    ev = plain["evaluator"]
    assert ev["shared_prefix_tokens"] >= 1024 and 0 < ev["cached_tokens"] <= ev["prompt_tokens"] * 2 / 3
    # At the prompts' limits every comment passes the checks: no reviser call.
    assert "reviser" not in plain
    assert plain["reviewer"]["calls_per_reflection"] == 1.0
    # The grounding and pedagogy judges share gpt-4o-mini: one call answers for both.
    assert plain["comment_judges"]["calls_per_reflection"] == 1.0 and not {"grounding", "pedagogy"} & set(plain)
    assert out["cost_per_reflection_usd"] == out["at_limits"]["per_reflection"]["cost_usd"]
    # A calibrated assignment's examples lengthen only the Evaluator's prompt (and the judges').
    assert out["calibration"]["blind_scored"] == 4 * tokens.CALIBRATION_SET
    assert out["calibration"]["examples_per_prompt"] > 0
    calibrated = out["calibrated"]["per_agent"]
    assert calibrated["evaluator"]["prompt_tokens"] > plain["evaluator"]["prompt_tokens"] + 100
    assert calibrated["coach"]["prompt_tokens"] == plain["coach"]["prompt_tokens"]
    # The cascade runs for real: the judges answer the Evaluator's prompt on the unsure item (1 of 3),
    # and the third judge is asked there because the first judge split.
    for name in ("at_limits", "calibrated", "later"):
        assert out["cascade"][name]["judge_calls_per_reflection"] == pytest.approx(2 / 3, abs=1e-3)
    assert plain["judge:b"]["calls_per_reflection"] == plain["judge:c"]["calls_per_reflection"] == pytest.approx(1 / 3, abs=1e-3)
    # The comment bank: a full bank gives the Aggregator its 3 examples for the levels scored (the
    # real slot, after the shared part); no other role reads it.
    later = out["later"]["per_agent"]
    assert later["aggregator"]["prompt_tokens"] > calibrated["aggregator"]["prompt_tokens"] + 2 * tokens.BANK_WORDS
    assert later["coach"]["prompt_tokens"] == calibrated["coach"]["prompt_tokens"]
    assert later["evaluator"]["prompt_tokens"] == calibrated["evaluator"]["prompt_tokens"]
    t = out["totals_usd"]
    assert t["five_agents"] < t["five_agents_and_judges"] < t["with_cascade"] < t["calibrated_with_cascade"] \
        < t["later_with_cascade"]
    assert all(out["totals_without_prompt_cache_usd"][k] >= v for k, v in t.items())
    assert out["goal_met"] == {k: v <= 0.0010 for k, v in t.items()}


@pytest.mark.slow   # over 15 s on a busy machine (docs/testing.md)
def test_pages_benchmark_times_every_page_for_both_layouts(capsys, tmp_path):
    out = pages.main(["--sizes", "20,60", "--repeat", "1", "--out-dir", str(tmp_path), "--roles", "admin"])
    assert last_json(capsys) == out
    for layout in ("courses", "worst"):
        part = out[layout]
        assert part["problems"] == []
        names = set(part["timings_s"])
        assert {"review_queue_cold", "review_item_cold", "agreement_assignment_cold", "agreement_all_warm",
                "fairness_assignment_cold", "fairness_all_cold", *pages.APPTESTS} <= names
        for row in part["timings_s"].values():
            assert row["20"] > 0 and row["60"] > 0 and row["ratio"] > 0
    assert out["worst"]["selected_assignment_submissions"] == {"20": 5, "60": 15}
    assert out["courses"]["selected_assignment_submissions"] == {"20": 20, "60": 28}
    # The built databases are cached by size and layout.
    assert len(list(tmp_path.glob("pages-*-20-v*.db"))) == 2


def test_pages_benchmark_times_every_page_and_scope_signed_in_as_each_role(capsys, tmp_path):
    out = pages.main(["--sizes", "20,700", "--repeat", "1", "--out-dir", str(tmp_path), "--layouts", "courses",
                      "--roles", "coordinator,teacher"])
    assert last_json(capsys) == out
    part = out["courses"]
    assert part["problems"] == [] and part["courses"] == {"20": 1, "700": 3}
    names = set(part["timings_s"])
    for role in ("coordinator", "teacher"):
        assert {f"{role}:{n}" for n in pages.APPTESTS} <= names
        assert {f"{role}:{page}_{scope}_figures_cold" for page in ("agreement", "fairness")
                for scope in ("assignment", "course", "all")} <= names
    assert "coordinator:grant_change_first_view" in names and not any(":" not in n for n in names)
    # The summary has every page and scope for each role, cold (and warm for the views).
    assert set(part["by_role"]["apptest_fairness_all"]) == {"coordinator", "teacher"}
    assert set(part["by_role"]["agreement_all_figures"]["teacher"]) == {"cold", "warm"}
    assert part["by_role"]["agreement_all_figures"]["coordinator"]["cold"] == \
        part["timings_s"]["coordinator:agreement_all_figures_cold"]["ratio"]
    # The coordinator is granted five courses in six (the selected one among them); the teacher
    # the selected course.
    import db

    conn = db.connect(str(tmp_path / f"pages-courses-700-v{synth.VERSION}.db"))
    try:
        sel = pages.selection(conn)
        granted = pages.granted_courses(conn, sel, "coordinator")
        assert len(granted) == 2 and sel["course_id"] in granted
        assert pages.granted_courses(conn, sel, "teacher") == [sel["course_id"]]
        assert pages.granted_courses(conn, sel, "admin") is None
    finally:
        conn.close()
        db.forget_migrated(str(tmp_path / f"pages-courses-700-v{synth.VERSION}.db"))


def test_synthetic_layouts_grow_by_courses_or_by_assignment_size():
    assert synth.plan(700, "courses") == [{"students": 28, "assignments": [28] * 12},
                                         {"students": 28, "assignments": [28] * 12},
                                         {"students": 28, "assignments": [28]}]
    assert synth.plan(10, "worst") == [{"students": 3, "assignments": [3, 3, 2, 2]}]


def test_cascade_benchmark_goes_through_the_score_stage_and_saves_calls(capsys):
    out = cascade.main(["--n", "300", "--ambiguous", "0.2", "--seed", "3"])
    assert last_json(capsys) == out
    assert list(out)[:6] == ["calls_per_item", "calls_blanket_3x", "saving", "accuracy_single", "accuracy_cascade",
                             "accuracy_blanket_3x"]
    assert out["saving"] == pytest.approx(1 - out["calls_per_item"] / 3, abs=1e-3)
    assert 1 < out["calls_per_item"] < 3 and 0 < out["share_third_judge"] < out["share_tier2"] < 1
    assert out["accuracy_cascade"] >= out["accuracy_single"]
    # "The same accuracy" is an interval (paired, over items); the saving is bounded by arithmetic.
    gap, lo, hi = out["accuracy_gap_to_blanket_3x"]
    assert gap == pytest.approx(out["accuracy_cascade"] - out["accuracy_blanket_3x"], abs=1e-3) and lo <= gap <= hi
    assert out["same_accuracy_as_blanket_3x"] == (lo <= 0 <= hi)
    assert out["saving_bound"] == pytest.approx(1 - (1 + out["share_tier2"]) / 3, abs=1e-3)
    assert out["saving"] <= out["saving_bound"] + 1e-9 and out["saving_bound"] < out["saving_ceiling"] == 0.6667
    # With every item clear and every first judge sure, one call per item and the single judge's answers.
    sure = cascade.main(["--n", "50", "--ambiguous", "0", "--seed", "3"])
    assert sure["calls_per_item"] < 1.2 and sure["accuracy_cascade"] >= sure["accuracy_single"]


def test_bulk_query_benchmark_times_the_candidates_on_a_small_database(tmp_path, capsys):
    from bench import bulk_query

    out = bulk_query.main(["--n", "40", "--db", str(tmp_path / "b.db"), "--runs", "2"])
    assert last_json(capsys) == out and out["submissions"] == 10 and out["runs"] == 2
    assert "low" not in out["candidates"] and out["median_ms"] >= 0


def test_review_page_benchmark_times_reruns_with_an_item_open(capsys, monkeypatch):
    from bench import review_page

    for name in ("FAIRMARK_DB", "FAIRMARK_SECRETS"):     # the bench points them at its own folder
        monkeypatch.setenv(name, "restored after the test")
    out = review_page.main(["--submissions", "20", "--reruns", "2"])
    assert last_json(capsys) == out and out["reruns"] == 2
    for view in ("item", "queue"):
        assert 0 < out[view]["median_ms"] and out[view]["cpu_median_ms"] >= 0
        assert out[view]["checks_per_rerun"] == 1        # the page's one read, checked once
