"""The Agreement page's lesson section (issue 17): judge-expert and judge-teacher agreement on
lesson verdicts, and which planted problems the review found."""
from __future__ import annotations

import pandas as pd
import streamlit as st


def render(view: dict | None) -> None:
    """`view`: core.lessons.agreement.lesson_agreement, as the Agreement page's read returned it."""
    if not view or not view["raters"]:
        return
    st.subheader("Lessons: judge and human verdicts")
    st.caption("The review's verdict on each lesson as uploaded (publish or revise) against the expert's and the "
               "approving teacher's. On the synthetic demo the lessons and verdicts were written together: a check "
               "of the plumbing, not evidence that the judge is right. The published LLM-judge case study this "
               "review follows reports 80-85 % agreement with experts.")
    cols = st.columns(len(view["raters"]))
    for col, (kind, r) in zip(cols, view["raters"].items()):
        kappa = "undefined" if pd.isna(r["kappa"]) else f"{r['kappa']:.2f}"
        col.metric(f"Agreement with the {kind}", f"{r['agreement']:.0%}",
                   help=f"n = {r['n']} verdicts on {r['lessons']} lessons; Cohen's kappa {kappa}"
                        + (f" (95 % CI {r['kappa_ci'][0]:.2f} to {r['kappa_ci'][1]:.2f})" if r["kappa_ci"] else "")
                        + (f"; {r['offline']} reviewed by the offline baseline only" if r["offline"] else ""))
        col.caption((f"95 % CI {r['ci'][0]:.0%}–{r['ci'][1]:.0%}" if r["ci"] else r["ci_note"])
                    + f" · n = {r['lessons']} lessons (the interval resamples lessons)")
    st.dataframe(pd.DataFrame(view["rows"]), hide_index=True)
    if view["planted"]:
        st.caption(f"Planted problems found: {view['found']} of {view['n_planted']}")
        st.dataframe(pd.DataFrame(view["planted"]).fillna({"found_by": "not found"}), hide_index=True)
