"""Issue 22: one judge concept (core.judging.judges) for every judge. The family rule (point 3),
the free judge out of Krippendorff's alpha (point 4), trust in the pedagogy judge (point 6), and
reasoning before the verdict with the Reviewer at temperature 0 (point 8)."""
import pytest

import factories
from assess_script import RICH_TEXT, evaluation_for, good_llm
from core import pipeline
from core.agents import grounding, pedagogy, reviewer
from core.evals import pairwise
from core.judging import agreement, judges
from core.rubric import default_rubric
from core.settings import JudgeSpec, Settings
from db import drafts, votes
from fake_llm import WithProbs


def assess(conn, db_path, llm):
    c = factories.course(conn)
    sub = factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]), RICH_TEXT)
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, sub, llm=llm))
    return c, d, votes.of(conn, "submission", sub, draft_id=d["id"])


def unsure(keys):
    return {f"{k}.score": {"2": 0.6, "3": 0.4} for k in keys}


# --- point 3: the family rule -----------------------------------------------------------------
def test_a_reflection_judge_of_the_evaluators_family_is_not_asked_while_another_family_is(conn, db_path):
    same, other = JudgeSpec(name="b", model="gpt-4o"), JudgeSpec(name="c", model="claude-3-haiku")
    llm = good_llm(judges=(same, other), models={"evaluator": "gpt-4o-mini"})
    llm.script("evaluator", lambda m, s: WithProbs(evaluation_for(s), unsure(default_rubric().keys)))
    llm.always("judge:c", lambda m, s: evaluation_for(s))
    c, d, cast = assess(conn, db_path, llm)
    assert not llm.calls_for("judge:b") and llm.calls_for("judge:c")
    assert {v["judge"] for v in cast} == {"gpt-4o-mini", "claude-3-haiku"}
    assert any("gpt-4o was not asked: it is of the same model family as the writer" in n for n in d["judging"]["notes"])
    assert d["judging"]["one_family"] is None


def test_with_one_family_only_the_judges_still_run_and_every_item_says_so(conn, db_path):
    llm = good_llm(judges=(JudgeSpec(name="b", model="gpt-4o"),), models={"evaluator": "gpt-4o-mini"})
    llm.script("evaluator", lambda m, s: WithProbs(evaluation_for(s), unsure(default_rubric().keys)))
    llm.always("judge:b", lambda m, s: evaluation_for(s))
    _, d, _ = assess(conn, db_path, llm)
    assert llm.calls_for("judge:b")
    assert d["judging"]["one_family"].startswith("Every judge is of one model family (gpt)")
    assert d["judging"]["one_family"] in d["judging"]["notes"]


def test_the_comment_judges_default_to_another_family_than_the_writer_and_the_readiness_note():
    cfg = Settings(llm_api_key="sk", judges=[JudgeSpec(name="c", model="claude-3-haiku")])
    assert [cfg.model_for(r) for r in ("reviewer", "grounding", "pedagogy")] == ["claude-3-haiku"] * 3
    assert cfg.feedback_judge("grounding").name == "c" and cfg.model_for("aggregator") == "gpt-4o-mini"
    assert judges.one_family_note(cfg) is None
    one = Settings(llm_api_key="sk", models={"evaluator": "gpt-4o"}, judges=[JudgeSpec(name="b", model="gpt-4.1")])
    assert one.model_for("grounding") == "gpt-4o-mini"        # nothing of another family to take
    assert "one model family (gpt)" in judges.one_family_note(one)
    assert judges.one_family_note(Settings()) is None          # the offline baseline has no judges


# --- point 4: the free judge is out of alpha -----------------------------------------------------
def test_the_free_judges_votes_do_not_enter_krippendorffs_alpha():
    rows = []
    for sid, (llm_a, llm_b, free) in enumerate([(1, 1, 2), (2, 2, 3), (3, 3, 2), (0, 0, 1), (2, 2, 1), (1, 1, 0)]):
        rows += [{"submission_id": sid, "criterion": "x", "judge": "gpt", "tier": 1, "score": llm_a},
                 {"submission_id": sid, "criterion": "x", "judge": "claude", "tier": 2, "score": llm_b},
                 {"submission_id": sid, "criterion": "x", "judge": "offline scorer v1", "tier": 0, "score": free}]
    a = agreement.alpha_by_criterion(rows)["x"]
    assert (a["alpha"], a["items"], a["disagreed"]) == (1.0, 6, [])      # the LLM judges agree everywhere
    only_free = [r for r in rows if r["judge"] != "claude"]
    a = agreement.alpha_by_criterion(only_free)["x"]
    assert a["items"] == 0 and agreement.verdict(a["alpha"], a["items"]) == "not_enough_votes"


# --- point 6: trust in the pedagogy judge ------------------------------------------------------
def choices(n, agree):
    return [{"pair_id": i, "choice": "B", "judge_choice": "B" if i < agree else "A"} for i in range(n)]


@pytest.mark.parametrize("n, agree, trusted", [
    (1, 1, False),        # one choice: 100 % agreement says nothing
    (19, 19, False),      # under 20 choices, whatever the agreement
    (25, 22, False),      # 88 % agreement, but the interval's lower bound is not above 80 %
    (60, 58, True),
    (60, 60, True),       # every choice agreed: no bootstrap interval, the Wilson bound (94 %) decides
])
def test_the_pedagogy_judge_is_trusted_only_on_20_choices_with_the_lower_bound_above_the_threshold(n, agree, trusted):
    judge = pairwise.judge_agreement(choices(n, agree), 0.8)
    assert judge["trusted"] is trusted
    if not trusted and n < 20:
        assert f"only {n} teacher choice" in judge["trust_reason"]


# --- point 8: reasoning before the verdict; the Reviewer at temperature 0 -----------------------
@pytest.mark.parametrize("schema, reasoning, verdict", [
    (reviewer.Verdict, "explanation", "verdict"),
    (grounding.GroundingVerdict, "explanation", "grounded"),
    (pedagogy.PedagogyVerdict, "justification", "next_step"),
])
def test_judges_write_their_reasoning_before_their_verdict(schema, reasoning, verdict):
    fields = list(schema.model_json_schema()["properties"])
    assert fields[0] == reasoning and fields[-1] == verdict


def test_the_reviewer_judges_at_temperature_zero_like_the_evaluator(conn, db_path):
    llm = good_llm(temperature=0.3)
    assess(conn, db_path, llm)
    assert [c.temperature for c in llm.calls_for("reviewer")] == [0.0]
    assert [c.temperature for c in llm.calls_for("evaluator")] == [0.0]
