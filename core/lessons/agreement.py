"""Judge-expert and judge-teacher agreement on lesson verdicts (publish | revise), and which
planted problems the review found, by Stage 1 or by the judge.

The verdict compared is the review's verdict on the lesson as uploaded (before any fix): the
expert and the teacher judged that text. Binary verdicts: exact agreement, and Cohen's kappa
(the QWK of core.metrics on a two-level scale is Cohen's kappa), each with a 95 % bootstrap
interval that resamples lessons (a lesson two teachers approved counts once) and says how many
lessons it rests on: a handful of lessons gives a wide interval, and the page says so.
"""
from __future__ import annotations

from core.accounts import access
from core.accounts.access import Actor
from core.metrics.agreement import agreement, pair_counts
from core.metrics.bootstrap import agreement_cis
from core.offline import LABEL as OFFLINE_LABEL
from db import lessons as lessons_db

LEVEL = {"revise": 0, "publish": 1}
PROBLEMS = {
    "invented_fact": "an invented fact",
    "grade_drift": "a reading grade that drifts upward",
    "missing_objective": "a missing objective",
    "weak_hook": "a weak hook",
    "too_short": "too short",
}
# Where each kind of problem shows: (Stage 1 check, rubric dimension and the score under which
# the judge counts as having found it).
_SIGNS = {"invented_fact": (None, "factual_integrity", 0.6), "grade_drift": ("drift", "clarity_structure", 0.6),
          "missing_objective": ("objectives", "pedagogical_alignment", 0.6),
          "weak_hook": (None, "engagement_tone", 0.6), "too_short": ("length", None, None)}


def found_by(problem: str, record: dict) -> str | None:
    """'stage 1', 'judge' or None: who caught this problem in a review record."""
    check, dim, below = _SIGNS[problem]
    if check and any(c["name"] == check and not c["passed"] and c["severity"] != "info"
                     for c in record.get("heuristics", [])):
        return "stage 1"
    first = record.get("first") or {}
    if dim and first.get("scores", {}).get(dim, 1.0) < below:
        return "judge"
    if problem == "invented_fact" and any(f.get("verdict") == "contradicted"
                                          for f in (record.get("entropy") or {}).get("flags", [])):
        return "judge"
    return None


def lesson_agreement(conn, course_id: int | None = None, *, actor: Actor) -> dict:
    access.check(conn, actor, "dashboards", course=course_id)
    return lesson_agreement_in(conn, course_id, None if actor.all_courses else tuple(actor.course_ids()))


def lesson_agreement_in(conn, course_id: int | None, courses: tuple[int, ...] | None) -> dict:
    """`lesson_agreement` once the actor is checked: one course, or every course (`courses`: the
    ones granted, None: all)."""
    pairs = lessons_db.reference_pairs(conn, course_id)
    if course_id is None and courses is not None:  # every course: the ones granted
        pairs = [p for p in pairs if p["course_id"] in courses]
    by_rater: dict[str, list[dict]] = {}
    for p in pairs:
        by_rater.setdefault("expert" if p["rater"] == "expert" else "teacher", []).append(p)
    raters = {}
    for kind, rows in by_rater.items():
        table = pair_counts([LEVEL[r["judged"]] for r in rows], [LEVEL[r["reference"]] for r in rows],
                            keys={"student": [r["lesson_id"] for r in rows]})   # the unit resampled: a lesson
        a, ci = agreement(table, 0, 1), agreement_cis(table, 0, 1, which=("exact", "qwk"))
        raters[kind] = {"n": a["n"], "lessons": ci["n_units"], "agreement": a["exact"], "kappa": a["qwk"],
                        "ci": ci["exact"], "kappa_ci": ci["qwk"], "ci_note": ci["notes"].get("exact"),
                        "notes": a["notes"], "offline": sum(1 for r in rows if r["is_offline"])}
    planted = []
    for p in (x for x in pairs if x["rater"] == "expert"):
        for problem in p["problems"]:
            planted.append({"lesson": p["title"], "problem": PROBLEMS.get(problem, problem),
                            "found_by": found_by(problem, p["record"]) if problem in _SIGNS else None,
                            "offline": bool(p["is_offline"])})
    rows = [{"lesson": p["title"], "rater": p["rater"], "reference": p["reference"], "judged": p["judged"],
             "agree": p["reference"] == p["judged"],
             "reviewed_by": OFFLINE_LABEL if p["is_offline"] else "judge"} for p in pairs]
    return {"raters": raters, "rows": rows, "planted": planted,
            "found": sum(1 for x in planted if x["found_by"]), "n_planted": len(planted)}
