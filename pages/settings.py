"""Settings: courses and assignments, rubrics (instructors and admins); the language model and
prices, the judges, the calibration bar, the AI configuration, users, data care and the LMS platforms (admins)."""
import streamlit as st

from core.evals import views
from core.llm import default_provider
from pages import (_common, _evals_widgets, _settings_calibration, _settings_catalogue, _settings_data,
                   _settings_judges, _settings_llm, _settings_lti, _settings_users)
from pages._i18n import t

st.title(t("Settings"))
conn = _common.get_db()
catalogue = _settings_catalogue.read(conn)  # the first tab's read says whether the admin's tabs are drawn
if not catalogue["may"]["settings"]:
    tab_catalogue, tab_rubrics = st.tabs([t("Courses & assignments"), t("Rubrics")])
    with tab_catalogue:
        _settings_catalogue.courses_and_assignments(conn, catalogue)
    with tab_rubrics:
        _settings_catalogue.rubrics(conn)
    st.stop()
tab_catalogue, tab_rubrics, tab_llm, tab_judges, tab_bar, tab_ai, tab_users, tab_data, tab_lti = st.tabs(
    [t("Courses & assignments"), t("Rubrics"), t("Language model & prices"), t("Judges & confidence"),
     t("Calibration bar"), t("AI configuration"), t("Users"), t("Data"), t("LMS platforms")])
with tab_catalogue:
    _settings_catalogue.courses_and_assignments(conn, catalogue)
with tab_rubrics:
    _settings_catalogue.rubrics(conn)
with tab_llm:
    _settings_llm.render(conn)
with tab_judges:
    _settings_judges.render(conn)
with tab_ai:
    gate = views.gate_view(conn, provider=default_provider(_common.settings()), settings=_common.settings(),
                           actor=_common.actor())   # the tab's one read
    _evals_widgets.config_status(conn, key="settings", overridable=True, current=(gate["config"], gate["status"]),
                                 may_override=True)
    _evals_widgets.eval_runs(gate["runs"])
with tab_bar:
    _settings_calibration.render(conn)
with tab_users:
    _settings_users.render(conn)
with tab_data:
    _settings_data.render(conn)
with tab_lti:
    _settings_lti.render(conn)
