"""Lesson review rules: the weighted rubric and its vetoes, the tiers, the queue order and the
10 % sample, and the entropy flags computed from given logprobs."""
import math

import pytest

from core.lessons import entropy, rubric, sections, tiers
from core.lessons.tiers import Evidence, decide

ALL = {"factual_integrity": 1.0, "pedagogical_alignment": 1.0, "clarity_structure": 1.0, "engagement_tone": 1.0}


def test_weights_are_the_seeds_and_sum_to_one():
    assert {d.key: d.weight for d in rubric.DIMENSIONS} == {
        "factual_integrity": 0.35, "pedagogical_alignment": 0.25, "clarity_structure": 0.2, "engagement_tone": 0.2}
    assert math.isclose(sum(d.weight for d in rubric.DIMENSIONS), 1.0)


@pytest.mark.parametrize("dim, score, vetoed", [("factual_integrity", 0.59, True), ("factual_integrity", 0.6, False),
                                                ("pedagogical_alignment", 0.49, True),
                                                ("pedagogical_alignment", 0.5, False),
                                                ("clarity_structure", 0.0, False), ("engagement_tone", 0.0, False)])
def test_vetoes_fail_the_lesson_whatever_the_total(dim, score, vetoed):
    w = rubric.weigh({**ALL, dim: score})
    assert (w.vetoed == [dim]) is vetoed
    assert w.passed is (not vetoed and w.score >= rubric.PASS_MARK)
    if vetoed:
        assert w.score > 0.8 and not w.passed       # a high total does not save it


def test_the_weighted_score_and_the_weakest_dimension():
    w = rubric.weigh({"factual_integrity": 0.8, "pedagogical_alignment": 0.6, "clarity_structure": 1.0,
                      "engagement_tone": 0.4})
    assert w.score == pytest.approx(0.28 + 0.15 + 0.2 + 0.08)
    assert rubric.weakest(w.scores) == "engagement_tone"          # 0.2 x 0.6 = 0.12 lost, the most
    # Two vetoes: the one furthest under its threshold first (0.4 is 0.1 under 0.5; 0.55 is 0.05 under 0.6).
    assert rubric.weakest({**ALL, "pedagogical_alignment": 0.4, "factual_integrity": 0.55}) == "pedagogical_alignment"
    assert rubric.weakest({**ALL, "engagement_tone": 0.1, "factual_integrity": 0.55}) == "factual_integrity"
    with pytest.raises(ValueError, match="no score"):
        rubric.weigh({"factual_integrity": 1})


@pytest.mark.parametrize("evidence, tier", [
    (Evidence(score=0.86, confidences=[0.9]), "ready"),
    (Evidence(score=0.86), "sampled"),                              # no vote's confidence: unknown is unsure
    (Evidence(score=0.95, confidences=[0.9, None]), "sampled"),     # one unknown confidence: not ready
    (Evidence(score=0.86, confidences=[0.9, 0.85]), "ready"),
    (Evidence(score=0.85), "sampled"),                              # the band's top is not "above 0.85"
    (Evidence(score=0.75), "sampled"),
    (Evidence(score=0.95, confidences=[0.7]), "sampled"),           # high score, only moderate confidence
    (Evidence(score=0.749), "needs_review"),
    (Evidence(score=0.95, vetoed=["pedagogical_alignment"]), "needs_review"),
    (Evidence(score=0.9, confidences=[0.3, 0.4]), "needs_review"),   # low confidence in every vote
    (Evidence(score=0.9, confidences=[0.3, None]), "sampled"),       # ...not when one is unknown
    (Evidence(score=0.9, unsure=["factual_integrity"]), "needs_review"),
    (Evidence(score=0.9, critical_flags=["x is contradicted"]), "needs_review"),
    (Evidence(score=0.9, first_cost=0.001, fix_cost=0.0051), "needs_review"),
    (Evidence(score=0.9, first_cost=0.001, fix_cost=0.005, confidences=[0.95]), "ready"),
    (Evidence(clear_failures=["Length: 30 words"]), "needs_review"),
    (Evidence(offline=True), "needs_review"),
])
def test_tier_rules(evidence, tier):
    d = decide(evidence)
    assert d.tier == tier
    assert bool(d.reasons) is (tier != "ready")


def test_reasons_say_why_in_the_teachers_words():
    d = decide(Evidence(score=0.6, first_cost=100, fix_cost=600, offline=False))
    assert d.reasons == ["Score 0.60 is under 0.75 after the fixes.",
                         "Fixing cost 6.0x the first judgment (limit 5x)."]
    assert "offline baseline" in decide(Evidence(offline=True)).reasons[0]


