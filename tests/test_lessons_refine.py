"""Targeted refinement: only the failing section changes, at most 2 rounds, a stop when the gain
is under 3 %, a fix that made things worse is discarded, and the section is chosen from the
judge's quotes, locations, or where such problems usually sit."""
import pytest

from core.errors import LLMInvalidOutput
from core.judging.cascade import Vote
from core.lessons import refine, rubric, sections
from core.lessons.judge import Judgment, Spend
from lesson_helpers import LESSON, issue, verdict
from core.lessons.spec import split_front_matter

TEXT = split_front_matter(LESSON.decode())[1]


def judgment(f=0.9, p=0.9, c=0.9, e=0.9, issues=()) -> Judgment:
    answer = {"judge": "j", "tier": 1, "verdict": verdict(f, p, c, e, issues), "confidence": None, "unsure": []}
    scores = {"factual_integrity": f, "pedagogical_alignment": p, "clarity_structure": c, "engagement_tone": e}
    return Judgment(scores, rubric.weigh(scores), [Vote("j", 1, scores, answer=answer)], 1, [],
                    spend=Spend(1, 100, 20, 0.001))


class Script:
    """A fixer that writes a numbered version of the section, and a judge whose engagement score
    comes from a list, one per re-judgment."""

    def __init__(self, engagement: list[float], **base):
        self.engagement = list(engagement)
        self.base = base
        self.fixed: list[tuple[str, str]] = []
        self.judged: list[str] = []

    def fix(self, text, section, dimension, critique):
        self.fixed.append((section.name, dimension))
        return f"Rewritten opening number {len(self.fixed)}: imagine a puddle that vanishes.", "new hook", Spend(1, 80, 40)

    def rejudge(self, text):
        self.judged.append(text)
        return judgment(**self.base, e=self.engagement.pop(0))


def run(first, script, **kw):
    return refine.refine(TEXT, first, rejudge=script.rejudge, fix=script.fix, **kw)


def test_a_passing_lesson_is_not_touched():
    script = Script([])
    assert run(judgment(), script) == [] and script.fixed == []


def test_only_the_failing_section_changes_and_the_rest_is_byte_for_byte_the_same():
    script = Script([0.9])
    rounds = run(judgment(e=0.1), script)            # 0.72 < 0.75: fix engagement -> the introduction
    assert [(r.round, r.dimension, r.section, r.kept) for r in rounds] == [(1, "engagement_tone", "The water cycle", True)]
    before, after = sections.split(TEXT), sections.split(rounds[0].text_after)
    assert after[0].body.startswith("Rewritten opening number 1")
    assert [s.body for s in after[1:]] == [s.body for s in before[1:]]
    assert [s.title for s in after] == [s.title for s in before]
    text, final = refine.final(TEXT, judgment(e=0.1), rounds)
    assert text == rounds[0].text_after and final.weighed.passed


def test_at_most_two_rounds():
    script = Script([0.4, 0.6, 0.8], f=0.7, p=0.6)   # +0.06, +0.04 on the weighted score; still failing
    rounds = run(judgment(f=0.7, p=0.6, e=0.1), script)
    assert len(rounds) == 2 and len(script.fixed) == 2 and all(r.kept for r in rounds)
    assert rounds[1].before == rounds[0].after       # round 2 works on round 1's version
    assert not rounds[-1].judgment.weighed.passed and script.engagement == [0.8]   # no third round


def test_the_loop_stops_when_the_gain_is_under_three_percent():
    script = Script([0.2, 0.9], f=0.7, p=0.6)
    rounds = run(judgment(f=0.7, p=0.6, e=0.1), script)     # 0.1 -> 0.2: +0.02 on the weighted score
    assert len(rounds) == 1 and rounds[0].gain == pytest.approx(0.02) and "diminishing returns" in rounds[0].note
    assert script.engagement == [0.9]                 # no second round was judged


def test_a_fix_that_lowers_the_score_is_discarded_and_the_text_stays():
    script = Script([0.05])
    first = judgment(e=0.1)
    rounds = run(first, script)
    assert len(rounds) == 1 and not rounds[0].kept and "discarded" in rounds[0].note
    assert refine.final(TEXT, first, rounds) == (TEXT, first)


def test_a_failing_fixer_ends_the_loop_with_the_reason():
    def broken(*a):
        raise LLMInvalidOutput("bad JSON")
    rounds = refine.refine(TEXT, judgment(e=0.1), rejudge=lambda t: pytest.fail("no re-judge"), fix=broken)
    assert len(rounds) == 1 and not rounds[0].kept and "the fixer failed" in rounds[0].note


def test_the_section_comes_from_the_quote_then_the_location_then_the_dimensions_usual_place():
    quoted = judgment(p=0.4, issues=[issue("pedagogical_alignment", "Millions of these drops crowd together")])
    assert refine.target_section(TEXT, quoted, "pedagogical_alignment").name == "Condensation"
    located = judgment(p=0.4, issues=[issue("pedagogical_alignment", "not in the text", location="Evaporation")])
    assert refine.target_section(TEXT, located, "pedagogical_alignment").name == "Evaporation"
    assert refine.target_section(TEXT, judgment(), "engagement_tone").name == "The water cycle"
    assert refine.target_section(TEXT, judgment(), "clarity_structure").name == "Summary"
    assert refine.target_section(TEXT, judgment(), "factual_integrity").name in ("Evaporation", "Condensation")
