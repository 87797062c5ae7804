"""Targeted self-refinement (seed 001): when the judged lesson fails (a veto, or a weighted
score under 0.75), a fixer rewrites ONLY the section behind the weakest dimension, with the
paragraphs before and after it as context, and the panel judges the lesson again.

At most MAX_ROUNDS rounds; the loop stops as soon as a round gains less than MIN_GAIN (0.03 on
the 0-1 scale: diminishing returns, or a fix that made things worse). A round whose re-judged
score did not rise is kept on record as "discarded" and the next round starts from the text
before it. Fixes are proposals: the lesson's text changes only when a teacher accepts them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from pydantic import BaseModel

from core.agents.common import bounded_text
from core.errors import LLMConfigFault, LLMError
from core.language.interface import Message, message_of, stored
from core.lessons import rubric, sections
from core.lessons.judge import Judgment, LessonJob, Spend, objectives_text
from core.lessons.roles import FIXER

MAX_ROUNDS = 2
MIN_GAIN = 0.03


class FixOut(BaseModel):
    text: bounded_text(6000, min_chars=1, cut=False)
    summary: bounded_text(300) = ""


@dataclass
class Round:
    round: int
    dimension: str
    section: str
    before: str
    after: str
    critique: str
    score_before: float
    score_after: float | None
    kept: bool
    summary: str = ""
    judgment: Judgment | None = None
    spend: Spend = field(default_factory=Spend)
    note: str = ""                # why the round stopped or was discarded (a Message)
    text_after: str = ""          # the whole lesson with this fix applied

    @property
    def gain(self) -> float | None:
        return None if self.score_after is None else round(self.score_after - self.score_before, 3)

    def record(self) -> dict:
        return {"round": self.round, "dimension": self.dimension, "section": self.section,
                "score_before": self.score_before, "score_after": self.score_after, "gain": self.gain,
                "kept": self.kept, "summary": self.summary, "note": self.note, "note_said": stored(self.note),
                "spend": vars(self.spend),
                "judgment": self.judgment.record() if self.judgment else None}


def target_section(text: str, judgment: Judgment, dimension: str) -> sections.Section:
    """The section to rewrite: where the most severe issue of that dimension quotes the text
    (or names its location); otherwise where such problems usually sit (the hook is in the
    introduction, a missing wrap-up at the end, the rest in the body)."""
    parts = sections.split(text)
    low = text.lower()
    for issue in (i for i in judgment.issues() if i["dimension"] == dimension):
        quote = issue["quote"].strip().lower()
        at = low.find(quote) if quote else -1
        if at >= 0:
            return next((s for s in parts if s.start <= at < max(s.end, s.start + 1)), parts[0])
        named = [s for s in parts if s.title and s.title.lower() in issue["location"].lower()]
        if named:
            return named[0]
    hint = rubric.BY_KEY[dimension].section_hint
    if hint == "introduction" or len(parts) < 3:
        return parts[0] if hint != "conclusion" else parts[-1]
    if hint == "conclusion":
        return parts[-1]
    return max(parts[1:-1], key=lambda s: len(s.body))


def fixer(llm, job: LessonJob) -> Callable[[str, sections.Section, str, str], tuple[str, str, Spend]]:
    """The fixer as the loop calls it: (text, section, dimension, critique) -> (new body,
    summary, spend)."""
    prompt = FIXER.prompt.load()

    def fix(text: str, section: sections.Section, dimension: str, critique: str) -> tuple[str, str, Spend]:
        parts = sections.split(text)
        before = parts[section.index - 1].body if section.index > 0 else "(this is the first section)"
        after = parts[section.index + 1].body if section.index + 1 < len(parts) else "(this is the last section)"
        spend = Spend()
        msgs = prompt.render(dimension=rubric.BY_KEY[dimension].label.lower(),
                             target_grade=f"{job.spec.target_grade:g}", title=job.title,
                             objectives=objectives_text(job.spec), critique=critique or "- (no details given)",
                             before=before, section=section.body, after=after)
        try:
            resp = llm.complete(msgs, FixOut, role=FIXER.name, ctx=job.ctx(FIXER.name, prompt), temperature=0.2)
        except LLMConfigFault:
            raise
        except LLMError as exc:
            spend.add(exc=exc)
            raise
        spend.add(resp)
        return resp.data.text, resp.data.summary, spend

    return fix


def refine(text: str, first: Judgment, *, rejudge: Callable[[str], Judgment],
           fix: Callable[[str, sections.Section, str, str], tuple[str, str, Spend]],
           max_rounds: int = MAX_ROUNDS, min_gain: float = MIN_GAIN) -> list[Round]:
    """The rounds of fixing, in order. The caller stores them; nothing here writes."""
    rounds: list[Round] = []
    current_text, current = text, first
    while len(rounds) < max_rounds and not current.weighed.passed:
        dim = rubric.weakest(current.scores)
        section = target_section(current_text, current, dim)
        critique = current.critique(dim)
        n = len(rounds) + 1
        try:
            body, summary, spend = fix(current_text, section, dim, critique)
        except LLMConfigFault:
            raise
        except LLMError as exc:
            rounds.append(Round(n, dim, section.name, section.body, section.body, critique, current.weighed.score,
                                None, False, note=Message("the fixer failed: {error}", error=message_of(exc))))
            break
        new_text = sections.replace_body(current_text, section, body)
        if new_text == current_text:
            rounds.append(Round(n, dim, section.name, section.body, section.body, critique, current.weighed.score,
                                None, False, summary, spend=spend, note=Message("the fixer returned the section unchanged")))
            break
        again = rejudge(new_text)
        spend = spend.merge(again.spend)
        r = Round(n, dim, section.name, section.body, body.strip("\n"), critique, current.weighed.score,
                  again.weighed.score, again.weighed.score > current.weighed.score, summary, again, spend,
                  text_after=new_text)
        if not r.kept:
            r.note = Message("discarded: the re-judged score did not rise")
        rounds.append(r)
        if r.kept:
            current_text, current = new_text, again
        if r.gain < min_gain:
            if r.kept:
                r.note = Message("diminishing returns: the gain {gain} is under {min_gain}", gain=f"{r.gain:+.3f}",
                                 min_gain=min_gain)
            break
    return rounds


def final(text: str, first: Judgment, rounds: list[Round]) -> tuple[str, Judgment]:
    """The text with every kept fix applied, and the judgment it was given."""
    kept = [r for r in rounds if r.kept]
    return (kept[-1].text_after, kept[-1].judgment) if kept else (text, first)
