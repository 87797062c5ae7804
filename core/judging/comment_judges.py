"""The grounding and the pedagogy judges of the comment, asked in one call.

Both read the same submission and the same comment: asked together, the two pay for them, and
for a prompt's framing, once instead of twice (bench.tokens measures what it saves). Each verdict
stays its own: the call's schema nests each role's own (reasoning before the verdict), and each
verdict is stored under its role (drafts.outputs["grounding"], ["pedagogy"]) and read by that
role's `passed` / `attention` / `describe`, as when it is asked alone.

Asked together only when both roles would be asked the same model (core.settings.Settings.model_for,
where the family rule of core.judging.judges chooses it: never the writer's family while another
is configured), at the judges' temperature, and when a prompt variant (core.evals.config) does
not change one of the two prompts alone; otherwise each role asks with its own prompt file.
prompts/comment_judges.md states each judge's rules exactly as its own file does
(tests/test_comment_judges.py checks it).
"""
from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from core import prompts
from core.agents import grounding, pedagogy
from core.agents.common import Job, answer_key_text, as_data, call, source_text
from core.judging import judges

PROMPT = prompts.Spec("comment_judges", frozenset({"language", "source", "question", "answer_key", "target_grade", "submission",
                                                   "comment"}))
ROLES = ("grounding", "pedagogy")
TEMPERATURE = judges.TEMPERATURE


class CommentVerdicts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    grounding: grounding.GroundingVerdict
    pedagogy: pedagogy.PedagogyVerdict


def together(llm, job: Job, names) -> bool:
    """Whether the roles `names` about to judge this comment include both judges and they can be
    asked in one call: the same model for both, and no variant folder that changes one of their
    prompts without the joint one."""
    if not set(ROLES) <= set(names) or len({llm.model_for(r) for r in ROLES}) != 1:
        return False
    folder = Path(job.prompt_dir) if job.prompt_dir is not None else None
    own = folder is not None and any((folder / f"{r}.md").exists() for r in ROLES)
    return not own or (folder / f"{PROMPT.name}.md").exists()


def run(llm, job: Job):
    """One call; its answer is a CommentVerdicts (`split` gives each role's verdict). It is routed
    as the grounding judge's call: the same model as the pedagogy judge's (`together`)."""
    return call(llm, PROMPT, CommentVerdicts, job, role=ROLES[0], temperature=TEMPERATURE,
                inputs={"text": job.text, "source": job.source, "comment": job.comment,
                        "question": job.assignment.get("prompt") or ""},
                source=source_text(job), question=pedagogy.question_text(job),
                answer_key=answer_key_text(job.answer_key), target_grade=f"{job.target_grade:g}",
                submission=as_data(job.text), comment=job.comment)


def split(data: CommentVerdicts) -> dict[str, dict]:
    """Each role's verdict, as that role's own call would have stored it."""
    return {name: getattr(data, name).model_dump() for name in ROLES}


def verdicts(llm, job: Job, role) -> dict[str, dict]:
    """The verdict of one judge role of the comment, asked as the pipeline asks it: in one call
    with the other judge when `together` (both verdicts come back), else alone."""
    if role.name in ROLES and together(llm, job, ROLES):
        return split(run(llm, job).data)
    return {role.name: role.run(llm, job).data.model_dump()}
