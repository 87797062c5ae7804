"""What the pages read about courses, each read checked against the signed-in actor (issue 13).

Pages never read a course's data from db/ themselves: they call these (or the other core
functions that take `actor`), so a URL with another course's id, a crafted query parameter or a
download link meets the same check as a button. Where a coordinator's grant does not show
student names, rows and texts carry the student's pseudonym instead (`core.accounts.access.sees_names`).
"""
from __future__ import annotations

import dataclasses

from core.accounts import access
from core.signoff import triage
from core.accounts.access import Actor
from core.calibration import blind, readiness
from core.moderation import blindness as moderation_blindness
from core.privacy.pseudonym import Pseudonymizer
from db import analytics, calibration, courses, exports, lessons, queue, releases, reviews, submissions, votes
from db import comparisons as cmp_db
from db import evals as evals_db
from db.analytics import Scope  # noqa: F401  (the pages' names for these shapes)
from db.queue import STATUS_FILTERS, QueueFilter  # noqa: F401


# --- courses and assignments (the sidebar) ----------------------------------------------
def list_courses(conn, *, actor: Actor) -> list[dict]:
    """The courses the actor may open (an admin: every course)."""
    access.require(actor, "read")
    return [c for c in courses.list_courses(conn) if actor.has_course(c["id"])]


def any_course(conn) -> bool:
    """Whether the database has a course at all (Home's first-run hint; says nothing else)."""
    return not courses.is_empty(conn)


def get_course(conn, course_id: int, *, actor: Actor) -> dict:
    access.check(conn, actor, "read", course=course_id)
    return courses.get_course(conn, course_id)


def list_assignments(conn, course_id: int, *, actor: Actor) -> list[dict]:
    access.check(conn, actor, "read", course=course_id)
    return courses.list_assignments(conn, course_id)


def get_assignment(conn, assignment_id: int, *, actor: Actor) -> dict:
    access.check(conn, actor, "read", assignment=assignment_id)
    return courses.get_assignment(conn, assignment_id)


def assignment_rubric(conn, assignment_id: int, *, actor: Actor):
    access.check(conn, actor, "read", assignment=assignment_id)
    return courses.assignment_rubric(conn, assignment_id)


def status_counts(conn, *, course_id: int | None = None, assignment_id: int | None = None, actor: Actor) -> dict:
    if course_id is None and assignment_id is None:
        raise ValueError("status counts of a course or an assignment")
    access.check(conn, actor, "read", course=course_id, assignment=assignment_id)
    return courses.status_counts(conn, course_id=course_id, assignment_id=assignment_id)


def progress_counts(conn, *, course_id: int | None = None, assignment_id: int | None = None, actor: Actor) -> dict:
    """Where the reflections stand, one definition of each count (Home shows them; Review's
    "Needs attention" group is the same number):

    - uploaded: every reflection uploaded, whatever has happened to it since;
    - drafted: those with an AI draft (not the ones waiting for one, nor those whose draft failed);
    - needs_attention: the Review queue's first group (core.signoff.triage.NEEDS_ATTENTION: flagged, or the
      AI draft failed, and no decision yet), calibration items waiting for their blind score left
      out as on Review (their group would hint at the hidden draft);
    - approved: approved by a teacher, released or not; released: in a release;
    - rejected: rejected and back in the queue.
    """
    status_counts(conn, course_id=course_id, assignment_id=assignment_id, actor=actor)   # the check
    return progress_of(conn, course_id=course_id, assignment_id=assignment_id)


def progress_of(conn, *, course_id: int | None = None, assignment_id: int | None = None) -> dict:
    """`progress_counts` for a caller that has checked the actor (a page's view)."""
    raw = courses.status_counts(conn, course_id=course_id, assignment_id=assignment_id)
    aids = ([assignment_id] if assignment_id is not None
            else [a["id"] for a in courses.list_assignments(conn, course_id)])
    return {"uploaded": sum(raw.values()), "drafted": sum(raw.values()) - raw["uploaded"] - raw["failed"],
            "needs_attention": sum(queue.group_counts(conn, a).get(triage.NEEDS_ATTENTION, 0) for a in aids),
            "approved": raw["approved"] + raw["released"], "released": raw["released"], "rejected": raw["rejected"]}


