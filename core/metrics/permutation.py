"""Permutation tests of group differences: is a group's error different from the rest's?

Group labels are shuffled across the resampling units — students when the data are clustered
(a student keeps all their pairs and belongs to one group), else single items — and the
difference is recomputed for each shuffle. The p-value is the share of shuffles with a
difference at least as large as the observed one, counting the observed labelling itself
((1 + k) / (1 + permutations), never 0). Two-sided: the absolute difference is compared.

For the largest pair the statistic is the largest gap between any two groups (max - min), so
its p-value accounts for having picked the most extreme pair after looking.

Shuffles run in chunks and stop early once every statistic has been matched STOP_HITS times
(Besag & Clifford's sequential p-value, k / shuffles so far): a clearly unremarkable
difference is known after a hundred shuffles, and only small p-values, which need them,
get all of them. At 25,000 students that is most of a fairness page's time saved.

>>> sums = np.array([[1, 0, 0], [1, 0, 0], [1, 1, 1], [1, 1, 1]], dtype=float)   # n, |error|, error
>>> p = permutation_p(sums, np.array(["a", "a", "b", "b"]), ["a", "b"], ("mae",), permutations=200, seed=0)
>>> p["vs_rest"]["a"]["mae"] > 0.2   # 4 units cannot show anything: 1 in 3 shuffles is as extreme
True
"""
from __future__ import annotations

import numpy as np

from core.metrics.bootstrap import stats_from_sums

DEFAULT_PERMUTATIONS = 1000
CHUNK = 128
STOP_HITS = 20


def _stat(sums: np.ndarray, metric: str) -> np.ndarray:
    if metric not in ("mae", "bias"):
        raise ValueError(f"the permutation test compares MAE or bias, not {metric!r}")
    full = np.zeros(sums.shape[:-1] + (10,))
    full[..., :3] = sums[..., :3]
    return stats_from_sums(full, (metric,))[metric]


def permutation_p(unit_sums: np.ndarray, labels: np.ndarray, groups: list[str], metrics: tuple[str, ...], *,
                  permutations: int = DEFAULT_PERMUTATIONS, seed: int = 0) -> dict:
    """Two-sided permutation p-values: {"vs_rest": {group: {metric: p}}, "max_pair": {metric: p},
    "permutations": shuffles run}.

    `unit_sums` (units x FEATURES, at least n, |error|, error) are per unit; `labels` the
    group of each unit; `groups` the groups tested (others only ever count as "rest").
    """
    labels = np.asarray(labels).astype(str)
    code = np.full(len(labels), -1, dtype=np.int16 if len(groups) < 32000 else np.int64)
    for i, g in enumerate(groups):
        code[labels == g] = i
    unit_sums = np.asarray(unit_sums, dtype=float)[:, :3]  # n, |error|, error: all MAE and bias need
    total = unit_sums.sum(axis=0)

    def stats(codes: np.ndarray) -> tuple[dict, dict]:
        """Per metric: |group - rest| (..., groups) and max - min over groups (...)."""
        by_group = np.stack([(codes == i) @ unit_sums for i in range(len(groups))], axis=-2)
        rest = total - by_group
        vs_rest = {m: np.abs(_stat(by_group, m) - _stat(rest, m)) for m in metrics}
        with np.errstate(invalid="ignore"):
            pair = {m: np.nanmax(_stat(by_group, m), axis=-1) - np.nanmin(_stat(by_group, m), axis=-1)
                    for m in metrics}
        return vs_rest, pair

    observed_rest, observed_pair = stats(code)
    hits_rest = {m: np.zeros(len(groups)) for m in metrics}
    hits_pair = {m: 0 for m in metrics}
    rng = np.random.default_rng(seed)
    done = 0
    while done < permutations:
        b = min(CHUNK, permutations - done)
        rest, pair = stats(rng.permuted(np.tile(code, (b, 1)), axis=1))
        done += b
        for m in metrics:  # a tolerance, so ties with the observed value count as "as extreme"
            hits_rest[m] += (rest[m] >= observed_rest[m] - 1e-12).sum(axis=0)
            hits_pair[m] += int((pair[m] >= observed_pair[m] - 1e-12).sum())
        if all(hits_pair[m] >= STOP_HITS and (hits_rest[m] >= STOP_HITS).all() for m in metrics):
            break
    if done < permutations:  # stopped early: every statistic matched STOP_HITS times or more
        p = lambda k: float(k / done)  # noqa: E731
    else:
        p = lambda k: float((1 + k) / (1 + permutations))  # noqa: E731
    return {"vs_rest": {g: {m: p(hits_rest[m][i]) for m in metrics} for i, g in enumerate(groups)},
            "max_pair": {m: p(hits_pair[m]) for m in metrics}, "permutations": done}
