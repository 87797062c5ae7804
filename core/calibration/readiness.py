"""The readiness gate: has the AI earned trust on this assignment?

Per criterion, the AI's scores (each calibration item's draft before any teacher edit) are
compared with the blind calibration scores: QWK, MAE, bias (AI − teacher) and ΔMAE, each with
a 95% CI that resamples students. Beside them the human ceiling: how well two teachers'
blind scores of the same items agree. An admin sets the bar (`Bar`); an assignment is ready
when every criterion clears it. Below it — or with no calibration at all — drafts say
"AI not yet calibrated for this assignment" and bulk approval is off (`require_ready`).

The AI's scores on calibration items are never scored on themselves: an item is never its
own few-shot example (core.calibration.anchors leaves the scored item out), so every figure
here is leave-one-out by construction.

The band gap (core.calibration.band_gap): ΔMAE between the low and the high band with its 95%
interval, against `FAIRMARK_MAX_BAND_GAP`; above it, drafts in the worse band are held back
from bulk approval (`held_back_band`) even on a ready assignment. Where students have recorded
groups, the group gap is reported beside it.

`more_needed` estimates how many more blind-scored students would likely make the QWK
interval decisive (clear of the bar either way), assuming the interval narrows as 1/√n.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import pandas as pd
from sqlite_utils import Database

from core.accounts import access
from core import metrics
from core.accounts.access import Actor
from core.calibration.band_gap import band_gap, group_gaps
from core.errors import ConfigError, GateError
from core.language.interface import Message
from core.metrics.bootstrap import DEFAULT_BOOT
from core.settings import load_settings
from db import analytics, calibration, courses

MORE_CAP = 500  # beyond this the estimate says "many more"


@dataclass(frozen=True)
class Bar:
    """What the AI must reach on an assignment, per criterion (set by an admin)."""
    min_students: int = 16
    qwk_min: float = 0.60
    qwk_ci_low_min: float = 0.30
    max_abs_bias: float = 0.30

    def checked(self) -> "Bar":
        """The same bar, or ConfigError naming the field that is out of range."""
        limits = {"min_students": (2, 10_000), "qwk_min": (-1.0, 1.0), "qwk_ci_low_min": (-1.0, 1.0),
                  "max_abs_bias": (0.0, 100.0)}
        for name, (lo, hi) in limits.items():
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not lo <= value <= hi:
                raise ConfigError(Message("{name} must be a number between {lo} and {hi}, not {value!r}", name=name,
                                          lo=lo, hi=hi, value=value))
        if self.qwk_ci_low_min > self.qwk_min:
            raise ConfigError(Message("the QWK interval's lower bound cannot be required above the QWK itself "
                                      "({low} > {qwk})", low=self.qwk_ci_low_min, qwk=self.qwk_min))
        return self

    def text(self) -> Message:
        """The bar in words (a Message: English as a str, translated on a page with `said`).

        >>> Bar().text()
        'at least 16 students scored blind, QWK ≥ 0.60 with the lower end of its 95% interval ≥ 0.30, and |bias| ≤ 0.30'
        """
        return Message("at least {students} students scored blind, QWK ≥ {qwk} with the lower end of its 95% interval "
                       "≥ {low}, and |bias| ≤ {bias}", students=self.min_students, qwk=f"{self.qwk_min:.2f}",
                       low=f"{self.qwk_ci_low_min:.2f}", bias=f"{self.max_abs_bias:.2f}")


def get_bar(conn: Database) -> Bar:
    saved = calibration.get_bar(conn) or {}
    return Bar(**{k: v for k, v in saved.items() if k in Bar.__dataclass_fields__})


def save_bar(conn: Database, bar: Bar, *, actor: Actor) -> Bar:
    """An admin's new bar (validated; audited)."""
    access.require(actor, "settings")
    bar = Bar(int(bar.min_students), float(bar.qwk_min), float(bar.qwk_ci_low_min), float(bar.max_abs_bias)).checked()
    calibration.save_bar(conn, asdict(bar), actor=actor)
    return bar


