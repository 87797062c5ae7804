"""A course with released and unreleased work of two students, for the student page's tests."""
from __future__ import annotations

import factories as f
from core.signoff import actions, release

HIGH = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 2}
LOW = {"concept_understanding": 1, "real_world_application": 1, "reflection_depth": 0, "clarity": 1}


def approve(conn, sid: int, teacher, comment: str | None = None, scores: dict | None = None) -> None:
    version = actions.open_item(conn, sid, actor=teacher)["version"]
    if comment is not None:
        version = actions.save_edit(conn, sid, version=version, scores=scores or HIGH, comment=comment,
                                    reasons=["other"], note="test edit", actor=teacher)["version"]
    actions.approve(conn, sid, version=version, actor=teacher)


def classroom(conn) -> dict:
    """Course "Biology" with weeks 1 and 2. Sam: week 1 released (edited by Ada Lovelace, an
    instructor), week 2 drafted only. Kim: week 1 released. Returns ids, the release's links
    ({submission id: url}) and the teacher."""
    course = f.course(conn, "Biology", weeks=2)
    cid, (week1, week2) = course["course_id"], course["assignment_ids"]
    teacher = f.user(conn, "ada", "instructor", courses=[cid])
    conn.execute("UPDATE users SET display_name = 'Ada Lovelace' WHERE username = 'ada'")
    sam, kim = f.student(conn, cid, name="Sam Pupil"), f.student(conn, cid, name="Kim Other")
    sam1, sam2, kim1 = f.submission(conn, week1, sam), f.submission(conn, week2, sam), f.submission(conn, week1, kim)
    f.draft(conn, sam1, LOW, comment="AI draft words the teacher replaced.")
    f.draft(conn, sam2, LOW, comment="An unreleased draft for week two.")
    f.draft(conn, kim1, LOW, comment="Kim's comment, never Sam's.")
    approve(conn, sam1, teacher, comment="Good *start*: add an example <b>next</b> time.")
    approve(conn, kim1, teacher)
    out = release.release(conn, week1, actor=teacher)
    return {"course_id": cid, "week1": week1, "week2": week2, "sam": sam, "kim": kim, "sam1": sam1, "sam2": sam2,
            "kim1": kim1, "teacher": teacher, "release": out,
            "links": {m["submission_id"]: m["url"] for m in out["links"]}}


def token_of(url: str) -> str:
    return url.rsplit("/s/", 1)[1]
