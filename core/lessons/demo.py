"""The synthetic lesson demo: eight grade-5 lessons on weather and water (data/lessons/demo/),
written for FairMark with planted problems (an invented fact, a reading grade that drifts
upward, a missing objective, a weak hook, a lesson far too short) and expert verdicts. The
course is stored as synthetic; loading twice changes nothing."""
from __future__ import annotations

import json
from pathlib import Path

from core.accounts.access import Actor
from core.lessons import ingest
from db import lessons as lessons_db

DEMO_DIR = Path(__file__).resolve().parent.parent.parent / "data" / "lessons" / "demo"
COURSE = "Weather and Water, grade 5 (synthetic lesson demo)"
DESCRIPTION = ("Synthetic lessons written for FairMark's lesson review demo, with planted problems and expert "
               "verdicts written together with them (a check of the plumbing, not evidence of validity).")


def demo_files() -> list[tuple[str, bytes]]:
    return [(p.name, p.read_bytes()) for p in sorted(DEMO_DIR.glob("*.md"))]


def verdicts() -> dict:
    return json.loads((DEMO_DIR / "verdicts.json").read_text(encoding="utf-8"))


def load_demo(conn, *, actor: Actor) -> dict:
    out = ingest.import_lessons(conn, demo_files(), course_name=COURSE, actor=actor, course_description=DESCRIPTION,
                                is_synthetic=True)
    expert = verdicts()
    by_title = {lesson["title"]: lesson["id"] for lesson in lessons_db.queue(conn, out["course_id"])}
    with conn.atomic():
        for title, v in expert["verdicts"].items():
            lessons_db.save_reference(conn, by_title[title], expert["rater"], v["verdict"], v["problems"])
    return {"course_id": out["course_id"], "course": COURSE, "lessons": len(out["lesson_ids"]),
            "imported": out["imported"], "expert_verdicts": len(expert["verdicts"])}
