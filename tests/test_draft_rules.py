"""Issue 22, point 7: the eval runner's free rules run on real drafts too (stored with the draft's
checks), with a strengths-first check and a check that the comment carries one of the Coach's
questions (not just any "?"), each with the severity its docstring argues for."""
import pytest

import factories
from assess_script import RICH_TEXT, good_llm
from core import checks, pipeline
from core.checks import DraftContext
from core.evals import rules
from db import drafts

GOOD = ("You explain temperature clearly and give a concrete example from work. "
        "Next: (1) connect temperature to bias, (2) add one question you still have. What would you test first?")
CONTEXT = DraftContext(source="", question="What did you learn about temperature?",
                       coach_questions=("What would you test first?",), criterion_keys=("reflection_depth",))


def by_name(comment, submission="I explain temperature at work.", context=CONTEXT):
    """What the pipeline checks on a draft: core.checks and the eval rules (core.evals.rules)."""
    found = checks.comment_checks(comment, submission, target_grade=8, context=context)
    return {c["name"]: c for c in found + rules.draft_checks(comment, submission, context)}


def test_a_good_comment_passes_every_new_check():
    got = by_name(GOOD)
    for name in ("specifics", "sentence_length", "no_terms", "next_step", "strengths_first", "coach_question"):
        assert got[name]["passed"], (name, got[name]["detail"])


@pytest.mark.parametrize("comment, name, severity", [
    (GOOD.replace("from work.", "from work, as Vaswani showed in 2017."), "specifics", "warn"),
    ("You explain temperature well. Keep going.", "next_step", "fail"),
    (GOOD.replace("What would you test first?", "Why?"), "coach_question", "warn"),
    (GOOD.replace("What would you test first?", "Any questions?"), "coach_question", "warn"),
    (GOOD.replace("Next:", "Next, because it matters a great deal for the work you will do in the coming weeks "
                           "and months of this course:"), "sentence_length", "warn"),
    (GOOD.replace("bias,", "bias in your reflection_depth and the rubric,"), "no_terms", "warn"),
    ("Next: (1) add an example, (2) proofread. " + "What would you test first?", "strengths_first", "warn"),
    ("Your reflection is missing an example. " + GOOD, "strengths_first", "warn"),
])
def test_each_new_check_catches_its_miss_with_its_severity(comment, name, severity):
    c = by_name(comment)[name]
    assert not c["passed"] and c["severity"] == severity
    assert (c in checks.failed(list(by_name(comment).values()))) is (severity == "fail")


def test_a_coach_question_slightly_reworded_by_the_aggregator_still_counts():
    reworded = GOOD.replace("What would you test first?", "What would you test first at work?")
    assert by_name(reworded)["coach_question"]["passed"]


def test_the_pipeline_stores_the_free_rules_with_every_draft(conn, db_path):
    c = factories.course(conn)
    sub = factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]), RICH_TEXT)
    llm = good_llm()
    dropped = GOOD.replace("What would you test first?", "Any questions?")
    llm.script("aggregator", {"comment": dropped})
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, sub, llm=llm))
    stored = {x["name"]: x for x in d["checks"]}
    assert {"specifics", "sentence_length", "no_terms", "next_step", "strengths_first", "coach_question"} <= set(stored)
    # a warning: shown with the draft, no revision round (nothing else failed)
    assert not stored["coach_question"]["passed"] and stored["coach_question"]["severity"] == "warn"
    assert d["comment"] == dropped and not llm.calls_for("reviser") and stored["next_step"]["passed"]


def test_the_rubric_and_the_assignment_are_known_to_the_specifics_rule(conn, db_path):
    c = factories.course(conn)
    sub = factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]), RICH_TEXT)
    title = c["rubric"].criteria[0].title
    llm = good_llm()
    llm.script("aggregator", {"comment": GOOD.replace("from work.", f"from work; your {title} shows it.")})
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, sub, llm=llm))
    assert {x["name"]: x for x in d["checks"]}["specifics"]["passed"]
