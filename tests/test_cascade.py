"""Seed 001's cascade (core.judging.cascade) with scripted judges, and its votes table."""
import pytest

from core.judging.cascade import ORDINAL, Scale, Vote, run
from db import votes


def judge(name, scores, confidence=None, weight=1.0, calls=None):
    def cast(tier):
        if calls is not None:
            calls.append((name, tier))
        if scores is None:
            return None
        return Vote(name, tier, scores, confidence or {}, weight)
    return cast


def sure(v):
    return all((c or 0) >= 0.85 for c in v.confidence.values()) and bool(v.confidence)


def test_a_confident_first_judge_settles_the_item_with_one_call():
    calls = []
    out = run(judge("a", {"x": 2, "y": 1}, {"x": 0.9, "y": 0.97}, calls=calls),
              [judge("b", {"x": 0, "y": 0}, calls=calls)], scale=ORDINAL, settled=sure)
    assert calls == [("a", 1)] and out.tier == 1 and out.scores == {"x": 2.0, "y": 1.0} and not out.unsure


def test_an_unsure_first_judge_asks_a_second_and_agreement_settles_it():
    calls = []
    out = run(judge("a", {"x": 2}, {"x": 0.6}, calls=calls),
              [judge("b", {"x": 2}, calls=calls), judge("c", {"x": 0}, calls=calls)], scale=ORDINAL, settled=sure)
    assert calls == [("a", 1), ("b", 2)] and out.tier == 2 and out.scores == {"x": 2.0} and not out.unsure


def test_disagreement_calls_the_third_judge_and_the_majority_wins_per_criterion():
    calls = []
    out = run(judge("a", {"x": 2, "y": 1}, {"x": 0.5, "y": 0.5}, calls=calls),
              [judge("b", {"x": 3, "y": 1}, calls=calls), judge("c", {"x": 3, "y": 2}, calls=calls)],
              scale=ORDINAL, settled=sure)
    assert [c[0] for c in calls] == ["a", "b", "c"]
    assert out.scores == {"x": 3.0, "y": 1.0} and out.unsure == []


def test_three_different_answers_leave_the_criterion_unsure_with_the_median():
    out = run(judge("a", {"x": 1}), [judge("b", {"x": 2}), judge("c", {"x": 3})], scale=ORDINAL,
              settled=lambda v: False)
    assert out.unsure == ["x"] and out.scores == {"x": 2.0} and out.disagreed


def test_weights_decide_between_two_disagreeing_judges_when_the_third_fails():
    out = run(judge("a", {"x": 1}, weight=0.4), [judge("b", {"x": 3}, weight=0.6), judge("c", None)],
              scale=ORDINAL, settled=lambda v: False)
    assert out.scores == {"x": 3.0} and out.unsure == ["x"] and "the third judge failed" in out.notes


def test_continuous_scores_agree_within_the_tolerance_and_combine_as_a_weighted_mean():
    scale = Scale("continuous", tolerance=0.1)
    out = run(judge("a", {"fact": 0.80}, weight=3), [judge("b", {"fact": 0.72}), judge("c", {"fact": 0.1})],
              scale=scale, settled=lambda v: not 0.5 <= v.scores["fact"] <= 0.85)
    assert out.tier == 2 and len(out.votes) == 2 and out.scores["fact"] == pytest.approx(0.78)


def test_no_second_judge_configured_keeps_the_first_judges_scores_and_says_so():
    out = run(judge("a", {"x": 1}, {"x": 0.2}), [], scale=ORDINAL, settled=sure)
    assert out.tier == 1 and out.scores == {"x": 1.0} and "no second judge" in out.notes[0]


def test_votes_are_stored_per_criterion_and_read_back_in_order(conn):
    n = votes.save(conn, "submission", 7, [
        {"criterion": "clarity", "judge": "model-a", "tier": 1, "score": 2, "confidence": 0.6},
        {"criterion": "clarity", "judge": "model-b", "tier": 2, "score": 3, "confidence": None, "weight": 0.7}],
        draft_id=11)
    rows = votes.of(conn, "submission", 7, draft_id=11)
    assert n == 2 and [(r["judge"], r["tier"], r["score"], r["confidence"], r["weight"]) for r in rows] == [
        ("model-a", 1, 2.0, 0.6, 1.0), ("model-b", 2, 3.0, None, 0.7)]
    assert votes.of(conn, "lesson", 7) == []
