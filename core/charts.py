"""Plotly figure builders for the dashboards: pure functions, data in, figure out.

Each chart has a matching `*_frame` (or takes a DataFrame directly) so the page can offer the
exact numbers behind it as a CSV download. Missing confidence intervals are drawn without
error bars (never as a zero-width bar that would look perfectly certain).

The words on a chart: its axis titles, legend names and line labels are N_ labels, which the
page translates on the finished figure (pages/_dashboard.translated); what is composed with
values (tick labels, hover text, a line's label with a number) is a Message said in the
`interface` a builder is given, the reader's language on a page (English by default, as on
the command line). Numbers keep a decimal point in every language.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core.language.interface import Interface, Message, N_
from core.metrics.fairness import band_name

SEED_COST_PER_REFLECTION = 0.0015
_BLUE, _ORANGE, _GREY, _RED = "#1f77b4", "#ff7f0e", "#7f7f7f", "#d62728"
ENGLISH = Interface()   # a builder's words when no page gives it the reader's language
_EXTRA = "<extra></extra>"   # no trace name beside the hover text


def _error_y(values, lo, hi) -> dict:
    values, lo, hi = (np.asarray(x, dtype=float) for x in (values, lo, hi))
    return dict(type="data", symmetric=False, array=np.nan_to_num(hi - values, nan=0.0),
                arrayminus=np.nan_to_num(values - lo, nan=0.0), visible=bool(np.isfinite(lo).any()))


def plain(text) -> str:
    """User text (a course, group or criterion name) as Plotly shows it literally: Plotly reads
    a few HTML tags (<b>, <a href>, <br>) in titles, labels and names, so &, < and > are escaped.

    >>> plain("<b>A</b> & B")
    '&lt;b&gt;A&lt;/b&gt; &amp; B'
    """
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _layout(fig: go.Figure, title: str, x: str, y: str) -> go.Figure:
    """The title and axis titles (core's marked with N_: a page may show them translated, the
    Agreement, Fairness and Costs pages do in pages/_dashboard.chart)."""
    fig.update_layout(title=plain(title), xaxis_title=x, yaxis_title=y, margin=dict(l=10, r=10, t=50, b=10),
                      legend=dict(orientation="h", y=-0.2))
    return fig


# --- Agreement --------------------------------------------------------------------------------
def confusion_heatmap(matrix: pd.DataFrame, title: str = "Confusion matrix", *,
                      interface: Interface = ENGLISH) -> go.Figure:
    """Counts by AI level (rows) and reference level (columns), every level of the scale shown."""
    z = matrix.to_numpy()
    hover = interface.said(Message("AI {ai}, reference {reference}: {count}", ai="%{y}", reference="%{x}",
                                   count="%{z}"))
    fig = go.Figure(go.Heatmap(z=z, x=[str(c) for c in matrix.columns], y=[str(i) for i in matrix.index],
                               text=z, texttemplate="%{text}", colorscale="Blues", showscale=False,
                               hovertemplate=hover + _EXTRA))
    # Levels are categories: without this plotly reads "0".."3" as numbers and adds half ticks.
    fig.update_xaxes(type="category")
    fig.update_yaxes(type="category")
    return _layout(fig, title, N_("Reference score"), N_("AI score"))


def scatter_points(cells: pd.DataFrame, *, cap: int = 2000, jitter: float = 0.15, seed: int = 0) -> pd.DataFrame:
    """Jittered points from a contingency table; at most about `cap` points, shares kept.

    >>> pts = scatter_points(pd.DataFrame({"ai": [1.0, 2.0], "reference": [1.0, 3.0], "n": [3, 1]}))
    >>> len(pts), sorted(pts["ai"].round().unique().tolist())
    (4, [1.0, 2.0])
    """
    total = int(cells["n"].sum())
    scale = min(1.0, cap / total) if total else 1.0
    reps = np.maximum(1, np.round(cells["n"].to_numpy() * scale)).astype(int) if total else np.array([], int)
    rng = np.random.default_rng(seed)
    pts = cells.loc[cells.index.repeat(reps)].reset_index(drop=True)
    pts["ai_jitter"] = pts["ai"] + rng.uniform(-jitter, jitter, len(pts))
    pts["reference_jitter"] = pts["reference"] + rng.uniform(-jitter, jitter, len(pts))
    return pts


def agreement_scatter(cells: pd.DataFrame, lo: int, hi: int, *, cap: int = 2000, seed: int = 0,
                      title: str = "AI vs reference", interface: Interface = ENGLISH) -> go.Figure:
    """AI score against reference score, jittered so identical pairs do not hide each other."""
    pts = scatter_points(cells, cap=cap, seed=seed)
    hover = interface.said(Message("reference {reference}, AI {ai}", reference="%{x:.1f}", ai="%{y:.1f}"))
    fig = go.Figure(go.Scatter(x=pts["reference_jitter"], y=pts["ai_jitter"], mode="markers", name=N_("submission"),
                               marker=dict(size=5, opacity=0.45, color=_BLUE), hovertemplate=hover + _EXTRA))
    fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name=N_("perfect agreement"),
                             line=dict(dash="dash", color=_GREY)))
    shown = len(pts)
    total = int(cells["n"].sum())
    sub = (" " + interface.said(Message("(showing {shown} of {total})", shown=shown, total=total))
           if shown < total else "")
    return _layout(fig, title + sub, N_("Reference score"), N_("AI score"))


QWK_TICKS = [-1, -0.5, 0, 0.5, 1]


def trend_chart(frame: pd.DataFrame, x: str, *, title: str = "Trend") -> go.Figure:
    """MAE (left axis, from 0) and QWK (right axis, its whole range −1 to 1 with 0 = chance) by
    week or by model/prompt version, n in the hover. Weeks are whole numbers on the axis (Plotly
    reads "1", "2" as numbers and would add 1.5); versions are categories."""
    weeks = pd.to_numeric(frame[x], errors="coerce") if x == "week" else None
    weekly = weeks is not None and len(frame) and weeks.notna().all()
    xs = weeks if weekly else frame[x].astype(str).map(plain)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=xs, y=frame["mae"], mode="lines+markers", name="MAE", line=dict(color=_ORANGE),
                             customdata=frame["n"], hovertemplate="MAE %{y:.3f} (n=%{customdata})<extra></extra>"))
    fig.add_trace(go.Scatter(x=xs, y=frame["qwk"], mode="lines+markers", name="QWK", yaxis="y2",
                             line=dict(color=_BLUE), customdata=frame["n"],
                             hovertemplate="QWK %{y:.3f} (n=%{customdata})<extra></extra>"))
    fig.update_layout(yaxis=dict(rangemode="tozero"),
                      yaxis2=dict(title="QWK", overlaying="y", side="right", range=[-1.05, 1.05], autorange=False,
                                  tickmode="array", tickvals=QWK_TICKS, zeroline=True))
    if weekly:
        ticks = sorted(set(weeks.tolist()))
        fig.update_xaxes(type="linear", tickmode="array", tickvals=ticks, ticktext=[f"{w:g}" for w in ticks])
    else:
        fig.update_xaxes(type="category")
    return _layout(fig, title, {"week": N_("Week"), "version": N_("Version")}.get(x, x.replace("_", " ").capitalize()),
                   "MAE")


# --- Fairness ---------------------------------------------------------------------------------
def band_frame(report: dict) -> pd.DataFrame:
    """One row per band: range, n, MAE and bias with CI bounds (NaN when unavailable), warning."""
    rows = []
    for name in ("low", "high"):
        b = report["bands"][name]
        mci, bci = b["mae_ci"] or [np.nan, np.nan], b["bias_ci"] or [np.nan, np.nan]
        rows.append({"band": name, "range": b["range"], "n": b["n"], "mae": b["mae"], "mae_lo": mci[0],
                     "mae_hi": mci[1], "bias": b["bias"], "bias_lo": bci[0], "bias_hi": bci[1],
                     "warning": b["warning"] or ""})
    return pd.DataFrame(rows)


def _interval(interface: Interface, lo, hi) -> str:
    """"95% CI [0.50, 1.20]" (or "unavailable") in the interface's language, a decimal point kept."""
    shown = (f"[{lo:.2f}, {hi:.2f}]" if np.isfinite([lo, hi]).all() else interface.said(Message("unavailable")))
    return interface.said(Message("95% CI {interval}", interval=shown))


