"""UI helpers shared by the Agreement, Fairness and Costs pages (issue #5): scope, reference
picker, and a chart with its "download data" button."""
from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from core import reports
from core.errors import FairMarkError
from core.signoff import labels
from core.text import escape_markdown
from pages import _common
from pages._i18n import N_, said, t, tn

SCOPE_LABELS = {"assignment": N_("this assignment"), "course": N_("this course"), "all": N_("all courses")}


def read_or_stop(read):
    """The page's one read (core.reports.*_page): a FairMarkError (a refusal) is shown and stops
    the page."""
    try:
        return read()
    except FairMarkError as e:
        _common.show_error(e)
        st.stop()


def shown(view: dict | None, error: str | None = None) -> dict | None:
    """A dashboard's view as the page shows it: an error is shown and stops the page; an empty
    view shows its message and gives None; its notes are shown as warnings."""
    if error:
        _common.show_error(error)
        st.stop()
    if view["empty"]:
        st.info(_common.md(said(view["message"])))   # core's Messages, in the reader's language
        return None
    for note in view.get("notes", []):
        st.warning(_common.md(said(note)))
    return view


def current_scope() -> reports.Scope:
    return reports.Scope(_common.scope(), _common.course_id(), _common.assignment_id())


def scope_caption(scope: reports.Scope) -> None:
    """Which data the page shows; with no course at all there is no picker to point at: say what
    to do instead and stop the page."""
    if _common.course_id() is None:
        st.info(_common.no_courses_message())
        st.stop()
    shown_scope = t(SCOPE_LABELS[scope.kind]) if scope.kind in SCOPE_LABELS else scope.kind
    st.caption(t("Showing {scope} (change it in the sidebar).", scope=shown_scope))


# Column headers people read (the data keep their short names in core/db), translated where shown.
HEADERS = {
    "criterion": N_("Criterion"), "title": N_("Title"), "n": "n", "students": N_("Students"),
    "students_low": N_("Students (low band)"), "students_high": N_("Students (high band)"), "mae": N_("MAE"),
    "bias": N_("Bias (AI − reference)"),
    "qwk": N_("QWK"), "exact": N_("Exact agreement"), "adjacent": N_("Within ±1"), "n_low": N_("n (low band)"),
    "mae_low": N_("MAE (low band)"), "n_high": N_("n (high band)"), "mae_high": N_("MAE (high band)"),
    "delta_mae": "ΔMAE",
    "compared_with": N_("Compared with"), "difference": N_("Difference"), "p_value": N_("p-value"),
    "code": N_("Reason code"), "submissions": N_("Reflections"), "alpha": N_("Krippendorff's α"),
    "model": N_("Model"), "agent": N_("Agent"), "course": N_("Course"), "run": N_("Run"), "calls": N_("Calls"),
    "tokens_in": N_("Tokens in"), "tokens_out": N_("Tokens out"), "tokens_cached": N_("Cached tokens"),
    "tokens": N_("Tokens"), "cost_usd": N_("Cost (US$)"), "mean_latency_ms": N_("Mean latency (ms)"),
    "max_latency_ms": N_("Max latency (ms)"), "cache_hits": N_("Cache hits"), "errors": N_("Errors"),
    "changed": N_("Changed"), "up": N_("Raised"), "down": N_("Lowered"), "mean_change": N_("Mean change"),
    "mean_abs_change": N_("Mean absolute change"), "cost_per_submission": N_("Cost per reflection (US$)"),
    "tier": N_("Tier"), "what": N_("Step"), "judge": N_("Judge"), "items": N_("Items with 2+ votes"),
    "verdict": N_("Verdict"), "assignment": N_("Assignment"), "votes": N_("Votes"),
    "group": N_("group"), "metric": N_("metric"),   # the group tests' (their English headers as they were)
}
CI_NAMES = {"mae": N_("MAE"), "qwk": N_("QWK"), "delta": "ΔMAE", "bias": N_("Bias"), "difference": N_("Difference")}


def _header(col) -> str:
    """A column's header in this session's language (a column HEADERS does not name: its key as words)."""
    col = str(col)
    return t(HEADERS[col]) if col in HEADERS else col.replace("_", " ").capitalize()


def _ci_pairs(frame: pd.DataFrame) -> list[str]:
    return [c[:-3] for c in map(str, frame.columns) if c.endswith("_lo") and f"{c[:-3]}_hi" in frame.columns]


PERCENT_COLUMNS = ("exact", "adjacent")  # shares: shown as percentages, as the tiles show them


