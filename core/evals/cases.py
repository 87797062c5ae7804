"""The eval suite: versioned files in the repository, `data/evals/*.jsonl`, one case a line.

A case:
    {"id": "L1", "dimension": "leakage",
     "input": {"reflection": "...", "question": "...", "answer_key": {"kind": "number", "value": "3.0",
               "tolerance": 1}, "source": "...", "level": 8,
               "previous": "last week's released comment", "acted": "yes",   (both optional)
               "language": "sv"},      the course's language (default "en")
     "requirement": "the comment must not state the value of w after the step",
     "comment": "...",          optional: the comment to judge (tests the rules and judges);
                                without it the configured agents draft the comment (tests the AI)
     "expect": "fail",          with a given comment: whether the checks must pass it or catch it
     "checks": [{"rule": "leakage"}, {"judge": "pedagogy", "criterion": "leads", "min": 3}],
     "blocking": true,          default: leakage and grounding block, level and pedagogy do not
     "origin": "what failure this case was written from"}

Checks are rules where possible (core.evals.rules) and a judge otherwise; a case without
`checks` gets its dimension's defaults (DEFAULT_CHECKS). The suite's version is the hash of
its files, stored with every eval run.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from core.errors import ConfigError
from core.evals import BLOCKING, DIMENSIONS
from core.evals.rules import RULES
from core.language.interface import Message

SUITE_DIR = Path(__file__).resolve().parent.parent.parent / "data" / "evals"
JUDGES = ("grounding", "pedagogy")
PEDAGOGY_CRITERIA = ("leads", "level", "next_step")


class AnswerKeyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["number", "text"]
    value: str = Field(min_length=1)
    tolerance: float = Field(default=1.0, ge=0, le=50)    # percent, as on the Settings page


class CaseInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reflection: str = Field(min_length=1)
    question: str = ""
    answer_key: AnswerKeyIn | None = None
    source: str = ""
    level: float = Field(default=8, ge=1, le=18)          # the feedback's target reading grade
    key_concepts: list[str] = []
    # The student's previous released comment ("": none) and the teacher's mark of whether this
    # reflection acts on it (core.growth.learning.last_week).
    previous: str = Field(default="", max_length=2000)
    acted: Literal["yes", "partly", "no"] | None = None
    # The course's language (core.language): the reflection's, and the one the feedback is drafted in.
    language: Literal["en", "sv", "ru"] = "en"

    def last_week(self) -> dict | None:
        """The pipeline's `item["previous"]` for this input."""
        if not self.previous:
            return None
        return {"week": 1, "title": "last week", "comment": self.previous, "acted": self.acted, "acted_before": None}

    def assignment(self, title: str = "eval case") -> dict:
        """The assignment row the pipeline and the judges read."""
        key = self.answer_key
        return {"title": title, "prompt": self.question, "key_concepts": self.key_concepts,
                "target_grade": self.level, "answer_key": key.value if key else None,
                "answer_kind": key.kind if key else None,
                "answer_tolerance": key.tolerance / 100 if key else None, "source_text": self.source}


class Check(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rule: str | None = None
    judge: Literal["grounding", "pedagogy"] | None = None
    criterion: Literal["leads", "level", "next_step"] | None = None   # pedagogy: one criterion
    min: int | None = Field(default=None, ge=1, le=5)                # pedagogy: lowest score that passes
    max: float | None = None                                          # sentence_length, readability
    terms: list[str] = []                                             # no_terms

    @model_validator(mode="after")
    def _one_kind(self):
        if (self.rule is None) == (self.judge is None):
            raise ValueError("a check names either a rule or a judge")
        if self.rule is not None and self.rule not in RULES:
            raise ValueError(f"unknown rule {self.rule!r}; rules: {', '.join(RULES)}")
        return self

    @property
    def name(self) -> str:
        if self.rule:
            return f"rule:{self.rule}"
        return f"judge:{self.judge}" + (f".{self.criterion}" if self.criterion else "")


DEFAULT_CHECKS = {
    "leakage": [{"rule": "leakage"}, {"judge": "pedagogy", "criterion": "leads", "min": 3}],
    "grounding": [{"rule": "specifics"}, {"judge": "grounding"}],
    "level": [{"rule": "readability"}, {"judge": "pedagogy", "criterion": "level", "min": 3}],
    "pedagogy": [{"rule": "next_step"}, {"judge": "pedagogy", "min": 3}],
}


class Case(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1, max_length=64)
    dimension: Literal["leakage", "grounding", "level", "pedagogy"]
    input: CaseInput
    requirement: str = Field(min_length=3)
    comment: str | None = None
    expect: Literal["pass", "fail"] = "pass"
    checks: list[Check] = []
    blocking: bool | None = None
    origin: str = ""
    # A case saved from a corrected review item keeps both comments for the reader.
    failed_comment: str | None = None
    corrected_comment: str | None = None

    @model_validator(mode="after")
    def _consistent(self):
        if self.expect == "fail" and not self.comment:
            raise ValueError('"expect": "fail" needs the "comment" the checks must catch')
        if not self.checks:
            self.checks = [Check(**c) for c in DEFAULT_CHECKS[self.dimension]]
        if any(c.rule == "leakage" for c in self.checks) and self.input.answer_key is None:
            raise ValueError('the "leakage" rule needs input.answer_key')
        if any(c.rule == "follow_through" for c in self.checks) and not self.input.previous:
            raise ValueError('the "follow_through" rule needs input.previous (last week\'s comment)')
        return self

    @property
    def is_blocking(self) -> bool:
        return self.dimension in BLOCKING if self.blocking is None else self.blocking


@dataclass(frozen=True)
class Suite:
    cases: list[Case]
    version: str          # hash of the files' contents
    path: str


def parse_line(text: str, where: str) -> Case:
    try:
        return Case.model_validate(json.loads(text))
    except json.JSONDecodeError as e:
        raise ConfigError(Message("{where}: not valid JSON ({error} at column {column})", where=where, error=e.msg,
                                  column=e.colno)) from None
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(case)"
        raise ConfigError(Message("{where}: {field}: {problem}", where=where, field=field, problem=first["msg"])) from None


def load_suite(directory: str | Path | None = None) -> Suite:
    """Every case of the *.jsonl files in `directory` (default data/evals/), in file order.
    A bad line is a ConfigError naming the file, the line and the field; ids are unique."""
    path = Path(directory) if directory else SUITE_DIR
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else []
    if not files:
        raise ConfigError(Message("No eval cases: {path} has no *.jsonl files", path=path))
    digest = hashlib.sha256()
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for f in files:
        text = f.read_text(encoding="utf-8")
        digest.update(f.name.encode() + b"\0" + text.encode() + b"\0")
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            where = Message("{file} line {line}", file=f.name, line=n)
            case = parse_line(line, where)
            if case.id in seen:
                raise ConfigError(Message("{where}: case id {id!r} is already used ({first})", where=where, id=case.id,
                                          first=seen[case.id]))
            seen[case.id] = where
            cases.append(case)
    return Suite(cases=cases, version=digest.hexdigest()[:12], path=str(path))


def dumps_case(case: dict) -> str:
    """One JSONL line (what `evals export-saved` appends)."""
    return json.dumps(case, ensure_ascii=False, separators=(", ", ": "))


__all__ = ["Case", "CaseInput", "Check", "Suite", "load_suite", "parse_line", "DIMENSIONS", "JUDGES",
           "PEDAGOGY_CRITERIA", "SUITE_DIR", "DEFAULT_CHECKS", "dumps_case"]