def more_needed(students: int, qwk: float, ci, bar: Bar) -> int | None:
    """More blind-scored students that would likely make the QWK interval decisive: its lower
    end at or above the bar's (ready) or its upper end below the QWK bar (clearly not ready).
    0 when it already is; None when it cannot be estimated (no interval yet).

    >>> more_needed(20, 0.65, [0.2, 1.0], Bar())   # half-width 0.4 must shrink to 0.65 - 0.30
    7
    >>> more_needed(8, 0.7, [0.35, 0.95], Bar())   # decisive already, but the bar wants 16 students
    8
    >>> more_needed(20, 0.8, [0.6, 0.95], Bar())
    0
    >>> more_needed(0, float("nan"), None, Bar())
    16
    """
    floor = max(bar.min_students - students, 0)
    if students == 0:
        return floor
    if ci is None or qwk != qwk:
        return None
    half = (ci[1] - ci[0]) / 2
    target = (qwk - bar.qwk_ci_low_min) if qwk >= bar.qwk_min else (bar.qwk_min - qwk)
    decisive = ci[0] >= bar.qwk_ci_low_min if qwk >= bar.qwk_min else ci[1] < bar.qwk_min
    if decisive:
        return floor
    if target <= 0:
        return None
    need = math.ceil(students * (half / target) ** 2) - students
    return max(need, floor) if need <= MORE_CAP else None


def _criterion_row(key: str, title: str, pairs: pd.DataFrame, ceiling: pd.DataFrame, lo: int, hi: int,
                   bar: Bar, n_boot: int, seed: int) -> dict:
    row: dict = {"criterion": key, "title": title, "students": int(pairs["student"].nunique()) if len(pairs) else 0}
    if len(pairs):
        a = metrics.agreement(pairs, lo, hi)
        ci = metrics.agreement_cis(pairs, lo, hi, n_boot=n_boot, seed=seed, which=("qwk", "mae", "bias"))
        bands = metrics.band_report(pairs, lo, hi, n_boot=n_boot, seed=seed, min_n=1)
        row.update({s: a[s] for s in ("qwk", "mae", "bias")}, **{f"{s}_ci": ci[s] for s in ("qwk", "mae", "bias")},
                   delta_mae=bands["delta_mae"], delta_mae_ci=bands["delta_mae_ci"])
        # Every resample gave the same QWK (e.g. perfect agreement): no interval to show, but its
        # lower end is that value, not "unknown".
        constant = "same value" in ci["notes"].get("qwk", "")
        row["qwk_low"] = ci["qwk"][0] if ci["qwk"] else (a["qwk"] if constant else float("nan"))
    else:
        nan = float("nan")
        row.update(qwk=nan, mae=nan, bias=nan, qwk_ci=None, mae_ci=None, bias_ci=None, delta_mae=nan,
                   delta_mae_ci=None, qwk_low=nan)
    row["ceiling_students"] = int(ceiling["student"].nunique()) if len(ceiling) else 0
    if len(ceiling):
        c = metrics.agreement(ceiling, lo, hi)
        row["ceiling_qwk"], row["ceiling_mae"] = c["qwk"], c["mae"]
    else:
        row["ceiling_qwk"] = row["ceiling_mae"] = float("nan")
    reasons = []   # Messages ("What is missing"): English as str, translated on a page with `said`
    if row["students"] < bar.min_students:
        reasons.append(Message("{students} of {min} students scored blind", students=row["students"], min=bar.min_students))
    if not row["qwk"] >= bar.qwk_min:
        reasons.append(Message("QWK {qwk} below {bar}", qwk=f"{row['qwk']:.2f}", bar=f"{bar.qwk_min:.2f}")
                       if row["qwk"] == row["qwk"] else Message("QWK not measurable yet"))
    if not row["qwk_low"] >= bar.qwk_ci_low_min:
        reasons.append(Message("QWK interval's lower end {low} below {bar}", low=f"{row['qwk_low']:.2f}",
                               bar=f"{bar.qwk_ci_low_min:.2f}")
                       if row["qwk_low"] == row["qwk_low"] else Message("no QWK interval yet"))
    if not abs(row["bias"]) <= bar.max_abs_bias:
        reasons.append(Message("bias {bias} beyond ±{bar}", bias=f"{row['bias']:+.2f}", bar=f"{bar.max_abs_bias:.2f}")
                       if row["bias"] == row["bias"] else Message("bias not measurable yet"))
    row["ready"], row["reasons"] = not reasons, reasons
    ci = row["qwk_ci"] or ([row["qwk_low"], row["qwk_low"]] if row["qwk_low"] == row["qwk_low"] else None)
    row["more_needed"] = more_needed(row["students"], row["qwk"], ci, bar)
    return row