def criterion_name(key) -> str:
    """A criterion key as words ("real_world_application" -> "Real world application"), where a
    figure has no rubric title beside it."""
    return labels.label({}, key)


def readable(frame: pd.DataFrame, *, combine_ci: bool = True) -> pd.DataFrame:
    """The frame with readable headers. Each `<stat>_lo`/`<stat>_hi` pair becomes one
    "<STAT> 95% CI" column of "lo–hi" text (combine_ci) or two "… 95% CI low/high" columns;
    shares (PERCENT_COLUMNS) become percentages, their header saying so. Criterion keys and reason
    codes read as words (the rubric's title where the frame has it)."""
    out = frame.copy()
    if "criterion" in out.columns:
        if "title" in out.columns:
            out = out.drop(columns="criterion").rename(columns={"title": "criterion"})
        else:
            out["criterion"] = out["criterion"].map(criterion_name)
    if "code" in out.columns:
        out["code"] = out["code"].map(lambda c: labels.label(labels.REASONS, c))
    for col in PERCENT_COLUMNS:
        if col in out.columns:
            out[col] = (pd.to_numeric(out[col], errors="coerce") * 100).round(1)
            out = out.rename(columns={col: f"{_header(col)} (%)"})
    for stem in _ci_pairs(frame):
        name = t("{statistic} 95% CI", statistic=t(CI_NAMES[stem]) if stem in CI_NAMES else _header(stem))
        if combine_ci:
            lo, hi = out.pop(f"{stem}_lo"), out.pop(f"{stem}_hi")
            out[name] = [("—" if (pd.isna(a) or pd.isna(b)) else f"{a:.2f}–{b:.2f}") for a, b in zip(lo, hi)]
        else:
            out = out.rename(columns={f"{stem}_lo": t("{column} low", column=name),
                                      f"{stem}_hi": t("{column} high", column=name)})
    return out.rename(columns={c: _header(c) for c in out.columns if c in HEADERS or "_" in str(c)})


def reference_picker(data: dict, key: str) -> str:
    """The reference picker, its options and choice as the page's read returned them
    (core.reports.*_page: `data["references"]`, `data["reference"]`)."""
    if st.session_state.get(key, data["reference"]) != data["reference"]:
        st.session_state[key] = data["reference"]   # a choice this scope no longer offers: the first option
    names = {c: said(reports.reference_label(c)) for c in data["references"]}   # core's labels, built in this run
    return st.selectbox(t("Reference scores"), data["references"], key=key,
                        format_func=lambda c: names.get(c, c)[:1].upper() + names.get(c, c)[1:],
                        help=t("What the AI's scores (before any teacher edit) are compared with. Expert and blind "
                               "calibration scores were given without seeing the AI's draft; teachers' approved "
                               "scores were given after reading it and lean towards it. Bulk approvals never count."))


def _source_scores(source: str, n: int, what: str) -> str:
    """"48 blind criterion scores", by the source of the reference (db.analytics' "source"); another
    `what` than the criterion scores every dashboard counts reads as given."""
    if what != "criterion scores":
        return f"{n} {source} {what}"
    if source == "expert":
        return tn("{count} expert criterion score", "{count} expert criterion scores", n)
    if source == "blind":
        return tn("{count} blind criterion score", "{count} blind criterion scores", n)
    if source == "moderated":
        return tn("{count} moderated criterion score", "{count} moderated criterion scores", n)
    if source == "teacher":
        return tn("{count} teacher criterion score", "{count} teacher criterion scores", n)
    return tn("{count} {source} criterion score", "{count} {source} criterion scores", n, source=source)


def reference_caption(view: dict, what: str = "criterion scores") -> None:
    """Which reference a dashboard rests on and how many students: said under every figure set."""
    students = view.get("source_students")
    parts = [_source_scores(source, n, what)
             + (" " + tn("from {count} student", "from {count} students", students.get(source, 0)) if students else "")
             for source, n in sorted(view.get("sources", {}).items())] if "sources" in view else []
    label = t("Reference: {reference}", reference=escape_markdown(said(view["reference_label"])))   # core's label
    rest = (" " + tn("Figures rest on {count} student; intervals resample students.",
                     "Figures rest on {count} students; intervals resample students.", view["students"])
            if view.get("students") else "")
    st.caption(label + (" — " + "; ".join(parts) if parts else "") + "." + rest)


