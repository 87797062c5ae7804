"""bench/lessons.py runs both lesson runs on the demo and prints what docs/benchmarks.md quotes."""
import json

from bench import lessons


def test_the_lesson_benchmark_reports_stage1_the_scripted_judge_and_costs(capsys):
    out = lessons.main([])
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == out
    assert out["offline"]["calls"] == 0 and out["offline"]["planted_found"] == 3
    judged = out["scripted_judge"]
    assert judged["planted_found"] == 5 and judged["agreement"] == 0.875 and judged["calls"] > 0
    assert 0 < judged["cost_per_lesson_usd"] < out["seed_per_lesson_usd"] * 5
    assert out["rerun_cost_usd"] == 0 and out["rerun_cache_hits"] == judged["calls"]
