"""The Fairness page: error by score band (ΔMAE), by student group and by length."""
from __future__ import annotations

import numpy as np
import pandas as pd
from sqlite_utils import Database

from core.accounts import access
from core import metrics
from core.accounts.access import Actor
from core.metrics.bootstrap import DEFAULT_BOOT
from core.metrics.fairness import MIN_N
from core.metrics.length import SHORT_WORDS
from core.reports.later import whole_or_figures
from core.reports.pairs import collapse, empty_message, pick_scale, reference_label
from core.reports.table import summary
from db import analytics


def fairness_view(conn: Database, scope: analytics.Scope, *, reference: str = "auto", criterion: str | None = None,
                  cut: float | None = None, n_boot: int = DEFAULT_BOOT, seed: int = 0, min_n: int = MIN_N,
                  short_words: int = SHORT_WORDS, intervals: bool = True, wait: bool = True, actor: Actor) -> dict:
    """Bands (with ΔMAE), groups for every student attribute, and length bias.

    `criterion` None pools all criteria (each (submission, criterion) pair is one item).
    Bands and groups come from `summary` of the pairs in scope (grouped by each attribute).
    With `intervals` (the page) every interval resamples students, each group report has its
    `tests` (each group vs the rest, with a CI and a permutation p-value) and small-sample
    warnings count students: they read one row per pair in scope (the intervals' own cost).
    Without, the figures and point estimates come from the summed counts
    (db.analytics.cell_counts), whose size does not grow with the submissions. Returns
    {"empty", "message", "notes", "scale", "reference", "reference_label", "students" (None
    without intervals), "bands" (band report), "bands_by_criterion" (DataFrame), "groups"
    {attribute: group report}, "length" (length_bias), "length_cells"}. Cached until the counts
    change. `wait=False` (the page): a large scope's figures at once, marked
    "intervals_pending", its intervals computed in the background (core.reports.later).
    """
    return fairness_in(conn, access.scope_for(conn, actor, scope), reference=reference, criterion=criterion, cut=cut,
                       n_boot=n_boot, seed=seed, min_n=min_n, short_words=short_words, intervals=intervals, wait=wait)


def fairness_in(conn: Database, scope: analytics.Scope, *, reference: str = "auto", criterion: str | None = None,
                cut: float | None = None, n_boot: int = DEFAULT_BOOT, seed: int = 0, min_n: int = MIN_N,
                short_words: int = SHORT_WORDS, intervals: bool = True, wait: bool = True) -> dict:
    """`fairness_view` of a scope access.scope_for has already checked (a page's one read)."""
    version = analytics.fresh_version(conn, scope)
    key = ("fairness_view", scope, reference, criterion, cut, n_boot, seed, min_n, short_words, intervals)
    options = dict(reference=reference, criterion=criterion, cut=cut, min_n=min_n, short_words=short_words)
    if intervals and not wait:
        return whole_or_figures(conn, key, version, lambda: fairness_in(conn, scope, **options, intervals=False),
                                lambda c: fairness_in(c, scope, **options, n_boot=n_boot, seed=seed))
    build = _fairness_view if intervals else _fairness_figures
    return analytics.memo(conn, key, lambda: build(conn, scope, reference, criterion, cut, n_boot, seed, min_n,
                                                   short_words), version=version)


def _start(conn: Database, raw: pd.DataFrame, reference: str) -> tuple[pd.DataFrame, dict]:
    table, scale, notes = pick_scale(conn, raw)
    return table, {"empty": table.empty, "message": empty_message(reference) if table.empty else "", "notes": notes,
                   "scale": scale, "reference": reference, "reference_label": reference_label(reference)}


def _fairness_figures(conn: Database, scope: analytics.Scope, reference: str, criterion: str | None,
                      cut: float | None, n_boot: int, seed: int, min_n: int, short_words: int) -> dict:
    table, out = _start(conn, analytics.cell_counts(conn, scope, reference=reference), reference)
    if table.empty:
        return out
    lo, hi = out["scale"]["lo"], out["scale"]["hi"]
    cut = out["scale"]["cut"] if cut is None else cut

    def kept(part: pd.DataFrame) -> pd.DataFrame:
        part = part[part["rubric_id"].isin(set(table["rubric_id"]))]
        return part if criterion is None else part[part["criterion"] == criterion]

    table = kept(table)
    attrs = kept(analytics.cell_counts(conn, scope, reference=reference, dim="attribute"))
    groups = {attr: collapse(part, ["group"]) for attr, part in attrs.groupby("attribute", sort=True)}
    pooled = summary(collapse(table, []), lo, hi, groups=groups, cut=cut, n_boot=0, permutations=0, min_n=min_n)
    out["bands"], out["groups"], out["students"] = pooled["bands"], pooled["groups"], None
    out["bands_by_criterion"] = pd.DataFrame(
        [_band_row(crit, metrics.band_report(part, lo, hi, cut=cut, n_boot=0, min_n=min_n))
         for crit, part in collapse(table, ["criterion"]).groupby("criterion")])
    words = collapse(kept(analytics.cell_counts(conn, scope, reference=reference, dim="word_count")), ["word_count"])
    out["length_cells"] = words
    out["length"] = metrics.length_bias(words, lo, hi, short_words=short_words, n_boot=0)
    return out


def _fairness_view(conn: Database, scope: analytics.Scope, reference: str, criterion: str | None,
                   cut: float | None, n_boot: int, seed: int, min_n: int, short_words: int) -> dict:
    # One scan for everything: word count for bands and length, the raw attributes JSON for groups.
    raw = analytics.pair_counts(conn, scope, reference=reference, by=("word_count", "student"), attributes=True,
                                expand=False)
    with_attrs, out = _start(conn, raw, reference)
    table = collapse(with_attrs, ["rubric_id", "criterion", "word_count", "student"]) if len(with_attrs) else with_attrs
    if table.empty:
        return out
    lo, hi = out["scale"]["lo"], out["scale"]["hi"]
    cut = out["scale"]["cut"] if cut is None else cut
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
