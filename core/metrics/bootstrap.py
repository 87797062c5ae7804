"""Bootstrap confidence intervals from a contingency table, deterministic with a seed.

Resampling n rows with replacement is the same as drawing the cell counts from a
multinomial(n, cell shares); drawing the counts directly makes the cost depend on the number
of distinct cells (a few dozen), not on the number of submissions. With strata (score bands,
groups) each stratum is resampled on its own with its size held fixed, as when comparing two
samples (scipy.stats.bootstrap does the same for several samples).

Percentile intervals (2.5 %, 97.5 %). An interval is reported as unavailable (None, with the
reason) when n < 2, or when every resample gives the same value: then the data show no
variation to learn the uncertainty from, and [x, x] would look falsely perfect.

>>> import pandas as pd
>>> from core.metrics.agreement import pair_counts
>>> t = pair_counts([0, 1, 2, 3, 1, 2] * 5, [0, 1, 3, 3, 2, 2] * 5)
>>> ci = agreement_cis(t, 0, 3, n_boot=500, seed=0)
>>> ci["mae"] == agreement_cis(t, 0, 3, n_boot=500, seed=0)["mae"]
True
>>> lo, hi = ci["mae"]; lo < 1 / 3 < hi
True
>>> agreement_cis(pair_counts([1], [2]), 0, 3)["notes"]["mae"]
'CI unavailable: n = 1 (need at least 2)'
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.metrics.agreement import canonical, cell_arrays, qwk_from_confusions

DEFAULT_BOOT = 1000
STATS = ("mae", "bias", "qwk", "exact", "adjacent")


def bootstrap_strata(counts: np.ndarray, strata: np.ndarray | None, n_boot: int, seed: int) -> np.ndarray:
    """Resampled counts, shape (n_boot, cells): multinomial within each stratum, sizes fixed.

    >>> r = bootstrap_strata(np.array([3, 1, 4]), np.array([0, 0, 1]), 5, seed=1)
    >>> r.shape, r[:, :2].sum(axis=1).tolist(), r[:, 2].tolist()
    ((5, 3), [4, 4, 4, 4, 4], [4, 4, 4, 4, 4])
    """
    counts = np.asarray(counts, dtype=np.int64)
    rng = np.random.default_rng(seed)
    strata = np.zeros(len(counts), dtype=int) if strata is None else np.asarray(strata)
    out = np.zeros((n_boot, len(counts)), dtype=np.int64)
    for s in sorted(set(strata.tolist()), key=str):  # fixed order: same seed, same draws
        idx = np.flatnonzero(strata == s)
        total = int(counts[idx].sum())
        if total == 0:
            continue
        out[:, idx] = rng.multinomial(total, counts[idx] / total, size=n_boot)
    return out


def replicate_stats(reps: np.ndarray, cells: dict, mask: np.ndarray | None = None,
                    which: tuple[str, ...] = STATS) -> dict[str, np.ndarray]:
    """Each statistic for each resample, restricted to the cells in `mask` (NaN if empty)."""
    if mask is not None:
        reps = reps[:, mask]
        cells = {k: (v[mask] if isinstance(v, np.ndarray) else v) for k, v in cells.items()}
    n = reps.sum(axis=1).astype(float)
    out = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for name, col in (("mae", "abs"), ("bias", "diff"), ("exact", "exact"), ("adjacent", "adjacent")):
            if name in which:
                out[name] = reps @ cells[col] / n
        if "qwk" in which:
            L = cells["L"]
            flat = cells["ai_i"] * L + cells["ref_i"]
            m = np.zeros((reps.shape[0], L * L))
            for f in np.unique(flat):  # collapse cells that share a level pair (half-point references)
                m[:, f] = reps[:, flat == f].sum(axis=1)
            out["qwk"] = qwk_from_confusions(m.reshape(-1, L, L))
    return out


def percentile_ci(values: np.ndarray, n: int, level: float = 0.95) -> tuple[list[float] | None, str | None]:
    """(interval, None) or (None, why it is unavailable)."""
    if n < 2:
        return None, f"CI unavailable: n = {n} (need at least 2)"
    finite = values[np.isfinite(values)]
    if finite.size < 0.5 * values.size:
        return None, "CI unavailable: the figure is undefined in most resamples (too little variation)"
    if finite.max() - finite.min() == 0:
        return None, (f"CI unavailable: all {n} items give the same value in every resample, so the data "
                      "show no variation to estimate uncertainty from")
    a = (1 - level) / 2 * 100
    lo, hi = np.percentile(finite, [a, 100 - a])
    return [float(lo), float(hi)], None


def agreement_cis(table: pd.DataFrame, lo: int, hi: int, *, n_boot: int = DEFAULT_BOOT, seed: int = 0,
                  which: tuple[str, ...] = STATS) -> dict:
    """95% bootstrap CIs of MAE, bias, QWK, exact and adjacent: {stat: [lo, hi] | None, "notes": {...}}."""
    cells = cell_arrays(canonical(table), lo, hi)
    n = int(cells["n"].sum())
    out: dict = {"notes": {}}
    stats = replicate_stats(bootstrap_strata(cells["n"], None, n_boot, seed), cells, which=which) if n else {}
    for name in which:
        ci, why = percentile_ci(stats.get(name, np.array([np.nan])), n)
        out[name] = ci
        if why:
            out["notes"][name] = why
    return out
