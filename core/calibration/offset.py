"""A systematic offset, said plainly: where the AI scores higher or lower than the teacher's
blind scores on one band of work, the item view says so ("on this assignment the AI scored
0.6 higher than you on low-band work"). Nothing is corrected: the teacher decides.

An offset is reported for a band (the teacher's blind score, low or high on the rubric's band
cut; all criteria pooled) when at least MIN_STUDENTS students are in it and the bias's 95%
interval, resampling students, excludes 0.
"""
from __future__ import annotations

from sqlite_utils import Database

from core.accounts import access
from core import metrics
from core.accounts.access import Actor
from core.language.interface import N_, Message
from db import analytics, courses

MIN_STUDENTS = 5
WORK = {"low": N_("low-band work"), "high": N_("high-band work")}   # a Message's value, translated with it


def message(band: str, bias: float, range_: str, students: int, ci) -> Message:
    """The offset said plainly, a Message (English as str; a page shows it with `said`).

    >>> message("low", 0.6, "0–1", 7, [0.2, 1.0])[:73]
    'On this assignment the AI scored 0.6 higher than your blind scores on low'
    """
    values = dict(bias=f"{abs(bias):.1f}", work=Message(WORK[band]), range=range_, students=students,
                  low=f"{ci[0]:+.1f}", high=f"{ci[1]:+.1f}")
    if bias > 0:
        return Message("On this assignment the AI scored {bias} higher than your blind scores on {work} (blind scores "
                       "{range}; {students} students, 95% interval {low} to {high}). Nothing is corrected "
                       "automatically: check this draft's scores with that in mind.", **values)
    return Message("On this assignment the AI scored {bias} lower than your blind scores on {work} (blind scores "
                   "{range}; {students} students, 95% interval {low} to {high}). Nothing is corrected "
                   "automatically: check this draft's scores with that in mind.", **values)


def offsets(conn: Database, assignment_id: int, *, actor: Actor) -> list[dict]:
    """[{"band", "range", "bias", "ci", "students", "message"}] for the bands with a systematic
    offset against the blind scores (empty when there is none, or too few students)."""
    access.check(conn, actor, "read", assignment=assignment_id)
    return of_assignment(conn, assignment_id)


def of_assignment(conn: Database, assignment_id: int) -> list[dict]:
    """`offsets` for a caller that has checked the actor (a page's view)."""
    def compute() -> list[dict]:
        rubric = courses.assignment_rubric(conn, assignment_id)
        pairs = analytics.pair_counts(conn, analytics.Scope("assignment", assignment_id=assignment_id),
                                      reference="blind", by=("student",))
        if pairs.empty:
            return []
        table = pairs.groupby(["student", "ai", "reference"], as_index=False)["n"].sum()
        report = metrics.band_report(table, rubric.scale_min, rubric.scale_max, cut=rubric.band_cut, min_n=1)
        out = []
        for band, b in report["bands"].items():
            # every resample the same (e.g. always one level high): as systematic as it gets
            ci = b["bias_ci"] or ([b["bias"], b["bias"]] if "same value" in b["notes"].get("bias", "") else None)
            if (b["students"] or 0) >= MIN_STUDENTS and ci and (ci[0] > 0 or ci[1] < 0):
                out.append({"band": band, "range": b["range"], "bias": b["bias"], "ci": ci, "students": b["students"],
                            "message": message(band, b["bias"], b["range"], b["students"], ci)})
        return out

    analytics.fresh_version(conn)
    return analytics.memo(conn, ("offsets", assignment_id), compute,
                          version=analytics.blind_version(conn, assignment_id))
