"""Admin settings: courses and assignments, rubrics, the language model and prices, the judges."""
import streamlit as st

from pages import _common, _evals_widgets, _settings_calibration, _settings_catalogue, _settings_judges, _settings_llm

st.title("Settings")
conn = _common.get_db()
tab_catalogue, tab_rubrics, tab_llm, tab_judges, tab_bar, tab_ai = st.tabs(
    ["Courses & assignments", "Rubrics", "Language model & prices", "Judges & confidence", "Calibration bar",
     "AI configuration"])
with tab_catalogue:
    _settings_catalogue.courses_and_assignments(conn)
with tab_rubrics:
    _settings_catalogue.rubrics(conn)
with tab_llm:
    _settings_llm.render(conn)
with tab_judges:
    _settings_judges.render(conn)
with tab_ai:
    _evals_widgets.config_status(conn, key="settings", overridable=True)
    _evals_widgets.eval_runs(conn)
with tab_bar:
    _settings_calibration.render(conn)
