"""Released items a student can appeal (tests/test_appeals*.py): a course whose assignment takes
appeals until a far deadline, and an item drafted, approved and released."""
from __future__ import annotations

import factories as f
from core.accounts import access
from core.courses import catalogue
from core.signoff import actions, release
from signoff_items import HIGH

ADMIN = f.actor("ann")
FAR = "2099-12-31"


def appealable(conn, *, deadline: str | None = FAR, weeks: int = 1) -> dict:
    course = f.course(conn, weeks=weeks)
    for aid in course["assignment_ids"]:
        catalogue.edit_assignment(conn, aid, actor=ADMIN, appeal_deadline=deadline)
    return course


def released(conn, course, scores=HIGH, *, assignment_id: int | None = None, attributes: dict | None = None,
             student_id: int | None = None) -> tuple[int, object]:
    """A released item: (submission id, its student's actor)."""
    aid = assignment_id or course["assignment_id"]
    stu = student_id or f.student(conn, course["course_id"], attributes=attributes)
    sid = f.submission(conn, aid, stu, text="I learned about temperature and bias with an example.")
    f.draft(conn, sid, scores)
    actions.open_item(conn, sid, actor=ADMIN)
    actions.approve(conn, sid, version=1, actor=ADMIN)
    release.release(conn, aid, actor=ADMIN, only=[sid])
    return sid, access.student(stu, course["course_id"], assignment_id=aid)
