"""Bootstrap confidence intervals from a contingency table, deterministic with a seed.

The unit of resampling is the **student** whenever the table has a `student` column (the
cluster): a student's pairs — four criteria, many weeks — are not independent, so resampling
pairs as if they were makes every interval too narrow. Each resample draws students with
replacement, and each drawn student brings all of their pairs. Without a cluster column (a
CSV given without --cluster) the unit is the row, the classic bootstrap.

Both are one computation. Every statistic here (MAE, bias, exact, adjacent and QWK) is a
ratio of sums of ten per-item quantities (`FEATURES`: count, |error|, error, exact, adjacent,
and the level sums QWK needs), so a unit is summarised by its sums and a resample is a
weighted sum: `weights (resamples x units) @ sums (units x 10)`. The weights are exactly how
often each unit was drawn, in chunks so memory stays small. Row units are the cells of the
table: drawing n rows is a multinomial over the cells' counts, so the cost depends on the
distinct cells, not on n. From NORMAL_FROM students on, the resampled sums are drawn from
their normal limit (same mean and covariance), so 25,000 students cost what 2,000 do.

With strata (groups of students, or score bands in the row bootstrap) each stratum is
resampled on its own with its size held fixed, as when comparing two samples.

Percentile intervals (2.5 %, 97.5 %). An interval is reported as unavailable (None, with the
reason) when there are fewer than 2 units, or when every resample gives the same value: then
the data show no variation to learn the uncertainty from, and [x, x] would look falsely perfect.

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
>>> by_student = pair_counts([0, 1, 2, 3] * 6, [0, 2, 3, 3] * 6, keys={"student": [1, 1, 2, 2, 3, 3] * 4})
>>> agreement_cis(by_student, 0, 3, n_boot=200)["units"]
'students'
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.language.interface import Message
from core.metrics.agreement import MetricsInputError, canonical, cell_arrays

DEFAULT_BOOT = 1000
STATS = ("mae", "bias", "qwk", "exact", "adjacent")
CLUSTER = "student"   # the column that names a pair's cluster in every table FairMark builds
CHUNK = 256           # resamples per weight matrix: bounds memory at 256 x units
NORMAL_FROM = 2000    # students from which resampled sums come from their normal limit (replicate_sums)
FEATURES = ("n", "abs", "diff", "exact", "adjacent", "a", "r", "aa", "rr", "dd")


def _weights(sizes: np.ndarray, strata, n_boot: int, seed: int, chunk: int = CHUNK):
    """Chunks of unit weights (at most `chunk` resamples each): how often each unit was drawn.
    Students (size 1 each) are drawn uniformly, k draws counted; row units by a multinomial over
    their counts. Same seed, same draws."""
    rng = np.random.default_rng(seed)
    strata = np.zeros(len(sizes), dtype=int) if strata is None else np.asarray(strata)
    groups = []
    for s in sorted(set(strata.tolist()), key=str):  # fixed order: same seed, same draws
        idx = np.flatnonzero(strata == s)
        total = int(sizes[idx].sum())
        if total:
            groups.append((idx, total, sizes[idx] / total))
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        out = np.zeros((b, len(sizes)), dtype=np.int64)
        for idx, total, p in groups:
            k = len(idx)
            if total == k:  # one draw per unit (students): k uniform draws, counted (O(b k), exact)
                draws = rng.integers(0, k, size=(b, k)) + (np.arange(b) * k)[:, None]
                out[:, idx] = np.bincount(draws.ravel(), minlength=b * k).reshape(b, k)
            else:
                out[:, idx] = rng.multinomial(total, p, size=b)
        yield out


@dataclass
class Units:
    """How the cells of a table map onto resampling units (students, or rows)."""
    code: np.ndarray        # unit of each cell
    size: np.ndarray        # draw weight of each unit: 1 per student, the cell count per row unit
    per_cell: np.ndarray    # multiplier of a cell's per-item sums inside its unit (n, or 1 for row units)
    clustered: bool
    label: str              # "students" | "items"

    @property
    def count(self) -> int:
        return len(self.size)


def units_of(table: pd.DataFrame, cluster: str | None = CLUSTER) -> Units:
    """Students when the table has the cluster column, else the cells' rows (classic bootstrap)."""
    n = table["n"].to_numpy(dtype=float)
    if cluster and cluster in table.columns:
        code, uniques = pd.factorize(table[cluster].astype(str), sort=True)
        return Units(code, np.ones(len(uniques), dtype=np.int64), n, True, "students")
    return Units(np.arange(len(table)), n.astype(np.int64), np.ones(len(table)), False, "items")


