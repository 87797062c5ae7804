"""Admin settings: courses and assignments, rubrics, the language model and prices."""
import streamlit as st

from pages import _common, _settings_calibration, _settings_catalogue, _settings_llm

st.title("Settings")
conn = _common.get_db()
tab_catalogue, tab_rubrics, tab_llm, tab_bar = st.tabs(["Courses & assignments", "Rubrics", "Language model & prices",
                                                         "Calibration bar"])
with tab_catalogue:
    _settings_catalogue.courses_and_assignments(conn)
with tab_rubrics:
    _settings_catalogue.rubrics(conn)
with tab_llm:
    _settings_llm.render(conn)
with tab_bar:
    _settings_calibration.render(conn)
