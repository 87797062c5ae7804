"""Reflexion Reviewer: the comment against the scores and the checks; CONFIDENT or REVISE."""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from core.agents.common import Ids, bounded_text, call, compact, scale_text, truncate
from core.rubric import Rubric

ROLE = "reviewer"


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    verdict: Literal["CONFIDENT", "REVISE"]
    fixes: Annotated[list[bounded_text(300)], Field(json_schema_extra={"maxItems": 5}), AfterValidator(truncate(5))]
    explanation: bounded_text(500)


def scores_text(rubric: Rubric, scores: dict[str, int]) -> str:
    return compact({rubric.criterion(k).title: v for k, v in scores.items()})


def checks_text(checks: list[dict]) -> str:
    """Only the checks that did not pass (label, severity, detail): fewer tokens."""
    bad = [{"check": c["label"], "severity": c["severity"], "detail": c["detail"]} for c in checks if not c["passed"]]
    return compact(bad) if bad else "all checks passed"


def run(llm, *, rubric: Rubric, scores: dict[str, int], comment: str, checks: list[dict], ids: Ids = Ids()):
    return call(llm, ROLE, Verdict, ids, scale=scale_text(rubric), scores=scores_text(rubric, scores),
                comment=comment, checks=checks_text(checks))