def locate(conn, kind: str, ident: int, *, actor: Actor) -> tuple[int, int | None] | None:
    """Where a linked course, assignment, item or run lives, only when the actor may open it
    (None otherwise: a link to another course's item shows nothing of it)."""
    where = courses.locate(conn, kind, ident)
    return where if where is not None and access.may(actor, "read", where[0]) else None


def list_students(conn, course_id: int, *, actor: Actor) -> list[dict]:
    access.check(conn, actor, "read", course=course_id)
    rows = courses.list_students(conn, course_id)
    if not access.sees_names(actor, course_id):
        rows = [{**r, "name": r["pseudonym"], "email": "", "external_id": ""} for r in rows]
    return rows


def recent_imports(conn, course_id: int, *, actor: Actor, limit: int = 10) -> list[dict]:
    access.check(conn, actor, "read", course=course_id)
    return submissions.recent_imports(conn, course_id=course_id, limit=limit)


# --- the review queue and item ---------------------------------------------------------
_FORM_KEYS = frozenset({"msgid", "plural", "count", "values", "context"})   # core.language.interface.stored


def _masker(actor: Actor, course_id: int, name: str, email: str, pseudonym: str):
    """A function hiding the student's name in a text (or in every string of a dict or list:
    agents' answers, revisions, audit rows), or None when the actor sees names."""
    if access.sees_names(actor, course_id):
        return None
    pz = Pseudonymizer(name or "", email or "", pseudonym)

    def hide(value):
        if isinstance(value, str):
            return pz.hide(value)
        if isinstance(value, dict):
            if set(value) <= _FORM_KEYS and "msgid" in value and isinstance(value.get("values"), dict):
                # a Message's stored form: its template is FairMark's, only its values quote the text
                return {**value, "values": hide(value["values"])}
            return {k: hide(v) for k, v in value.items()}
        if isinstance(value, list):
            return [hide(v) for v in value]
        return value
    return hide


def _as_read_by(flt: queue.QueueFilter | None, actor: Actor) -> queue.QueueFilter:
    """The filter as `actor` reads the queue: their own items unless `everything`, never an item
    they still mark blind (db.moderation), as the Review page's queue shows it."""
    return dataclasses.replace(flt or queue.QueueFilter(), marker=str(actor))


def queue_page(conn, assignment_id: int, flt: queue.QueueFilter | None = None, *, actor: Actor,
               page: int = 0, page_size: int = queue.PAGE_SIZE) -> dict:
    course_id = access.check(conn, actor, "read", assignment=assignment_id)
    return queue_page_of(conn, assignment_id, _as_read_by(flt, actor), actor=actor, course_id=course_id, page=page,
                         page_size=page_size)


def queue_page_of(conn, assignment_id: int, flt: queue.QueueFilter | None = None, *, actor: Actor, course_id: int,
                  page: int = 0, page_size: int = queue.PAGE_SIZE) -> dict:
    """`queue_page` for a caller that has checked the actor (a page's view)."""
    out = queue.queue(conn, assignment_id, flt, page=page, page_size=page_size)
    if not access.sees_names(actor, course_id):
        rows = []
        for r in out["rows"]:
            hide = _masker(actor, course_id, r["student_name"], r.get("student_email"), r["pseudonym"])
            rows.append({**r, "student_name": r["pseudonym"], "student_email": "", "external_id": "",
                         "excerpt": hide(r["excerpt"])})
        out = {**out, "rows": rows}
    return out


def queue_group_counts(conn, assignment_id: int, *, actor: Actor) -> dict:
    access.check(conn, actor, "read", assignment=assignment_id)
    return queue.group_counts(conn, assignment_id)


def queue_position(conn, submission_id: int, *, actor: Actor):
    access.check(conn, actor, "read", submission=submission_id)
    return queue.position(conn, submission_id)


def queue_neighbour(conn, assignment_id: int, position: tuple, flt: queue.QueueFilter | None = None, *,
                    actor: Actor, forward: bool = True) -> int | None:
    access.check(conn, actor, "read", assignment=assignment_id)
    return queue.neighbour(conn, assignment_id, position, _as_read_by(flt, actor), forward=forward)


