"""The Agreement page: AI against reference per criterion, over time and across versions,
agreement between model versions, and what teachers changed."""
from __future__ import annotations

import pandas as pd
from sqlite_utils import Database

from core.accounts import access
from core import metrics
from core.accounts.access import Actor
from core.metrics.bootstrap import DEFAULT_BOOT
from core.offline import LABEL as OFFLINE_LABEL
from core.reports.later import whole_or_figures
from core.reports.pairs import collapse, empty_message, pick_scale, reference_label
from db import analytics

ALL = "All criteria"


def agreement_view(conn: Database, scope: analytics.Scope, *, reference: str = "auto", n_boot: int = DEFAULT_BOOT,
                   seed: int = 0, intervals: bool = True, wait: bool = True, actor: Actor) -> dict:
    """Everything the Agreement page shows, for the courses the actor may see.

    Returns {"empty", "message", "notes", "scale", "reference", "reference_label", "sources"
    {source: pairs}, "headline" (DataFrame per criterion + "All criteria"), "confusion"
    {criterion: DataFrame}, "cells" {criterion: (ai, reference, n) counts for the scatter},
    "by_week", "by_version" (DataFrames), "edits" (edit_view)}. With `intervals` (the page)
    also "source_students" {source: students}, "students", and per row of the headline its
    students and CIs that resample students: they read one row per pair in scope (the
    intervals' own cost). Without, every figure and point estimate comes from the summed counts
    (db.analytics.cell_counts), whose size does not grow with the submissions. Cached until the
    counts change; the edits until the reviews change. `wait=False` (the page): a large scope's
    figures at once, marked "intervals_pending", its intervals computed in the background
    (core.reports.later).
    """
    return agreement_in(conn, access.scope_for(conn, actor, scope), reference=reference, n_boot=n_boot, seed=seed,
                        intervals=intervals, wait=wait)


def agreement_in(conn: Database, scope: analytics.Scope, *, reference: str = "auto", n_boot: int = DEFAULT_BOOT,
                 seed: int = 0, intervals: bool = True, wait: bool = True) -> dict:
    """`agreement_view` of a scope access.scope_for has already checked (a page's one read)."""
    version = analytics.fresh_version(conn, scope)
    key = ("agreement_view", scope, reference, n_boot, seed, intervals)
    if intervals and not wait:
        return whole_or_figures(
            conn, key, version, lambda: agreement_in(conn, scope, reference=reference, intervals=False),
            lambda c: agreement_in(c, scope, reference=reference, n_boot=n_boot, seed=seed))
    build = _agreement_view if intervals else _agreement_figures
    view = analytics.memo(conn, key, lambda: build(conn, scope, reference, n_boot, seed), version=version)
    view["edits"] = edits_in(conn, scope)
    return view


def _start(conn: Database, raw: pd.DataFrame, reference: str) -> tuple[pd.DataFrame, dict]:
    table, scale, notes = pick_scale(conn, raw)
    return table, {"empty": table.empty, "message": empty_message(reference) if table.empty else "", "notes": notes,
                   "scale": scale, "reference": reference, "reference_label": reference_label(reference)}


def _agreement_figures(conn: Database, scope: analytics.Scope, reference: str, n_boot: int, seed: int) -> dict:
    table, out = _start(conn, analytics.cell_counts(conn, scope, reference=reference), reference)
    if table.empty:
        return out
    lo, hi = out["scale"]["lo"], out["scale"]["hi"]
    rubrics = set(table["rubric_id"])
    out["sources"] = table.groupby("source")["n"].sum().astype(int).to_dict()
    cells = collapse(table, ["criterion"])
    out["headline"] = _headline(metrics.by_key(cells, "criterion", lo, hi),
                                metrics.by_key(collapse(table, []).assign(criterion=ALL), "criterion", lo, hi),
                                out["scale"])
    _confusion(out, cells, collapse(table, []), lo, hi)
    for dim in ("week", "version"):
        part = analytics.cell_counts(conn, scope, reference=reference, dim=dim)
        out[f"by_{dim}"] = metrics.by_key(collapse(part[part["rubric_id"].isin(rubrics)], [dim]), dim, lo, hi)
    out["by_version"] = out["by_version"].assign(version=out["by_version"]["version"].map(version_label))
    return out


def _headline(per_criterion: pd.DataFrame, overall: pd.DataFrame, scale: dict) -> pd.DataFrame:
    headline = pd.concat([per_criterion, overall], ignore_index=True)
    headline.insert(1, "title", headline["criterion"].map(lambda k: scale["titles"].get(k, k)))
    return headline


def _confusion(out: dict, cells: pd.DataFrame, pooled: pd.DataFrame, lo: int, hi: int) -> None:
    out["confusion"] = {k: metrics.confusion(part, lo, hi) for k, part in cells.groupby("criterion")}
    out["confusion"][ALL] = metrics.confusion(pooled, lo, hi)
    out["cells"] = {k: part.drop(columns="criterion").reset_index(drop=True) for k, part in cells.groupby("criterion")}
    out["cells"][ALL] = pooled.reset_index(drop=True)


