"""Which column means what: auto-detected from the header, editable by the teacher.

Reference-score columns are named after a rubric criterion (its key or its title), with an
optional rater suffix: `clarity` or `clarity_score` -> rater "expert"; `clarity_rater1`,
`Clarity (teacher)` -> raters "rater1", "teacher". Several raters per criterion are fine.

>>> from core.rubric import default_rubric
>>> m = detect_mapping(["Student ID", "Name", "Reflection", "Week", "clarity_rater2", "Section"], default_rubric())
>>> (m.student_id, m.text, m.assignment, [(s.criterion, s.rater) for s in m.scores], m.attributes)
('Student ID', 'Reflection', 'Week', [('clarity', 'rater2')], ['Section'])
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from core.errors import IngestError
from core.language.interface import Message
from core.rubric import Rubric

DEFAULT_RATER = "expert"

_ID = ["student_id", "studentid", "id", "student_number", "student_no", "learner_id", "external_id", "sis_id",
       "user_id", "username", "login", "text_id", "text_id_kaggle"]
_NAME = ["name", "student_name", "student", "full_name", "learner", "learner_name", "author"]
_EMAIL = ["email", "e_mail", "student_email", "mail", "email_address"]
_TEXT = ["text", "reflection", "reflection_text", "response", "answer", "submission", "essay", "full_text",
         "content", "body", "entry", "journal"]
_ASSIGNMENT = ["week", "assignment", "assignment_title", "assignment_week", "week_number", "module", "lesson",
               "session", "unit"]
ATTRIBUTE_NAMES = ["section", "group", "class", "cohort", "ell", "ell_status", "esl", "gender", "grade",
                   "race_ethnicity", "ethnicity", "ses", "first_language", "native_language", "language",
                   "age_group", "programme", "program", "campus", "year", "study_year"]
_NOISE = {"score", "scores", "mark", "level", "rating"}


def norm(name: str) -> str:
    """'Student ID ' -> 'student_id'."""
    return re.sub(r"[^a-z0-9]+", "_", str(name).lower()).strip("_")


@dataclass
class ScoreColumn:
    column: str
    criterion: str
    rater: str = DEFAULT_RATER


@dataclass
class Mapping:
    student_id: str | None = None
    name: str | None = None
    email: str | None = None
    text: str | None = None
    assignment: str | None = None   # week/assignment column: rows can go to several assignments
    scores: list[ScoreColumn] = field(default_factory=list)
    attributes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Mapping":
        d = dict(d)
        d["scores"] = [s if isinstance(s, ScoreColumn) else ScoreColumn(**s) for s in d.get("scores", [])]
        return cls(**d)

    def used_columns(self) -> list[str]:
        cols = [self.student_id, self.name, self.email, self.text, self.assignment]
        cols += [s.column for s in self.scores] + list(self.attributes)
        return [c for c in cols if c]


def parse_score_column(column: str, rubric: Rubric) -> ScoreColumn | None:
    """`clarity_rater1` -> ScoreColumn(criterion='clarity', rater='rater1'); None if not a score column."""
    n = norm(column)
    names = []
    for c in rubric.criteria:
        names += [(c.key, c.key), (norm(c.title), c.key)]
    for name, key in sorted(names, key=lambda x: -len(x[0])):  # longest first: 'clarity_x' before 'c'
        if n == name:
            return ScoreColumn(column, key, DEFAULT_RATER)
        if n.startswith(name + "_"):
            parts = [p for p in n[len(name) + 1:].split("_") if p not in _NOISE]
            if not parts:
                return ScoreColumn(column, key, DEFAULT_RATER)
            rater = "_".join(parts)
            if rater in ("rater", "r") or len(rater) > 30:
                return None
            return ScoreColumn(column, key, rater)
    return None


def _first(columns: list[str], names: list[str], taken: set[str]) -> str | None:
    by_norm = {norm(c): c for c in columns if c not in taken}
    for n in names:
        if n in by_norm:
            return by_norm[n]
    return None


def detect_mapping(columns: list[str], rubric: Rubric) -> Mapping:
    taken: set[str] = set()
    m = Mapping()
    for attr, names in (("text", _TEXT), ("student_id", _ID), ("email", _EMAIL), ("name", _NAME),
                        ("assignment", _ASSIGNMENT)):
        col = _first(columns, names, taken)
        if col:
            setattr(m, attr, col)
            taken.add(col)
    for col in columns:
        if col in taken:
            continue
        sc = parse_score_column(col, rubric)
        if sc:
            m.scores.append(sc)
            taken.add(col)
    m.attributes = [c for c in columns if c not in taken and norm(c) in ATTRIBUTE_NAMES]
    return m


def check_mapping(m: Mapping, columns: list[str]) -> list[str]:
    """Problems that make the mapping unusable (each says what to choose), as Messages."""
    problems = []
    if not m.text:
        problems.append(Message("Choose the column that holds the reflection text (usually named text, reflection, "
                                "response or essay)"))
    if not (m.student_id or m.email or m.name):
        problems.append(Message("Choose a column that says who wrote each reflection: a student id, e-mail or name"))
    for col in m.used_columns():
        if col not in columns:
            problems.append(Message("Column {column!r} is not in the file (columns: {columns})", column=col,
                                    columns=", ".join(columns)))
    used = m.used_columns()
    twice = sorted({c for c in used if used.count(c) > 1})
    if twice:
        problems.append(Message.plural("Column(s) {columns} are mapped to more than one field; map each column once",
                                       "Column(s) {columns} are mapped to more than one field; map each column once",
                                       len(twice), columns=", ".join(twice)))
    return problems


FIELDS = ("student_id", "name", "email", "text", "assignment")


def apply_overrides(m: Mapping, overrides: list[str], columns: list[str], rubric: Rubric) -> Mapping:
    """The detected mapping with the user's `FIELD=COLUMN` choices (the command line's --map, the
    same choices the Upload page offers). FIELD is student_id, name, email, text or assignment; a
    criterion key of the rubric (a reference-score column, rater "expert"; `criterion:rater` for
    another rater); or `attribute` (a group attribute). A column chosen here leaves any other
    role it was detected for.

    >>> from core.rubric import default_rubric
    >>> cols = ["essay_id", "essay", "clarity_score", "cohort"]
    >>> m = apply_overrides(detect_mapping(cols, default_rubric()), ["student_id=essay_id", "text=essay",
    ...                     "attribute=cohort"], cols, default_rubric())
    >>> (m.student_id, m.text, [s.column for s in m.scores], m.attributes)
    ('essay_id', 'essay', ['clarity_score'], ['cohort'])
    """
    m = Mapping.from_dict(m.to_dict())
    for item in overrides or ():
        field_, sep, column = (part.strip() for part in str(item).partition("="))
        if not sep or not field_ or not column:
            raise IngestError(Message("--map {item!r}: write FIELD=COLUMN, e.g. --map text=essay", item=item))
        if column not in columns:
            raise IngestError(Message("--map {item!r}: the file has no column {column!r} (columns: {columns})",
                                      item=item, column=column, columns=", ".join(columns)))
        criterion, _, rater = field_.partition(":")
        if field_ not in FIELDS and field_ != "attribute" and criterion not in rubric.keys:
            raise IngestError(Message("--map {item!r}: {field!r} is not a field; use one of {fields}, attribute, or "
                                      "a criterion of the rubric ({keys})", item=item, field=field_,
                                      fields=", ".join(FIELDS), keys=", ".join(rubric.keys)))
        for f in FIELDS:  # the column leaves any role it had
            if getattr(m, f) == column:
                setattr(m, f, None)
        m.scores = [s for s in m.scores if s.column != column]
        m.attributes = [a for a in m.attributes if a != column]
        if field_ in FIELDS:
            setattr(m, field_, column)
        elif field_ == "attribute":
            m.attributes.append(column)
        else:
            m.scores.append(ScoreColumn(column, criterion, rater or DEFAULT_RATER))
    return m

