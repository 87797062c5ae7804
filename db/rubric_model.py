"""The rubric model: criteria with level descriptors on an integer scale, versioned.

A rubric is data (JSON or YAML), validated here. Scores are always integers in
[scale_min, scale_max]; every level on that scale must have a descriptor, so the Evaluator
prompt and the teacher see the whole rubric.

The model lives at the bottom layer because db/ stores and returns rubrics and imports
nothing from core/; code outside db/ imports it from `core.rubric`, which also loads the
rubric files under data/rubrics/.

>>> r = parse_rubric({"name": "Mini", "scale_min": 0, "scale_max": 3, "criteria": [
...     {"key": "clarity", "title": "Clarity", "levels": {0: "a", 1: "b", 2: "c", 3: "d"}}]})
>>> r.keys, r.levels, r.low_band(1), r.low_band(2)
(['clarity'], [0, 1, 2, 3], True, False)
"""
from __future__ import annotations

import hashlib
import json
import re
from typing import Literal, get_args

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from db.errors import RubricError
from db.message import Message

CRITERION_KEY = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
# Which text signal the offline heuristic reads for a criterion (core.offline.heuristics): the
# rubric says it; the heuristic never guesses it from the criterion's wording. None: "overall".
Signal = Literal["length", "concepts", "examples", "questions", "structure", "cohesion", "sentences", "vocabulary",
                 "grammar", "spelling", "overall"]
SIGNALS = get_args(Signal)


