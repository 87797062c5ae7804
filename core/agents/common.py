"""What every agent shares: the job it works on, the call, and compact JSON for prompt data."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from core import injection, language, leakage, prompts
from core.llm.protocol import CallContext, LLMResponse
from core.rubric import Rubric

_SUBMISSION_TAG = "submission"
LANGUAGE_SLOT = "language"     # the placeholder every reflection role's prompt has (call() fills it)


@dataclass(frozen=True)
class Ids:
    """Which run and submission a call belongs to (for the call log)."""
    run_id: int | None = None
    submission_id: int | None = None


@dataclass
class Job:
    """One submission's assessment as the agents see it: the rubric, the assignment, the
    student's text (already pseudonymised) and what the agents before them produced.

    `outputs` holds each role's answer (role -> dict) as the pipeline goes; `comment`, `checks`
    and `fixes` are the comment under review in the Reviewer/Reviser loop."""
    rubric: Rubric
    assignment: dict            # title, prompt, key_concepts, target_grade
    text: str
    ids: Ids = field(default_factory=Ids)
    outputs: dict = field(default_factory=dict)
    scores: dict = field(default_factory=dict)
    comment: str = ""
    checks: list = field(default_factory=list)
    fixes: list = field(default_factory=list)
    prompt_dir: Path | None = None      # a variant folder of prompts (core.evals.config), or the usual ones
    # The student's previous released comment in this course, masked like the text, with the
    # teacher's marks (core.growth.learning.last_week: week, comment, acted, acted_before); None: none.
    previous: dict | None = None
    # The comment bank's comments tied to a criterion and level ({criterion, level, text}, masked
    # like the text; core.courses.comment_bank): the Aggregator's style examples are picked here.
    bank: list = field(default_factory=list)
    # The course's language (core.language code): the reflection's and the feedback's.
    language: str = "en"

    @property
    def target_grade(self) -> float:
        return float(self.assignment.get("target_grade") or 10)

    @property
    def key_concepts(self) -> list[str]:
        return list(self.assignment.get("key_concepts") or [])

    @property
    def answer_key(self) -> leakage.AnswerKey | None:
        return leakage.key_of(self.assignment)

    @property
    def source(self) -> str:
        """The assignment's source or lesson text (what the feedback may draw on besides the
        student's own text)."""
        return str(self.assignment.get("source_text") or "")


def compact(obj) -> str:
    """JSON without spaces: every token in a prompt costs money."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def as_data(text: str, tag: str = _SUBMISSION_TAG) -> str:
    """Student text as data: remove anything that could close or open the delimiter.

    Prompt.render strips every prompt delimiter from every value anyway (prompts.DELIMITERS);
    this keeps the submission's own tag out even when the text is used outside a prompt."""
    return prompts.strip_delimiters(text or "", (tag,)).strip()


def call(llm, prompt: prompts.Spec, schema, job: Job, *, inputs: dict, temperature: float | None = None,
         role: str | None = None, tier: int | None = None, sample: int = 0, hash_extra: str = "",
         **values) -> LLMResponse:
    """Render the role's prompt with `values` and ask the LLM for `schema`.

    `inputs` are the same facts in structured form (rubric, text, the Evaluator's output, ...):
    the offline baseline answers from them instead of parsing the prompt back. The judge
    cascade (core.judging.scoring) asks with the same prompt under another `role` (a judge's,
    whose model and endpoint the LLM routes to), names the `tier`, and numbers `sample`s.
    `hash_extra` is prompt content that varies per assignment (the Evaluator's teacher-scored
    examples): it is folded into the prompt hash the call is logged and cached under."""
    loaded = prompt.load_variant(job.prompt_dir)
    ctx = CallContext(agent=prompt.name, prompt_name=loaded.name,
                      prompt_hash=prompts.variant_hash(loaded.hash, hash_extra),
                      run_id=job.ids.run_id, submission_id=job.ids.submission_id,
                      inputs={**inputs, "language": job.language}, tier=tier, sample=sample)
    if LANGUAGE_SLOT in prompt.variables and LANGUAGE_SLOT not in values:
        # The course's language, in one place for every role (core.language.prompt_line).
        values = {**values, LANGUAGE_SLOT: language.prompt_line(job.language)}
    return llm.complete(loaded.render(**values), schema, role=role or prompt.name, ctx=ctx, temperature=temperature)


