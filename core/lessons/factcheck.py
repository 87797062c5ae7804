"""Conditional retrieval (seed 001): only the sentences the entropy check flagged are checked
against the source material the teacher attached, so a safe lesson costs no fact-checking call.
A flagged sentence the sources contradict is a critical factual flag (full teacher review)."""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, Field

from core.agents.common import bounded_text, truncate
from core.errors import LLMConfigFault, LLMError
from core.language.interface import Message, N_, message_of
from core.lessons.judge import LessonJob, Spend
from core.lessons.roles import FACTCHECK

VERDICTS = {"supported": N_("supported"), "contradicted": N_("contradicted"),   # a flag's, shown with t()
            "not_in_sources": N_("not in the sources"), "unchecked": N_("unchecked")}

MAX_SENTENCES = 12


class Check(BaseModel):
    sentence: int
    verdict: Literal["supported", "contradicted", "not_in_sources"]
    evidence: bounded_text(300) = ""


class FactCheckOut(BaseModel):
    checks: Annotated[list[Check], AfterValidator(truncate(MAX_SENTENCES))] = Field(default_factory=list)


def check(llm, job: LessonJob, flags: list[dict]) -> tuple[list[dict], Spend, str]:
    """(the flags with a `verdict` and `evidence` each, what it cost, a note). Without sources
    or flags nothing is called; a failed call leaves the flags unchecked with the reason."""
    spend = Spend()
    if not flags:
        return [], spend, ""
    if not job.spec.sources.strip():
        return ([{**f, "verdict": "unchecked", "evidence": ""} for f in flags], spend,
                Message("No source material is attached: check the flagged sentences by hand."))
    todo = flags[:MAX_SENTENCES]
    prompt = FACTCHECK.prompt.load()
    msgs = prompt.render(sources=job.spec.sources,
                         sentences="\n".join(f"{i}. {f['sentence']}" for i, f in enumerate(todo, 1)))
    try:
        resp = llm.complete(msgs, FactCheckOut, role=FACTCHECK.name, ctx=job.ctx(FACTCHECK.name, prompt),
                            temperature=0.0)
    except LLMConfigFault:
        raise
    except LLMError as exc:
        spend.add(exc=exc)
        return ([{**f, "verdict": "unchecked", "evidence": ""} for f in flags], spend,
                Message("The fact check failed ({error}); check the flagged sentences by hand.", error=message_of(exc)))
    spend.add(resp)
    by_no = {c.sentence: c for c in resp.data.checks}
    out = []
    for i, f in enumerate(flags, 1):
        c = by_no.get(i)
        out.append({**f, "verdict": c.verdict if c else "unchecked", "evidence": c.evidence if c else ""})
    return out, spend, ""


def critical(checked: list[dict]) -> list[str]:
    """The contradicted sentences, each a critical factual flag (the sentence and the evidence are the
    lesson's and the fact checker's words)."""
    return [Message("\"{sentence}\" is contradicted by the sources ({evidence})", sentence=f["sentence"],
                    evidence=f["evidence"].rstrip(" ()")) if f["evidence"].rstrip(" ()") else
            Message("\"{sentence}\" is contradicted by the sources", sentence=f["sentence"])
            for f in checked if f.get("verdict") == "contradicted"]
