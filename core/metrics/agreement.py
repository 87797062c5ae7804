"""Agreement between AI scores and reference scores: n, MAE, bias, QWK, exact, adjacent, confusion.

All figures come from a contingency table (`pair_counts`), so the same code serves a CSV of
seven rows and a database of 100,000 submissions.

>>> t = pair_counts([1, 2, 3, 1, 2, 2, 3], [1, 2, 3, 1, 2, 3, 2])
>>> a = agreement(t, 1, 3)
>>> a["n"], round(a["mae"], 4), a["qwk"], round(a["exact"], 4), a["adjacent"]
(7, 0.2857, 0.75, 0.7143, 1.0)
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from core.errors import FairMarkError
from core.language.interface import Message


class MetricsInputError(FairMarkError):
    """Scores cannot be measured as given (outside the scale, wrong shape)."""


def to_level(x) -> np.ndarray:
    """Nearest whole level, halves upwards (a two-rater mean of 2.5 counts as 3).

    Used only where whole levels are needed (kappa, confusion, exact/adjacent); MAE and
    bias always use the exact value. Halves go up so the rule does not depend on parity
    (numpy's default rounds 1.5 -> 2 but 2.5 -> 2).

    >>> to_level([2.5, 1.5, 2.4, 0.5]).tolist()
    [3, 2, 2, 1]
    """
    return np.floor(np.asarray(x, dtype=float) + 0.5).astype(int)


def default_band_cut(lo: int, hi: int) -> float:
    """Largest reference score in the low band: the lower half of the scale.

    Same rule as `Rubric.band_cut` (0-3 -> 1, i.e. low 0-1; 1-6 -> 3; on an odd number of
    levels the middle level goes to the high band: 0-4 -> 1.5, i.e. low 0-1).

    >>> default_band_cut(0, 3), default_band_cut(1, 6), default_band_cut(0, 4), default_band_cut(0, 30)
    (1, 3, 1.5, 14.5)
    """
    levels = hi - lo + 1
    return lo + levels // 2 - 1 + (0.5 if levels % 2 else 0)


def pair_counts(ai: Sequence, reference: Sequence, keys: dict[str, Sequence] | None = None) -> pd.DataFrame:
    """Contingency table from rows: one row per distinct (keys..., ai, reference) with count `n`.

    Rows where the AI or reference score is missing are left out and counted in
    `table.attrs["skipped"]`.

    >>> pair_counts([1, 1, 2, None], [1, 1, 3, 2])[["ai", "reference", "n"]].values.tolist()
    [[1.0, 1.0, 2.0], [2.0, 3.0, 1.0]]
    >>> pair_counts([1, None], [1, 2]).attrs["skipped"]
    1
    """
    df = pd.DataFrame({"ai": pd.to_numeric(pd.Series(list(ai), dtype=object), errors="coerce"),
                       "reference": pd.to_numeric(pd.Series(list(reference), dtype=object), errors="coerce")})
    if len(df["ai"]) != len(df["reference"]):
        raise MetricsInputError(Message("AI and reference score lists must have the same length"))
    key_cols = list(keys or {})
    for k, v in (keys or {}).items():
        df[k] = pd.Series(list(v), dtype=object).astype(str)
    ok = df["ai"].notna() & df["reference"].notna()
    skipped = int((~ok).sum())
    df = df[ok]
    out = (df.groupby(key_cols + ["ai", "reference"], dropna=False).size().rename("n").reset_index()
           .sort_values(key_cols + ["ai", "reference"]).reset_index(drop=True))
    out["ai"] = out["ai"].astype(float)
    out["reference"] = out["reference"].astype(float)
    out["n"] = out["n"].astype(int)
    out.attrs["skipped"] = skipped
    return out


def canonical(table: pd.DataFrame) -> pd.DataFrame:
    """Cells in a fixed order (by every key column), so a seeded bootstrap does not depend on
    the order the database or the caller happened to return them in."""
    keys = [c for c in table.columns if c != "n"]
    return table.sort_values(keys, kind="mergesort").reset_index(drop=True) if len(table) else table


def _check_range(values: np.ndarray, lo: int, hi: int, what: str) -> None:
    """Every score within the scale; `what` is "AI" or "reference" (the message names that column)."""
    if values.size and (values.min() < lo or values.max() > hi):
        bad = values[(values < lo) | (values > hi)]
        if what == "AI":
            raise MetricsInputError(Message("AI score {score:g} is outside the scale {low}-{high}; check the scale "
                                            "(min/max) or the AI column", score=bad[0], low=lo, high=hi))
        raise MetricsInputError(Message("reference score {score:g} is outside the scale {low}-{high}; check the "
                                        "scale (min/max) or the reference column", score=bad[0], low=lo, high=hi))


def cell_arrays(table: pd.DataFrame, lo: int, hi: int) -> dict[str, np.ndarray]:
    """Per-cell arrays the metrics and the bootstrap share (counts, errors, level indices)."""
    ai = table["ai"].to_numpy(dtype=float)
    ref = table["reference"].to_numpy(dtype=float)
    _check_range(ai, lo, hi, "AI")
    _check_range(ref, lo, hi, "reference")
    ai_i = to_level(ai) - lo
    ref_i = to_level(ref) - lo
    return {
        "n": table["n"].to_numpy(dtype=float),
        "diff": ai - ref,
        "abs": np.abs(ai - ref),
        "exact": (ai_i == ref_i).astype(float),
        "adjacent": (np.abs(ai_i - ref_i) <= 1).astype(float),
        "ai_i": ai_i,
        "ref_i": ref_i,
        "L": hi - lo + 1,
    }


def _confusion(c: dict) -> np.ndarray:
    """(L, L) counts by (AI level, reference level) from cell arrays (bincount: fast on many cells)."""
    L = c["L"]
    flat = np.bincount(c["ai_i"] * L + c["ref_i"], weights=c["n"], minlength=L * L)
    return flat.reshape(L, L)


def confusion(table: pd.DataFrame, lo: int, hi: int) -> pd.DataFrame:
    """Counts by (AI level, reference level) over the full scale: rows AI, columns reference.

    >>> confusion(pair_counts([0, 1, 1], [0, 1, 3]), 0, 3).values.tolist()
    [[1, 0, 0, 0], [0, 1, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0]]
    """
    c = cell_arrays(table, lo, hi)
    m = _confusion(c).astype(int)
    labels = list(range(lo, hi + 1))
    return pd.DataFrame(m, index=pd.Index(labels, name="ai"), columns=pd.Index(labels, name="reference"))


def qwk_from_confusions(m: np.ndarray) -> np.ndarray:
    """Quadratic weighted kappa of one (L, L) or many (B, L, L) confusion matrices; NaN when 0/0."""
    m = np.asarray(m, dtype=float)
    single = m.ndim == 2
    if single:
        m = m[None]
    L = m.shape[-1]
    idx = np.arange(L)
    w = (idx[:, None] - idx[None, :]) ** 2
    n = m.sum(axis=(1, 2))
    rows, cols = m.sum(axis=2), m.sum(axis=1)
    observed = (m * w).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.einsum("bi,ij,bj->b", rows, w, cols) / n
        k = 1.0 - observed / expected
    k[(expected == 0) | (n == 0)] = np.nan
    return k[0] if single else k


def agreement(table: pd.DataFrame, lo: int, hi: int) -> dict:
    """n, MAE, bias, QWK (full label range), exact, adjacent and notes from a contingency table.

    NaN figures always come with a note saying why, never an exception.

    >>> agreement(pair_counts([1, 2, 1], [1, 2, 2]), 1, 2)["qwk"]
    0.4
    >>> a = agreement(pair_counts([2, 2], [2, 2]), 0, 3)
    >>> a["mae"], math.isnan(a["qwk"]), a["notes"][0][:40]
    (0.0, True, 'QWK undefined: every AI and reference sc')
    """
    c = cell_arrays(table, lo, hi)
    n = int(c["n"].sum())
    notes: list[str] = []
    if n == 0:
        nan = float("nan")
        return {"n": 0, "mae": nan, "bias": nan, "qwk": nan, "exact": nan, "adjacent": nan,
                "notes": ["no pairs of AI and reference scores to compare"]}
    k = float(qwk_from_confusions(_confusion(c)))
    if math.isnan(k):
        level = lo + int(c["ai_i"][c["n"] > 0][0])
        notes.append(f"QWK undefined: every AI and reference score is the same level ({level}), so kappa "
                     f"is 0/0; MAE and exact agreement still apply")
    return {
        "n": n,
        "mae": float(c["n"] @ c["abs"] / n),
        "bias": float(c["n"] @ c["diff"] / n),
        "qwk": round(k, 12) if not math.isnan(k) else k,
        "exact": float(c["n"] @ c["exact"] / n),
        "adjacent": float(c["n"] @ c["adjacent"] / n),
        "notes": notes,
    }


def qwk_observed_labels(table: pd.DataFrame, lo: int, hi: int) -> float:
    """QWK over only the levels that occur (scikit-learn's default without `labels`).

    Shown for comparison only: when a level in the middle of the scale is never used, the
    distances between the remaining levels shrink and kappa changes.

    >>> t = pair_counts([0, 1, 3, 3, 1], [0, 3, 1, 3, 1])
    >>> round(agreement(t, 0, 3)["qwk"], 4), round(qwk_observed_labels(t, 0, 3), 4)
    (0.4444, 0.6429)
    """
    m = confusion(table, lo, hi).to_numpy()
    used = (m.sum(axis=0) + m.sum(axis=1)) > 0
    return float(qwk_from_confusions(m[np.ix_(used, used)])) if used.any() else float("nan")


def agreement_from_rows(ai: Iterable, reference: Iterable, lo: int, hi: int) -> dict:
    """Row-based convenience: `agreement(pair_counts(ai, reference), lo, hi)`.

    >>> agreement_from_rows([0, 3], [1, 3], 0, 3)["mae"]
    0.5
    """
    return agreement(pair_counts(list(ai), list(reference)), lo, hi)


def qwk(ai: Iterable, reference: Iterable, lo: int, hi: int) -> float:
    """Quadratic weighted kappa over the full scale lo..hi (the Kaggle ASAP metric).

    >>> qwk([1, 2, 1], [1, 2, 2], 1, 2)
    0.4
    >>> qwk([1, 2, 3, 1, 2, 2, 3], [1, 2, 3, 1, 2, 3, 2], 1, 3)
    0.75
    """
    return agreement_from_rows(ai, reference, lo, hi)["qwk"]
