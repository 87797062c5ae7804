"""Reviser: a targeted revision of the comment (the seed-001 "fix only what failed"), with the
Reviewer's fixes and the failed checks; cheaper than writing the comment again."""
from __future__ import annotations

from core.agents.aggregator import Comment
from core.agents.common import Ids, call, compact
from core.agents.reviewer import scores_text
from core.rubric import Rubric

ROLE = "reviser"


def fix_list(fixes: list[str], failed_checks: list[dict]) -> list[str]:
    return list(fixes) + [f"{c['label']}: {c['detail']}" for c in failed_checks]


def run(llm, *, rubric: Rubric, scores: dict[str, int], comment: str, fixes: list[str],
        failed_checks: list[dict], target_grade: float, ids: Ids = Ids()):
    return call(llm, ROLE, Comment, ids, target_grade=f"{target_grade:g}", scores=scores_text(rubric, scores),
                comment=comment, fixes=compact(fix_list(fixes, failed_checks)))
