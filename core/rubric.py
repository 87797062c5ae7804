"""Rubrics: the model (from `db.rubric_model`) and the rubric files under data/rubrics/.

A rubric is data (JSON or YAML under data/rubrics/ or uploaded by an admin), validated by
`parse_rubric`. Scores are always integers in [scale_min, scale_max]; every level on that
scale must have a descriptor, so the Evaluator prompt and the teacher see the whole rubric.

>>> r = default_rubric()
>>> (r.scale_min, r.scale_max, [c.key for c in r.criteria])
(0, 3, ['concept_understanding', 'real_world_application', 'reflection_depth', 'clarity'])
>>> r.low_band(1), r.low_band(2)
(True, False)
"""
from __future__ import annotations

from pathlib import Path

from core.errors import RubricError
from core.language import normalise as language_code
from core.language.interface import Message, N_
from db.rubric_model import SIGNALS, Criterion, Rubric, parse_rubric  # noqa: F401  (public here for core/ and pages/)

# The offline signals' names as a teacher reads them (Settings' rubric table): the stored value is
# the English word, shown translated with t(SIGNAL_LABELS[signal]).
SIGNAL_LABELS = {"length": N_("length"), "concepts": N_("concepts"), "examples": N_("examples"),
                 "questions": N_("questions"), "structure": N_("structure"), "cohesion": N_("cohesion"),
                 "sentences": N_("sentences"), "vocabulary": N_("vocabulary"), "grammar": N_("grammar"),
                 "spelling": N_("spelling"), "overall": N_("overall")}
assert set(SIGNAL_LABELS) == set(SIGNALS), "name every signal of db.rubric_model.Signal"

RUBRIC_DIR = Path(__file__).resolve().parent.parent / "data" / "rubrics"
DEFAULT_RUBRIC_FILE = RUBRIC_DIR / "reflection.yaml"


def load_rubric_file(path: str | Path) -> Rubric:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise RubricError(Message("Cannot read rubric file {path}: {error}", path=path, error=e.strerror)) from e
    return parse_rubric(raw)


def default_rubric_file(language: str = "en") -> Path:
    """The bundled default rubric of a course in `language` (a core.language code): the same
    criteria, signals and levels in the language's words (reflection.sv.yaml, reflection.ru.yaml);
    reflection.yaml for English and for a language without its own file."""
    code = language_code(language)
    own = RUBRIC_DIR / f"reflection.{code}.yaml"
    return own if code != "en" and own.exists() else DEFAULT_RUBRIC_FILE


def default_rubric(language: str = "en") -> Rubric:
    """The default reflection rubric, in the course's language (English by default).

    >>> default_rubric("sv").criterion("clarity").title, default_rubric("ru").keys == default_rubric().keys
    ('Tydlighet', True)
    """
    return load_rubric_file(default_rubric_file(language))
