"""Agreement between markers on an assignment's moderation sample, per criterion and per
marker pair (core.metrics: QWK, MAE, exact and adjacent agreement, intervals that resample
students), and the moderator's view: the items whose marks differ by more than a level."""
from __future__ import annotations

import math

from sqlite_utils import Database

from core import metrics
from core.accounts import access
from core.accounts.access import Actor
from core.moderation.markers import SECTION, marks_of
from core.moderation.sample import differs, state_of
from db import courses
from db import moderation as mod_db

N_BOOT = 1000
FIGURES = ("qwk", "mae", "exact", "adjacent")


def _clean(x):
    return None if isinstance(x, float) and math.isnan(x) else x


def _figures(rows: list[tuple], lo: int, hi: int, seed: int) -> dict:
    table = metrics.pair_counts([r[1] for r in rows], [r[2] for r in rows], keys={"student": [r[0] for r in rows]})
    a = metrics.agreement(table, lo, hi)
    ci = metrics.agreement_cis(table, lo, hi, n_boot=N_BOOT, seed=seed, which=FIGURES)
    return {"n": a["n"], "students": len({r[0] for r in rows}),
            **{k: _clean(a[k]) for k in FIGURES}, **{f"{k}_ci": ci[k] for k in FIGURES}}


def agreement_of(rows: list[dict], rubric, seed: int = 0) -> dict:
    """{"criteria": [{criterion, title, n, students, qwk, mae, exact, adjacent, *_ci}], "pairs":
    [{markers: [a, b], criterion, ...same figures}]} of sample rows marked twice (first vs second)."""
    by_crit: dict[str, list] = {}
    by_pair: dict[tuple, list] = {}
    for row in rows:
        marks = marks_of(row)
        if marks is None:
            continue
        first, second, _ = marks
        pair = tuple(sorted([row["first_marker"] or "(nobody)", row["second_marker"]]))
        for k in rubric.keys:
            if k in first and k in second:
                by_crit.setdefault(k, []).append((row["student_id"], first[k], second[k]))
                by_pair.setdefault((pair, k), []).append((row["student_id"], first[k], second[k]))
    lo, hi = rubric.scale_min, rubric.scale_max
    titles = {c.key: c.title for c in rubric.criteria}
    return {"criteria": [{"criterion": k, "title": titles[k], **_figures(v, lo, hi, seed)} for k, v in by_crit.items()],
            "pairs": [{"markers": list(p), "criterion": k, "title": titles[k], **_figures(v, lo, hi, seed)}
                      for (p, k), v in sorted(by_pair.items())]}


def moderation_view(conn: Database, assignment_id: int, *, seed: int = 0, actor: Actor) -> dict:
    """What the moderator sees of an assignment, with one check: {"status" (sample.status),
    "agreement" (agreement_of), "differing" [{submission_id, student, first_marker,
    second_marker, first, second, settled, note}], "sample" [{submission_id, student, stratum,
    first_marker, second_marker, marked}], "may" (the actor's actions), "rubric", "markers" (the
    course's), "sections" (the students' sections), "assigned" {marker: items}}. Students by
    pseudonym unless the actor may see names."""
    course_id = access.check(conn, actor, "moderate", assignment=assignment_id)
    rows = mod_db.items(conn, assignment_id)
    names = access.sees_names(actor, course_id)
    who = (lambda r: r["name"]) if names else (lambda r: r["pseudonym"])
    differing = [{"submission_id": r["submission_id"], "student": who(r), "first_marker": r["first_marker"],
                  "second_marker": r["second_marker"], "first": (marks_of(r) or (None,))[0], "second": r["second_scores"],
                  "settled": r["settled"], "note": r["note"]}
                 for r in rows if r["settled"] or differs(r["first_scores"], r["second_scores"])]
    rubric = courses.assignment_rubric(conn, assignment_id)
    assigned = mod_db.assigned(conn, assignment_id)
    return {"status": state_of(rows), "agreement": agreement_of(rows, rubric, seed), "rubric": rubric,
            "differing": differing, "may": access.allowed(actor, course_id),
            "markers": mod_db.course_markers(conn, course_id),
            "sections": sorted({str(i["attributes"].get(SECTION, "")) for i in mod_db.assignable(conn, assignment_id)}),
            "assigned": {m: sum(1 for v in assigned.values() if v == m) for m in sorted(set(assigned.values()))},
            "sample": [{"submission_id": r["submission_id"], "student": who(r), "stratum": r["stratum"],
                        "first_marker": r["first_marker"], "second_marker": r["second_marker"],
                        "marked": r["second_scores"] is not None} for r in rows]}


def to_mark(conn: Database, assignment_id: int, *, actor: Actor) -> list[int]:
    """The drawn items of the assignment `actor` still marks a second time (blind)."""
    access.check(conn, actor, "second_mark", assignment=assignment_id)
    return sorted(mod_db.hidden_from(conn, assignment_id, str(actor)))