def _bar_hover(interface: Interface, points: list[str], statistic: str, values, lo, hi) -> list[str]:
    """Per bar: what it is, the statistic's value and its 95% CI ("Low band (0–1), n=12<br>MAE: 0.84,
    95% CI [0.50, 1.20]"), the statistic (an N_ label) in the interface's language."""
    name = interface(statistic)
    values, lo, hi = (np.asarray(x, dtype=float) for x in (values, lo, hi))
    return [f"{point}<br>{name}: " + (f"{v:.2f}, {_interval(interface, a, b)}" if np.isfinite(v) else "—")
            for point, v, a, b in zip(points, values, lo, hi)]


def band_chart(frame: pd.DataFrame, *, title: str = "Error by score band", interface: Interface = ENGLISH) -> go.Figure:
    """MAE and signed bias per band with 95% CI error bars; the band's name, range and n in the ticks
    ("Low band (0–1)", core.metrics.fairness.band_name) and each bar's value and CI in its hover."""
    bands = [(interface.said(band_name(r.band, {r.band: r.range})), r.n) for r in frame.itertuples()]
    labels, points = [f"{name}<br>n={n}" for name, n in bands], [f"{name}, n={n}" for name, n in bands]
    fig = go.Figure()
    for stat, name, color in (("mae", N_("MAE"), _ORANGE), ("bias", N_("bias (AI − reference)"), _BLUE)):
        values, lo, hi = frame[stat], frame[f"{stat}_lo"], frame[f"{stat}_hi"]
        fig.add_trace(go.Bar(x=labels, y=values, name=name, marker_color=color, error_y=_error_y(values, lo, hi),
                             hovertext=_bar_hover(interface, points, name, values, lo, hi), hoverinfo="text"))
    fig.update_layout(barmode="group")
    return _layout(fig, title, N_("Band of the reference score"), N_("Score points"))


