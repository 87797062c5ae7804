"""The synthetic demo course: an AI-literacy course with expert reference scores.

The reflections in data/demo/ai_literacy_demo.json were written for FairMark (composed by
data/demo/generate.py from hand-written sentence banks); no real student wrote them. The
course is stored with is_synthetic=1 and says so in its description.

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
from db import submissions

DEMO_FILE = Path(__file__).resolve().parent.parent / "data" / "demo" / "ai_literacy_demo.json"


def demo_data() -> dict:
    return json.loads(DEMO_FILE.read_text(encoding="utf-8"))


def load_demo(conn, *, actor: Actor) -> dict:
    """Load (or re-load, harmlessly) the demo course; returns counts and whether anything was created."""
    data = demo_data()
    existing = catalogue.check_course_name(conn, actor, data["course"]["name"])
    rubric = default_rubric()
    weeks = {a["week"]: a for a in data["assignments"]}
    people = {s["student_id"]: s for s in data["students"]}
    rows = []
    for n, r in enumerate(data["reflections"], start=1):
        s = people[r["student_id"]]
        text = clean_text(r["text"])
        rows.append(ReadyRow(source=DEMO_FILE.name, row=n, assignment=weeks[r["week"]]["title"],
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
            rows=rows, summary={"files": [DEMO_FILE.name], "mode": "demo"},
            rng=random.Random(7),  # stable pseudonyms for the demo (real imports use `secrets`)
        )
        if existing is None:
            catalogue.grant_creator(conn, actor, out["course_id"])
    return {"course_id": out["course_id"], "courses": 1, "assignments": len(titles), "students": len(people),
            "submissions": len(rows), "reference_scores": sum(len(r["scores"]) for r in data["reflections"]),
            "created": out["imported"] > 0}
