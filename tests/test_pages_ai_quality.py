"""The AI quality page: the configuration in use and its gate, eval runs with their cases, saved
cases for download, and starting a blind comparison of a variant."""
import json

import factories as f
from assess_script import RICH_TEXT
from core import prompts
from core.__main__ import main
from core.evals import config as ai_config
from core.access import Actor
from db import comparisons as cmp_db


def test_eval_runs_and_their_cases_show(conn, app_test, capsys):
    assert main(["evals", "run", "--provider", "offline"]) == 0
    capsys.readouterr()
    at = app_test("pages/ai_quality.py").run()
    assert not at.exception
    assert any("offline baseline — not an AI configuration" in i.value.replace("\\", "") for i in at.info)
    cases = next(d.value for d in at.dataframe if "dimension" in d.value.columns and "case" in d.value.columns)
    assert len(cases) >= 24 and set(cases["status"]) >= {"passed", "not_run"}


def test_a_comparison_is_started_from_a_variant(conn, app_test, tmp_path, monkeypatch):
    root = tmp_path / "variants"
    (root / "plainer").mkdir(parents=True)
    (root / "plainer" / "variant.json").write_text(json.dumps({"description": "colder", "temperature": 0.1}))
    (root / "plainer" / "coach.md").write_text((prompts.PROMPT_DIR / "coach.md").read_text() + "\nBe brief.")
    monkeypatch.setattr(ai_config, "VARIANTS_DIR", root)
    c = f.course(conn)
    for i in range(3):
        f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT + str(i))
    at = app_test("pages/ai_quality.py").run()
    assert not at.exception
    next(n for n in at.number_input if n.label.startswith("Pairs")).set_value(3)
    next(b for b in at.button if b.label == "Draft the pairs").click().run()
    assert not at.exception
    comps = cmp_db.list_for_course(conn, c["course_id"])
    assert len(comps) == 1 and comps[0]["variant_b"] == "plainer" and comps[0]["sample_size"] == 3


def test_an_interrupted_comparison_is_resumed_from_the_page(conn, app_test, tmp_path, monkeypatch, db_path):
    from core import run_engine

    root = tmp_path / "variants"
    (root / "plainer").mkdir(parents=True)
    (root / "plainer" / "coach.md").write_text((prompts.PROMPT_DIR / "coach.md").read_text() + "\nBe brief.")
    monkeypatch.setattr(ai_config, "VARIANTS_DIR", root)
    c = f.course(conn)
    for i in range(2):
        f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT + str(i))
    from core.evals import pairwise

    cid = pairwise.create(conn, course_id=c["course_id"], variant_b="plainer", sample_size=2, provider="offline",
                          actor=Actor("C", role="admin"))
    run_id = cmp_db.get(conn, cid)["run_id"]
    conn.execute("UPDATE runs SET status = 'failed', error = 'stopped: the server went away' WHERE id = ?", [run_id])
    at = app_test("pages/ai_quality.py").run()
    assert not at.exception and any("the server went away" in e.value for e in at.error)
    next(b for b in at.button if b.label == "Resume drafting").click().run()
    assert not at.exception
    assert run_engine.wait_for(db_path, run_id, timeout=60)
    assert cmp_db.get(conn, cid)["status"] == "ready"