def readiness(conn: Database, assignment_id: int, *, n_boot: int = DEFAULT_BOOT, seed: int = 0, actor: Actor) -> dict:
    """The gate for one assignment. {"assignment_id", "ready", "status" ("ready" | "not_ready" |
    "no_calibration"), "students", "criteria" [per criterion: students, qwk/mae/bias and CIs, qwk_low
    (the interval's lower end; the QWK itself when every resample agrees),
    delta_mae and CI, ceiling_qwk, ceiling_mae, ceiling_students, ready, reasons, more_needed],
    "more_needed" (the largest over criteria; None if unknown), "bar", "message", "band_gap"
    (core.calibration.band_gap), "group_gaps", "held_back_band" (None, 'low' or 'high')}.
    Cached until the assignment's blind-scored pairs or blind scores change (per bar): a run's
    other drafts never recompute it."""
    access.check(conn, actor, "read", assignment=assignment_id)
    return current(conn, assignment_id, n_boot=n_boot, seed=seed)


def current(conn: Database, assignment_id: int, *, n_boot: int = DEFAULT_BOOT, seed: int = 0) -> dict:
    """`readiness` for a caller that has checked the actor (a page's view)."""
    bar, max_gap = get_bar(conn), load_settings().max_band_gap
    analytics.fresh_version(conn)   # the counts up to date, then their blind part as the version
    return analytics.memo(conn, ("readiness", assignment_id, tuple(asdict(bar).items()), max_gap, n_boot, seed),
                          lambda: _readiness(conn, assignment_id, bar, n_boot, seed, max_gap),
                          version=analytics.blind_version(conn, assignment_id))


def _readiness(conn: Database, assignment_id: int, bar: Bar, n_boot: int, seed: int, max_gap: float) -> dict:
    rubric = courses.assignment_rubric(conn, assignment_id)
    lo, hi = rubric.scale_min, rubric.scale_max
    scope = analytics.Scope("assignment", assignment_id=assignment_id)
    pairs = analytics.pair_counts(conn, scope, reference="blind", by=("student",))
    ceiling = pd.DataFrame(calibration.rater_pairs(conn, assignment_id),
                           columns=["student", "criterion", "ai", "reference"]).assign(n=1)
    rows = [_criterion_row(c.key, c.title, pairs[pairs["criterion"] == c.key], ceiling[ceiling["criterion"] == c.key],
                           lo, hi, bar, n_boot, seed) for c in rubric.criteria]
    students = int(pairs["student"].nunique()) if len(pairs) else 0
    ready = bool(rows) and all(r["ready"] for r in rows)
    needs = [r["more_needed"] for r in rows if not r["ready"]]
    more = None if any(n is None for n in needs) else max(needs, default=0)
    status = "ready" if ready else ("no_calibration" if students == 0 else "not_ready")
    gap = band_gap(pairs, lo, hi, cut=rubric.band_cut, max_gap=max_gap, n_boot=n_boot, seed=seed)
    groups = group_gaps(analytics.pair_counts(conn, scope, reference="blind", by=("student",), attributes=True),
                        lo, hi, max_gap=max_gap, n_boot=n_boot, seed=seed) if students else []
    return {"assignment_id": assignment_id, "ready": ready, "status": status, "students": students,
            "criteria": rows, "more_needed": more, "bar": asdict(bar), "message": _message(ready, students, more, bar, gap),
            "band_gap": gap, "group_gaps": groups, "held_back_band": gap["held_back"]}


def _message(ready: bool, students: int, more: int | None, bar: Bar, gap: dict) -> Message:
    """The readiness in one sentence (or two), a Message (the same number in the singular's
    English as in the plural's: the sentences always said "students")."""
    if ready and gap["held_back"]:
        return Message.plural("AI calibrated for this assignment on {count} students' blind scores ({bar}). But {gap}",
                              "AI calibrated for this assignment on {count} students' blind scores ({bar}). But {gap}",
                              students, bar=bar.text(), gap=gap["text"])
    if ready:
        return Message.plural("AI calibrated for this assignment on {count} students' blind scores ({bar}).",
                              "AI calibrated for this assignment on {count} students' blind scores ({bar}).",
                              students, bar=bar.text())
    if students == 0:
        return Message("AI not yet calibrated for this assignment: no blind scores yet. Draw a calibration set and "
                       "score it blind.")
    if more is None:
        return Message.plural("AI not yet calibrated for this assignment: {count} students scored blind so far; the bar "
                              "is {bar}.", "AI not yet calibrated for this assignment: {count} students scored blind "
                              "so far; the bar is {bar}.", students, bar=bar.text())
    if more:
        return Message.plural("AI not yet calibrated for this assignment: {count} students scored blind so far; the bar "
                              "is {bar}. About {more} more blind-scored students would likely make the interval "
                              "decisive.", "AI not yet calibrated for this assignment: {count} students scored blind "
                              "so far; the bar is {bar}. About {more} more blind-scored students would likely make the "
                              "interval decisive.", students, bar=bar.text(), more=more)
    return Message.plural("AI not yet calibrated for this assignment: {count} students scored blind so far; the bar is "
                          "{bar}. More blind scores would likely not change the verdict: see the criteria below the bar.",
                          "AI not yet calibrated for this assignment: {count} students scored blind so far; the bar is "
                          "{bar}. More blind scores would likely not change the verdict: see the criteria below the bar.",
                          students, bar=bar.text())