def unit_labels(table: pd.DataFrame, column: str, units: Units) -> np.ndarray:
    """A per-unit label (e.g. a student's group) from a per-cell column; a unit must have one."""
    values = table[column].astype(str).to_numpy()
    if not units.clustered:
        return values
    by_unit = pd.Series(values).groupby(units.code)
    if (by_unit.nunique() > 1).any():
        u = int((by_unit.nunique() > 1).idxmax())
        seen = sorted(set(values[units.code == u]))
        raise MetricsInputError(Message("a cluster has rows in more than one {column!r} ({first!r} and {second!r}); "
                                        "groups must be constant within a cluster (a student belongs to one group)",
                                        column=column, first=seen[0], second=seen[1]))
    return by_unit.first().reindex(range(units.count)).to_numpy(dtype=str)


def cell_features(cells: dict) -> np.ndarray:
    """Per-item sums of each cell (cells x FEATURES); QWK's expected disagreement needs the
    level sums: sum (a - r)^2 over pairs vs sum a^2 + sum r^2 - 2 sum a sum r / n."""
    a, r = cells["ai_i"].astype(float), cells["ref_i"].astype(float)
    return np.column_stack([np.ones_like(a), cells["abs"], cells["diff"], cells["exact"], cells["adjacent"],
                            a, r, a * a, r * r, (a - r) ** 2])


def unit_sums(cells: dict, units: Units, mask: np.ndarray | None = None) -> np.ndarray:
    """Sums of FEATURES per unit (units x FEATURES) over the cells in `mask`."""
    w = units.per_cell if mask is None else units.per_cell * np.asarray(mask, dtype=float)
    f = cell_features(cells)
    return np.column_stack([np.bincount(units.code, weights=f[:, j] * w, minlength=units.count)
                            for j in range(f.shape[1])])


def stats_from_sums(s: np.ndarray, which: tuple[str, ...] = STATS) -> dict[str, np.ndarray]:
    """Each statistic from summed FEATURES (shape (..., FEATURES)); NaN where undefined."""
    s = np.asarray(s, dtype=float)
    n = s[..., 0]
    out = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for name, col in (("mae", 1), ("bias", 2), ("exact", 3), ("adjacent", 4)):
            if name in which:
                out[name] = np.where(n > 0, s[..., col] / n, np.nan)
        if "qwk" in which:
            expected = s[..., 7] + s[..., 8] - 2 * s[..., 5] * s[..., 6] / n
            k = 1 - s[..., 9] / expected
            out["qwk"] = np.where((n > 0) & (np.abs(expected) > 1e-9), k, np.nan)
    return out


