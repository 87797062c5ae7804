"""Is the AI equally right for every student? Error by score band and by group, with CIs.

Bands are on the reference score (what the student's work deserves): low = reference <= cut
(0-3 scale: 0-1), high = above. ΔMAE = MAE(low) - MAE(high); seed 000 reports 0.50.
Groups follow fairlearn's MetricFrame shape: overall, by_group, difference (max - min).
Small bands and groups are kept and flagged, never dropped silently.

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

from core.metrics.agreement import agreement, canonical, cell_arrays, default_band_cut
from core.metrics.bootstrap import DEFAULT_BOOT, STATS, agreement_cis, bootstrap_strata, percentile_ci, replicate_stats

MIN_N = 10  # below this a band or group is flagged as too small to judge


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


def _small_warning(what: str, n: int, min_n: int) -> str | None:
    if n == 0:
        return f"{what}: no items — nothing to judge"
    if n < min_n:
        return f"{what}: only {n} item{'s' if n != 1 else ''} (fewer than {min_n}) — too few to judge; " \
               f"treat its figures as unreliable"
    return None


def _stat_block(reps: dict, point: dict, n: int, which) -> dict:
    block: dict = {"n": n, "notes": {}}
    for s in which:
        block[s] = point[s]
        ci, why = percentile_ci(reps[s], n) if n else (None, "CI unavailable: n = 0")
        block[f"{s}_ci"] = ci
        if why:
            block["notes"][s] = why
    return block


def band_report(table: pd.DataFrame, lo: int, hi: int, *, cut: float | None = None,
                n_boot: int = DEFAULT_BOOT, seed: int = 0, min_n: int = MIN_N) -> dict:
    """MAE and bias per band with CIs, ΔMAE with its CI, n per band and small-band warnings.

    `cut` is the largest reference score in the low band (default: lower half of the scale,
    `default_band_cut`). The exact reference decides the band (a mean of 1.5 is above 1).
    Each band is resampled on its own (its size fixed) for the CIs.
    """
    cut = default_band_cut(lo, hi) if cut is None else cut
    table = canonical(table)
    cells = cell_arrays(table, lo, hi)
    low = table["reference"].to_numpy(dtype=float) <= cut
    reps = bootstrap_strata(cells["n"], low.astype(int), n_boot, seed)
    labels = band_labels(lo, hi, cut)
    bands, rep_mae, warnings = {}, {}, []
    for name, mask in (("low", low), ("high", ~low)):
        n = int(cells["n"][mask].sum())
        point = agreement(table[mask], lo, hi)
        r = replicate_stats(reps, cells, mask, which=("mae", "bias"))
        rep_mae[name] = r["mae"]
        bands[name] = _stat_block(r, point, n, ("mae", "bias"))
        bands[name]["range"] = labels[name]
        bands[name]["warning"] = _small_warning(f"{name.capitalize()} band ({labels[name]})", n, min_n)
        if bands[name]["warning"]:
            warnings.append(bands[name]["warning"])
    n_low, n_high = bands["low"]["n"], bands["high"]["n"]
    if n_low and n_high:
        delta = bands["low"]["mae"] - bands["high"]["mae"]
        ci, why = percentile_ci(rep_mae["low"] - rep_mae["high"], min(n_low, n_high))
    else:
        delta, ci, why = float("nan"), None, "ΔMAE needs items in both bands"
    return {"cut": cut, "bands": bands, "delta_mae": delta, "delta_mae_ci": ci, "delta_mae_note": why,
            "warnings": warnings}


def group_report(table: pd.DataFrame, lo: int, hi: int, *, group: str = "group", n_boot: int = DEFAULT_BOOT,
                 seed: int = 0, min_n: int = MIN_N, which: tuple[str, ...] = ("mae", "bias", "qwk", "exact")) -> dict:
    """fairlearn MetricFrame shape: {"overall", "by_group", "difference", "warnings"}.

    `difference` is max - min over the groups with at least `min_n` items (the others are
    named in the warnings), with a bootstrap CI (each group resampled on its own).

    >>> from core.metrics.agreement import pair_counts
    >>> t = pair_counts([1, 2, 3, 0] * 6, [1, 2, 2, 1] * 6, keys={"group": ["a", "a", "b", "b"] * 6})
    >>> g = group_report(t, 0, 3, n_boot=200)
    >>> g["by_group"]["a"]["mae"], g["by_group"]["b"]["mae"], g["difference"]["mae"]
    (0.0, 1.0, 1.0)
    """
    table = canonical(table)
    cells = cell_arrays(table, lo, hi)
    groups = table[group].astype(str).to_numpy()
    names = sorted(set(groups.tolist()))
    reps = bootstrap_strata(cells["n"], groups, n_boot, seed)
    overall_point = agreement(table, lo, hi)
    overall = _stat_block(replicate_stats(reps, cells, None, which), overall_point, overall_point["n"], which)
    by_group, rep_by_group, warnings = {}, {}, []
    for g in names:
        mask = groups == g
        n = int(cells["n"][mask].sum())
        r = replicate_stats(reps, cells, mask, which)
        rep_by_group[g] = r
        by_group[g] = _stat_block(r, agreement(table[mask], lo, hi), n, which)
        by_group[g]["warning"] = _small_warning(f"Group {g!r}", n, min_n)
        if by_group[g]["warning"]:
            warnings.append(by_group[g]["warning"] + "; left out of the difference")
    eligible = [g for g in names if by_group[g]["n"] >= min_n]
    difference: dict = {"groups": eligible, "notes": {}}
    for s in which:
        if len(eligible) < 2:
            difference[s], difference[f"{s}_ci"] = float("nan"), None
            difference["notes"][s] = f"difference needs at least two groups with {min_n} or more items"
            continue
        vals = np.array([by_group[g][s] for g in eligible], dtype=float)
        difference[s] = float(np.nanmax(vals) - np.nanmin(vals))
        stack = np.vstack([rep_by_group[g][s] for g in eligible])
        with np.errstate(invalid="ignore"):
            rep_diff = np.nanmax(stack, axis=0) - np.nanmin(stack, axis=0)
        difference[f"{s}_ci"], why = percentile_ci(rep_diff, min(by_group[g]["n"] for g in eligible))
        if why:
            difference["notes"][s] = why
    return {"overall": overall, "by_group": by_group, "difference": difference, "warnings": warnings}


def by_key(table: pd.DataFrame, key: str, lo: int, hi: int, *, n_boot: int = 0, seed: int = 0) -> pd.DataFrame:
    """One row per value of `key` (criterion, week, model version…): n, MAE, bias, QWK, exact, adjacent.

    With n_boot > 0 also `mae_lo`, `mae_hi`, `qwk_lo`, `qwk_hi` (NaN when unavailable).

    >>> from core.metrics.agreement import pair_counts
    >>> t = pair_counts([1, 2, 3, 3], [1, 2, 2, 3], keys={"week": [1, 1, 2, 2]})
    >>> by_key(t, "week", 0, 3)[["week", "n", "mae", "exact"]].values.tolist()
    [['1', 2, 0.0, 1.0], ['2', 2, 0.5, 0.5]]
    """
    rows = []
    for value, part in table.groupby(key, sort=True):
        a = agreement(part, lo, hi)
        row = {key: value, "n": a["n"], **{s: a[s] for s in STATS}}
        if n_boot:
            ci = agreement_cis(part, lo, hi, n_boot=n_boot, seed=seed, which=("mae", "qwk"))
            for s in ("mae", "qwk"):
                row[f"{s}_lo"], row[f"{s}_hi"] = ci[s] if ci[s] else (np.nan, np.nan)
        rows.append(row)
    cols = [key, "n", *STATS] + (["mae_lo", "mae_hi", "qwk_lo", "qwk_hi"] if n_boot else [])
    return pd.DataFrame(rows, columns=cols)
