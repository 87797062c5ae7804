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

SCOPE_LABELS = {"assignment": "this assignment", "course": "this course", "all": "all courses"}


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
        st.info(_common.md(view["message"]))
        return None
    for note in view.get("notes", []):
        st.warning(_common.md(note))
    return view


def current_scope() -> reports.Scope:
    return reports.Scope(_common.scope(), _common.course_id(), _common.assignment_id())


def scope_caption(scope: reports.Scope) -> None:
    """Which data the page shows; with no course at all there is no picker to point at: say what
    to do instead and stop the page."""
    if _common.course_id() is None:
        st.info(_common.no_courses_message())
        st.stop()
    st.caption(f"Showing {SCOPE_LABELS.get(scope.kind, scope.kind)} (change it in the sidebar).")


# Column headers people read (the data keep their short names in core/db).
HEADERS = {
    "criterion": "Criterion", "title": "Title", "n": "n", "students": "Students",
    "students_low": "Students (low band)", "students_high": "Students (high band)", "mae": "MAE",
    "bias": "Bias (AI − reference)",
    "qwk": "QWK", "exact": "Exact agreement", "adjacent": "Within ±1", "n_low": "n (low band)",
    "mae_low": "MAE (low band)", "n_high": "n (high band)", "mae_high": "MAE (high band)", "delta_mae": "ΔMAE",
    "compared_with": "Compared with", "difference": "Difference", "p_value": "p-value",
    "code": "Reason code", "submissions": "Reflections", "alpha": "Krippendorff's α", "model": "Model",
    "agent": "Agent", "course": "Course", "run": "Run", "calls": "Calls", "tokens_in": "Tokens in",
    "tokens_out": "Tokens out", "tokens_cached": "Cached tokens", "tokens": "Tokens", "cost_usd": "Cost (US$)",
    "mean_latency_ms": "Mean latency (ms)", "max_latency_ms": "Max latency (ms)", "cache_hits": "Cache hits",
    "errors": "Errors", "changed": "Changed", "up": "Raised", "down": "Lowered", "mean_change": "Mean change",
    "mean_abs_change": "Mean absolute change", "cost_per_submission": "Cost per reflection (US$)",
    "tier": "Tier", "what": "Step", "judge": "Judge", "items": "Items with 2+ votes", "verdict": "Verdict",
    "assignment": "Assignment", "votes": "Votes",
}
CI_NAMES = {"mae": "MAE", "qwk": "QWK", "delta": "ΔMAE", "bias": "Bias", "difference": "Difference"}


def _header(col) -> str:
    col = str(col)
    return HEADERS.get(col, col.replace("_", " ").capitalize())


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
        name = f"{CI_NAMES.get(stem, _header(stem))} 95% CI"
        if combine_ci:
            lo, hi = out.pop(f"{stem}_lo"), out.pop(f"{stem}_hi")
            out[name] = [("—" if (pd.isna(a) or pd.isna(b)) else f"{a:.2f}–{b:.2f}") for a, b in zip(lo, hi)]
        else:
            out = out.rename(columns={f"{stem}_lo": f"{name} low", f"{stem}_hi": f"{name} high"})
    return out.rename(columns={c: _header(c) for c in out.columns if c in HEADERS or "_" in str(c)})


def reference_picker(data: dict, key: str) -> str:
    """The reference picker, its options and choice as the page's read returned them
    (core.reports.*_page: `data["references"]`, `data["reference"]`)."""
    if st.session_state.get(key, data["reference"]) != data["reference"]:
        st.session_state[key] = data["reference"]   # a choice this scope no longer offers: the first option
    return st.selectbox("Reference scores", data["references"], key=key,
                        format_func=lambda c: reports.reference_label(c)[:1].upper() + reports.reference_label(c)[1:],
                        help="What the AI's scores (before any teacher edit) are compared with. Expert and blind "
                             "calibration scores were given without seeing the AI's draft; teachers' approved scores "
                             "were given after reading it and lean towards it. Bulk approvals never count.")


def reference_caption(view: dict, what: str = "criterion scores") -> None:
    """Which reference a dashboard rests on and how many students: said under every figure set."""
    students = view.get("source_students")
    parts = [f"{n} {source} {what}" + (f" from {students.get(source, 0)} students" if students else "")
             for source, n in sorted(view.get("sources", {}).items())] if "sources" in view else []
    st.caption(f"Reference: {escape_markdown(view['reference_label'])}"
               + (f" — {'; '.join(parts)}" if parts else "")
               + (f". Figures rest on {view['students']} students; intervals resample students." if view.get("students")
                  else "."))


def intervals_pending(view: dict, again, rerun_s: float = 1.5) -> None:
    """A large scope's figures are shown at once and its intervals follow (core.reports.later):
    say so, and rerun the page once `again(conn)` (the view asked for again) has them."""
    if not reports.later.pending(view):
        return
    st.info("The figures below are complete. Their 95% intervals, which resample every student in this scope, "
            "are being computed and appear here in a few seconds.", icon=":material/hourglass_top:")

    @st.fragment(run_every=rerun_s)
    def _wait() -> None:
        if not reports.later.pending(again(_common.connect())):
            st.rerun()

    _wait()


def download_label(key: str, name: str | None = None) -> str:
    """A distinct accessible name per button: "Download data: confusion matrix"."""
    return f"Download data: {name or key.replace('_', ' ')}"


def chart(fig, frame: pd.DataFrame, key: str, name: str | None = None) -> None:
    """Plot a figure and offer the DataFrame behind it as CSV (the button names the chart)."""
    st.plotly_chart(fig, width="stretch", key=f"fig_{key}")
    st.download_button(download_label(key, name), frame.to_csv(index=False).encode("utf-8"),
                       file_name=f"{key}.csv", mime="text/csv", key=f"dl_{key}", on_click="ignore")


def table(frame: pd.DataFrame, key: str, name: str | None = None) -> None:
    """A table with readable headers, and its data as CSV (numbers kept, CI bounds as two columns)."""
    st.dataframe(readable(frame), hide_index=True, width="stretch")
    data = readable(frame, combine_ci=False).to_csv(index=False).encode("utf-8")
    st.download_button(download_label(key, name), data, file_name=f"{key}.csv", mime="text/csv", key=f"dl_{key}",
                       on_click="ignore")


def num(x, digits: int = 3) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def ci_text(ci, digits: int = 2, pending: bool = False) -> str:
    """An interval for "95% CI …": "[lo, hi]", or why there is none (the caller says "CI")."""
    if pending and not ci:
        return "being computed"
    return f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]" if ci else "unavailable"


def percent(share) -> str:
    """A share as the dashboards show every share: a percentage ("67%"), never a fraction."""
    return "—" if share is None or (isinstance(share, float) and math.isnan(share)) else f"{share:.0%}"


def interval_caption(row, stat: str, pending: bool = False) -> str:
    """Under a headline tile: its 95% CI and on how many students it rests ("95% CI [0.21, 0.45]
    on 24 students"); the interval resamples students and can include any value, "no difference" too."""
    lo, hi = row.get(f"{stat}_lo"), row.get(f"{stat}_hi")
    ci = None if lo is None or hi is None or lo != lo or hi != hi else (lo, hi)
    students = row.get("students")
    return (f"95% CI {ci_text(ci, 2, pending)}"
            + (f" on {int(students)} students" if students is not None and students == students else ""))
