"""Learning over time (seed 003: measure learning, not satisfaction): growth per criterion
across weeks from released, teacher-approved scores, per student and for the cohort; the growth
after feedback from each AI configuration (before and after a change); and whether students
acted on last week's next steps, where a teacher marked it. No satisfaction figure is computed:
a comment students like is often one that did the work for them.

Growth is the least-squares slope of a student's released score on the week number (points
per week), for students with at least two released weeks; the cohort figure is the mean of the
students' slopes with a 95 % bootstrap CI over students. "After a configuration" is the change
of a student's mean score from one released week to their next, grouped by the configuration
that drafted the earlier week's feedback. These are observational figures without a control
group: a difference between configurations is a question to look into, not a proof.
"""
from __future__ import annotations

import numpy as np

from core.accounts import access
from core.accounts.access import Actor
from core.errors import FairMarkError
from core.language.interface import Message
from core.metrics.bootstrap import percentile_ci
from db import audit, courses
from db import learning as learning_db

N_BOOT = 2000
ACTED = learning_db.ACTED


def slope(weeks: list[float], scores: list[float]) -> float | None:
    """Least-squares points per week; None with fewer than two distinct weeks.

    >>> slope([1, 2, 3], [1, 2, 2])
    0.5
    >>> slope([4], [2]) is None
    True
    """
    w, s = np.asarray(weeks, float), np.asarray(scores, float)
    if len(set(weeks)) < 2:
        return None
    return round(float(np.polyfit(w, s, 1)[0]), 4)


def _mean_ci(values: list[float], seed: int = 0) -> dict:
    v = np.asarray(values, float)
    out = {"n": int(v.size), "mean": round(float(v.mean()), 4) if v.size else None, "ci": None, "ci_note": None}
    if v.size:
        reps = v[np.random.default_rng(seed).integers(0, v.size, size=(N_BOOT, v.size))].mean(axis=1)
        ci, out["ci_note"] = percentile_ci(reps, int(v.size))
        out["ci"] = None if ci is None else [round(ci[0], 4), round(ci[1], 4)]
    return out


def growth(conn, course_id: int, *, actor: Actor) -> dict:
    """{criteria, weeks, cohort: [{week, criterion, mean, n}], slopes: {criterion: mean slope
    with CI}, students: [{student_id, name, criterion, weeks, slope, first, last}], released,
    by_position: titles of assignments without a week number, counted at their place in the course}."""
    access.check(conn, actor, "dashboards", course=course_id)
    return growth_in(conn, course_id, actor)


def growth_in(conn, course_id: int, actor: Actor) -> dict:
    rows = learning_db.released_scores(conn, course_id)
    pseudonyms = (None if access.sees_names(actor, course_id)
                  else {s["id"]: s["pseudonym"] for s in courses.list_students(conn, course_id)})
    criteria: list[str] = []
    for r in rows:
        criteria += [k for k in r["scores"] if k not in criteria]
    cohort, students, slopes = [], [], {}
    weeks = sorted({r["week"] for r in rows})
    for k in criteria:
        for w in weeks:
            vals = [r["scores"][k] for r in rows if r["week"] == w and r["scores"].get(k) is not None]
            if vals:
                cohort.append({"week": w, "criterion": k, "mean": round(float(np.mean(vals)), 3), "n": len(vals)})
        per_student = []
        for sid in sorted({r["student_id"] for r in rows}):
            mine = [r for r in rows if r["student_id"] == sid and r["scores"].get(k) is not None]
            if not mine:
                continue
            sl = slope([r["week"] for r in mine], [r["scores"][k] for r in mine])
            name = pseudonyms[sid] if pseudonyms else mine[0]["student_name"] or mine[0]["external_id"]
            students.append({"student_id": sid, "name": name,
                             "criterion": k, "weeks": len(mine), "first": mine[0]["scores"][k],
                             "last": mine[-1]["scores"][k], "slope": sl})
            if sl is not None:
                per_student.append(sl)
        slopes[k] = _mean_ci(per_student)
    return {"criteria": criteria, "weeks": weeks, "cohort": cohort, "slopes": slopes, "students": students,
            "released": len(rows), "by_position": sorted({r["title"] for r in rows if r["week_is_position"]})}


def student_growth(conn, course_id: int, student_id: int, *, actor: Actor) -> list[dict]:
    access.check(conn, actor, "read", course=course_id, student=student_id)
    return [s for s in growth(conn, course_id, actor=actor)["students"] if s["student_id"] == student_id]


def after_config(conn, course_id: int, *, actor: Actor) -> list[dict]:
    """Per AI configuration: the mean change of a student's mean score from the week its
    feedback was released to the student's next released week, with a CI over transitions."""
    access.check(conn, actor, "dashboards", course=course_id)
    return after_config_in(conn, course_id)


