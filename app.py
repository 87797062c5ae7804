"""FairMark: router. Page config, the sign-in gate, navigation grouped by role, the shared sidebar.

Two roles in one file: when the server imports it (`streamlit run` finds `app` and serves it as an ASGI
app with FairMark's own HTTP routes, the LTI ones), it only defines `app`; when Streamlit runs it as a
session's script (__name__ == "__main__"), it is the router, which so never runs outside a session."""
from pathlib import Path

import streamlit as st

if __name__ != "__main__":
    from core.lti.web import ROUTES

    app = st.App(__file__, routes=[*ROUTES])
else:
    from pages import _common

    # A local image: emoji and :material/…: icons make the browser fetch the tab icon from a CDN or
    # font host, which fails offline.
    ICON = Path(__file__).resolve().parent / "assets" / "icon.png"
    st.set_page_config(page_title="FairMark", page_icon=str(ICON), layout="wide")

    PAGES = {
        "": [st.Page("pages/home.py", title="Home", icon=":material/home:", default=True)],
        "Instructor": [
            st.Page("pages/upload.py", title="Upload", icon=":material/upload_file:"),
            st.Page("pages/assess.py", title="Assess", icon=":material/smart_toy:"),
            st.Page("pages/calibrate.py", title="Calibrate", icon=":material/tune:"),
            st.Page("pages/review.py", title="Review", icon=":material/fact_check:"),
            st.Page("pages/release.py", title="Release", icon=":material/send:"),
            st.Page("pages/student.py", title="Students", icon=":material/person:"),
            st.Page("pages/compare.py", title="Compare", icon=":material/compare:"),
            st.Page("pages/lessons.py", title="Lessons", icon=":material/menu_book:"),
            st.Page("pages/lesson_review.py", title="Lesson", icon=":material/article:"),
        ],
        "Coordinator": [
            st.Page("pages/agreement.py", title="Agreement", icon=":material/balance:"),
            st.Page("pages/fairness.py", title="Fairness", icon=":material/diversity_3:"),
            st.Page("pages/costs.py", title="Costs", icon=":material/payments:"),
            st.Page("pages/ai_quality.py", title="AI quality", icon=":material/verified:"),
            st.Page("pages/learning.py", title="Learning", icon=":material/trending_up:"),
        ],
        "Admin": [st.Page("pages/settings.py", title="Settings", icon=":material/settings:")],
    }

    # What a role must be allowed (core.accounts.access) to see a page in the menu and open it; the other
    # pages need "read". Only a hint: every core function the page calls checks again.
    NEEDS = {"Upload": "upload", "Assess": "assess", "Calibrate": "calibrate", "Release": "release",
             "Compare": "compare", "Agreement": "dashboards", "Fairness": "dashboards", "Costs": "dashboards",
             "AI quality": "dashboards", "Learning": "dashboards", "Settings": "upload"}

    # .streamlit/config.toml turns Streamlit's own sidebar menu off (client.showSidebarNavigation), so a
    # fresh server never lists the files in pages/; the sidebar draws this menu instead.
    page = st.navigation(PAGES, position="hidden")
    with _common.shell():
        conn = _common.get_db()
        _common.sign_in(conn)  # signed out: only the sign-in form, on every page
        _common.sidebar(conn, PAGES, NEEDS)
        _common.refuse_unless(NEEDS.get(page.title, "read"))
        page.run()