def test_queue_order_puts_full_reviews_then_the_sample_first():
    order = sorted([("ready", False), ("sampled", False), ("needs_review", False), ("sampled", True)],
                   key=lambda t: tiers.priority("reviewed", *t))
    assert order == [("needs_review", False), ("sampled", True), ("sampled", False), ("ready", False)]
    assert tiers.priority("approved", "ready") > tiers.priority("reviewed", "ready")
    assert tiers.priority("uploaded", None) == 9


def test_the_sample_is_ten_percent_rounded_up_and_reproducible():
    ids = list(range(100, 131))
    first = tiers.draw_sample(ids, seed=5)
    assert len(first) == 4 and set(first) <= set(ids) and first == tiers.draw_sample(list(reversed(ids)), seed=5)
    assert len(tiers.draw_sample([7], seed=1)) == 1


# --- entropy ------------------------------------------------------------------------------------------
def lp(p: float) -> float:
    return math.log(p)


def echo_of(text: str, sure: set[int]) -> dict:
    """One token per word; words whose sentence index is in `sure` are certain, others spread
    over eight equal alternatives (3 bits)."""
    tokens, offsets, lps, tops = [], [], [], []
    sentence = 0
    for m in __import__("re").finditer(r"\S+\s*", text):
        confident = sentence in sure
        tokens.append(m.group(0))
        offsets.append(m.start())
        lps.append(lp(0.99) if confident else lp(0.125))
        tops.append({"a": lp(0.99)} if confident else {c: lp(0.125) for c in "abcdefgh"})
        if m.group(0).rstrip().endswith("."):
            sentence += 1
    tops[0] = None
    lps[0] = None
    return {"tokens": tokens, "text_offset": offsets, "token_logprobs": lps, "top_logprobs": tops}


def test_token_entropy_from_top_alternatives_with_the_missing_mass_as_one_bucket():
    assert entropy.token_entropy(lp(0.25), {"a": lp(0.25), "b": lp(0.25), "c": lp(0.25), "d": lp(0.25)}) == \
        pytest.approx(2.0)
    assert entropy.token_entropy(lp(0.5), [{"token": "a", "logprob": lp(0.5)}]) == pytest.approx(1.0)
    assert entropy.token_entropy(lp(0.5), None) == pytest.approx(1.0)
    assert entropy.token_entropy(None, None) is None


def test_a_high_entropy_sentence_with_a_factual_claim_is_flagged_and_one_without_is_not():
    text = ("Clouds float in the sky. In 1783 Pierre Nuage proved that clouds weigh one kilogram. "
            "Look up and enjoy them. Rain falls from clouds.")
    # sentence 0 sure, 1 unsure with a claim, 2 unsure without a claim, 3 sure
    result = entropy.lesson_entropy(text, echo_of(text, sure={0, 3}))
    bits = [s["bits"] for s in result["sentences"]]
    assert bits[0] < 0.2 and bits[1] == pytest.approx(3.0) and bits[2] == pytest.approx(3.0)
    assert [f["sentence"] for f in result["flags"]] == ["In 1783 Pierre Nuage proved that clouds weigh one kilogram."]
    assert result["threshold"] == pytest.approx(max(entropy.HIGH_BITS, (bits[0] + bits[1]) / 2 + 1), abs=1e-3)


def test_when_everything_is_uncertain_only_the_outliers_are_flagged():
    text = "Rain fell in 1990. Snow fell in 1991. Hail fell in 1992."
    data = echo_of(text, sure=set())
    result = entropy.lesson_entropy(text, data)
    assert result["flags"] == []                  # all at 3 bits: the median + 1 bit threshold is 4 bits
    assert result["threshold"] == pytest.approx(4.0)


def test_tokens_past_the_text_are_ignored_and_no_logprobs_give_no_entropy():
    text = "Rain falls in 1990."
    data = echo_of(text + " Extra.", sure=set())
    assert [s["tokens"] for s in entropy.lesson_entropy(text, data)["sentences"]] == [3]   # first token has none
    assert entropy.per_sentence(sections.sentences(text), []) [0].bits is None


def test_the_judges_confidence_is_the_share_of_its_sentences_under_the_threshold():
    raw = '{"reasoning": "The facts are right. The hook might be weak here.", "score": 0.8}'
    logprobs, pos = [], 0
    unsure_from = raw.index("The hook")
    for ch in raw:
        uncertain = unsure_from <= pos < raw.index('", "score"')
        logprobs.append({"token": ch, "logprob": lp(0.25) if uncertain else lp(0.99),
                         "top_logprobs": [{"token": c, "logprob": lp(0.25)} for c in "abcd"] if uncertain
                         else [{"token": ch, "logprob": lp(0.99)}]})
        pos += 1
    out = entropy.judge_confidence(raw, logprobs)
    assert out["confidence"] == 0.5 and [u["sentence"] for u in out["unsure"]] == ["The hook might be weak here."]
    assert entropy.judge_confidence(raw, None) == {"confidence": None, "unsure": []}
