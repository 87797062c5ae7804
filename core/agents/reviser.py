"""Reviser: a targeted revision of the comment (the seed-001 "fix only what failed"), with the
Reviewer's fixes and the failed checks; cheaper than writing the comment again."""
from __future__ import annotations

from core.language.interface import N_
from core import checks, prompts
from core.agents.common import Comment, Job, call, compact, scores_text
from core.offline import heuristics

PROMPT = prompts.Spec("reviser", frozenset({"language", "target_grade", "scores", "comment", "fixes"}))
IF_FAILED = N_("the last comment is kept unrevised")


def fix_list(fixes: list[str], failed_checks: list[dict]) -> list[str]:
    return list(fixes) + [f"{c['label']}: {c['detail']}" for c in failed_checks]


def run(llm, job: Job):
    """`job.fixes` are the Reviewer's; `job.checks` the comment's current check results."""
    fixes = fix_list(job.fixes, checks.failed(job.checks))
    return call(llm, PROMPT, Comment, job, inputs={"comment": job.comment, "fixes": fixes},
                target_grade=f"{job.target_grade:g}", scores=scores_text(job.rubric, job.scores),
                comment=job.comment, fixes=compact(fixes))


def offline(inputs: dict) -> dict:
    return {"comment": heuristics.revise(inputs["comment"], inputs["fixes"], inputs.get("language") or "en")}