def review_item(conn, submission_id: int, *, actor: Actor) -> dict:
    """Everything the review item shows (db.reviews.item), names hidden where the grant says so.
    A calibration item nobody has scored blind is refused (GateError): its draft stays hidden; so
    is a moderation item to the second marker who has not marked it yet."""
    course_id = access.check(conn, actor, "read", submission=submission_id)
    blind.require_visible(conn, submission_id)
    moderation_blindness.require_visible(conn, submission_id, actor)
    return review_item_of(conn, submission_id, actor=actor, course_id=course_id)


def review_item_of(conn, submission_id: int, *, actor: Actor, course_id: int) -> dict:
    """`review_item` for a caller that has checked the actor and that the draft may be seen."""
    data = reviews.item(conn, submission_id)
    student = data["student"]
    hide = _masker(actor, course_id, student["name"], "", student["pseudonym"])
    if hide is None:
        return data
    out = dict(data)
    out["student"] = {**student, "name": student["pseudonym"], "external_id": ""}
    out["submission"] = {**data["submission"], "text": hide(data["submission"]["text"])}
    for key in ("draft", "current_draft", "review"):
        if data.get(key):
            out[key] = hide(data[key])
    return out


def item_history(conn, submission_id: int, *, actor: Actor) -> list[dict]:
    """The item's audit rows; refused to its second marker before their blind mark (its approval
    holds the first mark)."""
    course_id = access.check(conn, actor, "read", submission=submission_id)
    moderation_blindness.require_visible(conn, submission_id, actor)
    return item_history_of(conn, submission_id, actor=actor, course_id=course_id)


def item_history_of(conn, submission_id: int, *, actor: Actor, course_id: int) -> list[dict]:
    """`item_history` for a caller that has checked the actor (a page's view)."""
    rows = reviews.history(conn, submission_id)
    if not access.sees_names(actor, course_id):
        student = reviews.item(conn, submission_id)["student"]
        hide = _masker(actor, course_id, student["name"], "", student["pseudonym"])
        rows = [{**r, "before": hide(r["before"]), "after": hide(r["after"]), "reason": hide(r["reason"])} for r in rows]
    return rows


def item_votes(conn, submission_id: int, *, draft_id: int | None = None, actor: Actor) -> list[dict]:
    access.check(conn, actor, "read", submission=submission_id)
    return votes.of(conn, "submission", submission_id, draft_id=draft_id)


def saved_case_count(conn, submission_id: int, *, actor: Actor) -> int:
    access.check(conn, actor, "read", submission=submission_id)
    return len(evals_db.saved_case_ids_of(conn, submission_id))


def calibration_pending(conn, assignment_id: int, *, actor: Actor) -> int:
    access.check(conn, actor, "read", assignment=assignment_id)
    return calibration.pending_count(conn, assignment_id)


# --- dashboards' pickers ------------------------------------------------------------------
def raters(conn, scope: Scope, *, actor: Actor) -> list[str]:
    return analytics.raters(conn, access.scope_for(conn, actor, scope))


def attributes(conn, scope: Scope, *, actor: Actor) -> list[str]:
    return analytics.attributes(conn, access.scope_for(conn, actor, scope, action="read"))


# --- release and students -------------------------------------------------------------
def release_overview(conn, assignment_id: int, *, actor: Actor):
    access.check(conn, actor, "read", assignment=assignment_id)
    return releases.release_overview(conn, assignment_id)


def releases_of(conn, assignment_id: int, *, actor: Actor) -> list[dict]:
    access.check(conn, actor, "read", assignment=assignment_id)
    return releases.releases_of(conn, assignment_id)


def exportable_count(conn, assignment_id: int, *, include_approved: bool = False, actor: Actor) -> int:
    access.check(conn, actor, "read", assignment=assignment_id)
    return exports.exportable_count(conn, assignment_id, include_approved=include_approved)


def students_with_releases(conn, course_id: int, *, actor: Actor) -> set[int]:
    access.check(conn, actor, "read", course=course_id)
    return releases.students_with_releases(conn, course_id)


def student_released(conn, student_id: int, *, actor: Actor) -> list[dict]:
    course_id = access.check(conn, actor, "read", student=student_id)
    return _student_released(conn, student_id, actor=actor, course_id=course_id)


def _student_released(conn, student_id: int, *, actor: Actor, course_id: int) -> list[dict]:
    rows = releases.student_released(conn, student_id)
    if not access.sees_names(actor, course_id):
        person = next((s for s in courses.list_students(conn, course_id) if s["id"] == student_id), None)
        if person:
            hide = _masker(actor, course_id, person["name"], person["email"], person["pseudonym"])
            rows = [{**r, "comment": hide(r["comment"])} for r in rows]
    return rows


