"""AI configurations and the gate in front of a run: an unevaluated or failed configuration runs
only on an admin's explicit, audited override; Settings, Assess and every draft show the state."""
import pytest

import factories as f
from assess_script import RICH_TEXT
from core.runs import reflections as runs
from core.errors import GateError
from core.evals import config as ai_config
from core.evals import gate
from shown import plain
from core.llm import LoggedLLM, OpenAICompatibleLLM
from core.settings import Settings, load_settings
from db import evals as evals_db
from core.accounts.access import Actor


@pytest.fixture
def course_with_llm(conn, monkeypatch):
    monkeypatch.setenv("FAIRMARK_LLM_API_KEY", "sk-test")
    c = f.course(conn)
    f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT)
    return c


def _report(blocking_failed=(), not_run_blocking=0, cases=3):
    results = [{"id": f"C{i}", "blocking": True, "status": "not_run" if i < not_run_blocking else "passed"}
               for i in range(cases)]
    return {"cases": cases, "passed": cases, "failed": len(blocking_failed), "not_run": not_run_blocking,
            "blocking_failed": list(blocking_failed), "results": results, "provider": "openai",
            "suite_version": "abc123def456"}


def _in_use(provider="openai"):
    defn = ai_config.current(provider)
    return defn, ai_config.config_hash(defn)


def test_an_unevaluated_configuration_does_not_run_and_the_message_says_what_to_do(conn, course_with_llm):
    with pytest.raises(GateError, match=r"has not been evaluated.*python -m core evals run.*override"):
        runs.create(conn, course_id=course_with_llm["course_id"], provider="openai", actor=Actor("Ms T", role="admin"))
    defn, h = _in_use()
    row = evals_db.get_config(conn, h)
    assert row["first_used_by"] == "Ms T" and row["definition"] == defn     # recorded when first used
    assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0


def test_a_failed_configuration_is_refused_and_a_passed_one_runs(conn, course_with_llm):
    defn, h = _in_use()
    evals_db.record_config(conn, h, defn)
    evals_db.save_eval_run(conn, h, _report(blocking_failed=["L1"]), suite="data/evals")
    assert gate.status(conn, h)["state"] == "failed"
    with pytest.raises(GateError, match="failed blocking eval cases in eval run 1: L1"):
        runs.create(conn, course_id=course_with_llm["course_id"], provider="openai", actor=Actor("test", role="admin"))
    evals_db.save_eval_run(conn, h, _report(not_run_blocking=2), suite="data/evals")
    assert gate.status(conn, h)["state"] == "unevaluated"      # blocking cases not run are not a pass
    evals_db.save_eval_run(conn, h, _report(), suite="data/evals")
    assert gate.status(conn, h)["state"] == "passed"
    conn.execute("UPDATE eval_runs SET created_at = '2026-03-04T10:05:00.000Z'")
    said = gate.status(conn, h)["message"]
    assert said.endswith("(eval run 3, 4 March 2026).") and "2026-03-04" not in said
    assert runs.create(conn, course_id=course_with_llm["course_id"], provider="openai", actor=Actor("test", role="admin")) > 0


def test_an_admins_override_is_audited_and_holds_for_that_configuration_only(conn, course_with_llm, monkeypatch):
    _, h = _in_use()
    with pytest.raises(GateError):
        runs.create(conn, course_id=course_with_llm["course_id"], provider="openai", actor=Actor("test", role="admin"))
    with pytest.raises(GateError, match="at least 10 characters"):
        gate.override(conn, h, actor=Actor("Admin A", role="admin"), reason="ok")
    gate.override(conn, h, actor=Actor("Admin A", role="admin"), reason="Judges need the new endpoint; leakage rules passed offline.")
    audit = next(conn.query("SELECT actor, action, reason FROM audit_log WHERE action = 'override_eval_gate'"))
    assert audit["actor"] == "Admin A" and "leakage rules" in audit["reason"]
    s = gate.status(conn, h)
    assert s["cleared"] and s["state"] == "unevaluated" and "Admin A overrode the gate" in s["message"]
    conn.execute("UPDATE ai_config_overrides SET created_at = '2026-03-04T10:05:00.000Z'")
    said = gate.status(conn, h)["message"]
    assert "Admin A overrode the gate on 4 March 2026:" in said and "2026-03-04" not in said
    assert runs.create(conn, course_id=course_with_llm["course_id"], provider="openai", actor=Actor("test", role="admin")) > 0
    monkeypatch.setenv("FAIRMARK_MODEL_AGGREGATOR", "another-model")      # a change: a new configuration
    other = f.course(conn, name="Another course")
    f.submission(conn, other["assignment_id"], f.student(conn, other["course_id"]), RICH_TEXT)
    with pytest.raises(GateError, match="has not been evaluated"):
        runs.create(conn, course_id=other["course_id"], provider="openai", actor=Actor("test", role="admin"))


def test_the_offline_baseline_needs_no_gate(conn, course_with_llm):
    assert runs.create(conn, course_id=course_with_llm["course_id"], provider="offline", actor=Actor("test", role="admin")) > 0
    assert gate.status(conn, _in_use("offline")[1], "offline")["state"] == "offline"


def test_the_configuration_of_a_run_and_of_its_llm_are_the_same(conn, course_with_llm, db_path):
    settings = load_settings()
    llm = LoggedLLM(OpenAICompatibleLLM(settings, transport=lambda r: None), db_path)
    assert ai_config.of_llm(llm) == ai_config.definition("openai", settings)
    offline = ai_config.llm_for("offline", db_path)
    assert ai_config.of_llm(offline) == ai_config.definition("offline", Settings())


