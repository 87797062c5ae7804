"""The readiness gate's fairness part (issue 22): is the AI's error much larger in one score band?

ΔMAE = MAE in the low band − MAE in the high band, over every criterion's blind-scored pairs,
with a 95 % interval that resamples students. The gap must stay under a bar an admin sets
(`FAIRMARK_MAX_BAND_GAP`, default 0.30) at the interval's upper end in the direction of the
worse band. When it does not, drafts the AI put in that band (by its own predicted band) are
not bulk-eligible, even on an assignment that is otherwise ready (`held_back`). Where students
have recorded groups (attributes), the largest gap in MAE between groups is reported beside it,
against the same bar.

>>> import pandas as pd
>>> rows = [(s, "x", a, r) for s in range(40) for a, r in ([(0, 1)] if s % 2 else [(3, 3)])]
>>> t = pd.DataFrame(rows, columns=["student", "criterion", "ai", "reference"]).assign(n=1)
>>> g = band_gap(t, 0, 3, cut=1, max_gap=0.3, n_boot=200)
>>> g["delta_mae"], g["worse_band"], g["held_back"]
(1.0, 'low', 'low')
"""
from __future__ import annotations

import pandas as pd

from core import metrics
from core.language.interface import Message
from core.metrics.fairness import group_report


def band_gap(pairs: pd.DataFrame, lo: int, hi: int, *, cut: float, max_gap: float, n_boot: int, seed: int = 0) -> dict:
    """{delta_mae, ci, upper, worse_band, held_back ('low' | 'high' | None), bar, students, text}."""
    out = {"delta_mae": float("nan"), "ci": None, "upper": None, "worse_band": None, "held_back": None,
           "bar": max_gap, "students": int(pairs["student"].nunique()) if len(pairs) else 0}
    if len(pairs):
        rep = metrics.band_report(pairs, lo, hi, cut=cut, n_boot=n_boot, seed=seed, min_n=1)
        out["delta_mae"], out["ci"] = rep["delta_mae"], rep["delta_mae_ci"]
        if out["ci"] is None and out["delta_mae"] == out["delta_mae"] and "same value" in (rep["delta_mae_note"] or ""):
            out["ci"] = [out["delta_mae"], out["delta_mae"]]   # every resample agrees: that is its interval
    d, ci = out["delta_mae"], out["ci"]
    if ci is None:
        out["text"] = Message("Not measurable yet: it needs blind scores in both the low and the high band "
                              "(the bar: ΔMAE under {bar}).", bar=f"{max_gap:.2f}")
        return out
    worse = "low" if d >= 0 else "high"
    upper = ci[1] if worse == "low" else -ci[0]
    out.update(worse_band=worse, upper=round(upper, 3))
    # Messages: English as str, translated on a page with `said`
    measured = Message("ΔMAE (low band − high band) {gap}, 95% interval {low} to {high}, on {students} students' "
                       "blind scores", gap=f"{d:+.2f}", low=f"{ci[0]:+.2f}", high=f"{ci[1]:+.2f}", students=out["students"])
    if upper > max_gap + 1e-9:
        out["held_back"] = worse
        values = dict(measured=measured, upper=f"{upper:.2f}", bar=f"{max_gap:.2f}")
        out["text"] = (Message("{measured}: the error may be up to {upper} larger for weaker students (low band), above "
                               "the bar of {bar}. Drafts the AI put in the low band are not approved in bulk.", **values)
                       if worse == "low" else
                       Message("{measured}: the error may be up to {upper} larger for stronger students (high band), "
                               "above the bar of {bar}. Drafts the AI put in the high band are not approved in bulk.",
                               **values))
    else:
        out["text"] = Message("{measured}: under the bar of {bar} in either direction.", measured=measured,
                              bar=f"{max_gap:.2f}")
    return out


def group_gaps(pairs: pd.DataFrame, lo: int, hi: int, *, max_gap: float, n_boot: int, seed: int = 0) -> list[dict]:
    """Per recorded student attribute: {attribute, groups, mae_gap, ci, over_bar, text} (the
    largest MAE difference between its groups, with its interval). Empty without attributes."""
    out = []
    if not len(pairs) or "attribute" not in pairs.columns:
        return out
    for attr, part in pairs[pairs["group"] != "(not recorded)"].groupby("attribute", sort=True):
        rep = group_report(part, lo, hi, group="group", n_boot=n_boot, seed=seed, which=("mae",), permutations=0)
        diff, ci = rep["difference"].get("mae"), rep["difference"].get("mae_ci")
        if diff is None or diff != diff:
            out.append({"attribute": attr, "groups": [], "mae_gap": None, "ci": None, "over_bar": False,
                        "text": Message("{attribute}: group gap not measurable yet ({note}).", attribute=attr,
                                        note=rep["difference"]["notes"].get("mae", ""))})   # the note: metrics' (English)
            continue
        top, bottom = rep["difference"]["mae_pair"]
        over = ci is not None and ci[1] > max_gap + 1e-9
        out.append({"attribute": attr, "groups": [top, bottom], "mae_gap": diff, "ci": ci, "over_bar": over,
                    "text": _group_text(attr, diff, top, bottom, ci, over, max_gap)})
    return out


def _group_text(attr, diff: float, top, bottom, ci, over: bool, max_gap: float) -> Message:
    """One attribute's group gap in a sentence (a Message; the attribute and groups as recorded)."""
    values = dict(attribute=attr, gap=f"{diff:.2f}", top=top, bottom=bottom, bar=f"{max_gap:.2f}")
    if ci:
        values.update(low=f"{ci[0]:+.2f}", high=f"{ci[1]:+.2f}")
        return (Message("{attribute}: MAE {gap} higher for {top} than for {bottom}, 95% interval {low} to {high}, above "
                        "the bar of {bar}.", **values) if over else
                Message("{attribute}: MAE {gap} higher for {top} than for {bottom}, 95% interval {low} to {high}, under "
                        "the bar of {bar}.", **values))
    return (Message("{attribute}: MAE {gap} higher for {top} than for {bottom}, no interval yet, above the bar of {bar}.",
                    **values) if over else
            Message("{attribute}: MAE {gap} higher for {top} than for {bottom}, no interval yet, under the bar of {bar}.",
                    **values))
