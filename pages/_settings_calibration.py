"""Settings, calibration tab: the bar the AI must clear on an assignment before bulk approval."""
from __future__ import annotations

import streamlit as st

from core.calibration import NOT_CALIBRATED, readiness
from core.errors import FairMarkError
from pages import _common
from pages._i18n import said, t


def render(conn) -> None:
    bar = readiness.get_bar(conn)
    st.caption(t("Per assignment and criterion, the AI is compared with teachers' blind calibration scores. Below "
                 "this bar its drafts say \"{notice}\" and bulk approval is off.", notice=t(NOT_CALIBRATED)))
    with st.form("cal_bar"):
        c1, c2, c3, c4 = st.columns(4)
        students = c1.number_input(t("Students scored blind, at least"), min_value=2, max_value=10_000,
                                   value=bar.min_students, step=1, key="bar_students")
        qwk = c2.number_input(t("QWK at least"), min_value=-1.0, max_value=1.0, value=bar.qwk_min, step=0.05,
                              key="bar_qwk")
        low = c3.number_input(t("Lower end of QWK's 95% interval at least"), min_value=-1.0, max_value=1.0,
                              value=bar.qwk_ci_low_min, step=0.05, key="bar_qwk_low")
        bias = c4.number_input(t("|Bias| at most (score points)"), min_value=0.0, max_value=100.0,
                               value=bar.max_abs_bias, step=0.05, key="bar_bias")
        if st.form_submit_button(t("Save the bar")):
            try:
                readiness.save_bar(conn, readiness.Bar(int(students), qwk, low, bias), actor=_common.actor())
            except FairMarkError as e:
                _common.show_error(e)
            else:
                st.success(t("Saved: {bar}.", bar=said(readiness.get_bar(conn).text())))
    st.caption(t("Default: {bar}.", bar=said(readiness.Bar().text())))   # the bar's sentence: a core Message
