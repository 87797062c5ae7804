"""The two judges of the feedback (seed 003): grounding and pedagogy, as registry roles that run
after the comment, send an item to a teacher when they fail, and are "not run" offline."""
import factories as f
from assess_script import GOOD_COMMENT, RICH_TEXT, good_llm
from core import pipeline
from core.courses import answer_keys
from core.runs import reflections as runs
from core.agents import Job, grounding, pedagogy, registry
from core.evals import config as ai_config
from core.rubric import default_rubric
from db import drafts
from core.accounts.access import Actor

SOURCE = "Lesson 2: temperature scales the logits before sampling; higher values spread the probability."


def _item(conn, source: str = SOURCE):
    c = f.course(conn)
    answer_keys.set_answer_key(conn, c["assignment_id"], kind="text", value="softmax", source=source, actor=Actor("Ms T", role="admin"))
    text = "I am Ana Silva. " + RICH_TEXT
    return c, f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], name="Ana Silva"), text)


def test_both_judges_see_the_final_comment_the_text_and_their_inputs(conn, db_path):
    _, sid = _item(conn)
    llm = good_llm()
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, sid, llm=llm))
    g, p = llm.calls_for("grounding")[0], llm.calls_for("pedagogy")[0]
    user_g, user_p = g.messages[1]["content"], p.messages[1]["content"]
    assert GOOD_COMMENT in user_g and SOURCE in user_g and "Ana Silva" not in user_g
    assert "I am Student-" in user_g and "I am Student-" in user_p            # pseudonyms only
    assert GOOD_COMMENT in user_p and "Reflect on this week's topic." in user_p
    assert "Answer key: softmax" in p.messages[0]["content"] and "US grade 10" in p.messages[0]["content"]
    assert g.temperature == 0.0 and p.temperature == 0.0
    assert d["outputs"]["grounding"]["grounded"] is True and d["outputs"]["pedagogy"]["leads"] == 4
    assert d["status"] == "drafted"


def test_an_ungrounded_comment_goes_to_a_teacher_with_the_claims(conn, db_path):
    _, sid = _item(conn)
    llm = good_llm().script("grounding", {"grounded": False, "unsupported": ["Vaswani invented attention in 2017"],
                                          "explanation": "Neither text names an inventor."})
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, sid, llm=llm))
    assert d["status"] == "needs_attention"
    assert any("Vaswani invented attention in 2017" in r for r in d["attention_reasons"])


def test_a_low_pedagogy_score_goes_to_a_teacher_with_the_criterion(conn, db_path):
    _, sid = _item(conn)
    llm = good_llm().script("pedagogy", {"leads": 1, "level": 4, "next_step": 4,
                                         "justification": "It states the answer."})
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, sid, llm=llm))
    assert d["status"] == "needs_attention"
    reason = next(r for r in d["attention_reasons"] if r.startswith("The pedagogy judge"))
    assert "leads forward without giving the answer away (1/5)" in reason and "It states the answer." in reason


def test_a_judge_that_lists_a_claim_is_not_grounded_and_template_echoes_are_no_claims():
    assert not grounding.passed({"grounded": True, "unsupported": ["The 1956 Dartmouth workshop"]})
    echo = grounding.GroundingVerdict.model_validate({"grounded": True, "unsupported": ["...", " "],
                                                      "explanation": "one sentence"})
    assert echo.unsupported == [] and grounding.passed(echo.model_dump())


def test_the_verdicts_describe_themselves_for_the_review_item():
    blocks = pedagogy.describe({"leads": 2, "level": 4, "next_step": 5, "justification": "Solves it."}, None)
    assert ("warning", "2/5 · leads forward without giving the answer away") in blocks
    assert ("text", "Solves it.") in blocks
    g = grounding.describe({"grounded": False, "unsupported": ["a date"], "explanation": "x"}, None)
    assert g[0] == ("heading", "Grounded in the student's text and the source: NO")
    assert ("warning", "Unsupported: a date") in g


def test_the_offline_baseline_does_not_run_the_judges_and_never_passes_them(conn, db_path):
    c, sid = _item(conn)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    runs.execute(db_path, run_id, actor=Actor("test", role="admin"))
    d = drafts.get_draft(conn, drafts.latest_draft_id(conn, sid))
    assert d["is_offline"] == 1 and d["comment"]
    assert "grounding" not in d["outputs"] and "pedagogy" not in d["outputs"]
    assert not any("judge" in r for r in d["attention_reasons"])       # not a failure either
    assert [r.name for r in registry.roles() if r.needs_llm] == ["grounding", "pedagogy"]
    calls = {r[0] for r in conn.execute("SELECT agent FROM llm_calls").fetchall()}
    assert not calls & {"grounding", "pedagogy"}


def test_a_judge_fault_costs_only_its_verdict(conn, db_path):
    from core.errors import LLMTimeout

    _, sid = _item(conn)
    llm = good_llm().script("grounding", LLMTimeout("slow"))
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, sid, llm=llm))
    assert d["comment"] == GOOD_COMMENT and "grounding" not in d["outputs"] and "pedagogy" in d["outputs"]
    assert any(r.startswith("The Grounding judge failed") for r in d["attention_reasons"])


def test_each_draft_records_the_configuration_that_wrote_it(conn, db_path):
    _, sid = _item(conn)
    llm = good_llm()
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, sid, llm=llm))
    defn = ai_config.of_llm(llm)
    assert d["ai_config"] == ai_config.config_hash(defn)
    row = next(conn.query("SELECT provider, definition FROM ai_configs WHERE hash = ?", [d["ai_config"]]))
    assert row["provider"] == "fake" and '"grounding"' in row["definition"]
    assert defn["roles"]["grounding"]["temperature"] == 0.0 and defn["roles"]["aggregator"]["temperature"] == 0.3


def test_a_judge_run_on_its_own_for_a_comment(conn):
    job = Job(rubric=default_rubric(), assignment={"prompt": "What is w?", "answer_key": "3", "target_grade": 8},
              text="I got 5.", comment="w is 3.")
    llm = good_llm().script("pedagogy", {"leads": 1, "level": 3, "next_step": 1, "justification": "Gives it away."})
    out = pedagogy.run(llm, job).data.model_dump()
    assert pedagogy.low(out) == ["leads", "next_step"] and pedagogy.total(out) == 5
    assert "Answer key: 3 (a number" in llm.calls[0].messages[0]["content"]
