"""An item with a submission text, an AI draft whose evidence quotes point into it, and the
people who may or may not annotate it: for the tests of notes on the student's text."""
from __future__ import annotations

import factories as f
from core.signoff import actions
from db import dumps, loads

TEXT = ("I used the mean to summarise delivery times at work.\n"
        "It hid the two very late trucks, so the median told the truth better. "
        "Next month I will plot the data first.")
HIGH = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 2}


def with_quotes(conn, draft_id: int, quotes: dict[str, tuple[str, str]]) -> None:
    """Give the draft's Evaluator these {criterion: (evidence quote, reasoning)}."""
    outputs = loads(conn.execute("SELECT outputs FROM drafts WHERE id = ?", [draft_id]).fetchone()[0], {})
    for key, (quote, reasoning) in quotes.items():
        outputs["evaluator"][key].update(evidence_quote=quote, reasoning=reasoning)
    conn.execute("UPDATE drafts SET outputs = ? WHERE id = ?", [dumps(outputs), draft_id])


def annotated_item(conn, text: str = TEXT) -> dict:
    """Course "Stats" with an instructor, its TA, a TA of another course and one drafted item whose
    Evaluator quotes two passages of the text and one that is not in it."""
    c = f.course(conn, "Stats")
    other = f.course(conn, "Elsewhere")
    cid = c["course_id"]
    people = {"teacher": f.user(conn, "ada", "instructor", courses=[cid]),
              "ta": f.user(conn, "tom", "ta", courses=[cid]),
              "outsider": f.user(conn, "olga", "ta", courses=[other["course_id"]])}
    student = f.student(conn, cid, external_id="s1", name="Sam Pupil")
    sid = f.submission(conn, c["assignment_id"], student, text=text)
    did = f.draft(conn, sid, HIGH, comment="Good start: plot the data first.")
    with_quotes(conn, did, {
        "concept_understanding": ("the median told the truth better", "Sees why the median resists outliers. "
                                                                      "Could name the outliers' effect."),
        "real_world_application": ("delivery times at work", "A real dataset from the job."),
        "clarity": ("a sentence the student never wrote", "Clear enough."),
    })
    return {"course": c, "course_id": cid, "assignment_id": c["assignment_id"], "sid": sid, "draft_id": did,
            "student_id": student, **people}


def approve(conn, sid: int, actor) -> None:
    version = actions.open_item(conn, sid, actor=actor)["version"]
    actions.approve(conn, sid, version=version, actor=actor)
