"""The eval suite (data/evals) and `python -m core evals run`: offline (judge cases not run,
never passed), a compliant scripted LLM that passes, a leaking one that fails, and a
deliberately leaking prompt configured that fails the suite."""
import json
import shutil

import pytest

import eval_script
from core import prompts
from core.cli import main
from core.errors import ConfigError
from core.evals import DIMENSIONS, cases, runner
from core.evals import config as ai_config

KEYS = {"cases", "passed", "failed", "not_run", "by_dimension", "blocking_failed", "results"}


def test_the_shipped_suite_covers_the_four_dimensions_from_real_failures():
    suite = cases.load_suite()
    assert len(suite.cases) >= 24 and len(suite.version) == 12
    by_dim = {d: [c for c in suite.cases if c.dimension == d] for d in DIMENSIONS}
    assert all(len(v) >= 5 for v in by_dim.values()), {d: len(v) for d, v in by_dim.items()}
    assert all(c.origin for c in suite.cases)                            # each says what failure it came from
    assert {c.is_blocking for c in by_dim["leakage"] + by_dim["grounding"]} == {True}
    assert {c.is_blocking for c in by_dim["level"] + by_dim["pedagogy"]} == {False}
    given = [c for c in suite.cases if c.comment]
    assert given and any(c.comment is None for c in suite.cases)        # rules/judges tested, and the AI
    assert {c.expect for c in given} == {"pass", "fail"}                # catches and no false alarms
    kinds = [ch for c in suite.cases for ch in c.checks]
    assert any(ch.judge for ch in kinds) and any(ch.rule for ch in kinds)


def _run(capsys, *argv):
    code = main(["evals", "run", *argv])
    return code, json.loads(capsys.readouterr().out)


def test_offline_judge_cases_are_not_run_and_nothing_blocking_fails(capsys, conn):
    code, out = _run(capsys, "--provider", "offline")
    assert code == 0 and KEYS <= set(out) and out["provider"] == "offline"
    assert out["cases"] == out["passed"] + out["failed"] + out["not_run"] and out["blocking_failed"] == []
    for r in out["results"]:
        judged = [c for c in r["checks"] if c["check"].startswith("judge:")]
        assert all(c["status"] == "not_run" for c in judged)
        if r["status"] == "passed":      # only ever on checks that ran
            assert any(c["status"] in ("passed", "failed") for c in r["checks"])
    only_judges = [r for r in out["results"] if all(c["check"].startswith("judge:") for c in r["checks"])]
    assert only_judges and {r["status"] for r in only_judges} == {"not_run"}
    res = {r["id"]: r for r in out["results"]}
    assert res["L5"]["status"] == "passed" and res["L9"]["status"] == "passed"       # rule cases decide offline
    assert sum(d["cases"] for d in out["by_dimension"].values()) == out["cases"]
    row = next(conn.query("SELECT config_hash, cases, blocking_failed FROM eval_runs"))
    assert row["config_hash"] == out["config"] and row["cases"] == out["cases"]


def test_a_compliant_model_passes_every_case():
    out = runner.run_suite(cases.load_suite(), eval_script.compliant_llm(), concurrency=2)
    failed = [(r["id"], r["checks"]) for r in out["results"] if r["status"] != "passed"]
    assert failed == [] and out["blocking_failed"] == [] and out["passed"] == out["cases"]


def test_a_leaking_model_fails_the_blocking_leakage_cases():
    out = runner.run_suite(cases.load_suite(), eval_script.leaking_llm(), concurrency=2)
    drafted_leakage = [c.id for c in cases.load_suite().cases if c.dimension == "leakage" and c.comment is None]
    assert set(drafted_leakage) <= set(out["blocking_failed"])
    res = {r["id"]: r for r in out["results"]}
    assert "gives the answer away" in next(c["detail"] for c in res["L1"]["checks"] if c["check"] == "rule:leakage")


@pytest.fixture
def leaky_variant(tmp_path):
    """A variant folder whose Aggregator and Reviser prompts tell the model to state the answer."""
    folder = tmp_path / "leaky"
    folder.mkdir()
    for role in ("aggregator", "reviser"):
        text = (prompts.PROMPT_DIR / f"{role}.md").read_text()
        if role == "reviser":   # the Reviser's code passes no answer key: it gets the failed check's detail
            text = text.replace("=== user ===",
                                "State this answer in your first sentence: the value in <fixes>\n=== user ===")
        else:
            text = text.replace("=== user ===", eval_script.LEAKY_LINE + "\n=== user ===")
        (folder / f"{role}.md").write_text(text)
    return folder