def _agreement_view(conn: Database, scope: analytics.Scope, reference: str, n_boot: int, seed: int) -> dict:
    raw = analytics.pair_counts(conn, scope, reference=reference, by=("week", "version", "source", "student"))
    table, out = _start(conn, raw, reference)
    if table.empty:
        return out
    lo, hi = out["scale"]["lo"], out["scale"]["hi"]
    out["sources"] = table.groupby("source")["n"].sum().astype(int).to_dict()
    out["source_students"] = table.groupby("source")["student"].nunique().astype(int).to_dict()
    out["students"] = int(table["student"].nunique())
    by_student = collapse(table, ["criterion", "student"])
    headline = metrics.by_key(by_student, "criterion", lo, hi, n_boot=n_boot, seed=seed)
    pooled = collapse(table, ["student"])
    overall = metrics.by_key(pooled.assign(criterion=ALL), "criterion", lo, hi, n_boot=n_boot, seed=seed)
    out["headline"] = _headline(headline, overall, out["scale"])
    _confusion(out, collapse(table, ["criterion"]), collapse(table, []), lo, hi)
    out["by_week"] = metrics.by_key(collapse(table, ["week", "student"]), "week", lo, hi)
    by_version = metrics.by_key(collapse(table, ["version", "student"]), "version", lo, hi)
    out["by_version"] = by_version.assign(version=by_version["version"].map(version_label))
    return out


def anchored_view(conn: Database, scope: analytics.Scope, *, actor: Actor) -> dict:
    """The AI against teachers' scores given after seeing its draft (approved one by one; bulk
    approvals never count): shown apart from the honest references, because a teacher who
    read the draft first leans towards it. {"empty", "n", "students", "mae", "qwk", "exact"}."""
    return anchored_in(conn, access.scope_for(conn, actor, scope))


def anchored_in(conn: Database, scope: analytics.Scope) -> dict:
    """`anchored_view` of a scope access.scope_for has already checked."""
    def compute() -> dict:
        table, scale, _ = pick_scale(conn, analytics.cell_counts(conn, scope, reference="teacher"))
        if table.empty:
            return {"empty": True, "n": 0, "students": 0}
        a = metrics.agreement(table, scale["lo"], scale["hi"])
        students = analytics.student_count(conn, scope, "teacher", set(table["rubric_id"]))
        return {"empty": False, "n": a["n"], "students": students, **{k: a[k] for k in ("mae", "qwk", "exact", "bias")}}

    return analytics.memo(conn, ("anchored", scope), compute, version=analytics.fresh_version(conn, scope))


def edit_view(conn: Database, scope: analytics.Scope, *, actor: Actor) -> dict:
    """What teachers changed in reviews they decided one by one (approved/rejected):
    metrics.edit_summary of db.analytics.edit_counts, plus "comment_sample_limit" and
    "bulk_approved" (left out: a bulk approval is the AI's draft). Cached until the data change.

    Comment edit distance uses the newest analytics.COMMENT_SAMPLE edited comments (difflib per pair).
    """
    return edits_in(conn, access.scope_for(conn, actor, scope))


def edits_in(conn: Database, scope: analytics.Scope) -> dict:
    """`edit_view` of a scope access.scope_for has already checked."""
    def compute() -> dict:
        c = analytics.edit_counts(conn, scope)
        summary = metrics.edit_summary(c["outcomes"], c["changes"], c["comment_pairs"], c["reason_codes"])
        summary["comment_sample_limit"] = analytics.COMMENT_SAMPLE
        summary["bulk_approved"] = c["bulk_approved"]
        return summary

    return analytics.memo(conn, ("edits", scope), compute, version=analytics.fresh_version(conn, scope))


def version_label(version: str) -> str:
    """A stored version key as teachers read it (the offline baseline by its label)."""
    head, sep, rest = str(version).partition(" · ")
    return f"{OFFLINE_LABEL}{sep}{rest}" if head == analytics.OFFLINE_VERSION else str(version)


def judge_view(conn: Database, scope: analytics.Scope, *, actor: Actor) -> dict:
    """Krippendorff's alpha (ordinal) between model/prompt versions that scored the same submissions.

    Uses each version's latest successful draft per submission, over the newest
    analytics.JUDGE_SAMPLE submissions that at least two versions scored. Cached until the data change.
    """
    return judges_in(conn, access.scope_for(conn, actor, scope))


def judges_in(conn: Database, scope: analytics.Scope) -> dict:
    """`judge_view` of a scope access.scope_for has already checked."""
    def compute() -> dict:
        long = analytics.judge_scores(conn, scope)
        if long.empty:
            return {"available": False, "message": "No submission was scored by two or more model/prompt versions."}
        long = long.assign(version=long["version"].map(version_label))
        table, versions = [], sorted(long["version"].unique())
        for crit, part in [*long.groupby("criterion"), (ALL, long)]:
            m = part.pivot_table(index="version", columns=["submission_id", "criterion"], values="score",
                                 aggfunc="first")
            m = m.reindex(versions)
            table.append({"criterion": crit, "submissions": int(part["submission_id"].nunique()),
                          "alpha": metrics.judge_alpha(m.to_numpy(dtype=float))})
        return {"available": True, "message": "", "versions": versions, "alpha": pd.DataFrame(table)}

    return analytics.memo(conn, ("judges", scope), compute, version=analytics.fresh_version(conn, scope))
