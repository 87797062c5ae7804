"""What the Agreement, Fairness, Costs and Learning pages show, each read in one call with one permission
check (access.scope_for): the page passes the choices its widgets hold and renders what comes
back, the options of its pickers included.

A picker's choice that the scope no longer offers (an expert rater of another course, a
criterion of another rubric) falls back to the first option, as the page's picker does.
A refusal raises (Forbidden); a figure that cannot be computed from the choices (a bad band cut)
comes back as "error", with the pickers' options, so the page can still draw them.
"""
from __future__ import annotations

from sqlite_utils import Database

from core.accounts import access
from core.accounts.access import Actor
from core.appeals.figures import rates_in as appeal_rates_in
from core.errors import FairMarkError
from core.evals import gate
from core.growth import learning
from core.language.interface import message_of
from core.lessons.agreement import lesson_agreement_in
from core.reports.agreement import agreement_in, anchored_in, edits_in, judges_in
from core.reports.costs import costs_in
from core.reports.fairness import fairness_in
from core.reports.judges import judge_agreement_in
from core.reports.pairs import criteria_in, titles_in
from db import analytics, courses, ownership
from db.analytics import REFERENCE_CHOICES


def _references(conn: Database, scope: analytics.Scope, wanted: str) -> tuple[list[str], str]:
    choices = [*REFERENCE_CHOICES, *(f"rater:{r}" for r in analytics.raters(conn, scope))]
    return choices, wanted if wanted in choices else choices[0]


def _course_shown(conn: Database, actor: Actor, scope: analytics.Scope, course_id: int | None) -> int | None:
    """The page's course when the checked scope covers it (an assignment's own course, a course,
    or one of the courses "all" stands for), else None."""
    if course_id is None or not actor.has_course(course_id):
        return None
    if scope.kind == "assignment":
        return course_id if scope.assignment_id is not None and ownership.course_of(conn, "assignment", scope.assignment_id) == course_id else None
    return course_id if scope.kind == "all" or scope.course_id == course_id else None


def _view(build) -> dict:
    try:
        return {"view": build(), "error": None}
    except FairMarkError as e:
        return {"view": None, "error": message_of(e)}


def agreement_page(conn: Database, scope: analytics.Scope, *, reference: str = "auto", course_id: int | None = None,
                   actor: Actor) -> dict:
    """{"titles", "references" (the picker's options), "reference", "view"/"error" (agreement_view,
    intervals later), "anchored", "judges", "judging", "edits", "lessons" (lesson_agreement of the
    course, or of every course in scope), "analysis" (the course whose scores may be downloaded
    for analysis, None when it has no submission or the scope does not cover it), "appeals"
    (appeal and upheld rates, core.appeals.figures.rates_in)}."""
    scoped = access.scope_for(conn, actor, scope)
    references, reference = _references(conn, scoped, reference)
    course = _course_shown(conn, actor, scoped, course_id)
    lessons_course = None if scoped.kind == "all" else course
    return {"titles": titles_in(conn, scoped), "references": references, "reference": reference,
            **_view(lambda: agreement_in(conn, scoped, reference=reference, wait=False)),
            "anchored": anchored_in(conn, scoped), "judges": judges_in(conn, scoped),
            "judging": judge_agreement_in(conn, scoped), "edits": edits_in(conn, scoped),
            "lessons": (lesson_agreement_in(conn, lessons_course, scoped.courses)
                        if lessons_course is not None or scoped.kind == "all" else None),
            "analysis": course if course is not None and sum(courses.status_counts(conn, course_id=course).values())
            else None, "appeals": appeal_rates_in(conn, scoped)}


def fairness_page(conn: Database, scope: analytics.Scope, *, reference: str = "auto", criterion: str | None = None,
                  cut: float | None = None, min_n: int = 10, actor: Actor) -> dict:
    """{"titles", "references", "reference", "criteria" (the picker's options: None pools them),
    "criterion", "options" (what the view was asked with), "view"/"error" (fairness_view), "appeals"
    (appeal and upheld rates by band and group, core.appeals.figures.rates_in)}."""
    scoped = access.scope_for(conn, actor, scope)
    references, reference = _references(conn, scoped, reference)
    choices = [None, *criteria_in(conn, scoped)]
    criterion = criterion if criterion in choices else None
    options = dict(reference=reference, criterion=criterion, cut=cut, min_n=int(min_n))
    return {"titles": titles_in(conn, scoped), "references": references, "reference": reference,
            "criteria": choices, "criterion": criterion, "options": options,
            **_view(lambda: fairness_in(conn, scoped, **options, wait=False)), "appeals": appeal_rates_in(conn, scoped)}


def costs_page(conn: Database, scope: analytics.Scope, *, actor: Actor) -> dict:
    """costs_view: the Costs page's one read (its "apart" also when the view is empty)."""
    return costs_in(conn, access.scope_for(conn, actor, scope))


def learning_page(conn, course_id: int, *, actor: Actor) -> dict:
    """What the Learning page shows, in one read (one check): {"growth", "rubric" (of the course's
    last assignment: the criteria's titles and scale), "after" (after_config, each with the
    configuration's "name"), "next_steps" (its "by_config" with names too)}."""
    access.check(conn, actor, "dashboards", course=course_id)
    g = learning.growth_in(conn, course_id, actor)
    if not g["released"]:
        return {"growth": g, "rubric": None, "after": [], "next_steps": None}
    rubric = courses.assignment_rubric(conn, courses.list_assignments(conn, course_id)[-1]["id"])
    after = [{**a, "name": gate.config_name(conn, a["config"])} for a in learning.after_config_in(conn, course_id)]
    ns = learning.next_steps_in(conn, course_id)
    ns["by_config"] = [{**c, "name": gate.config_name(conn, c["config"])} for c in ns["by_config"]]
    return {"growth": g, "rubric": rubric, "after": after, "next_steps": ns}