SOURCE_CHARS = 6000   # of the source text in a prompt: the part a comment can draw on, at a bounded cost


def source_text(job: Job) -> str:
    """The assignment's source for a prompt (cut at SOURCE_CHARS), or a clear "none"."""
    text = job.source.strip()
    return text[:SOURCE_CHARS] if text else "(no source text: only the student's text counts)"


def answer_key_text(key) -> str:
    """The answer key as a prompt states it (the Aggregator must not reveal it; judges check)."""
    if key is None:
        return "(no answer key)"
    if key.kind == "number":
        return f"{key.value} (a number; anything within {key.tolerance * 100:g} % of it counts as the answer)"
    return key.value


NO_PREVIOUS = "(none: this student has no earlier released feedback in this course)"
_ACTS = {"yes": "acts on", "partly": "partly acts on", "no": "does not act on"}
_ACTED = {"yes": "acted on", "partly": "partly acted on", "no": "did not act on"}


# Where a comment's numbered next steps start: "(1)" as the Aggregator writes them, or "1." / "1)".
_FIRST_STEP = re.compile(r"\(1\)|(?:^|\s)1[.)]\s")


def next_steps_part(comment: str) -> str:
    """The comment from its first numbered step on (the steps and the closing question): what a
    follow-up refers to. Its opening strengths are left out (about 40 % of a comment's tokens, on
    two calls per reflection); a comment without numbered steps is kept whole.

    >>> next_steps_part("You explain it well. Next: (1) add an example, (2) proofread. What next?")
    '(1) add an example, (2) proofread. What next?'
    >>> next_steps_part("You explain it well; add an example.")
    'You explain it well; add an example.'
    """
    m = _FIRST_STEP.search(comment or "")
    return comment[m.start():].strip() if m else (comment or "").strip()


def previous_text(job: Job) -> str:
    """Last week's released comment for the Coach's and the Aggregator's <previous> slot (data:
    it quotes the student), its next steps when it numbers them, or a plain "none", so that no
    agent invents history."""
    prev = job.previous
    if not prev:
        return NO_PREVIOUS
    steps = next_steps_part(prev["comment"])
    what = "the next steps it gave" if steps != (prev["comment"] or "").strip() else "its feedback"
    return f"Week {prev['week']}, {what}: {steps}"


BANK_EXAMPLES = 3     # bank comments the Aggregator is given as style examples
NO_BANK = "(none: no bank comment for these criteria and levels)"


def pick_examples(candidates: list[dict], scores: dict, limit: int = BANK_EXAMPLES) -> list[str]:
    """Up to `limit` texts tied to one of the item's (criterion, score) pairs, in the candidates'
    order, one per criterion first so that the examples cover several criteria.

    >>> bank = [{"criterion": "a", "level": 2, "text": "A2"}, {"criterion": "a", "level": 2, "text": "A2b"},
    ...         {"criterion": "b", "level": 1, "text": "B1"}, {"criterion": "b", "level": 3, "text": "B3"}]
    >>> pick_examples(bank, {"a": 2, "b": 1})
    ['A2', 'B1', 'A2b']
    """
    fits = [c for c in candidates if scores.get(c["criterion"]) == c["level"]]
    first, seen = [], set()
    for c in fits:
        if c["criterion"] not in seen:
            seen.add(c["criterion"])
            first.append(c)
    rest = [c for c in fits if c not in first]
    return [c["text"] for c in (first + rest)[:limit]]


def bank_examples(job: Job) -> list[str]:
    """The bank comments for the item's criteria and the levels it scored (at most BANK_EXAMPLES)."""
    return pick_examples(job.bank, job.scores)


def bank_text(job: Job) -> str:
    """The Aggregator's <bank> slot for the item."""
    return bank_slot(bank_examples(job))


def bank_slot(examples: list[str]) -> str:
    """The <bank> slot's text: one example a line, or a plain "none" (the run estimate counts it)."""
    return "\n".join(f"- {t}" for t in examples) if examples else NO_BANK