def is_ready(conn: Database, assignment_id: int, *, actor: Actor) -> bool:
    access.check(conn, actor, "read", assignment=assignment_id)
    return readiness(conn, assignment_id, actor=actor)["ready"]


def bulk_block(conn: Database, assignment_id: int, *, actor: Actor) -> str | None:
    """Why bulk approval is off on this assignment (None when the AI cleared the bar)."""
    access.check(conn, actor, "read", assignment=assignment_id)
    return block_text(conn, assignment_id, readiness(conn, assignment_id, actor=actor))


def block_text(conn: Database, assignment_id: int, r: dict) -> str | None:
    """`bulk_block` from the assignment's readiness `r`, for a caller that has checked the actor."""
    if r["ready"]:
        return None
    missing = _joined([Message("{criterion}: {reasons}", criterion=row["title"], reasons=_joined(row["reasons"], ","))
                       for row in r["criteria"] if not row["ready"]], ";") or Message("no blind scores yet")
    waiting, drawn = calibration.pending_count(conn, assignment_id), len(calibration.items(conn, assignment_id))
    if waiting:
        todo = Message.plural("Score the {count} item of the calibration set still waiting on the Calibrate page, or "
                              "approve items one by one.", "Score the {count} items of the calibration set still "
                              "waiting on the Calibrate page, or approve items one by one.", waiting)
    elif drawn:  # every item scored and still below the bar: scoring them again is no way on
        todo = Message("Every item of the calibration set is scored: add items to it (a larger set size) and score "
                       "them blind on the Calibrate page, or approve items one by one.")
    else:
        todo = Message("Draw a calibration set and score it blind on the Calibrate page, or approve items one by one.")
    return Message("Bulk approval is off: AI not yet calibrated for this assignment ({missing}). {todo}",
                   missing=missing, todo=todo)


def _joined(parts: list, sep: str):
    """Messages joined by ", " or "; " as one Message (each part still translated; "" for none).

    >>> _joined([Message("a"), Message("b"), Message("c")], ",")
    'a, b, c'
    """
    if len(parts) <= 1:
        return parts[0] if parts else ""
    rest = _joined(parts[1:], sep)
    return Message("{first}, {rest}", first=parts[0], rest=rest) if sep == "," else \
        Message("{first}; {rest}", first=parts[0], rest=rest)


def require_ready(conn: Database, assignment_id: int, *, actor: Actor) -> None:
    """Bulk approval's gate: GateError below the bar, saying what is missing."""
    access.check(conn, actor, "read", assignment=assignment_id)
    block = bulk_block(conn, assignment_id, actor=actor)
    if block:
        raise GateError(block)


def course_overview(conn: Database, course_id: int, *, actor: Actor) -> list[dict]:
    """Readiness of each assignment of a course (Home): {assignment_id, title, week, status,
    students, more_needed, message}."""
    access.check(conn, actor, "read", course=course_id)
    return overview_of(conn, course_id)


def overview_of(conn: Database, course_id: int) -> list[dict]:
    """`course_overview` for a caller that has checked the actor (a page's view)."""
    out = []
    for a in courses.list_assignments(conn, course_id):
        r = current(conn, a["id"])
        out.append({"assignment_id": a["id"], "title": a["title"], "week": a["week"], "status": r["status"],
                    "ready": r["ready"], "students": r["students"], "more_needed": r["more_needed"],
                    "pending": calibration.pending_count(conn, a["id"]), "message": r["message"]})
    return out
