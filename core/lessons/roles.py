"""The lesson review's roles, listed once (kept apart from core.agents.registry, which is the
reflection pipeline's). A role's name is its prompt file, its call-log agent and its settings
key: `FAIRMARK_MODEL_<NAME>` picks its model, like any agent role.

The judge has three seats (CLEV: a first judge, a second from another model family, a third
when those two disagree); each seat's model is `FAIRMARK_MODEL_LESSON_JUDGE`, `..._JUDGE_2`,
`..._JUDGE_3`. Seats that resolve to the same model are one judge. The judge is never the model
(or model family) that wrote the lesson: self-preference bias (seed 001: +10 % GPT-4, +25 % Claude).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from core import prompts


@dataclass(frozen=True)
class LessonRole:
    name: str
    label: str
    duty: str
    prompt: prompts.Spec


JUDGE = LessonRole("lesson_judge", "Lesson judge", "scores the lesson on the weighted rubric and lists issues",
                   prompts.Spec("lesson_judge", frozenset({"rubric", "target_grade", "title", "audience", "archetype",
                                                           "objectives", "sections", "stage1", "lesson"})))
FIXER = LessonRole("lesson_fixer", "Lesson fixer", "rewrites only the failing section",
                   prompts.Spec("lesson_fixer", frozenset({"dimension", "target_grade", "title", "objectives",
                                                           "critique", "before", "section", "after"})))
FACTCHECK = LessonRole("lesson_factcheck", "Fact check", "checks flagged sentences against the sources",
                       prompts.Spec("lesson_factcheck", frozenset({"sources", "sentences"})))
ROLES = (JUDGE, FIXER, FACTCHECK)
JUDGE_SEATS = ("lesson_judge", "lesson_judge_2", "lesson_judge_3")
LOGPROBS_AGENT = "lesson_logprobs"     # the echo call's agent name in the call log


def prompt_hashes() -> dict[str, str]:
    return {r.name: r.prompt.load().hash for r in ROLES}


def family(model: str) -> str:
    """A model's family, from its name: the provider path is dropped and the leading letters
    kept ("openai/gpt-4o-mini" -> "gpt", "claude-3-haiku" -> "claude", "qwen3-235b" -> "qwen").
    Names are the only evidence available; an alias that hides the family defeats it.

    >>> [family(m) for m in ("gpt-4o-mini", "openai/gpt-4.1", "claude-3-haiku", "Qwen3-235B", "deepseek-chat")]
    ['gpt', 'gpt', 'claude', 'qwen', 'deepseek']
    """
    name = model.strip().lower().rsplit("/", 1)[-1]
    m = re.match(r"[a-z]+", name)
    return m.group(0) if m else name


@dataclass(frozen=True)
class JudgeModel:
    """One judge: the model alias its votes carry, the LLM that reaches it, and the role (seat)
    the call is made under (the LLM picks the model by role)."""
    name: str
    llm: object
    role: str = JUDGE.name


def panel(llm, *, generated_by: str = "", judges: list[JudgeModel] | None = None) -> tuple[list[JudgeModel], list[str]]:
    """The judges for one lesson, in seat order, and notes on who was left out and why.

    Default: one LLM, a judge per seat with the seat's configured model; duplicates collapse.
    Issue 14's per-judge endpoints plug in as `judges` (each with its own LLM)."""
    if judges is None:
        judges = [JudgeModel(llm.model_for(seat), llm, seat) for seat in JUDGE_SEATS]
    notes, kept, seen = [], [], set()
    for j in judges:
        if j.name in seen:
            continue
        seen.add(j.name)
        if generated_by and (j.name == generated_by or family(j.name) == family(generated_by)):
            notes.append(f"{j.name} was not asked: it is of the same model family as the lesson's writer "
                         f"({generated_by}).")
            continue
        kept.append(j)
    if len(kept) > 1 and family(kept[0].name) == family(kept[1].name):
        notes.append(f"the second judge ({kept[1].name}) is of the same family as the first: CLEV wants "
                     "different families (set FAIRMARK_MODEL_LESSON_JUDGE_2).")
    return kept, notes