def test_settings_assess_and_the_review_item_show_the_state(conn, course_with_llm, app_test, db_path):
    from assess_script import good_llm
    from core import pipeline

    _, h = _in_use()
    at = app_test("pages/assess.py").run()
    assert not at.exception
    assert any("not been evaluated" in w.value for w in at.warning)
    def button(label):
        return next(b for b in at.button if b.label == label)

    assert button("Start assessment").disabled
    # Only an admin overrides the gate, on the Settings page: never from the instructor's Assess page.
    assert not [b for b in at.button if b.label == "Override the gate"]
    assert not [t for t in at.text_area if t.key and t.key.startswith("override_reason")]
    assert any("override the gate on the Settings page" in w.value for w in at.warning)
    at = app_test("pages/ai_quality.py").run()
    assert not at.exception and not [b for b in at.button if b.label == "Override the gate"]
    at = app_test("pages/settings.py").run()
    at.text_area(key="override_reason_settings").input("The eval endpoint is down today; reviewed by hand.")
    button("Override the gate").click().run()
    assert not at.exception and any("Override recorded" in m.value for m in at.success)
    name = gate.config_name(conn, h)  # a teacher reads the configuration's models, never its hash (issue 21)
    assert any(name in plain(i.value) and "run allowed by an admin's override" in i.value for i in at.info)
    assert not [i.value for i in at.info if h in i.value]
    at = app_test("pages/assess.py").run()
    assert not at.exception and not button("Start assessment").disabled      # the override lets it run
    sid = conn.execute("SELECT id FROM submissions").fetchone()[0]
    draft_id = pipeline.assess_one(db_path, sid, llm=good_llm())
    at = app_test("pages/review.py")
    at.session_state["review_item"] = sid
    at.run()
    assert not at.exception
    draft_cfg = conn.execute("SELECT ai_config FROM drafts WHERE id = ?", [draft_id]).fetchone()[0]
    shown = [c.value for c in at.caption if "Drafted by AI configuration" in c.value]
    assert shown and "not evaluated yet" in shown[0], [c.value for c in at.caption]
    assert draft_cfg not in shown[0] and gate.config_name(conn, draft_cfg) in plain(shown[0])


def test_regenerate_needs_the_gate_too(conn, course_with_llm, db_path, monkeypatch):
    """Regenerate drafts with the configuration in use: an unevaluated one is refused (nothing
    drafted, nothing sent); once cleared it drafts."""
    from core.signoff import actions
    from fake_openai_server import FakeOpenAI

    sid = conn.execute("SELECT id FROM submissions").fetchone()[0]
    with FakeOpenAI() as server:
        monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", server.base_url)
        with pytest.raises(GateError, match="has not been evaluated.*override the gate on the Settings page"):
            actions.regenerate(conn, sid, actor=f.actor("Ms T"))
        assert not server.bodies and conn.execute("SELECT COUNT(*) FROM drafts").fetchone()[0] == 0
        assert evals_db.get_config(conn, _in_use()[1])["first_used_by"] == "Ms T"
        f.cleared_config(conn)
        new = actions.regenerate(conn, sid, actor=f.actor("Ms T"))
    assert server.bodies and conn.execute("SELECT ai_config FROM drafts WHERE id = ?",
                                          [new.draft_id]).fetchone()[0] == _in_use()[1]


def test_a_resumed_run_with_changed_settings_is_gated_again(conn, course_with_llm, db_path, monkeypatch):
    from core.runs.engine import RunStopped
    from fake_openai_server import FakeOpenAI

    c = course_with_llm
    with FakeOpenAI() as server:
        monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", server.base_url)
        f.cleared_config(conn)
        run_id = runs.create(conn, course_id=c["course_id"], provider="openai", actor=f.actor())
        conn.execute("UPDATE runs SET status = 'failed', error = 'stopped: the network was down' WHERE id = ?",
                     [run_id])
        monkeypatch.setenv("FAIRMARK_MODEL_AGGREGATOR", "an-unevaluated-model")      # another configuration
        with pytest.raises(RunStopped, match="settings changed since it started.*has not been evaluated"):
            runs.resume(db_path, run_id, background=False, actor=f.actor())
        assert not server.bodies and conn.execute("SELECT COUNT(*) FROM drafts").fetchone()[0] == 0
        p = runs.progress(conn, run_id, db_path, actor=f.actor())
        assert p["status"] == "failed" and p["pending"] == 1 and p["resumable"]
        assert "settings changed" in p["error"]
        f.cleared_config(conn)              # the admin clears the new configuration: the resume runs
        p = runs.resume(db_path, run_id, background=False, actor=f.actor())
        assert (p["status"], p["finished"], p["failed"]) == ("done", 1, 0)
        drafted_with = conn.execute("SELECT ai_config FROM drafts").fetchone()[0]
    assert drafted_with == _in_use()[1]


def test_a_resumed_run_with_unchanged_settings_is_not_asked_again(conn, course_with_llm, db_path, monkeypatch):
    from fake_openai_server import FakeOpenAI

    c = course_with_llm
    with FakeOpenAI() as server:
        monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", server.base_url)
        h = f.cleared_config(conn)
        run_id = runs.create(conn, course_id=c["course_id"], provider="openai", actor=f.actor())
        conn.execute("DELETE FROM ai_config_overrides WHERE config_hash = ?", [h])     # e.g. withdrawn later
        conn.execute("UPDATE runs SET status = 'failed' WHERE id = ?", [run_id])
        p = runs.resume(db_path, run_id, background=False, actor=f.actor())       # the configuration it was cleared for
        assert (p["status"], p["finished"], p["failed"]) == ("done", 1, 0)
