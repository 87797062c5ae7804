"""Rubric builder: drafts criteria, level descriptors and grader guidance from a teacher's
description and, when given, 5-20 scored examples (student text, masked and delimited as data).

Not a stage of the reflection pipeline (registry stage "tool": never run on a submission). Its
answer is only a draft: core.courses.rubric_builder stores it and an instructor or admin saves
it. Quotes of the examples go to the grader guidance (markers and the Evaluator read it, students
never), not to the student-facing descriptors. Offline, `offline(inputs)` is the template of the
described shape (core.offline.rubric_templates).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from core.language.interface import N_
from core import prompts
from core.agents.common import as_data, bounded_text, compact
from core.language import DEFAULT, prompt_line
from core.llm.protocol import CallContext
from core.offline import rubric_templates

PROMPT = prompts.Spec("rubric_builder", frozenset({"description", "shape", "examples", "language"}))
IF_FAILED = N_("no rubric was drafted")
NO_EXAMPLES = "(none: draft from the description alone)"
MIN_EXAMPLES, MAX_EXAMPLES = 5, 20
EXAMPLE_CHARS = 3000    # of each example in the prompt: enough to tell the levels apart, at a bounded cost


class DraftLevel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: int
    descriptor: bounded_text(300, min_chars=1)


class DraftCriterion(BaseModel):
    model_config = ConfigDict(extra="forbid")
    key: bounded_text(40, min_chars=1, cut=False)
    title: bounded_text(80, min_chars=1)
    description: bounded_text(300) = ""
    levels: Annotated[list[DraftLevel], Field(min_length=2)]
    guidance: bounded_text(800) = ""


class RubricDraft(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: bounded_text(100, min_chars=1)
    criteria: Annotated[list[DraftCriterion], Field(min_length=1, json_schema_extra={"maxItems": 8})]


@dataclass(frozen=True)
class Request:
    """What the builder works from: the description, the shape parsed from it, and the examples
    ({text (masked), score}) already masked against the course's roster, and the course's
    language (core.language: the students read the titles and descriptors in it)."""
    description: str
    shape: rubric_templates.Shape
    examples: tuple = ()
    rubric_draft_id: int | None = None
    language: str = DEFAULT


def examples_text(examples) -> str:
    """One JSON object per line: the text stays a JSON string, so words inside it cannot pose as
    another example or another score."""
    if not examples:
        return NO_EXAMPLES
    return "\n".join(compact({"score": ex["score"], "text": as_data(ex["text"], "examples")[:EXAMPLE_CHARS]})
                     for ex in examples)


def shape_text(shape: rubric_templates.Shape) -> str:
    return (f"{shape.criteria} {'criterion' if shape.criteria == 1 else 'criteria'}, integer levels "
            f"{shape.scale_min} to {shape.scale_max} (every level of every criterion described)")


def run(llm, request: Request, *, attempt: int = 0):
    """One call for the draft; `RubricDraft` validates it (the caller checks it is a usable rubric).
    A later `attempt` is its own cache entry (the call log's sample), so asking again after an
    unusable answer is never served that answer from the cache."""
    loaded = PROMPT.load()
    inputs = {"description": request.description, "shape": request.shape, "examples": list(request.examples),
              "language": request.language}
    ctx = CallContext(agent=PROMPT.name, prompt_name=loaded.name, prompt_hash=loaded.hash, inputs=inputs,
                      rubric_draft_id=request.rubric_draft_id, sample=attempt)
    messages = loaded.render(description=request.description.strip() or "(not given)",
                             shape=shape_text(request.shape), examples=examples_text(request.examples),
                             language=prompt_line(request.language))
    return llm.complete(messages, RubricDraft, role=PROMPT.name, ctx=ctx)


def to_rubric(draft: RubricDraft | dict, shape: rubric_templates.Shape, description: str = "") -> dict:
    """The answer as a rubric definition (what parse_rubric reads)."""
    data = draft.model_dump() if isinstance(draft, BaseModel) else draft
    return {"name": data["name"].strip(), "description": description.strip()[:300],
            "scale_min": shape.scale_min, "scale_max": shape.scale_max,
            "criteria": [{"key": c["key"].strip(), "title": c["title"], "description": c.get("description", ""),
                          "levels": {int(lv["level"]): lv["descriptor"] for lv in c["levels"]},
                          "guidance": c.get("guidance", "")} for c in data["criteria"]]}


def offline(inputs: dict) -> dict:
    """The template of the described shape, in the answer's own form."""
    t = rubric_templates.template(inputs["shape"])
    return {"name": t["name"], "criteria": [
        {"key": c["key"], "title": c["title"], "description": c["description"], "guidance": c["guidance"],
         "levels": [{"level": lvl, "descriptor": text} for lvl, text in c["levels"].items()]}
        for c in t["criteria"]]}
