"""How well the offline scorer agrees with the teacher, beside word count alone.

Per criterion, on the teacher's own scores: the learned model's leave-one-out levels (each
text scored by a model that never saw its score) and word count alone spread over the levels
in the teacher's proportions. QWK, MAE and bias (scorer − teacher) with 95% intervals that
resample students (core.metrics), so a teacher sees whether the model beats length before
trusting it. For a criterion with too few scores for a model, the calibrated heuristic's
figures on those scores (its cut points used only their proportions).
"""
from __future__ import annotations

import math

import numpy as np

from core import metrics

N_BOOT = 500
STATS = ("qwk", "mae", "bias")


def figures(levels, scores, students, lo: int, hi: int, *, seed: int = 0) -> dict:
    """{n, students, qwk, mae, bias, qwk_ci, mae_ci, bias_ci} of scorer levels against the teacher."""
    table = metrics.pair_counts(list(levels), list(scores), keys={"student": list(students)})
    a = metrics.agreement(table, lo, hi)
    out = {"n": int(a["n"]), "students": len(set(students))}
    out.update({s: _num(a[s]) for s in STATS})
    ci = metrics.agreement_cis(table, lo, hi, n_boot=N_BOOT, seed=seed, which=STATS) if a["n"] >= 3 else {}
    out.update({f"{s}_ci": ci.get(s) for s in STATS})
    return out


def _num(x) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 4)


def beats_length(row: dict) -> bool:
    """The model's QWK is above word count's (what the free judge and the page ask)."""
    m, w = (row.get("model") or {}).get("qwk"), (row.get("word_count") or {}).get("qwk")
    return m is not None and (w is None or m > w)


def criterion_row(kind: str, levels, word_levels, scores, students, lo: int, hi: int) -> dict:
    """One criterion's figures: the scorer's (learned: leave-one-out; calibrated: its levels)
    and word count alone's, on the same scores."""
    keep = np.asarray(levels) >= lo

    def pick(seq):
        return [v for v, k in zip(seq, keep) if k]
    return {"kind": kind,
            "model": figures(pick(levels), pick(scores), pick(students), lo, hi),
            "word_count": figures(pick(word_levels), pick(scores), pick(students), lo, hi)}
