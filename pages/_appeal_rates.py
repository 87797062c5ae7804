"""Agreement and Fairness pages: students' appeal and upheld rates (core.appeals.figures), per
assignment, by score band and by student group, each said with what it counts and its interval."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages import _common
from pages._i18n import N_, said, t

BANDS = {"low": N_("Low band (released score)"), "high": N_("High band")}


def _row(label: str, rates: dict) -> dict:
    return {"": label, t("Appealed"): said(rates["appeal_rate"]["text"]),   # core's Messages, translated
            t("Upheld"): said(rates["upheld_rate"]["text"])}


def render(rates: dict, *, by_assignment: bool = True, by_band: bool = False, by_group: bool = False) -> None:
    """One section "Students' appeals": the parts asked for (the Agreement page per assignment,
    the Fairness page by band and group)."""
    st.subheader(t("Students' appeals"))
    if not rates["by_assignment"]:
        st.caption(t("No feedback released yet, so no appeals to count."))
        return
    st.caption(t("Appeal rate: of the students whose feedback was released, how many asked for a second look. "
               "Upheld rate: of the decided appeals, how many changed a score — a sign the AI and the teacher "
               "missed something. 95 % Wilson intervals. Appealed items are a selected sample: their re-marks "
               "are never a reference for the figures above, only for these rates."))
    if by_assignment:
        st.dataframe(pd.DataFrame([_row(a["title"], a) for a in rates["by_assignment"]]),
                     hide_index=True, width="stretch")
    if by_band:
        st.markdown("**" + t("By score band") + "** (" + t("the score released before any appeal") + ")")
        st.dataframe(pd.DataFrame([_row(t(BANDS[b]), r) for b, r in rates["by_band"].items()]), hide_index=True,
                     width="stretch")
    if by_group:
        for attr, groups in rates["by_group"].items():
            st.markdown("**" + t("By {column}", column=_common.md(attr)) + "**")  # a column name from the uploaded file
            st.dataframe(pd.DataFrame([_row(str(g["group"]), g) for g in groups]), hide_index=True, width="stretch")
        st.caption(t("An uneven appeal rate across groups is a fairness signal the students give: compare the "
                   "intervals, not only the shares."))