def longest_examples(candidates: list[dict], limit: int = BANK_EXAMPLES) -> list[str]:
    """The longest texts `pick_examples` could give whatever the scores: the run estimate's bound,
    since which examples an item gets depends on the scores the run is about to give.

    >>> longest_examples([{"text": "A"}, {"text": "Bbb"}, {"text": "Cc"}], limit=2)
    ['Bbb', 'Cc']
    """
    return sorted((c["text"] for c in candidates), key=len, reverse=True)[:limit]


def follow_up_text(job: Job) -> str:
    """The teacher's marks about that comment, in fixed words outside the data block (a comment
    quoting a student cannot forge them): does this reflection act on its next step; did last
    week's reflection act on the feedback before it."""
    prev = job.previous
    if not prev:
        return "No earlier feedback: say nothing about last week."
    text = (f"The teacher marked that this reflection {_ACTS[prev['acted']]} its next step."
            if prev.get("acted") in _ACTS else "Not marked by the teacher: judge from the evidence.")
    if prev.get("acted_before") in _ACTED:
        text += f" Last week's reflection {_ACTED[prev['acted_before']]} the feedback before it (teacher's mark)."
    return text


def scale_text(rubric) -> str:
    return f"integer scores {rubric.scale_min}-{rubric.scale_max}"


def bounded_text(max_chars: int, *, min_chars: int = 0, cut: bool = True):
    """A string bounded in the JSON schema (maxLength), so grammar-constrained servers stop a
    small model from rambling into its token limit. With `cut`, a longer answer from a server
    that does not enforce the bound is shortened instead of re-asked (not worth a call)."""
    field_ = Field(min_length=min_chars, json_schema_extra={"maxLength": max_chars}) if min_chars else \
        Field(json_schema_extra={"maxLength": max_chars})
    if cut:
        return Annotated[str, field_, AfterValidator(lambda v: v[:max_chars])]
    return Annotated[str, field_]


def truncate(limit: int):
    """A validator that keeps the first `limit` items: extra items are not worth a re-ask."""
    def _cut(v):
        return v[:limit]
    return _cut


def text_blocks(output: dict) -> list[tuple[str, str]]:
    """The default way the review item shows a role's output: one plain-text block per field.
    Blocks are (kind, text) with kind "heading" | "text" | "warning"; pages render them as
    plain text, never as Markdown or HTML."""
    blocks: list[tuple[str, str]] = []
    for key, value in (output or {}).items():
        blocks.append(("heading", key.replace("_", " ").capitalize()))
        if isinstance(value, (dict, list)):
            blocks.append(("text", json.dumps(value, ensure_ascii=False, indent=2)))
        else:
            blocks.append(("text", str(value)))
    return blocks


# Shared by several roles: one role never imports another (they meet here).
class Comment(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # Bounded in the schema only (about 150 words): a longer comment is not cut but caught by
    # the word-count check and revised.
    comment: bounded_text(1000, min_chars=1, cut=False)


def evaluation_notes(rubric: Rubric, evaluation: dict, fields: tuple[str, ...] | None = None) -> str:
    """Per criterion: title, score, reasoning, areas and evidence quote (compact JSON); only
    `fields` of each when given. Read by the Aggregator, the Coach and the Reviewer (seed 000)."""
    return compact({key: {"title": rubric.criterion(key).title,
                          **{f: v for f, v in evaluation[key].items() if fields is None or f in fields}}
                    for key in rubric.keys if key in evaluation})


def scores_text(rubric: Rubric, scores: dict[str, int]) -> str:
    return compact({rubric.criterion(k).title: v for k, v in scores.items()})


def criteria(evaluation: dict) -> dict:
    """The per-criterion part of an Evaluator answer (without its report on instructions)."""
    return {key: item for key, item in evaluation.items() if key != injection.REPORT_FIELD}


def for_equity(evaluation: dict) -> str:
    """The Evaluator's notes without the evidence quotes: the Equity Monitor never sees the
    student's words (the seed's rule against anchoring)."""
    return compact({key: {"score": item["score"], "reasoning": item["reasoning"],
                          "areas_for_improvement": item["areas_for_improvement"]}
                    for key, item in criteria(evaluation).items()})
