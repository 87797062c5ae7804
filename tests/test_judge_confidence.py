"""Issue 22, point 2: one meaning of an unknown confidence for every judge (unsure), and a cached
lesson answer keeps the logprobs its confidence is read from, so a re-review judges as the first."""
from core.judging.confidence import Confidence
from core.lessons import judge as lesson_judge
from core.lessons import review
from core.judging.cascade import Vote
from core.llm import LoggedLLM
from db import lessons as lessons_db
from fake_llm import ScriptedLLM, WithProbs
from lesson_helpers import MODELS, add_lesson, verdict


def test_an_unknown_confidence_is_unsure_for_the_lesson_judge_as_for_reflections():
    clear_pass = lesson_judge.rubric.KEYS
    scores = dict.fromkeys(clear_pass, 0.95)
    assert lesson_judge._settled(Vote("a", 1, scores, dict.fromkeys(clear_pass, 0.9)))
    assert not lesson_judge._settled(Vote("a", 1, scores, dict.fromkeys(clear_pass, None)))
    assert not Confidence(None).sure(0.0) and Confidence(0.0).sure(0.0)


def test_a_lesson_answer_without_logprobs_is_not_settled_by_the_first_judge_alone(conn, db_path):
    lid = add_lesson(conn)
    fake = ScriptedLLM(models=MODELS, score_probs=None)          # a model that gives no logprobs
    fake.script("lesson_judge", verdict(0.95, 0.9, 0.9, 0.9)).script("lesson_judge_2", verdict(0.95, 0.9, 0.9, 0.9))
    out = review.review_lesson(db_path, lid, LoggedLLM(fake, db_path))
    fake.assert_all_used()
    record = lessons_db.review(conn, out["review_id"])["record"]
    assert record["first"]["tier"] == 2 and out["tier"] == "sampled"
    assert "confidence is unknown" in " ".join(record["tier_reasons"])


def test_a_cached_re_review_reaches_the_same_tier_and_confidence_as_the_first(conn, db_path):
    lid = add_lesson(conn)
    fake = ScriptedLLM(models=MODELS)
    # a clear pass, but the first judge's own answer is unsure (3 bits a token): consensus
    fake.script("lesson_judge", WithProbs(verdict(0.95, 0.9, 0.9, 0.9), None, tokens=0.125))
    fake.script("lesson_judge_2", verdict(0.95, 0.9, 0.9, 0.9))
    first = review.review_lesson(db_path, lid, LoggedLLM(fake, db_path))
    fake.assert_all_used()
    again = review.review_lesson(db_path, lid, LoggedLLM(ScriptedLLM(models=MODELS), db_path))   # nothing scripted
    one, two = (lessons_db.review(conn, r["review_id"])["record"] for r in (first, again))
    assert one["first"]["tier"] == 2 and two["first"]["tier"] == 2
    assert [v["confidence"] for v in one["first"]["votes"]] == [v["confidence"] for v in two["first"]["votes"]]
    assert one["first"]["votes"][0]["confidence"] == 0.0
    assert [v["cache_hit"] for v in two["first"]["votes"]] == [True, True]
    assert again["tier"] == first["tier"]


def test_a_reflection_whose_confidence_nobody_could_measure_is_unsure(conn, db_path):
    """No logprobs, no self-consistency sample, no judge: the Evaluator's scores stand, unsure."""
    import factories
    from assess_script import RICH_TEXT, good_llm
    from core.signoff import triage
    from core.agents import Job
    from core.judging import scoring
    from core.rubric import default_rubric

    job = Job(rubric=default_rubric(), assignment={"title": "Week 1", "prompt": "What did you learn?"}, text=RICH_TEXT)
    out = scoring.score(good_llm(score_probs=None), job, scoring.Config(samples=0))
    assert out.judging["route"] == "confidence_unknown" and out.confidence is None
    assert out.unsure and out.judging["unsure"] == sorted(default_rubric().keys)
    assert triage.is_unsure({"judging": out.judging})
