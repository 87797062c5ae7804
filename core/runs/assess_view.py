"""What one run of the Assess page shows, read with one check of the actor: the course and
assignment, the run's configuration and estimate for the options chosen, the offline scorer,
and the recent runs. Starting, resuming and cancelling a run check on their own
(core.runs.reflections); a run's live progress (the page's fragment) reads on its own too."""
from __future__ import annotations

from core import estimate as estimates
from core.accounts import access
from core.accounts.access import Actor
from core.errors import FairMarkError
from core.offline import scorer
from core.runs import reflections as runs
from db import courses
from db import users as users_db


def assess_page(conn, db_path, course_id: int, *, actor: Actor, assignment_id: int | None = None,
                provider: str = "offline", target: int | None = None, redo: bool = False, limit: int = 10) -> dict:
    """{"course", "assignment" (None without one), "offline_scorer" (core.offline.scorer.overview
    of the assignment, None without one), "config" (core.runs.reflections.describe of
    `provider`), "estimate" (core.estimate.for_run of a run over `target`: the assignment, None:
    the whole course), "error" (why neither could be read), "history" (the course's `limit`
    latest runs, core.runs.reflections.history), "people" (display names)}."""
    access.check(conn, actor, "assess", course=course_id, assignment=assignment_id)
    out = {"course": courses.get_course(conn, course_id),
           "assignment": courses.get_assignment(conn, assignment_id) if assignment_id is not None else None,
           "offline_scorer": scorer.overview_of(conn, assignment_id) if assignment_id is not None else None,
           "config": None, "estimate": None, "error": None,
           "history": runs.history_of(conn, db_path, course_id, None, limit),
           "people": users_db.display_names(conn)}
    try:
        out["config"] = runs.describe(provider)
        out["estimate"] = estimates.of_run(conn, course_id=course_id, assignment_id=target, provider=provider,
                                           redo=redo, starter=str(actor))
    except FairMarkError as e:
        out["error"] = str(e)
    return out
