"""Length bias: does the AI's error depend on how long the reflection is?

Seed 000 names reflections under 100 words as a weak spot (brevity mistaken for clarity).
Input is a table of (word_count, ai, reference, n) counts, so correlations are exact but the
cost does not grow with the number of submissions.

>>> t = pd.DataFrame({"word_count": [50, 50, 150, 300], "ai": [3, 2, 2, 2], "reference": [1, 1, 2, 2],
...                   "n": [3, 2, 4, 1]})
>>> r = length_bias(t, 0, 3, n_boot=200)
>>> round(r["pearson"], 3), r["short"]["n"], r["short"]["mae"], r["rest"]["mae"]
(-0.768, 5, 1.6, 0.0)
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from core.language.interface import Message
from core.metrics.agreement import canonical
from core.metrics.bootstrap import CLUSTER, DEFAULT_BOOT, percentile_ci, resample, stats_from_sums

SHORT_WORDS = 100


def _wcorr(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    mx, my = w @ x / w.sum(), w @ y / w.sum()
    sxy, sxx, syy = w @ ((x - mx) * (y - my)), w @ (x - mx) ** 2, w @ (y - my) ** 2
    if sxx == 0 or syy == 0:
        return float("nan")
    return float(sxy / math.sqrt(sxx * syy))


def _midranks(values: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Average rank of each value among the weighted rows (ties share their mean rank)."""
    uniq, inv = np.unique(values, return_inverse=True)
    per_value = np.bincount(inv, weights=w)
    before = np.concatenate([[0.0], np.cumsum(per_value)[:-1]])
    return (before + (per_value + 1) / 2)[inv]


def _p_value(r: float, n: int) -> float:
    if math.isnan(r) or n < 3:
        return float("nan")
    if abs(r) >= 1:
        return 0.0
    t = r * math.sqrt((n - 2) / (1 - r * r))
    return float(2 * sps.t.sf(abs(t), n - 2))


def length_bias(table: pd.DataFrame, lo: int, hi: int, *, short_words: int = SHORT_WORDS,
                n_boot: int = DEFAULT_BOOT, seed: int = 0, cluster: str | None = CLUSTER) -> dict:
    """Pearson and Spearman correlation of (AI - reference) with word count, and short vs rest.

    Pearson comes with a p-value and a 95% CI (Fisher z, which treats pairs as independent:
    read it as a description); Spearman with a p-value (t approximation, as
    scipy.stats.spearmanr). `short` is word_count < short_words; its MAE gap's CI resamples
    students when the table has them.
    """
    table = canonical(table)  # seed-stable order
    wc = table["word_count"].to_numpy(dtype=float)
    diff = table["ai"].to_numpy(dtype=float) - table["reference"].to_numpy(dtype=float)
    w = table["n"].to_numpy(dtype=float)
    n = int(w.sum())
    notes = []
    r = _wcorr(wc, diff, w) if n >= 3 else float("nan")
    rho = _wcorr(_midranks(wc, w), _midranks(diff, w), w) if n >= 3 else float("nan")
    if n < 3:
        notes.append(Message("correlation needs at least 3 items (have {n})", n=n))   # Messages: pages translate
    elif math.isnan(r):
        notes.append(Message("correlation undefined: word counts or errors do not vary"))
    ci = None
    if not math.isnan(r) and n > 3 and abs(r) < 1:
        z, se = math.atanh(r), 1 / math.sqrt(n - 3)
        ci = [math.tanh(z - 1.959964 * se), math.tanh(z + 1.959964 * se)]
    short = wc < short_words
    out = {"n": n, "pearson": r, "pearson_p": _p_value(r, n), "pearson_ci": ci,
           "spearman": rho, "spearman_p": _p_value(rho, n), "short_words": short_words, "notes": notes}
    for name, mask in (("short", short), ("rest", ~short)):
        nn = int(w[mask].sum())
        out[name] = {"n": nn, "mae": float(w[mask] @ np.abs(diff[mask]) / nn) if nn else float("nan"),
                     "bias": float(w[mask] @ diff[mask] / nn) if nn else float("nan")}
    rep_mae, res = {}, None
    if n:
        clustered = bool(cluster and cluster in table.columns)
        res = resample(table, lo, hi, {"short": short, "rest": ~short}, n_boot=n_boot, seed=seed, cluster=cluster,
                       strata=None if clustered else short.astype(int))
        rep_mae = {k: stats_from_sums(res.reps[k], ("mae",))["mae"] for k in ("short", "rest")}
    if out["short"]["n"] and out["rest"]["n"]:
        out["short_minus_rest_mae"] = out["short"]["mae"] - out["rest"]["mae"]
        out["short_minus_rest_mae_ci"], why = percentile_ci(rep_mae["short"] - rep_mae["rest"],
                                                            min(res.ci_n("short"), res.ci_n("rest")))
        if why:
            notes.append(why)
    else:
        out["short_minus_rest_mae"], out["short_minus_rest_mae_ci"] = float("nan"), None
        notes.append(Message("short vs rest needs items both under and at/over {words} words", words=short_words))
    return out
