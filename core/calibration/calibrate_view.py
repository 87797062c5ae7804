"""What one run of the Calibrate page shows, read with one check of the actor (the set, or one
item as this teacher may see it). Drawing, saving blind scores and taking items out check on
their own (core.calibration.draw, core.calibration.blind)."""
from __future__ import annotations

from sqlite_utils import Database

from core.accounts import access
from core.accounts.access import Actor
from core.calibration import blind, draw, offset, readiness
from core.errors import NotFound
from core.language.interface import message_of
from core.offline import scorer
from db import analytics, courses, submissions
from db import users as users_db


def calibrate_page(conn: Database, assignment_id: int, *, actor: Actor, item: int | None = None) -> dict:
    """{"course_id", "may" (the actions the actor may do in the course), "rubric", "people"
    (display names), and either "item" (`item`, core.calibration.blind.for_rater; {"elsewhere":
    True} when it is another assignment's, {"error"} when there is none) or the set: "readiness", "offsets", "offline_scorer"
    (core.offline.scorer.overview), "set" (core.calibration.draw.state), "attributes" (the group
    attributes the set may be stratified by)}."""
    course_id = access.check(conn, actor, "calibrate", assignment=assignment_id)
    out = {"course_id": course_id, "may": access.allowed(actor, course_id),
           "rubric": courses.assignment_rubric(conn, assignment_id), "people": users_db.display_names(conn),
           "item": None}
    if item is not None:
        try:
            sub = submissions.get_submission(conn, item)
        except NotFound as e:
            return {**out, "item": {"error": message_of(e)}}
        out["item"] = (blind.for_rater_of(conn, item, actor) if sub["assignment_id"] == assignment_id
                       else {"elsewhere": True})
        return out
    scope = analytics.Scope("assignment", assignment_id=assignment_id)
    return {**out, "readiness": readiness.current(conn, assignment_id),
            "offsets": offset.of_assignment(conn, assignment_id),
            "offline_scorer": scorer.overview_of(conn, assignment_id),
            "set": draw.state_of(conn, assignment_id, actor), "attributes": analytics.attributes(conn, scope)}
