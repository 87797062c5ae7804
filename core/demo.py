"""The synthetic demo courses: an AI-literacy course with expert reference scores, and a small
Swedish one (a course in another language: its reflections are assessed and its feedback drafted
in Swedish).

The reflections in data/demo/ai_literacy_demo.json were written for FairMark (composed by
data/demo/generate.py from hand-written sentence banks), the four of data/demo/swedish_demo.json
by hand; no real student wrote them. Each course is stored with is_synthetic=1 and says so in
its description, and gets the default rubric in its language (the Swedish course
data/rubrics/reflection.sv.yaml: core.rubric.default_rubric).

Loading goes through the same one-transaction writer as an upload, and every row is keyed
by (student, assignment, text), so loading twice changes nothing.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import db
from core.courses import catalogue
from core.accounts.access import Actor
from core.ingest.commit import ReadyRow, clean_text, text_hash
from core.rubric import default_rubric
from core.text import words
from core.errors import ConfigError
from core.language.course import offered
from core.language.interface import Message
from db import courses, submissions

DEMO_FILE = Path(__file__).resolve().parent.parent / "data" / "demo" / "ai_literacy_demo.json"
# The demo course of each language that has one (core.language codes).
DEMO_FILES = {"en": DEMO_FILE, "sv": DEMO_FILE.with_name("swedish_demo.json")}


def demo_data(language: str = "en") -> dict:
    return json.loads(DEMO_FILES[language].read_text(encoding="utf-8"))


def load_demo(conn, *, actor: Actor, language: str = "en") -> dict:
    """Load (or re-load, harmlessly) the demo course in `language` ("en": the AI-literacy course,
    "sv": the small Swedish one); returns counts and whether anything was created."""
    if language not in DEMO_FILES:
        raise ConfigError(Message("No demo course in {language!r}; demo courses: {courses}.", language=language,
                                  courses=offered(DEMO_FILES)))
    data = demo_data(language)
    existing = catalogue.check_course_name(conn, actor, data["course"]["name"])
    rubric = default_rubric(data.get("language", "en"))   # the Swedish course gets the Swedish rubric
    weeks = {a["week"]: a for a in data["assignments"]}
    people = {s["student_id"]: s for s in data["students"]}
    rows = []
    for n, r in enumerate(data["reflections"], start=1):
        s = people[r["student_id"]]
        text = clean_text(r["text"])
        rows.append(ReadyRow(source=DEMO_FILES[language].name, row=n, assignment=weeks[r["week"]]["title"],
                             external_id=s["student_id"], name=s["name"], email=s["email"],
                             attributes=s["attributes"], text=text, text_hash=text_hash(text),
                             word_count=words(text), scores={data["rater"]: r["scores"]}))
    titles = {a["title"]: a for a in data["assignments"]}
    with db.write_transaction(conn):
        out = submissions.write_import(
            conn, actor=actor, course_name=data["course"]["name"], course_description=data["course"]["description"],
            is_synthetic=True, new_assignments={t: a["week"] for t, a in titles.items()},
            rubric_by_assignment=dict.fromkeys(titles, rubric),
            assignment_details={t: {"prompt": a["prompt"], "key_concepts": a["key_concepts"],
                                    "target_grade": a["target_grade"]} for t, a in titles.items()},
            rows=rows, summary={"files": [DEMO_FILES[language].name], "mode": "demo"},
            rng=random.Random(7),  # stable pseudonyms for the demo (real imports use `secrets`)
        )
        # The course's language, set as it is created (a reload leaves a changed one alone).
        if existing is None and data.get("language", "en") != "en":
            courses.set_course_language(conn, out["course_id"], data["language"])
        if existing is None:
            catalogue.grant_creator(conn, actor, out["course_id"])
    return {"course_id": out["course_id"], "courses": 1, "language": courses.course_language(conn, out["course_id"]), "assignments": len(titles), "students": len(people),
            "submissions": len(rows), "reference_scores": sum(len(r["scores"]) for r in data["reflections"]),
            "created": out["imported"] > 0}