def intervals_pending(view: dict, again, rerun_s: float = 1.5) -> None:
    """A large scope's figures are shown at once and its intervals follow (core.reports.later):
    say so, and rerun the page once `again(conn)` (the view asked for again) has them."""
    if not reports.later.pending(view):
        return
    st.info(t("The figures below are complete. Their 95% intervals, which resample every student in this scope, "
              "are being computed and appear here in a few seconds."), icon=":material/hourglass_top:")

    @st.fragment(run_every=rerun_s)
    def _wait() -> None:
        if not reports.later.pending(again(_common.connect())):
            st.rerun()

    _wait()


# What a chart's or table's data is, by its key, for a download button given no name (else the key as words).
DATA_NAMES = {
    "agreement_by_criterion": N_("agreement by criterion"), "confusion_matrix": N_("confusion matrix"),
    "trend_by_week": N_("trend by week"), "trend_by_version": N_("trend by version"),
    "teacher_score_changes": N_("teacher score changes"), "reason_codes": N_("reason codes"),
    "error_by_band": N_("error by band"), "error_by_length": N_("error by length"),
    "cost_per_reflection_by_run": N_("cost per reflection by run"), "cost_by_agent": N_("cost by agent"),
    "latency_by_agent": N_("latency by agent"), "tokens_by_agent": N_("tokens by agent"),
    "cost_by_course": N_("cost by course"), "cost_by_model": N_("cost by model"),
    "judge_calls_by_tier": N_("judge calls by tier"), "cost_of_other_work": N_("cost of other work"),
}


def download_label(key: str, name: str | None = None) -> str:
    """A distinct accessible name per button: "Download data: confusion matrix" (a `name` given is
    shown as given: the caller translates it)."""
    what = name or (t(DATA_NAMES[key]) if key in DATA_NAMES else key.replace("_", " "))
    return t("Download data: {name}", name=what)


def translated(fig):
    """The figure with core's axis titles, legend names and line labels (core.charts marks them with
    N_) in this session's language; a title a catalogue does not know (the page's own, already
    translated, or a number) stays as it is."""
    for axis in ("xaxis", "yaxis", "yaxis2"):
        title = fig.layout[axis].title.text if axis in fig.layout else None   # yaxis2: only a second axis has one
        if title:
            fig.layout[axis].title.text = t(title)
    for trace in fig.data:
        if trace.name:
            trace.name = t(trace.name)
    for note in fig.layout.annotations or ():
        if note.text:
            note.text = t(note.text)
    return fig


def chart(fig, frame: pd.DataFrame, key: str, name: str | None = None) -> None:
    """Plot a figure (core's words on it translated) and offer the DataFrame behind it as CSV (the
    button names the chart)."""
    st.plotly_chart(translated(fig), width="stretch", key=f"fig_{key}")
    st.download_button(download_label(key, name), data=frame.to_csv(index=False).encode("utf-8"),
                       file_name=f"{key}.csv", mime="text/csv", key=f"dl_{key}", on_click="ignore")


def table(frame: pd.DataFrame, key: str, name: str | None = None) -> None:
    """A table with readable headers, and its data as CSV (numbers kept, CI bounds as two columns)."""
    st.dataframe(readable(frame), hide_index=True, width="stretch")
    data = readable(frame, combine_ci=False).to_csv(index=False).encode("utf-8")
    st.download_button(download_label(key, name), data=data, file_name=f"{key}.csv", mime="text/csv",
                       key=f"dl_{key}", on_click="ignore")


def num(x, digits: int = 3) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def ci_text(ci, digits: int = 2, pending: bool = False) -> str:
    """An interval for "95% CI …": "[lo, hi]", or why there is none (the caller says "CI")."""
    if pending and not ci:
        return t("being computed")
    return f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]" if ci else t("unavailable")


def percent(share) -> str:
    """A share as the dashboards show every share: a percentage ("67%"), never a fraction."""
    return "—" if share is None or (isinstance(share, float) and math.isnan(share)) else f"{share:.0%}"


def interval_caption(row, stat: str, pending: bool = False) -> str:
    """Under a headline tile: its 95% CI and on how many students it rests ("95% CI [0.21, 0.45]
    on 24 students"); the interval resamples students and can include any value, "no difference" too."""
    lo, hi = row.get(f"{stat}_lo"), row.get(f"{stat}_hi")
    ci = None if lo is None or hi is None or lo != lo or hi != hi else (lo, hi)
    students = row.get("students")
    interval = ci_text(ci, 2, pending)
    if students is None or students != students:
        return t("95% CI {interval}", interval=interval)
    return tn("95% CI {interval} on {count} student", "95% CI {interval} on {count} students", int(students),
              interval=interval)