def replicate_sums(units: Units, sums: dict[str, np.ndarray], n_boot: int, seed: int,
                   strata: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """For each named (units x FEATURES) sum, its resampled sums (n_boot x FEATURES), all from
    the same unit weights (so differences between them are resampled jointly).

    With NORMAL_FROM students or more the resampled sums are drawn from their normal limit
    instead: the multinomial draws' exact mean (the observed sums) and covariance (K times the
    covariance of the per-student sums, per stratum), jointly for all subsets. At that size
    the two are indistinguishable (tested), and the cost no longer grows with the students."""
    if units.clustered and units.count >= NORMAL_FROM:
        return _normal_sums(units, sums, n_boot, seed, strata)
    out = {k: np.zeros((n_boot, len(FEATURES))) for k in sums}
    start = 0
    for w in _weights(units.size, strata, n_boot, seed):
        w = w.astype(float)  # once per chunk, not once per subset
        for k, a in sums.items():
            out[k][start:start + len(w)] = w @ a
        start += len(w)
    return out


def _normal_sums(units: Units, sums: dict[str, np.ndarray], n_boot: int, seed: int,
                 strata: np.ndarray | None) -> dict[str, np.ndarray]:
    """Resampled sums from the normal limit of the student bootstrap (see replicate_sums)."""
    names = list(sums)
    joint = np.hstack([sums[k] for k in names])  # units x (subsets * FEATURES)
    labels = np.zeros(units.count, dtype=int) if strata is None else np.asarray(strata)
    rng = np.random.default_rng(seed)
    draws = np.zeros((n_boot, joint.shape[1]))
    for s in sorted(set(labels.tolist()), key=str):
        part = joint[labels == s]
        k = len(part)
        # Multinomial(k, 1/k) weights: mean sum = the observed sum, covariance = k * Cov(rows).
        cov = np.cov(part, rowvar=False, bias=True) * k if k > 1 else np.zeros((joint.shape[1],) * 2)
        draws += rng.multivariate_normal(part.sum(axis=0), np.atleast_2d(cov), size=n_boot, method="eigh")
    width = len(FEATURES)
    return {k: draws[:, i * width:(i + 1) * width] for i, k in enumerate(names)}


def percentile_ci(values: np.ndarray, n: int, level: float = 0.95) -> tuple[list[float] | None, str | None]:
    """(interval, None) or (None, why it is unavailable); `n` counts the resampled units."""
    if n < 2:   # the reasons are Messages: a page says them in the reader's language
        return None, Message("CI unavailable: n = {n} (need at least 2)", n=n)
    if not values.size:   # n_boot = 0: figures without intervals (core.reports' figures-only views)
        return None, Message("CI not computed (no resamples)")
    finite = values[np.isfinite(values)]
    if finite.size < 0.5 * values.size:
        return None, Message("CI unavailable: the figure is undefined in most resamples (too little variation)")
    if finite.max() - finite.min() == 0:
        return None, Message("CI unavailable: all {n} units give the same value in every resample, so the data "
                             "show no variation to estimate uncertainty from", n=n)
    a = (1 - level) / 2 * 100
    lo, hi = np.percentile(finite, [a, 100 - a])
    return [float(lo), float(hi)], None


def agreement_cis(table: pd.DataFrame, lo: int, hi: int, *, n_boot: int = DEFAULT_BOOT, seed: int = 0,
                  which: tuple[str, ...] = STATS, cluster: str | None = CLUSTER) -> dict:
    """95% bootstrap CIs of MAE, bias, QWK, exact and adjacent: {stat: [lo, hi] | None, "notes":
    {...}, "units": "students" | "items", "n_units"}; by student when the table has `cluster`."""
    res = resample(canonical(table), lo, hi, {"all": None}, n_boot=n_boot, seed=seed, cluster=cluster)
    n = res.ci_n("all")
    reps = stats_from_sums(res.reps["all"], which) if n else {}
    out: dict = {"notes": {}, "units": res.units.label, "n_units": n}
    for name in which:
        ci, why = percentile_ci(reps.get(name, np.array([np.nan])), n)
        out[name] = ci
        if why:
            out["notes"][name] = why
    return out


@dataclass
class Resampled:
    """Point sums and resampled sums of several subsets (masks) of one table's cells, all
    resampled with the same unit weights. Sums are linear, so a complement is a difference:
    `rest = all - group`."""
    units: Units
    point: dict[str, np.ndarray]      # name -> FEATURES summed over the subset
    reps: dict[str, np.ndarray]       # name -> (n_boot, FEATURES)
    n_units: dict[str, int]           # name -> students (items without clusters) in the subset
    unit_sums: dict[str, np.ndarray]  # name -> (units, FEATURES)

    def stats(self, name: str, which=STATS) -> tuple[dict, dict]:
        """(point statistics, resampled statistics) of a subset."""
        return ({k: float(v) for k, v in stats_from_sums(self.point[name], which).items()},
                stats_from_sums(self.reps[name], which))

    def ci_n(self, name: str) -> int:
        """What an interval's 'n' is: students when clustered, else items."""
        return self.n_units[name]


def resample(table: pd.DataFrame, lo: int, hi: int, masks: dict[str, np.ndarray | None], *, n_boot: int,
             seed: int, strata: str | np.ndarray | None = None, cluster: str | None = CLUSTER) -> Resampled:
    """Resample `table` once (by student when it has `cluster`) and sum each subset in `masks`
    (None = every cell). `strata` is a column (per student when clustered) or per-cell labels."""
    cells = cell_arrays(table, lo, hi)
    units = units_of(table, cluster)
    labels = None
    if isinstance(strata, str):
        labels = unit_labels(table, strata, units)
    elif strata is not None:
        labels = np.asarray(strata)
    sums = {name: unit_sums(cells, units, mask) for name, mask in masks.items()}
    reps = replicate_sums(units, sums, n_boot, seed, labels) if n_boot else {k: np.zeros((0, len(FEATURES)))
                                                                            for k in sums}
    # A unit's sums are per student, or per item of a row unit (drawn `size` times at the point).
    return Resampled(units, {k: units.size @ s for k, s in sums.items()}, reps,
                     {k: int(units.size[s[:, 0] > 0].sum()) for k, s in sums.items()}, sums)