def group_frame(report: dict, metric: str = "mae") -> pd.DataFrame:
    """One row per group: n, students (when known), the metric and its CI bounds, warning."""
    rows = []
    for g, b in report["by_group"].items():
        ci = b.get(f"{metric}_ci") or [np.nan, np.nan]
        rows.append({"group": g, "n": b["n"], "students": b.get("students"), metric: b[metric], f"{metric}_lo": ci[0],
                     f"{metric}_hi": ci[1], "warning": b.get("warning") or ""})
    return pd.DataFrame(rows, columns=["group", "n", "students", metric, f"{metric}_lo", f"{metric}_hi", "warning"])


REST = N_("the rest")   # a group tests' row against every other group (a page shows it with t)


def group_tests_frame(tests: list[dict]) -> pd.DataFrame:
    """Group tests as a table: group, compared with, metric, difference, CI bounds, p-value.

    >>> group_tests_frame([{"group": "a", "vs": "rest", "metric": "mae", "diff": 0.2, "ci": [0.1, 0.3],
    ...                     "p_value": 0.01}]).iloc[0, :3].tolist()
    ['a', 'the rest', 'MAE']
    """
    rows = [{"group": t["group"], "compared_with": REST if t["vs"] == "rest" else t["vs"],
             "metric": t["metric"].upper(), "difference": t["diff"], "difference_lo": (t["ci"] or [np.nan])[0],
             "difference_hi": (t["ci"] or [np.nan, np.nan])[1], "p_value": t["p_value"]} for t in tests]
    return pd.DataFrame(rows, columns=["group", "compared_with", "metric", "difference", "difference_lo",
                                       "difference_hi", "p_value"])


