"""Is the AI equally right for every student? Error by score band and by group, with CIs.

Bands are on the reference score (what the student's work deserves): low = reference <= cut
(0-3 scale: 0-1), high = above. ΔMAE = MAE(low) - MAE(high); seed 000 reports 0.50.
Groups follow fairlearn's MetricFrame shape: overall, by_group, difference, plus `tests`:
each group against the rest (and the largest pair), the difference with a bootstrap CI and a
permutation p-value — an interval that can, and under no difference does, include 0.
With a `student` column every interval resamples students and every small-sample warning
counts students (core.metrics.bootstrap); small bands and groups are kept and flagged.

>>> from core.metrics.agreement import pair_counts
>>> t = pair_counts([2, 2, 1, 3, 2, 3] * 4, [0, 1, 1, 3, 2, 3] * 4)
>>> r = band_report(t, 0, 3, n_boot=200, seed=0)
>>> r["bands"]["low"]["n"], r["bands"]["low"]["mae"], r["bands"]["high"]["mae"], r["delta_mae"]
(12, 1.0, 0.0, 1.0)
>>> r["bands"]["high"]["mae_ci"], r["bands"]["high"]["notes"]["mae"][:16]
(None, 'CI unavailable: ')
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.language.interface import Message
from core.metrics.agreement import agreement, canonical, default_band_cut
from core.metrics.bootstrap import (
    CLUSTER,
    DEFAULT_BOOT,
    STATS,
    agreement_cis,
    percentile_ci,
    resample,
    stats_from_sums,
    unit_labels,
)
from core.metrics.permutation import DEFAULT_PERMUTATIONS, permutation_p

MIN_N = 10  # below this a band or group is flagged as too small to judge (students when clustered)
TESTED = ("mae", "bias")  # the metrics group_tests compares


def _fmt(x: float) -> str:
    return f"{x:g}"


def band_labels(lo: int, hi: int, cut: float) -> dict[str, str]:
    """Human ranges of the two bands, e.g. {'low': '0–1', 'high': '2–3'}.

    >>> band_labels(0, 3, 1), band_labels(0, 4, 1.5)
    ({'low': '0–1', 'high': '2–3'}, {'low': '0–1.5', 'high': '>1.5–4'})
    """
    if float(cut).is_integer():
        return {"low": f"{lo}–{int(cut)}", "high": f"{int(cut) + 1}–{hi}"}
    return {"low": f"{lo}–{_fmt(cut)}", "high": f">{_fmt(cut)}–{hi}"}


def _small_warning(what: str, n: int, min_n: int, unit: str = "items") -> str | None:
    """Why a band or group is too small to judge, a Message (`what` is one too: a page translates
    both), None when it is not; `unit` is "students" or "items" (core.metrics.bootstrap)."""
    if n == 0:
        return (Message("{what}: no students — nothing to judge", what=what) if unit == "students" else
                Message("{what}: no items — nothing to judge", what=what))
    if n < min_n:
        if unit == "students":
            return Message.plural("{what}: only {count} student (fewer than {min_n}) — too few to judge; treat its "
                                  "figures as unreliable",
                                  "{what}: only {count} students (fewer than {min_n}) — too few to judge; treat its "
                                  "figures as unreliable", n, what=what, min_n=min_n)
        return Message.plural("{what}: only {count} item (fewer than {min_n}) — too few to judge; treat its figures "
                              "as unreliable",
                              "{what}: only {count} items (fewer than {min_n}) — too few to judge; treat its figures "
                              "as unreliable", n, what=what, min_n=min_n)
    return None


def band_name(name: str, labels: dict[str, str]) -> str:
    """"Low band (0–1)", a Message (the warnings say it, and the band chart's ticks: core.charts)."""
    return (Message("Low band ({range})", range=labels[name]) if name == "low" else
            Message("High band ({range})", range=labels[name]))


def _block(res, name: str, which) -> dict:
    """n, students, each statistic and its CI (with notes) of one resampled subset."""
    point, reps = res.stats(name, which)
    n = int(res.point[name][0])
    block: dict = {"n": n, "students": res.n_units[name] if res.units.clustered else None, "notes": {}}
    for s in which:
        block[s] = point[s]
        ci, why = percentile_ci(reps[s], res.ci_n(name)) if n else (None, Message("CI unavailable: n = 0"))
        block[f"{s}_ci"] = ci
        if why:
            block["notes"][s] = why
    return block


def band_report(table: pd.DataFrame, lo: int, hi: int, *, cut: float | None = None,
                n_boot: int = DEFAULT_BOOT, seed: int = 0, min_n: int = MIN_N, cluster: str | None = CLUSTER) -> dict:
    """MAE and bias per band with CIs, ΔMAE with its CI, n (and students) per band, warnings.

    `cut` is the largest reference score in the low band (default: lower half of the scale,
    `default_band_cut`). The exact reference decides the band (a mean of 1.5 is above 1).
    By student: a student's pairs in both bands are resampled together (ΔMAE's two halves
    are not independent). Without students each band is resampled on its own (size fixed).
    """
    cut = default_band_cut(lo, hi) if cut is None else cut
    table = canonical(table)
    low = table["reference"].to_numpy(dtype=float) <= cut
    clustered = bool(cluster and cluster in table.columns)
    res = resample(table, lo, hi, {"low": low, "high": ~low}, n_boot=n_boot, seed=seed, cluster=cluster,
                   strata=None if clustered else low.astype(int))
    unit = res.units.label
    labels = band_labels(lo, hi, cut)
    bands, warnings = {}, []
    for name in ("low", "high"):
        bands[name] = _block(res, name, ("mae", "bias"))
        bands[name]["range"] = labels[name]
        size = bands[name]["students"] if clustered else bands[name]["n"]
        bands[name]["warning"] = _small_warning(band_name(name, labels), size, min_n, unit)
        if bands[name]["warning"]:
            warnings.append(bands[name]["warning"])
    n_low, n_high = bands["low"]["n"], bands["high"]["n"]
    if n_low and n_high:
        delta = bands["low"]["mae"] - bands["high"]["mae"]
        rep_low, rep_high = (res.stats(b, ("mae",))[1]["mae"] for b in ("low", "high"))
        ci, why = percentile_ci(rep_low - rep_high, min(res.ci_n("low"), res.ci_n("high")))
    else:
        delta, ci, why = float("nan"), None, Message("ΔMAE needs items in both bands")
    return {"cut": cut, "bands": bands, "delta_mae": delta, "delta_mae_ci": ci, "delta_mae_note": why,
            "warnings": warnings, "units": unit}


def group_report(table: pd.DataFrame, lo: int, hi: int, *, group: str = "group", n_boot: int = DEFAULT_BOOT,
                 seed: int = 0, min_n: int = MIN_N, which: tuple[str, ...] = ("mae", "bias", "qwk", "exact"),
                 cluster: str | None = CLUSTER, permutations: int = DEFAULT_PERMUTATIONS) -> dict:
    """fairlearn MetricFrame shape: {"overall", "by_group", "difference", "tests", "warnings"}.

    Groups with fewer than `min_n` units (students when clustered) are named in the warnings
    and left out of the comparisons. `difference` is max - min over the other groups, its CI
    the bootstrap of the signed difference between those two groups (so it can include 0);
    `tests` lists each group against the rest and, with three groups or more, the largest
    pair: {"group", "vs", "metric", "diff", "ci", "p_value"}. Each group is resampled on its
    own (students within their group), and labels are permuted across students.

    >>> from core.metrics.agreement import pair_counts
    >>> t = pair_counts([1, 2, 3, 0] * 6, [1, 2, 2, 1] * 6, keys={"group": ["a", "a", "b", "b"] * 6})
    >>> g = group_report(t, 0, 3, n_boot=200)
    >>> g["by_group"]["a"]["mae"], g["by_group"]["b"]["mae"], g["difference"]["mae"]
    (0.0, 1.0, 1.0)
    >>> [(x["group"], x["vs"], x["metric"], x["diff"]) for x in g["tests"]][:2]
    [('a', 'rest', 'mae', -1.0), ('a', 'rest', 'bias', 0.0)]
    """
    table = canonical(table)
    groups = table[group].astype(str).to_numpy()
    names = sorted(set(groups.tolist()))
    clustered = bool(cluster and cluster in table.columns)
    masks = {"__all__": None, **{g: groups == g for g in names}}
    res = resample(table.assign(**{group: groups}), lo, hi, masks, n_boot=n_boot, seed=seed, cluster=cluster,
                   strata=group if clustered else groups)
    unit = res.units.label
    overall = _block(res, "__all__", which)
    by_group, warnings = {}, []
    for g in names:
        by_group[g] = _block(res, g, which)
        size = res.n_units[g] if clustered else by_group[g]["n"]
        by_group[g]["warning"] = _small_warning(Message("Group {group}", group=repr(g)), size, min_n, unit)
        if by_group[g]["warning"]:
            warnings.append(Message("{warning}; left out of the difference and the group tests",
                                    warning=by_group[g]["warning"]))
    eligible = [g for g in names if not by_group[g]["warning"]]
    difference = _difference(res, by_group, eligible, which, min_n, unit)
    tests = _tests(res, table.assign(**{group: groups}), group, eligible, clustered, seed, permutations)
    return {"overall": overall, "by_group": by_group, "difference": difference, "tests": tests,
            "warnings": warnings, "units": unit}


def _difference(res, by_group: dict, eligible: list[str], which, min_n: int, unit: str) -> dict:
    difference: dict = {"groups": eligible, "notes": {}}
    for s in which:
        if len(eligible) < 2:
            difference[s], difference[f"{s}_ci"] = float("nan"), None
            difference["notes"][s] = (
                Message("difference needs at least two groups with {min_n} or more students", min_n=min_n)
                if unit == "students" else
                Message("difference needs at least two groups with {min_n} or more items", min_n=min_n))
            continue
        vals = {g: by_group[g][s] for g in eligible if by_group[g][s] == by_group[g][s]}
        if len(vals) < 2:
            difference[s], difference[f"{s}_ci"] = float("nan"), None
            difference["notes"][s] = Message("{statistic} is undefined in all but one group", statistic=s)
            continue
        top, bottom = max(vals, key=vals.get), min(vals, key=vals.get)
        difference[s] = vals[top] - vals[bottom]
        difference[f"{s}_pair"] = [top, bottom]
        rep = res.stats(top, (s,))[1][s] - res.stats(bottom, (s,))[1][s]
        difference[f"{s}_ci"], why = percentile_ci(rep, min(res.ci_n(top), res.ci_n(bottom)))
        if why:
            difference["notes"][s] = why
    return difference


def _tests(res, table: pd.DataFrame, group: str, eligible: list[str], clustered: bool, seed: int,
           permutations: int) -> list[dict]:
    """Each eligible group vs the rest, and the largest pair (three groups or more)."""
    if not eligible or not permutations:
        return []
    if clustered:
        sums, labels = res.unit_sums["__all__"], unit_labels(table, group, res.units)
    else:  # permute single items: each cell's row repeated for its n items
        sums = np.repeat(res.unit_sums["__all__"], res.units.size, axis=0)
        labels = np.repeat(table[group].astype(str).to_numpy(), res.units.size)
    p = permutation_p(sums, labels, eligible, TESTED, permutations=permutations, seed=seed)
    tests = []
    for g in eligible:
        for m in TESTED:
            rest_point = res.point["__all__"] - res.point[g]
            rest_reps = res.reps["__all__"] - res.reps[g]
            diff = _one(res.point[g], m) - _one(rest_point, m)
            ci, _ = percentile_ci(_many(res.reps[g], m) - _many(rest_reps, m),
                                  min(res.ci_n(g), res.ci_n("__all__") - res.ci_n(g)))
            tests.append({"group": g, "vs": "rest", "metric": m, "diff": diff, "ci": ci,
                          "p_value": p["vs_rest"][g][m]})
    if len(eligible) >= 3:
        for m in TESTED:
            vals = {g: _one(res.point[g], m) for g in eligible}
            top, bottom = max(vals, key=vals.get), min(vals, key=vals.get)
            ci, _ = percentile_ci(_many(res.reps[top], m) - _many(res.reps[bottom], m),
                                  min(res.ci_n(top), res.ci_n(bottom)))
            tests.append({"group": top, "vs": bottom, "metric": m, "diff": vals[top] - vals[bottom], "ci": ci,
                          "p_value": p["max_pair"][m]})
    return tests


def _one(sums: np.ndarray, metric: str) -> float:
    return float(stats_from_sums(sums, (metric,))[metric])


def _many(sums: np.ndarray, metric: str) -> np.ndarray:
    return stats_from_sums(sums, (metric,))[metric]


def by_key(table: pd.DataFrame, key: str, lo: int, hi: int, *, n_boot: int = 0, seed: int = 0,
           cluster: str | None = CLUSTER) -> pd.DataFrame:
    """One row per value of `key` (criterion, week, model version…): n, MAE, bias, QWK, exact, adjacent.

    With a `student` column also `students`; with n_boot > 0 also `mae_lo`, `mae_hi`,
    `qwk_lo`, `qwk_hi` (NaN when unavailable), resampling students when the table has them.

    >>> from core.metrics.agreement import pair_counts
    >>> t = pair_counts([1, 2, 3, 3], [1, 2, 2, 3], keys={"week": [1, 1, 2, 2]})
    >>> by_key(t, "week", 0, 3)[["week", "n", "mae", "exact"]].values.tolist()
    [['1', 2, 0.0, 1.0], ['2', 2, 0.5, 0.5]]
    """
    clustered = bool(cluster and cluster in table.columns)
    rows, cis = [], {}
    if n_boot and clustered and len(table):
        # One resample of the students serves every value (they share students): one set of weights.
        table = canonical(table)
        values = table[key].to_numpy()
        res = resample(table, lo, hi, {v: values == v for v in sorted(set(values.tolist()))}, n_boot=n_boot,
                       seed=seed, cluster=cluster)
        cis = {v: {s: percentile_ci(r, res.ci_n(v))[0] for s, r in res.stats(v, ("mae", "qwk"))[1].items()}
               for v in res.point}
    for value, part in table.groupby(key, sort=True):
        a = agreement(part.groupby(["ai", "reference"], as_index=False)["n"].sum(), lo, hi)
        row = {key: value, "n": a["n"], **({"students": int(part[cluster].nunique())} if clustered else {}),
               **{s: a[s] for s in STATS}}
        if n_boot:
            ci = cis.get(value) or agreement_cis(part, lo, hi, n_boot=n_boot, seed=seed, which=("mae", "qwk"),
                                                 cluster=cluster)
            for s in ("mae", "qwk"):
                row[f"{s}_lo"], row[f"{s}_hi"] = ci[s] if ci[s] else (np.nan, np.nan)
        rows.append(row)
    cols = [key, "n", *(["students"] if clustered else []), *STATS] + (
        ["mae_lo", "mae_hi", "qwk_lo", "qwk_hi"] if n_boot else [])
    return pd.DataFrame(rows, columns=cols)