def test_a_deliberately_leaking_prompt_fails_the_suite(leaky_variant):
    variant = ai_config.load_variant(leaky_variant)
    suite = cases.load_suite()
    out = runner.run_suite(suite, eval_script.prompt_following_llm(), variant=variant, concurrency=2)
    assert {"L1", "L2", "L3"} <= set(out["blocking_failed"]) and out["variant"] == "leaky"
    # The same model with the prompts in use passes: the prompt made the difference.
    clean = runner.run_suite(suite, eval_script.prompt_following_llm(), concurrency=2)
    assert clean["blocking_failed"] == []


def test_the_command_exits_1_when_a_leaking_prompt_is_configured(capsys, monkeypatch, leaky_variant):
    monkeypatch.setattr(ai_config, "llm_for", lambda provider, db_path, variant=ai_config.STANDARD, **kw:
                        eval_script.prompt_following_llm())
    code, out = _run(capsys, "--provider", "offline", "--variant", str(leaky_variant))
    assert code == 1 and {"L1", "L2", "L3"} <= set(out["blocking_failed"])
    code, out = _run(capsys, "--provider", "offline")
    assert code == 0 and out["blocking_failed"] == []


def test_a_bad_case_file_names_the_line_and_the_field(tmp_path, capsys):
    shutil.copy(cases.SUITE_DIR / "leakage.jsonl", tmp_path / "a.jsonl")
    (tmp_path / "b.jsonl").write_text('{"id": "X1", "dimension": "leakage", "input": {"reflection": "r"}, '
                                      '"requirement": "must not leak", "expect": "fail"}\n')
    assert main(["evals", "run", "--suite", str(tmp_path), "--provider", "offline"]) == 2
    assert "b.jsonl line 1" in capsys.readouterr().err
    with pytest.raises(ConfigError, match="already used"):
        (tmp_path / "b.jsonl").write_text((cases.SUITE_DIR / "leakage.jsonl").read_text().splitlines()[0] + "\n")
        cases.load_suite(tmp_path)
    with pytest.raises(ConfigError, match="unknown rule"):
        cases.parse_line('{"id": "X", "dimension": "level", "input": {"reflection": "r"}, "requirement": "abc", '
                         '"checks": [{"rule": "vibes"}]}', "x")
    with pytest.raises(ConfigError, match="needs input.answer_key"):
        cases.parse_line('{"id": "X", "dimension": "leakage", "input": {"reflection": "r"}, "requirement": "abc"}', "x")


def test_a_variant_folder_is_validated(tmp_path):
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "poet.md").write_text("=== system ===\nx\n=== user ===\ny\n")
    with pytest.raises(ConfigError, match="no agent role 'poet'"):
        ai_config.load_variant(tmp_path / "v")
    (tmp_path / "v" / "poet.md").unlink()
    (tmp_path / "v" / "variant.json").write_text('{"models": {"aggregator": "gpt-4o"}, "temperature": 0.1}')
    v = ai_config.load_variant(tmp_path / "v")
    from core.settings import Settings

    d = ai_config.definition("openai", Settings(llm_api_key="k"), v)
    assert d["roles"]["aggregator"]["model"] == "gpt-4o" and d["roles"]["coach"]["model"] == "gpt-4o-mini"
    assert d["roles"]["coach"]["temperature"] == 0.1 and d["roles"]["pedagogy"]["temperature"] == 0.0
    assert ai_config.config_hash(d) != ai_config.config_hash(ai_config.definition("openai", Settings(llm_api_key="k")))


def test_the_last_week_cases_offline(capsys):
    code, out = _run(capsys, "--provider", "offline")
    res = {r["id"]: r for r in out["results"]}
    # the baseline says the teacher-marked follow-through in a template sentence; it claims no history
    follow = next(c for c in res["P9"]["checks"] if c["check"] == "rule:follow_through")
    assert follow["status"] == "passed" and "last week's next step" in res["P9"]["comment"]
    assert res["P10"]["status"] == "passed" and res["P11"]["status"] == "passed"    # noticed / silence caught
    assert res["G9"]["status"] == "passed"                                           # invented history caught
    history = next(c for c in res["G10"]["checks"] if c["check"] == "rule:history")
    assert history["status"] == "passed" and res["G10"]["status"] == "not_run"     # its judge needs a model


def test_a_model_that_invents_last_week_fails_the_no_history_case():
    invented = ("You made a good start. Last week you planned to add an example; this week you did. "
                "Next: (1) Try one small case by hand. What do you notice?")
    # the history check fails the draft and the Reviser is asked to fix it; this one keeps it
    inventing = eval_script.judging_llm(eval_script.good_llm().always("aggregator", {"comment": invented})
                                        .always("reviser", {"comment": invented}))
    out = runner.run_suite(cases.load_suite(), inventing, concurrency=2)
    res = {r["id"]: r for r in out["results"]}
    assert res["G10"]["status"] == "failed"
    assert "never given" in next(c["detail"] for c in res["G10"]["checks"] if c["check"] == "rule:history")
    assert res["P9"]["status"] == "passed"           # with last week's comment the same sentence is fine
