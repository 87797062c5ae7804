"""What one run of the Upload page shows before a file is staged, read with one check of the
actor: where the reflections may go (courses, assignments, rubrics) and the recent imports.
The preview of a staged file (core.ingest.commit.build_preview) and the import check on their
own: they read the file, not the page."""
from __future__ import annotations

from core.accounts import access
from core.accounts.access import Actor
from core.errors import NotFound
from db import courses, submissions
from db import users as users_db


def upload_page(conn, *, actor: Actor, course_id: int | None = None, rubric_id: int | None = None,
                recent: int = 10) -> dict:
    """{"courses" (those the actor may upload to), "may_create" (a new course), "course_id" (the
    course the page's picker shows for `course_id`: it when the actor may upload to it, None for
    a new course when `course_id` is None and the actor may create one, else the first course),
    "assignments" and "rubrics" {assignment id: its rubric} of that course, "saved_rubrics" (the
    catalogue), "rubric" (the saved rubric `rubric_id`, for a new assignment), "recent" (that
    course's latest imports), "people" (display names)}."""
    try:   # the picker's course when there is one (a course deleted meanwhile: as if none)
        access.check(conn, actor, "upload", course=course_id)
    except NotFound:
        course_id = None
        access.require(actor, "upload")
    may = access.allowed(actor)
    granted = [c for c in courses.list_courses(conn) if "upload" in access.allowed(actor, c["id"])]
    ids = [c["id"] for c in granted]
    chosen = (course_id if course_id in ids else None if course_id is None and "create_course" in may
              else ids[0] if ids else None)
    existing = courses.list_assignments(conn, chosen) if chosen is not None else []
    loaded: dict[int, object] = {}
    for a in existing:
        if a["rubric_id"] not in loaded:
            loaded[a["rubric_id"]] = courses.get_rubric(conn, a["rubric_id"])
    return {"courses": granted, "may_create": "create_course" in may, "course_id": chosen, "assignments": existing,
            "rubrics": {a["id"]: loaded[a["rubric_id"]] for a in existing},
            "saved_rubrics": courses.list_rubrics(conn),
            "rubric": _saved(conn, rubric_id),
            "recent": submissions.recent_imports(conn, course_id=chosen, limit=recent) if chosen is not None else [],
            "people": users_db.display_names(conn)}


def _saved(conn, rubric_id: int | None):
    try:
        return courses.get_rubric(conn, rubric_id) if rubric_id is not None else None
    except NotFound:   # a picker's state from before the rubric was deleted: the page reads again
        return None
