"""The one summary of agreement and fairness of a contingency table.

The Fairness dashboard (counts from `db.analytics`) and `python -m core metrics` (counts from
the rows of a CSV) both build their figures here, so a number means the same in both.

>>> from core.metrics import pair_counts
>>> t = pair_counts([2, 2, 1, 3, 2, 3] * 4, [0, 1, 1, 3, 2, 3] * 4)
>>> s = summary(t, 0, 3, n_boot=200)
>>> s["n"], s["mae"], s["bands"]["delta_mae"], sorted(s["ci"])
(24, 0.5, 1.0, ['adjacent', 'bias', 'exact', 'mae', 'qwk'])
"""
from __future__ import annotations

from typing import Mapping

import pandas as pd

from core import metrics
from core.metrics.bootstrap import DEFAULT_BOOT, STATS
from core.metrics.fairness import MIN_N
from core.metrics.permutation import DEFAULT_PERMUTATIONS


def summary(table: pd.DataFrame, lo: int, hi: int, *, groups: Mapping[str, pd.DataFrame] | None = None,
            cut: float | None = None, n_boot: int = DEFAULT_BOOT, seed: int = 0, min_n: int = MIN_N,
            permutations: int = DEFAULT_PERMUTATIONS) -> dict:
    """Agreement with bootstrap CIs, the error by score band (ΔMAE) and, per grouping, by group.

    `table` holds (ai, reference, n) counts; `groups` maps a grouping's name (an attribute such
    as "section") to its counts with a `group` column. `cut` is the largest reference score in
    the low band (default: lower half of the scale).

    With a `student` column (in `table` and in each grouping) every interval resamples
    students and every small-sample warning counts students (core.metrics.bootstrap).

    Returns {"n", "students" (None without a student column), "scale", "mae", "bias", "qwk"
    (full scale), "qwk_observed_labels", "exact", "adjacent", "ci" {stat: [lo, hi] | None},
    "bands" (metrics.band_report), "groups" {name: metrics.group_report, with its "tests"},
    "warnings" (small bands and groups), "notes" (why a figure or CI is undefined),
    "bootstrap" {"resamples", "seed", "unit": "students" | "items"}}.
    """
    a = metrics.agreement(table, lo, hi)
    ci = metrics.agreement_cis(table, lo, hi, n_boot=n_boot, seed=seed) if a["n"] else {"notes": {}}
    bands = metrics.band_report(table, lo, hi, cut=cut, n_boot=n_boot, seed=seed, min_n=min_n)
    out = {
        "n": a["n"], "students": ci.get("n_units") if ci.get("units") == "students" else None, "scale": [lo, hi],
        **{s: a[s] for s in ("mae", "bias", "qwk")},
        "qwk_observed_labels": metrics.qwk_observed_labels(table, lo, hi) if a["n"] else float("nan"),
        **{s: a[s] for s in ("exact", "adjacent")},
        "ci": {s: ci.get(s) for s in STATS},
        "bands": bands,
        "groups": {},
        "warnings": list(bands["warnings"]),
        "notes": a["notes"] + [f"{k}: {v}" for k, v in ci["notes"].items()]
                 + ([f"ΔMAE: {bands['delta_mae_note']}"] if bands["delta_mae_note"] else []),
        "bootstrap": {"resamples": n_boot, "seed": seed, "unit": ci.get("units", "items")},
    }
    for name, part in (groups or {}).items():
        g = metrics.group_report(part, lo, hi, n_boot=n_boot, seed=seed, min_n=min_n, permutations=permutations)
        out["groups"][name] = g
        out["warnings"] += g["warnings"]
        out["notes"] += [f"{name} difference {k}: {v}" for k, v in g["difference"]["notes"].items()]
    return out