class Criterion(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key: str
    title: str
    description: str = ""
    levels: dict[int, str]
    weight: float | None = Field(default=None, gt=0)
    veto_below: int | None = None  # a score below this fails the item whatever the total
    improvement_hint: str = ""  # used by the offline baseline's templates
    signal: Signal | None = None  # the text signal the offline heuristic reads (SIGNALS)
    # Notes for graders (what counts as "concrete", common pitfalls): read by the Evaluator and
    # shown to markers on the review item, never to students (no export, no student page).
    guidance: str = ""

    @field_validator("key")
    @classmethod
    def _key(cls, v: str) -> str:
        if not CRITERION_KEY.match(v):
            raise ValueError(
                f"criterion key {v!r} must be lower-case letters, digits or '_' "
                "and start with a letter (e.g. 'clarity')"
            )
        return v

    @field_validator("title")
    @classmethod
    def _title(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("criterion title must not be empty")
        return v.strip()


class Rubric(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    version: int = Field(default=1, ge=1)
    description: str = ""
    scale_min: int
    scale_max: int
    criteria: list[Criterion]
    # Boundary of the low band: reference scores <= low_band_max count as "low".
    # Default: lower half of the scale (0-3 -> 0-1; 1-5 -> 1-2; 1-6 -> 1-3).
    low_band_max: float | None = None

    @model_validator(mode="after")
    def _check(self) -> "Rubric":
        if self.scale_max <= self.scale_min:
            raise ValueError(f"scale_max ({self.scale_max}) must be greater than scale_min ({self.scale_min})")
        if self.scale_max - self.scale_min > 30:
            raise ValueError("a scale may span at most 31 levels")
        if not self.criteria:
            raise ValueError("a rubric needs at least one criterion")
        keys = [c.key for c in self.criteria]
        dup = sorted({k for k in keys if keys.count(k) > 1})
        if dup:
            raise ValueError(f"criterion keys must be unique; repeated: {', '.join(dup)}")
        want = set(range(self.scale_min, self.scale_max + 1))
        for c in self.criteria:
            got = set(c.levels)
            if got != want:
                missing = sorted(want - got)
                extra = sorted(got - want)
                parts = []
                if missing:
                    parts.append(f"missing descriptors for levels {missing}")
                if extra:
                    parts.append(f"levels {extra} are outside the scale {self.scale_min}-{self.scale_max}")
                raise ValueError(f"criterion '{c.key}': " + "; ".join(parts))
            empty = [lvl for lvl, d in c.levels.items() if not str(d).strip()]
            if empty:
                raise ValueError(f"criterion '{c.key}': empty descriptor for level(s) {sorted(empty)}")
            if c.veto_below is not None and not (self.scale_min < c.veto_below <= self.scale_max):
                raise ValueError(
                    f"criterion '{c.key}': veto_below {c.veto_below} must be within "
                    f"{self.scale_min + 1}-{self.scale_max}"
                )
        if self.low_band_max is not None and not (self.scale_min <= self.low_band_max < self.scale_max):
            raise ValueError(f"low_band_max must lie within {self.scale_min}-{self.scale_max - 1}")
        return self

    # --- helpers used across the app -------------------------------------------------
    @property
    def keys(self) -> list[str]:
        return [c.key for c in self.criteria]

    @property
    def levels(self) -> list[int]:
        return list(range(self.scale_min, self.scale_max + 1))

    @property
    def band_cut(self) -> float:
        """Largest reference score still in the low band."""
        if self.low_band_max is not None:
            return self.low_band_max
        return self.scale_min + (self.scale_max - self.scale_min + 1) // 2 - 1 + (
            0.5 if (self.scale_max - self.scale_min + 1) % 2 else 0
        )

    def low_band(self, score: float) -> bool:
        return score <= self.band_cut

    def criterion(self, key: str) -> Criterion:
        for c in self.criteria:
            if c.key == key:
                return c
        raise RubricError(Message("rubric '{name}' has no criterion '{key}'", name=self.name, key=key))

    def total(self, scores: dict[str, int]) -> float:
        """Weighted total on the rubric's own scale when weights are given, else the sum."""
        if any(c.weight for c in self.criteria):
            wsum = sum(c.weight or 0 for c in self.criteria)
            return round(sum((c.weight or 0) * scores[c.key] for c in self.criteria) / wsum, 3)
        return float(sum(scores[c.key] for c in self.criteria))

    @property
    def max_total(self) -> float:
        if any(c.weight for c in self.criteria):
            return float(self.scale_max)
        return float(self.scale_max * len(self.criteria))

    def vetoed(self, scores: dict[str, int]) -> list[str]:
        return [c.key for c in self.criteria if c.veto_below is not None and scores.get(c.key, self.scale_max) < c.veto_below]

    def validate_scores(self, scores: dict[str, int]) -> dict[str, int]:
        """Return scores as ints, or raise RubricError naming the bad criterion."""
        out = {}
        for c in self.criteria:
            if c.key not in scores:
                raise RubricError(Message("score for criterion '{key}' is missing", key=c.key))
            v = scores[c.key]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or int(v) != v:
                raise RubricError(Message("score for '{key}' must be a whole number, got {value!r}", key=c.key, value=v))
            if not self.scale_min <= int(v) <= self.scale_max:
                raise RubricError(Message("score for '{key}' is {value}; it must be between {low} and {high}",
                                          key=c.key, value=v, low=self.scale_min, high=self.scale_max))
            out[c.key] = int(v)
        return out

    def to_json(self) -> str:
        data = self.model_dump(mode="json")
        for c in data["criteria"]:   # a rubric without signals or guidance keeps the JSON (and hash) it had
            if c.get("signal") is None:
                c.pop("signal", None)
            if not c.get("guidance"):
                c.pop("guidance", None)
        return json.dumps(data, sort_keys=True, ensure_ascii=False)

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.to_json().encode()).hexdigest()[:16]


def _format_validation(err: ValidationError) -> str:
    """Pydantic's errors for a person: criteria are counted from 1, as in the file or table
    ("criterion 2 (key): …"), not by pydantic's 0-based index ("criteria.1.key")."""
    parts = []
    for e in err.errors():
        loc = list(e["loc"])
        if len(loc) >= 2 and loc[0] == "criteria" and isinstance(loc[1], int):
            rest = ".".join(str(p) for p in loc[2:])
            where = f"criterion {loc[1] + 1}" + (f" ({rest})" if rest else "")
        else:
            where = ".".join(str(p) for p in loc)
        msg = e["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {msg}" if where else msg)
    return "; ".join(parts)


def parse_rubric(data: dict | str | bytes) -> Rubric:
    """Validate a rubric given as a dict or as JSON/YAML text; RubricError names the problem."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise RubricError(Message("Rubric file must be UTF-8 text (JSON or YAML)")) from e
    if isinstance(data, str):
        try:
            data = yaml.safe_load(data)  # YAML is a superset of JSON
        except yaml.YAMLError as e:
            raise RubricError(Message("Rubric file is neither valid JSON nor YAML: {error}", error=str(e))) from e
    if not isinstance(data, dict):
        raise RubricError(Message("Rubric must be a mapping with name, scale_min, scale_max and criteria"))
    found = level_problems(data)
    if found:
        raise RubricError(Message("Invalid rubric: {problems}", problems=Message.joined("; ", found)))
    try:
        return Rubric.model_validate(data)
    except ValidationError as e:
        raise RubricError(Message("Invalid rubric: {problems}", problems=_format_validation(e))) from e


def _level(value) -> int | None:
    try:
        return int(value) if int(value) == float(value) else None
    except (TypeError, ValueError):
        return None


def _and(numbers: list[int]):
    """"1 and 2 and 3", each "and" said in the reader's language."""
    said = str(numbers[0])
    for n in numbers[1:]:
        said = Message("{items} and {last}", items=said, last=str(n))
    return said


def level_problems(data: dict) -> list[Message]:
    """Every problem of a rubric's levels and keys, one Message per criterion row (counted from 1,
    as in the file or table): levels that do not run from scale_min to scale_max without a gap,
    levels outside the scale, levels without a descriptor, keys used twice. [] when the levels
    are sound (or the scale itself is not a pair of whole numbers: the model's check says so).

    >>> level_problems({"scale_min": 0, "scale_max": 2, "criteria": [
    ...     {"key": "a", "levels": {0: "x", 2: " "}}, {"key": "a", "levels": {0: "x", 1: "y", 2: "z", 5: "w"}}]})
    ... # doctest: +NORMALIZE_WHITESPACE
    ['Row 1 (a): missing descriptors for levels [1] (levels run from 0 to 2 without a gap)',
     'Row 1 (a): empty descriptor for level 2', 'Row 2 (a): level 5 is outside the scale 0-2',
     'criterion keys must be unique; repeated: a (rows 1 and 2)']
    """
    lo, hi, rows = _level(data.get("scale_min")), _level(data.get("scale_max")), data.get("criteria")
    if lo is None or hi is None or hi <= lo or hi - lo > 30 or not isinstance(rows, list):
        return []
    out, seen = [], {}
    for i, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            continue
        key = str(row.get("key") or "").strip()
        where = Message("Row {row} ({key})", row=i, key=key) if key else Message("Row {row}", row=i)
        seen.setdefault(key, []).append(i)
        levels = row.get("levels")
        if not isinstance(levels, dict):
            out.append(Message("{where}: give a descriptor for each level {low} to {high}", where=where, low=lo,
                               high=hi))
            continue
        got = {_level(k): v for k, v in levels.items()}
        if None in got:
            out.append(Message("{where}: level names must be whole numbers", where=where))
        missing = [lvl for lvl in range(lo, hi + 1) if lvl not in got]
        if missing:
            out.append(Message("{where}: missing descriptors for levels {missing} (levels run from {low} to {high} "
                               "without a gap)", where=where, missing=missing, low=lo, high=hi))
        empty = sorted(lvl for lvl, text in got.items() if lvl is not None and lo <= lvl <= hi
                       and not str(text or "").strip())
        if empty:
            out.append(Message.plural("{where}: empty descriptor for level {levels}",
                                      "{where}: empty descriptor for levels {levels}", len(empty), where=where,
                                      levels=", ".join(map(str, empty))))
        out += [Message("{where}: level {level} is outside the scale {low}-{high}", where=where, level=lvl, low=lo,
                        high=hi) for lvl in sorted(lvl for lvl in got if lvl is not None and not lo <= lvl <= hi)]
    out += [Message("criterion keys must be unique; repeated: {key} (rows {rows})", key=key, rows=_and(at))
            for key, at in seen.items() if key and len(at) > 1]
    return out
