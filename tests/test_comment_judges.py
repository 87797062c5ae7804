"""The grounding and pedagogy judges asked in one call (core.judging.comment_judges): every verdict
still reaches the item under its own role with its own meaning, the call follows the family rule
and the judges' temperature, the pedagogy trust is earned on the verdict the drafts carry, and
each judge asks alone when the two do not share a model or a variant changes one of them."""
import factories
from assess_script import GOOD_PEDAGOGY, GROUNDED, RICH_TEXT, good_llm
from core import pipeline, prompts
from core.agents import Ids, Job, grounding, pedagogy, registry
from core.judging import comment_judges
from core.evals import comparison_runs
from core.settings import JudgeSpec, Settings
from db import drafts

ROLES = ("evaluator", "equity", "coach", "aggregator", "reviewer", "reviser", "grounding", "pedagogy")
UNGROUNDED = {"explanation": "The comment names a study the text never mentions.",
              "unsupported": ["a 2019 Stanford study"], "grounded": False}
POOR = {"justification": "It states the answer.", "leads": 1, "level": 4, "next_step": 4}


def assess(conn, db_path, llm):
    c = factories.course(conn)
    sub = factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]), RICH_TEXT)
    return drafts.get_draft(conn, pipeline.assess_one(db_path, sub, llm=llm)), sub


def joint_llm(**models):
    """Every role answers well; both judges of the comment on one model, answered together."""
    llm = good_llm(models={"grounding": "judge-model", "pedagogy": "judge-model", **models})
    llm._always.pop("grounding"), llm._always.pop("pedagogy")
    return llm


def test_both_verdicts_reach_the_item_from_one_call_when_the_judges_share_a_model(conn, db_path):
    llm = joint_llm().always("grounding", {"grounding": UNGROUNDED, "pedagogy": POOR})
    draft, _ = assess(conn, db_path, llm)
    joint = [c for c in llm.calls if c.ctx.agent == "comment_judges"]
    assert len(joint) == 1 and not llm.calls_for("pedagogy")
    assert joint[0].schema is comment_judges.CommentVerdicts and joint[0].temperature == 0.0
    assert draft["outputs"]["grounding"] == UNGROUNDED and draft["outputs"]["pedagogy"] == POOR
    # each verdict is read by its own role, as when asked alone: the item says why a teacher looks
    reasons = draft["attention_reasons"]
    assert any(r in reasons for r in grounding.attention(UNGROUNDED))
    assert any(r in reasons for r in pedagogy.attention(POOR))
    assert grounding.describe(draft["outputs"]["grounding"], None)[0][1].endswith("NO")
    user = joint[0].messages[-1]["content"]
    assert user.count("<submission>") == 1 and user.count("<comment>") == 1


def test_the_joint_call_goes_to_the_model_the_family_rule_picks_not_the_writers():
    cfg = Settings(llm_api_key="sk", judges=[JudgeSpec(name="c", model="claude-3-haiku")])
    llm = good_llm(models={r: cfg.model_for(r) for r in ROLES})
    assert comment_judges.together(llm, Job(rubric=None, assignment={}, text=""), list(comment_judges.ROLES))
    llm._always.pop("grounding"), llm._always.pop("pedagogy")
    llm.always("grounding", {"grounding": GROUNDED, "pedagogy": GOOD_PEDAGOGY})
    job = Job(rubric=None, assignment={"prompt": "Reflect."}, text=RICH_TEXT, comment="Good. Why?")
    got = comment_judges.verdicts(llm, job, registry.get("pedagogy"))
    assert got == {"grounding": GROUNDED, "pedagogy": GOOD_PEDAGOGY}
    (call,) = llm.calls
    assert llm.model_for(call.role) == "claude-3-haiku" != cfg.model_for("aggregator")


def test_each_judge_asks_alone_on_different_models_or_a_variant_that_changes_one(conn, db_path, tmp_path):
    llm = good_llm()          # the fake's models differ per role
    draft, _ = assess(conn, db_path, llm)
    assert len(llm.calls_for("grounding")) == len(llm.calls_for("pedagogy")) == 1
    assert not [c for c in llm.calls if c.ctx.agent == "comment_judges"]
    assert draft["outputs"]["grounding"] == GROUNDED and draft["outputs"]["pedagogy"] == GOOD_PEDAGOGY
    same = joint_llm()
    job = Job(rubric=None, assignment={}, text="", prompt_dir=tmp_path)
    assert comment_judges.together(same, job, comment_judges.ROLES)
    (tmp_path / "pedagogy.md").write_text((prompts.PROMPT_DIR / "pedagogy.md").read_text())
    assert not comment_judges.together(same, job, comment_judges.ROLES)     # the variant's pedagogy prompt is used
    assert not comment_judges.together(same, Job(rubric=None, assignment={}, text=""), ["grounding"])


def test_the_pedagogy_trust_is_earned_on_the_verdict_the_drafts_carry(conn, db_path):
    """Comparison runs (what the trust rules count) ask the pedagogy judge as drafts ask it."""
    _, sub = assess(conn, db_path, good_llm())
    llm = joint_llm().always("grounding", {"grounding": GROUNDED, "pedagogy": POOR})
    got = comparison_runs.judge(llm, pipeline.item_for(conn, sub), "Good work. What would you try next?", Ids())
    assert got == POOR
    assert [c.ctx.agent for c in llm.calls] == ["comment_judges"]


def test_the_joint_prompt_states_each_judges_rules_as_its_own_file():
    """One meaning per judge: every rule line of grounding.md and pedagogy.md (not the opening
    role line, not the reply format) is in comment_judges.md word for word, and the joint schema
    is the two roles' own schemas, reasoning before each verdict."""
    joint = comment_judges.PROMPT.load().system
    for spec in (grounding.PROMPT, pedagogy.PROMPT):
        lines = [ln for ln in spec.load().system.splitlines()[1:] if ln.strip() and "Reply with JSON" not in ln]
        assert lines and all(ln in joint for ln in lines), spec.name
    fields = comment_judges.CommentVerdicts.model_fields
    assert fields["grounding"].annotation is grounding.GroundingVerdict
    assert fields["pedagogy"].annotation is pedagogy.PedagogyVerdict
