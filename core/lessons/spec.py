"""A lesson's specification (seed 001, Stage 5): learning objectives, audience and reading
grade, content archetype, source material, and which model wrote it.

A lesson file may carry it as YAML front matter between `---` lines; the upload form fills in
what the file leaves out (the file wins: it is the more specific of the two).

>>> meta, body = split_front_matter("---\\ntitle: Rain\\ntarget_grade: 5\\n---\\n# Rain\\nIt rains.")
>>> meta, body
({'title': 'Rain', 'target_grade': 5}, '# Rain\\nIt rains.')
>>> LessonSpec.build(meta, {"objectives": ["describe rain"]}, file="rain.md").objectives
['describe rain']
"""
from __future__ import annotations

import re

import yaml
from pydantic import BaseModel, Field, ValidationError, field_validator

from core.errors import IngestError
from core.language.interface import Message, N_

ARCHETYPES = ("concept", "procedure", "case_study", "discussion", "practice")
ARCHETYPE_LABELS = {"concept": N_("concept"), "procedure": N_("procedure"), "case_study": N_("case study"),
                    "discussion": N_("discussion"), "practice": N_("practice")}   # what the upload form shows (t())
KNOWN_KEYS = ("title", "target_grade", "objectives", "archetype", "audience", "sources", "generated_by",
              "min_words", "max_words", "language")
_FRONT = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)


class LessonSpec(BaseModel):
    """What the lesson was written to do; the judge and the heuristics check it against this."""
    title: str = Field(min_length=1, max_length=200)
    target_grade: float = Field(default=8.0, ge=1, le=18)     # Flesch-Kincaid grade of the audience
    objectives: list[str] = Field(default_factory=list)
    archetype: str = "concept"
    audience: str = ""
    sources: str = ""                 # source material the teacher attached (for fact checks)
    generated_by: str = ""            # the model that wrote the lesson: never its judge
    min_words: int = Field(default=250, ge=1)
    max_words: int = Field(default=4000, ge=1)
    language: str = "en"

    @field_validator("objectives", mode="before")
    @classmethod
    def _lines(cls, v):
        if v is None:
            return []
        if isinstance(v, str):
            v = v.splitlines()
        return [str(x).strip(" -*\t") for x in v if str(x).strip(" -*\t")]

    @field_validator("archetype")
    @classmethod
    def _archetype(cls, v):
        v = (v or "concept").strip().lower().replace(" ", "_").replace("-", "_")
        if v not in ARCHETYPES:
            raise ValueError(f"must be one of {', '.join(ARCHETYPES)}")
        return v

    @field_validator("sources", "generated_by", "audience", mode="before")
    @classmethod
    def _text(cls, v):
        if isinstance(v, list):
            return "\n".join(str(x) for x in v)
        return "" if v is None else str(v)

    @classmethod
    def build(cls, meta: dict, defaults: dict | None = None, *, file: str = "") -> "LessonSpec":
        """The file's front matter over the form's defaults; a bad field names the file and how to fix it."""
        merged = {k: v for k, v in (defaults or {}).items() if v not in (None, "", [])}
        merged.update({k: v for k, v in meta.items() if v not in (None, "", [])})
        unknown = sorted(set(merged) - set(KNOWN_KEYS))
        if unknown:
            raise IngestError(Message.plural("{file}: unknown front-matter field(s) {fields}; use {known}.",
                                             "{file}: unknown front-matter field(s) {fields}; use {known}.", len(unknown),
                                             file=file, fields=unknown, known=", ".join(KNOWN_KEYS)))
        try:
            spec = cls.model_validate(merged)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "front matter"
            raise IngestError(Message("{file}: field '{field}' {problem} (got {value!r}). Fix it in the file's front "
                                      "matter or in the upload form.", file=file, field=field,
                                      problem=err["msg"].lower(), value=err.get("input"))) from None
        if spec.min_words > spec.max_words:
            raise IngestError(Message("{file}: min_words ({min}) is above max_words ({max}).", file=file,
                                      min=spec.min_words, max=spec.max_words))
        return spec

    def stored(self) -> dict:
        """What lessons.spec keeps (the sources and the title have their own columns)."""
        return self.model_dump(exclude={"sources", "title"})


def split_front_matter(text: str, *, file: str = "") -> tuple[dict, str]:
    """(front-matter fields, the lesson's body). No front matter: ({}, text)."""
    m = _FRONT.match(text or "")
    if not m:
        return {}, (text or "").lstrip("\ufeff")
    try:
        meta = yaml.safe_load(m.group(1)) or {}
    except yaml.YAMLError as exc:
        raise IngestError(Message("{file}: the front matter is not valid YAML ({problem}). Check the lines between "
                                  "the two '---'.", file=file, problem=str(exc).splitlines()[0])) from None
    if not isinstance(meta, dict):
        raise IngestError(Message("{file}: the front matter must be 'key: value' lines, not {kind}.", file=file,
                                  kind=type(meta).__name__))
    return {str(k): v for k, v in meta.items()}, text[m.end():]
