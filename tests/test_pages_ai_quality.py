"""The AI quality page: the configuration in use and its gate, eval runs with their cases, saved
cases for download, and starting a blind comparison of a variant."""
import json

import factories as f
from assess_script import RICH_TEXT
from core import prompts
from core.cli import main
from core.evals import config as ai_config
from core.accounts.access import Actor
from db import comparisons as cmp_db
from fake_openai_server import FakeOpenAI
from core.runs import engine as run_engine
from waits import WAIT_S


def test_eval_runs_and_their_cases_show(conn, app_test, capsys):
    assert main(["evals", "run", "--provider", "offline"]) == 0
    capsys.readouterr()
    at = app_test("pages/ai_quality.py").run()
    assert not at.exception
    assert any("offline baseline — not an AI configuration" in i.value.replace("\\", "") for i in at.info)
    cases = next(d.value for d in at.dataframe if "dimension" in d.value.columns and "case" in d.value.columns)
    assert len(cases) >= 24 and set(cases["status"]) >= {"passed", "not run"}   # the statuses' labels, not codes


def test_a_comparison_is_started_from_a_variant(conn, app_test, tmp_path, monkeypatch, db_path):
    root = tmp_path / "variants"
    (root / "plainer").mkdir(parents=True)
    (root / "plainer" / "variant.json").write_text(json.dumps({"description": "colder", "temperature": 0.1}))
    (root / "plainer" / "coach.md").write_text((prompts.PROMPT_DIR / "coach.md").read_text() + "\nBe brief.")
    monkeypatch.setattr(ai_config, "VARIANTS_DIR", root)
    c = f.course(conn)
    for i in range(3):
        f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT + str(i))
    with FakeOpenAI() as server:   # a language model: the offline baseline has nothing to compare
        monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", server.base_url)
        at = app_test("pages/ai_quality.py").run()
        assert not at.exception
        next(n for n in at.number_input if n.label.startswith("Pairs")).set_value(3)
        next(b for b in at.button if b.label == "Draft the pairs").click().run()
        assert not at.exception
        comps = cmp_db.list_for_course(conn, c["course_id"])
        assert len(comps) == 1 and comps[0]["variant_b"] == "plainer" and comps[0]["sample_size"] == 3
        assert run_engine.wait_for(str(db_path), comps[0]["run_id"], timeout=WAIT_S)


def _variant(tmp_path, monkeypatch):
    root = tmp_path / "variants"
    (root / "plainer").mkdir(parents=True)
    (root / "plainer" / "coach.md").write_text((prompts.PROMPT_DIR / "coach.md").read_text() + "\nBe brief.")
    monkeypatch.setattr(ai_config, "VARIANTS_DIR", root)


def test_an_offline_comparison_is_refused_up_front_saying_why(conn, app_test, tmp_path, monkeypatch):
    _variant(tmp_path, monkeypatch)
    c = f.course(conn)
    for i in range(3):
        f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT + str(i))
    at = app_test("pages/ai_quality.py").run()   # no language model configured
    assert not at.exception
    assert any("Nothing to compare: the offline baseline" in i.value and "Set up a language model" in i.value
               for i in at.info)
    assert next(b for b in at.button if b.label == "Draft the pairs").disabled
    assert cmp_db.list_for_course(conn, c["course_id"]) == []


def _pairs(conn, cid, comments):
    """Draft a comparison's first pairs by hand: (comment A, comment B) each."""
    for pair, (a, b) in zip(cmp_db.pairs(conn, cid), comments):
        cmp_db.save_drafts(conn, pair["id"], draft_a={"comment": a}, draft_b={"comment": b}, judge_a=None,
                           judge_b=None, judge_choice=None)


def test_drafting_a_comparison_shows_its_progress_and_the_skipped_pairs(conn, app_test, tmp_path, monkeypatch):
    from core.evals import pairwise

    _variant(tmp_path, monkeypatch)
    c = f.course(conn)
    for i in range(4):
        f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT + str(i))
    cid = pairwise.create(conn, course_id=c["course_id"], variant_b="plainer", sample_size=4, provider="openai",
                          actor=Actor("C", role="admin"))
    _pairs(conn, cid, [("Well done.", "Try again."), ("Same words.", "Same words. ")])
    at = app_test("pages/ai_quality.py").run()
    assert not at.exception
    bars = [p.proto.text for p in at.get("progress")]
    assert bars == [f"Comparison {cid}: drafting, 2 of 4 pairs done"]
    assert any(cap.value.startswith("1 pair was skipped: both configurations wrote the same comment")
               for cap in at.caption)


def test_the_compare_page_says_how_many_pairs_were_skipped(conn, app_test, tmp_path, monkeypatch):
    from core.evals import pairwise

    _variant(tmp_path, monkeypatch)
    c = f.course(conn)
    for i in range(3):
        f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT + str(i))
    cid = pairwise.create(conn, course_id=c["course_id"], variant_b="plainer", sample_size=3, provider="openai",
                          actor=Actor("C", role="admin"))
    _pairs(conn, cid, [("A wrote this.", "B wrote that."), ("Same.", "Same."), ("Same again.", "Same again.")])
    conn.execute("UPDATE runs SET status = 'done' WHERE id = ?", [cmp_db.get(conn, cid)["run_id"]])
    at = app_test("pages/compare.py").run()
    assert not at.exception
    assert at.get("progress")[0].proto.text == "0 of 1 pairs judged"
    assert any(cap.value.startswith("2 pairs were skipped: both configurations wrote the same comment")
               for cap in at.caption)
    shown = [t.value for t in at.text]
    assert "Same." not in shown and "Same again." not in shown and "B wrote that." in shown


def test_an_interrupted_comparison_is_resumed_from_the_page(conn, app_test, tmp_path, monkeypatch, db_path):
    from core.runs import engine as run_engine

    root = tmp_path / "variants"
    (root / "plainer").mkdir(parents=True)
    (root / "plainer" / "coach.md").write_text((prompts.PROMPT_DIR / "coach.md").read_text() + "\nBe brief.")
    monkeypatch.setattr(ai_config, "VARIANTS_DIR", root)
    c = f.course(conn)
    for i in range(2):
        f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT + str(i))
    cid = f.offline_comparison(conn, c, [r[0] for r in conn.execute("SELECT id FROM submissions")], "plainer")
    run_id = cmp_db.get(conn, cid)["run_id"]
    conn.execute("UPDATE runs SET status = 'failed', error = 'stopped: the server went away' WHERE id = ?", [run_id])
    at = app_test("pages/ai_quality.py").run()
    assert not at.exception and any("the server went away" in e.value for e in at.error)
    next(b for b in at.button if b.label == "Resume drafting").click().run()
    assert not at.exception
    assert run_engine.wait_for(db_path, run_id, timeout=WAIT_S)
    assert cmp_db.get(conn, cid)["status"] == "ready"
