"""The Agreement page's lesson section (issue 17): judge-expert and judge-teacher agreement on
lesson verdicts, and which planted problems the review found."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages._i18n import N_, t, tn

RATERS = {"expert": N_("Agreement with the expert"), "teacher": N_("Agreement with the teacher")}


def render(view: dict | None) -> None:
    """`view`: core.lessons.agreement.lesson_agreement, as the Agreement page's read returned it."""
    if not view or not view["raters"]:
        return
    st.subheader(t("Lessons: judge and human verdicts"))
    st.caption(t("The review's verdict on each lesson as uploaded (publish or revise) against the expert's and the "
                 "approving teacher's. On the synthetic demo the lessons and verdicts were written together: a check "
                 "of the plumbing, not evidence that the judge is right. The published LLM-judge case study this "
                 "review follows reports 80-85 % agreement with experts."))
    cols = st.columns(len(view["raters"]))
    for col, (kind, r) in zip(cols, view["raters"].items()):
        kappa = t("undefined") if pd.isna(r["kappa"]) else f"{r['kappa']:.2f}"
        col.metric(t(RATERS[kind]), f"{r['agreement']:.0%}",
                   help=t("n = {n} verdicts on {lessons} lessons; Cohen's kappa {kappa}", n=r["n"],
                          lessons=r["lessons"], kappa=kappa)
                        + (" (" + t("95 % CI {low} to {high}", low=f"{r['kappa_ci'][0]:.2f}",
                                    high=f"{r['kappa_ci'][1]:.2f}") + ")" if r["kappa_ci"] else "")
                        + ("; " + tn("{count} reviewed by the offline baseline only",
                                     "{count} reviewed by the offline baseline only", r["offline"])
                           if r["offline"] else ""))
        col.caption((t("95 % CI") + f" {r['ci'][0]:.0%}–{r['ci'][1]:.0%}" if r["ci"] else r["ci_note"])   # core's note
                    + " · " + tn("n = {count} lessons (the interval resamples lessons)",
                                 "n = {count} lessons (the interval resamples lessons)", r["lessons"]))
    st.dataframe(pd.DataFrame(view["rows"]), hide_index=True)   # core's rows, with their own column names
    if view["planted"]:
        st.caption(t("Planted problems found: {found} of {total}", found=view["found"], total=view["n_planted"]))
        planted = pd.DataFrame(view["planted"])
        planted["found_by"] = planted["found_by"].fillna(t("not found"))
        st.dataframe(planted, hide_index=True)
