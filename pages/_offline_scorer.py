"""UI of the learned offline scorer (issue 15), shared by Assess (where the provider is chosen)
and Calibrate (the readiness gate): per criterion what scores it, on how many of your scores,
and its cross-validated agreement with you beside word count alone; the options and a button
to train it now."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from core.errors import FairMarkError
from core.offline import scorer
from core.text import format_timestamp
from pages import _common
from pages._i18n import N_, said, t


def _ci(ci) -> str:
    return "" if not ci else " (" + t("{low} to {high}", low=f"{ci[0]:.2f}", high=f"{ci[1]:.2f}") + ")"


def _fig(f: dict | None, stat: str, sign: bool = False) -> str:
    if not f or f.get(stat) is None:
        return "—"
    return (f"{f[stat]:+.2f}" if sign else f"{f[stat]:.2f}") + _ci(f.get(f"{stat}_ci"))


def table(view: dict) -> pd.DataFrame:
    """Per criterion: the scorer, its figures and word count's, as a teacher reads them."""
    return pd.DataFrame([{
        t("Criterion"): r["title"], t("Scored by"): t(r["kind_label"]), t("Your scores"): r["scores"],
        t("QWK (95% CI)"): _fig(r["model"], "qwk"), t("Word count alone: QWK"): _fig(r["word_count"], "qwk"),
        t("MAE"): _fig(r["model"], "mae"), t("Word count: MAE"): _fig(r["word_count"], "mae"),
        t("Bias (scorer − you)"): _fig(r["model"], "bias", sign=True),
        t("Beats word count"): t(BEATS[r["beats_length"]]) if r["beats_length"] is not None else "—",
        t("Scores with"): t(METHODS[r.get("method")]) if r.get("method") in METHODS else "—",
    } for r in view["rows"]])


METHODS = {"learned": N_("the learned model"), "blend": N_("the model blended with word count"),
           "word_count": N_("word count")}
BEATS = {True: N_("yes"), False: N_("no")}


def why(view: dict) -> None:
    """Per criterion where word count or a blend won: which scorer and why (core's Message, in the
    reader's language)."""
    for r in view["rows"]:
        if r.get("method") in ("blend", "word_count"):
            st.caption(f"{_common.md(r['title'])}: {_common.md(said(r['scored_by']))}")


def summary(view: dict) -> None:
    """The table with one line above it (Calibrate's readiness section), from the scorer's
    overview the page's view read (core.offline.scorer.overview)."""
    if view["version"] is None:
        st.caption(t("Offline scorer: not trained yet (it learns from your blind scores at the next offline "
                     "assessment, or on the Assess page)."))
        return
    st.caption(t("Offline scorer v{version} against your scores, cross-validated (each text scored by a "
                 "model that never saw its score), beside word count alone in your proportions of each level.",
                 version=view["version"])
               + (" " + t("Your scores changed since: the next offline assessment retrains it.") if view["stale"]
                  else ""))
    st.dataframe(table(view), hide_index=True, width="stretch")
    why(view)


def panel(conn, aid: int, view: dict) -> None:
    """Assess: the offline scorer of this assignment (`view`: core.offline.scorer.overview), its
    options and a Train button."""
    head = ((t("Offline scorer: v{version}, retrains at the next offline run", version=view["version"])
             if view["stale"] else t("Offline scorer: v{version}, up to date", version=view["version"]))
            if view["version"] else t("Offline scorer: not trained yet"))
    flash = st.session_state.pop("os_flash", None)
    with st.expander(head, expanded=flash is not None):
        if flash:
            st.success(flash)
        st.caption(t("The offline baseline learns each criterion from your blind calibration scores once it has "
                     "{count} of them; with fewer it keeps its text heuristic, spread over the levels like the "
                     "scores you gave. When a language model scores, the learned scorer votes as a free judge: more "
                     "than one level apart, the item goes to the unsure group.", count=view["min_per_criterion"]))
        if view["version"]:
            st.dataframe(table(view), hide_index=True, width="stretch")
            why(view)
            st.caption(t("Trained {when} by {who} in {seconds} s.", when=format_timestamp(view["trained_at"]),
                         who=_common.md(_common.person(view["trained_by"])), seconds=f"{view['seconds']:.1f}"))
        with st.form(f"offline_scorer_{aid}"):
            opts = view["options"]
            c1, c2, c3 = st.columns(3)
            minimum = c1.number_input(t("Scores needed per criterion"), min_value=5, max_value=1000,
                                      value=int(opts["min_per_criterion"]), step=1, key=f"os_min_{aid}")
            edits = c2.checkbox(t("Also learn from items approved one by one"), value=opts["use_edits"],
                                key=f"os_edits_{aid}",
                                help=t("Those scores were given after seeing the AI's draft. Bulk approvals never "
                                       "count, nor uploaded expert scores."))
            pool = c3.checkbox(t("Pool with this course's assignments on the same rubric"), value=opts["pool"],
                               key=f"os_pool_{aid}")
            if st.form_submit_button(t("Save and train now")):
                try:
                    scorer.save_options(conn, aid, scorer.Options(int(minimum), bool(edits), bool(pool)),
                                        actor=_common.actor())
                    trained = scorer.train_now(conn, aid, actor=_common.actor())
                except FairMarkError as e:
                    _common.show_error(e)
                else:
                    st.session_state["os_flash"] = (
                        t("Offline scorer version {version} is in use.", version=trained.version) if trained.version
                        else t("Nothing to learn from yet: score a calibration set on the Calibrate page."))
                    st.rerun()
