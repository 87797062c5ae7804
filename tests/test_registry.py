"""The role registry: a new agent is its module, its prompt and one registry line. A sixth role
registered from this test alone runs in the pipeline, is stored, shown on the review item and
selectable in Settings, without any other file changing."""
from __future__ import annotations

import types

import pytest
from pydantic import BaseModel, ConfigDict

import factories as f
from assess_script import GOOD_COMMENT, RICH_TEXT, good_llm
from core import pipeline, prompts
from core.agents import registry
from core.agents.common import call
from core.settings import load_settings
from db import drafts

PROMPT_TEXT = """=== system ===
You are the Tone Judge. Say whether the comment is warm. Reply with JSON only: {"warm": true, "why": "..."}
=== user ===
<comment>
{{comment}}
</comment>
"""


class ToneVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    warm: bool
    why: str


@pytest.fixture
def tone_judge(tmp_path):
    (tmp_path / "tone_judge.md").write_text(PROMPT_TEXT)
    module = types.ModuleType("tone_judge")
    module.PROMPT = prompts.Spec("tone_judge", frozenset({"comment"}), directory=tmp_path)
    module.IF_FAILED = "the tone was not judged"

    def run(llm, job):
        return call(llm, module.PROMPT, ToneVerdict, job, inputs={"comment": job.comment}, comment=job.comment)

    module.run = run
    module.attention = lambda output: [] if output["warm"] else [f"The Tone Judge found the comment cold: {output['why']}"]
    role = registry.register(registry.Role("tone_judge", module, "Tone Judge", "judges the comment's warmth",
                                           "after_comment", 20, ("comment",)))
    yield role
    registry.unregister("tone_judge")


def _item(conn):
    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], name="Ana Silva"), RICH_TEXT)
    return c, sid


def test_a_sixth_role_runs_after_the_comment_and_its_answer_is_stored(conn, db_path, tone_judge):
    _, sid = _item(conn)
    llm = good_llm().script("tone_judge", {"warm": False, "why": "It lists faults only."})
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, sid, llm=llm))
    llm.assert_all_used()
    roles = [c.role for c in llm.calls]
    assert roles.index("tone_judge") > roles.index("reviewer")       # after the Reviewer, beside the other judges
    assert GOOD_COMMENT in llm.calls_for("tone_judge")[0].messages[1]["content"]  # it saw the final comment
    assert d["outputs"]["tone_judge"] == {"warm": False, "why": "It lists faults only."}
    assert d["status"] == "needs_attention"
    assert "The Tone Judge found the comment cold: It lists faults only." in d["attention_reasons"]
    assert d["models"]["tone_judge"] == "fake-tone_judge" and len(d["prompt_hashes"]["tone_judge"]) == 16


def test_a_sixth_roles_failure_costs_only_its_contribution(conn, db_path, tone_judge):
    from core.errors import LLMTimeout

    _, sid = _item(conn)
    llm = good_llm().script("tone_judge", LLMTimeout("slow"))
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, sid, llm=llm))
    assert d["status"] == "needs_attention" and d["scores"] and d["comment"]
    assert any(r.startswith("The Tone Judge failed (LLMTimeout") and r.endswith("the tone was not judged")
               for r in d["attention_reasons"])
    assert "tone_judge" not in d["outputs"]


def test_a_sixth_role_is_shown_on_the_review_item(app_test, conn, db_path, tone_judge):
    c, sid = _item(conn)
    llm = good_llm().script("tone_judge", {"warm": True, "why": "Names two strengths first."})
    pipeline.assess_one(db_path, sid, llm=llm)
    at = app_test("pages/review.py")
    at.session_state["course_id"] = c["course_id"]
    at.session_state["assignment_id"] = c["assignment_id"]
    at.query_params["item"] = str(sid)
    at.run()
    assert not at.exception, at.exception
    assert "Tone Judge" in [t.label for t in at.tabs]
    assert any("Names two strengths first." in t.value for t in at.text)


def test_a_sixth_role_is_selectable_in_settings(app_test, monkeypatch, tone_judge):
    monkeypatch.setenv("FAIRMARK_MODEL_TONE_JUDGE", "judge-model-b")
    assert load_settings().model_for("tone_judge") == "judge-model-b"
    at = app_test("pages/settings.py").run()
    assert not at.exception, at.exception
    box = at.text_input(key="llm_model_tone_judge")
    assert box.label.startswith("Tone Judge") and box.value == "judge-model-b"


def test_roles_are_listed_once_and_every_one_has_a_valid_prompt():
    assert registry.names() == ["evaluator", "equity", "coach", "aggregator", "reviewer", "reviser", "grounding",
                                "pedagogy"]
    # every role's prompt, and the joint call's of the grounding and pedagogy judges
    assert set(registry.prompt_hashes()) == {*registry.names(), "comment_judges"}
    with pytest.raises(ValueError, match="already registered"):
        registry.register(registry.get("coach"))
    with pytest.raises(ValueError, match="stage"):
        registry.Role("x", registry.get("coach").module, "X", "x", "whenever", 1)
