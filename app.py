"""FairMark: router. Page config, navigation grouped by role, the shared sidebar."""
import streamlit as st

from pages import _common

st.set_page_config(page_title="FairMark", page_icon=":material/rate_review:", layout="wide")

PAGES = {
    "": [st.Page("pages/home.py", title="Home", icon=":material/home:", default=True)],
    "Instructor": [
        st.Page("pages/upload.py", title="Upload", icon=":material/upload_file:"),
        st.Page("pages/assess.py", title="Assess", icon=":material/smart_toy:"),
        st.Page("pages/review.py", title="Review", icon=":material/fact_check:"),
        st.Page("pages/release.py", title="Release", icon=":material/send:"),
        st.Page("pages/student.py", title="Students", icon=":material/person:"),
        st.Page("pages/lessons.py", title="Lessons", icon=":material/menu_book:"),
        st.Page("pages/lesson_review.py", title="Lesson", icon=":material/article:"),
    ],
    "Coordinator": [
        st.Page("pages/agreement.py", title="Agreement", icon=":material/balance:"),
        st.Page("pages/fairness.py", title="Fairness", icon=":material/diversity_3:"),
        st.Page("pages/costs.py", title="Costs", icon=":material/payments:"),
    ],
    "Admin": [st.Page("pages/settings.py", title="Settings", icon=":material/settings:")],
}

page = st.navigation(PAGES)
with _common.shell():
    _common.sidebar(_common.get_db())
    page.run()