def group_chart(frame: pd.DataFrame, *, metric: str = "mae", overall: float | None = None,
                title: str = "Error by group", interface: Interface = ENGLISH) -> go.Figure:
    """The metric per group with CI error bars; small groups drawn grey; overall as a line."""
    students = frame["students"] if "students" in frame else [None] * len(frame)
    groups = [(plain(g), f"n={n}" + (", " + interface.said(Message.plural("{count} student", "{count} students", int(k)))
                                     if k is not None and k == k else ""))
              for g, n, k in zip(frame["group"], frame["n"], students)]
    colors = [_GREY if w else _ORANGE for w in frame["warning"]]
    values, lo, hi = frame[metric], frame[f"{metric}_lo"], frame[f"{metric}_hi"]
    fig = go.Figure(go.Bar(x=[f"{g}<br>{n}" for g, n in groups], y=values, name=metric.upper(), marker_color=colors,
                           error_y=_error_y(values, lo, hi), hoverinfo="text",
                           hovertext=_bar_hover(interface, [f"{g}, {n}" for g, n in groups], metric.upper(), values,
                                                lo, hi)))
    if overall is not None and np.isfinite(overall):
        fig.add_hline(y=overall, line_dash="dot", line_color=_GREY, annotation_text=N_("all students"))
    return _layout(fig, title, N_("Group (grey: too few to judge)"), metric.upper())


