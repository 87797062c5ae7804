"""The Fairness page: error by score band (ΔMAE), by student group and by length."""
from __future__ import annotations

import numpy as np
import pandas as pd
from sqlite_utils import Database

from core import access
from core import metrics
from core.access import Actor
from core.metrics.bootstrap import DEFAULT_BOOT
from core.metrics.fairness import MIN_N
from core.metrics.length import SHORT_WORDS
from core.reports.pairs import collapse, empty_message, pick_scale, reference_label
from core.reports.table import summary
from db import analytics


def fairness_view(conn: Database, scope: analytics.Scope, *, reference: str = "auto", criterion: str | None = None,
                  cut: float | None = None, n_boot: int = DEFAULT_BOOT, seed: int = 0, min_n: int = MIN_N,
                  short_words: int = SHORT_WORDS, actor: Actor) -> dict:
    """Bands (with ΔMAE), groups for every student attribute, and length bias.

    `criterion` None pools all criteria (each (submission, criterion) pair is one item).
    Bands and groups come from `summary` of the pairs in scope (grouped by each attribute);
    every interval resamples students, and each group report has its `tests` (each group vs
    the rest, with a CI and a permutation p-value). Returns {"empty", "message", "notes",
    "scale", "reference", "reference_label", "students", "bands" (band report),
    "bands_by_criterion" (DataFrame), "groups" {attribute: group report}, "length"
    (length_bias), "length_cells"}. Cached until the data change.
    """
    scope = access.scope_for(conn, actor, scope)
    key = ("fairness_view", scope, reference, criterion, cut, n_boot, seed, min_n, short_words)
    return analytics.memo(conn, key, lambda: _fairness_view(conn, scope, reference, criterion, cut, n_boot, seed,
                                                            min_n, short_words))


def _fairness_view(conn: Database, scope: analytics.Scope, reference: str, criterion: str | None,
                   cut: float | None, n_boot: int, seed: int, min_n: int, short_words: int) -> dict:
    # One scan for everything: word count for bands and length, the raw attributes JSON for groups.
    raw = analytics.pair_counts(conn, scope, reference=reference, by=("word_count", "student"), attributes=True,
                                expand=False)
    with_attrs, scale, notes = pick_scale(conn, raw)
    table = collapse(with_attrs, ["rubric_id", "criterion", "word_count", "student"]) if len(with_attrs) else with_attrs
    out = {"empty": table.empty, "message": empty_message(reference) if table.empty else "", "notes": notes,
           "scale": scale, "reference": reference, "reference_label": reference_label(reference)}
    if table.empty:
        return out
    lo, hi = scale["lo"], scale["hi"]
    cut = scale["cut"] if cut is None else cut
    if criterion is not None:
        table = table[table["criterion"] == criterion]
        with_attrs = with_attrs[with_attrs["criterion"] == criterion]
    attr_pairs = analytics.expand_attributes(collapse(with_attrs, ["attributes", "student"]))
    groups = {attr: collapse(part, ["group", "student"]) for attr, part in attr_pairs.groupby("attribute", sort=True)}
    pooled = summary(collapse(table, ["student"]), lo, hi, groups=groups, cut=cut, n_boot=n_boot, seed=seed,
                     min_n=min_n)
    out["bands"], out["groups"], out["students"] = pooled["bands"], pooled["groups"], pooled["students"]
    out["bands_by_criterion"] = pd.DataFrame(
        [_band_row(crit, metrics.band_report(part, lo, hi, cut=cut, n_boot=n_boot, seed=seed, min_n=min_n))
         for crit, part in collapse(table, ["criterion", "student"]).groupby("criterion")])
    out["length_cells"] = collapse(table, ["word_count"])
    out["length"] = metrics.length_bias(collapse(table, ["word_count", "student"]), lo, hi, short_words=short_words,
                                        n_boot=n_boot, seed=seed)
    return out


def _band_row(criterion: str, b: dict) -> dict:
    ci = b["delta_mae_ci"] or [np.nan, np.nan]
    return {"criterion": criterion, "n_low": b["bands"]["low"]["n"], "students_low": b["bands"]["low"]["students"],
            "mae_low": b["bands"]["low"]["mae"], "n_high": b["bands"]["high"]["n"],
            "students_high": b["bands"]["high"]["students"], "mae_high": b["bands"]["high"]["mae"],
            "delta_mae": b["delta_mae"], "delta_lo": ci[0], "delta_hi": ci[1]}