def after_config_in(conn, course_id: int) -> list[dict]:
    rows = learning_db.released_scores(conn, course_id)
    by_student: dict[int, list[dict]] = {}
    for r in rows:
        if r["scores"]:
            by_student.setdefault(r["student_id"], []).append(r)
    gains: dict[str, list[float]] = {}
    first_week: dict[str, float] = {}
    for mine in by_student.values():
        mine.sort(key=lambda r: r["week"])
        for cur, nxt in zip(mine, mine[1:]):
            if nxt["week"] == cur["week"]:
                continue
            cfg = cur["ai_config"] or "unknown"
            gains.setdefault(cfg, []).append(float(np.mean(list(nxt["scores"].values())))
                                             - float(np.mean(list(cur["scores"].values()))))
            first_week[cfg] = min(first_week.get(cfg, cur["week"]), cur["week"])
    return [{"config": cfg, "from_week": first_week[cfg], **_mean_ci(v)}
            for cfg, v in sorted(gains.items(), key=lambda kv: first_week[kv[0]])]


def next_steps(conn, course_id: int, *, actor: Actor) -> dict:
    """The teachers' marks: counts of yes / partly / no overall, per week and per configuration
    of the feedback acted on (or not)."""
    access.check(conn, actor, "dashboards", course=course_id)
    return next_steps_in(conn, course_id)


def next_steps_in(conn, course_id: int) -> dict:
    marks = learning_db.marks(conn, course_id)

    def counts(ms):
        c = {a: sum(m["acted"] == a for m in ms) for a in ACTED}
        n = sum(c.values())
        return {"n": n, **c, "acted_share": round((c["yes"] + 0.5 * c["partly"]) / n, 3) if n else None}

    return {"overall": counts(marks),
            "by_week": [{"week": w, **counts([m for m in marks if m["week"] == w])}
                        for w in sorted({m["week"] for m in marks})],
            "by_config": [{"config": cfg or "unknown", **counts([m for m in marks if m["ai_config"] == cfg])}
                          for cfg in sorted({m["ai_config"] for m in marks}, key=str)]}


def previous_next_steps(conn, submission_id: int, *, actor: Actor) -> dict | None:
    """Last week's released feedback for this submission's student, with the teacher's mark."""
    access.check(conn, actor, "read", submission=submission_id)
    return previous_of(conn, submission_id)


def previous_of(conn, submission_id: int) -> dict | None:
    """`previous_next_steps` for a caller that has checked the actor (a page's view)."""
    prev = learning_db.previous_released(conn, submission_id)
    if prev is None:
        return None
    mark = _mark_on(conn, submission_id, prev["submission_id"])
    return {**prev, "acted": mark["acted"] if mark else None, "marked_by": mark["marked_by"] if mark else None}


def _mark_on(conn, submission_id: int, previous_submission_id: int) -> dict | None:
    """The teacher's mark on this submission, if it is about that earlier feedback (a mark made
    before another earlier week was released is about other feedback: it does not count)."""
    mark = learning_db.get_mark(conn, submission_id)
    return mark if mark and mark["previous_submission_id"] == previous_submission_id else None


def last_week(conn, submission_id: int) -> dict | None:
    """What the Coach and the Aggregator are told about the student's previous feedback (for the
    pipeline, whose caller checked the actor): `previous_of`'s comment, week and title, `acted`
    (the teacher's mark on this submission: does it act on that comment? None = not marked), and
    `acted_before` (the mark on that earlier submission: did it act on the feedback before it?),
    which a teacher made on last week's item and so reaches this week's drafts. None without a
    released earlier comment, or with an empty one (nothing to follow up)."""
    prev = previous_of(conn, submission_id)
    if prev is None or not (prev["comment"] or "").strip():
        return None
    before = learning_db.previous_released(conn, prev["submission_id"])
    mark = _mark_on(conn, prev["submission_id"], before["submission_id"]) if before else None
    return {"week": prev["week"], "title": prev["title"], "comment": prev["comment"], "acted": prev["acted"],
            "acted_before": mark["acted"] if mark else None}


def mark_next_steps(conn, submission_id: int, acted: str, *, actor: Actor) -> None:
    """A teacher marks whether the student acted on last week's next steps (audited)."""
    access.check(conn, actor, "review", submission=submission_id)
    if acted not in ACTED:
        raise FairMarkError(Message("Mark one of {choices}", choices=", ".join(ACTED)))
    prev = learning_db.previous_released(conn, submission_id)
    if prev is None:
        raise FairMarkError(Message("This student has no released feedback from an earlier week to act on"))
    before = learning_db.get_mark(conn, submission_id)
    with conn.atomic():
        learning_db.save_mark(conn, submission_id, prev["submission_id"], acted, actor)
        audit(conn, actor=actor, action="mark_next_steps", entity="next_step_marks", entity_id=submission_id,
              submission_id=submission_id, before={"acted": before["acted"]} if before else None,
              after={"acted": acted, "previous_submission_id": prev["submission_id"]})

