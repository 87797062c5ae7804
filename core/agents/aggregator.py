"""Aggregator: the student-facing comment from the Evaluator's notes, the Equity Monitor's
rewrites and the Coach's questions (<= 120 words, strengths first, 2-3 actions)."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from core.agents.common import Ids, bounded_text, call, compact, scale_text
from core.rubric import Rubric

ROLE = "aggregator"


class Comment(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # Bounded in the schema only (about 150 words): a longer comment is not cut but caught by
    # the word-count check and revised.
    comment: bounded_text(1000, min_chars=1, cut=False)


def evaluation_notes(rubric: Rubric, evaluation: dict) -> str:
    """Per criterion: title, score, reasoning, areas and evidence quote (compact JSON)."""
    return compact({key: {"title": rubric.criterion(key).title, **evaluation[key]} for key in rubric.keys})


def run(llm, *, rubric: Rubric, evaluation: dict, equity: dict, questions: list[str],
        target_grade: float, ids: Ids = Ids()):
    return call(llm, ROLE, Comment, ids, target_grade=f"{target_grade:g}", scale=scale_text(rubric),
                evaluation=evaluation_notes(rubric, evaluation), equity=compact(equity.get("flags", [])),
                questions=compact(questions))