# --- comparisons and lessons -------------------------------------------------------------
def comparisons_of(conn, course_id: int, *, actor: Actor) -> list[dict]:
    access.check(conn, actor, "read", course=course_id)
    return cmp_db.list_for_course(conn, course_id)


def comparison_progress(conn, comparison_id: int, *, actor: Actor) -> dict:
    """Pairs drafted, and judged by this teacher."""
    access.check(conn, actor, "read", comparison=comparison_id)
    return cmp_db.progress(conn, comparison_id, str(actor))


def lesson(conn, lesson_id: int, *, actor: Actor) -> dict:
    access.check(conn, actor, "read", lesson=lesson_id)
    return lessons.get(conn, lesson_id)


def lesson_queue(conn, course_id: int, *, actor: Actor) -> list[dict]:
    access.check(conn, actor, "read", course=course_id)
    return lessons.queue(conn, course_id)


def lessons_waiting(conn, course_id: int, *, redo: bool = False, actor: Actor) -> int:
    access.check(conn, actor, "read", course=course_id)
    return len(lessons.eligible(conn, course_id, redo=redo))


def lesson_tiers(conn, course_id: int, *, actor: Actor) -> dict[str, int]:
    access.check(conn, actor, "read", course=course_id)
    return lessons.tier_counts(conn, course_id)


# --- AI configurations' eval runs (the installation's, not a course's) ---------------------
def eval_runs(conn, *, actor: Actor) -> list[dict]:
    access.require(actor, "read")
    return evals_db.eval_runs(conn)


def latest_eval_run(conn, config_hash: str, *, actor: Actor) -> dict | None:
    access.require(actor, "read")
    return evals_db.latest_eval_run(conn, config_hash)


# --- rubrics (the installation's catalogue, shared by courses) -----------------------------
def get_rubric(conn, rubric_id: int, *, actor: Actor):
    access.require(actor, "read")
    return courses.get_rubric(conn, rubric_id)


def list_rubrics(conn, *, actor: Actor) -> list[dict]:
    access.require(actor, "read")
    return courses.list_rubrics(conn)


# --- pages' views: what one run of a page shows, read with one check --------------------------
def students_page(conn, course_id: int, *, actor: Actor, student_id: int | None = None) -> dict:
    """The Students page: {"students" (as list_students), "released" (ids with released work),
    "student_id" (`student_id` when it is one of the course's, else the first with released work,
    else the first; None without students), "rows" (its released work: student_released),
    "rubrics" {rubric id: rubric}}."""
    access.check(conn, actor, "read", course=course_id)
    students = courses.list_students(conn, course_id)
    if not access.sees_names(actor, course_id):
        students = [{**r, "name": r["pseudonym"], "email": "", "external_id": ""} for r in students]
    released = releases.students_with_releases(conn, course_id)
    ids = [s["id"] for s in students]
    if student_id not in ids:
        student_id = next((i for i in ids if i in released), ids[0] if ids else None)
    rows = [] if student_id is None else _student_released(conn, student_id, actor=actor, course_id=course_id)
    return {"students": students, "released": released, "student_id": student_id, "rows": rows,
            "rubrics": {r["rubric_id"]: courses.get_rubric(conn, r["rubric_id"]) for r in rows}}


def home_page(conn, *, actor: Actor, course_id: int | None = None, assignment_id: int | None = None) -> dict:
    """The Home page: {"courses" (list_courses), "may" (the actions the actor may do, anywhere:
    the page's links), "assignment" and "course" (progress_counts, None when not chosen),
    "calibration" (core.calibration.readiness.course_overview of the course), "course_row"}."""
    if course_id is None and assignment_id is None:
        access.require(actor, "read")
    else:
        access.check(conn, actor, "read", course=course_id, assignment=assignment_id)
    return {"courses": [c for c in courses.list_courses(conn) if actor.has_course(c["id"])],
            "may": access.allowed(actor),
            "assignment": progress_of(conn, assignment_id=assignment_id) if assignment_id else None,
            "course": progress_of(conn, course_id=course_id) if course_id else None,
            "calibration": readiness.overview_of(conn, course_id) if course_id else [],
            "course_row": courses.get_course(conn, course_id) if course_id else None}