def length_frame(cells: pd.DataFrame, *, bin_words: int = 25) -> pd.DataFrame:
    """Mean error (AI − reference) and MAE per word-count bin, with n.

    >>> f = length_frame(pd.DataFrame({"word_count": [10, 20, 120], "ai": [3, 2, 2], "reference": [1, 2, 2],
    ...                                "n": [1, 1, 2]}))
    >>> f[["words_from", "n", "mean_error"]].values.tolist()
    [[0.0, 2.0, 1.0], [100.0, 2.0, 0.0]]
    """
    d = cells.assign(diff=cells["ai"] - cells["reference"],
                     words_from=(cells["word_count"] // bin_words) * bin_words)
    d["wd"], d["wa"] = d["diff"] * d["n"], d["diff"].abs() * d["n"]
    g = d.groupby("words_from", as_index=False)[["n", "wd", "wa"]].sum()
    return pd.DataFrame({"words_from": g["words_from"].astype(float), "n": g["n"].astype(float),
                         "mean_error": g["wd"] / g["n"], "mae": g["wa"] / g["n"]})


def length_chart(frame: pd.DataFrame, *, short_words: int = 100, title: str = "Error by length",
                 interface: Interface = ENGLISH) -> go.Figure:
    """Mean signed error per word-count bin (marker size ~ n), the short-text threshold marked."""
    size = 6 + 24 * np.sqrt(frame["n"] / frame["n"].max()) if len(frame) else []
    hover = interface.said(Message("{words}+ words: mean error {error} (n={n})", words="%{x}", error="%{y:.2f}",
                                   n="%{customdata}"))
    fig = go.Figure(go.Scatter(x=frame["words_from"], y=frame["mean_error"], mode="markers+lines",
                               name=N_("mean error"), marker=dict(size=size, color=_BLUE), customdata=frame["n"],
                               hovertemplate=hover + _EXTRA))
    fig.add_hline(y=0, line_color=_GREY)
    fig.add_vline(x=short_words, line_dash="dash", line_color=_RED,
                  annotation_text=interface.said(Message.plural("{count} word", "{count} words", short_words)))
    return _layout(fig, title, N_("Word count (bin start)"), N_("Mean error (AI − reference)"))


# --- Edits ------------------------------------------------------------------------------------
def edit_chart(by_criterion: pd.DataFrame, *, title: str = "Teacher changes to AI scores") -> go.Figure:
    """Per criterion: scores the teacher raised, lowered or kept (stacked)."""
    kept = by_criterion["n"] - by_criterion["changed"]
    fig = go.Figure()
    for name, values, color in ((N_("raised"), by_criterion["up"], _BLUE),
                                (N_("lowered"), by_criterion["down"], _ORANGE), (N_("kept"), kept, _GREY)):
        fig.add_trace(go.Bar(x=by_criterion["criterion"].astype(str).map(plain), y=values, name=name,
                             marker_color=color))
    fig.update_layout(barmode="stack")
    return _layout(fig, title, N_("Criterion"), N_("Approved drafts"))


# --- Costs ------------------------------------------------------------------------------------
def bar_chart(frame: pd.DataFrame, x: str, y: str, *, title: str, y_title: str | None = None) -> go.Figure:
    fig = go.Figure(go.Bar(x=frame[x].astype(str).map(plain), y=frame[y], marker_color=_BLUE, name=y))
    return _layout(fig, title, x.replace("_", " ").capitalize(), y_title or y.replace("_", " "))


def cost_per_submission_chart(by_run: pd.DataFrame, *, reference: float = SEED_COST_PER_REFLECTION,
                              title: str = "Cost per reflection by run", interface: Interface = ENGLISH) -> go.Figure:
    """Cost per submission for each run against the published multi-agent study's (Zhang & Luo 2025)
    $0.0015 per reflection."""
    fig = bar_chart(by_run, "run", "cost_per_submission", title=title, y_title=N_("USD per reflection"))
    fig.add_hline(y=reference, line_dash="dash", line_color=_RED,
                  annotation_text=interface.said(Message("published study (Zhang & Luo 2025): {cost}",
                                                         cost=f"${reference:.4f}")))
    return fig


# --- Students ---------------------------------------------------------------------------------
def student_progress_chart(rows: list[dict], rubric, *, title: str = "Released scores by week",
                           interface: Interface = ENGLISH) -> go.Figure:
    """One student's released scores per criterion across weeks (lines and markers, so a single
    released week still shows its points). `rows` are {"week", "scores"} in week order (a row
    without a week takes its position); scores of the same week are averaged. The legend uses
    the rubric's criterion titles, the x axis whole weeks, the y axis the rubric's scale; its axes and
    hover in the interface's language (its pages show it without pages/_dashboard.translated)."""
    from core.errors import RubricError

    weeks = [r["week"] if r.get("week") is not None else i + 1 for i, r in enumerate(rows)]
    keys = list(rubric.keys) + sorted({k for r in rows for k in r["scores"]} - set(rubric.keys))
    fig = go.Figure()
    xs = sorted(set(weeks))
    for key in keys:
        by_week: dict = {}
        for w, r in zip(weeks, rows):
            if r["scores"].get(key) is not None:
                by_week.setdefault(w, []).append(float(r["scores"][key]))
        if not by_week:
            continue
        try:
            name = plain(rubric.criterion(key).title)
        except RubricError:  # a criterion an older rubric had
            name = key.replace("_", " ").capitalize()
        x = [w for w in xs if w in by_week]
        hover = interface.said(Message("week {week}: {score}", week="%{x}", score="%{y:g}"))
        fig.add_trace(go.Scatter(x=x, y=[sum(by_week[w]) / len(by_week[w]) for w in x], mode="lines+markers",
                                 name=name, marker=dict(size=9),
                                 hovertemplate=f"{name}<br>{hover}{_EXTRA}"))
    levels = list(rubric.levels)
    lo, hi = min(levels), max(levels)
    fig.update_xaxes(tickmode="array", tickvals=xs, ticktext=[str(w) for w in xs], tickformat="d",
                     range=[xs[0] - 0.5, xs[-1] + 0.5] if xs else None)
    # The whole scale, a little padding so markers on the bottom or top level are not clipped.
    fig.update_yaxes(range=[lo - 0.2, hi + 0.2], tickmode="array", tickvals=levels)
    return _layout(fig, title, interface(N_("Week")), interface(N_("Score")))
