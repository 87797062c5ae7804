"""FairMark: the entry point (`streamlit run app.py`, the README's one command).

Streamlit imports this file once as the server's ASGI app (it finds `app = st.App(...)` at the
bottom): FairMark's own HTTP routes (core.web: the session cookie's, LTI's) are served beside the
app, and its lifespan runs the server's own work (the automatic retry of LMS grades).
Every browser session then runs it as the script, as `__main__`: the router (page config, the
sign-in gate, navigation grouped by role, the shared sidebar), which never runs outside one."""
from pathlib import Path

import streamlit as st

# A local image: emoji and :material/…: icons make the browser fetch the tab icon from a CDN or
# font host, which fails offline.
ICON = Path(__file__).resolve().parent / "assets" / "icon.png"

# What a role must be allowed (core.accounts.access) to see a page in the menu and open it; the other
# pages need "read". Only a hint: every core function the page calls checks again.
NEEDS = {"Upload": "upload", "Assess": "assess", "Calibrate": "calibrate", "Release": "release",
         "Compare": "compare", "Agreement": "dashboards", "Fairness": "dashboards", "Costs": "dashboards",
         "AI quality": "dashboards", "Learning": "dashboards", "Settings": "upload",
         "Second marking": "second_mark", "Moderation": "moderate", "Markers": "read"}


def student_page(conn, me) -> bool:
    """A browser with a live student cookie and no staff session (pages/_student_view.py): only the
    student page, one column, no menu and no sign-in form. False for everyone else."""
    from core.students import page as student_page_core
    from pages import _i18n, _student_view
    from pages._i18n import t

    if me is None:
        return False
    # A student has no account: the browser's language, else (one FairMark does not offer) the course's
    view = student_page_core.view(conn, actor=me, language=None, browser=_i18n.browser_offered())   # the one read
    _i18n.use(view["language"])
    st.set_page_config(page_title=t("FairMark: your feedback"), page_icon=str(ICON), layout="centered",
                       initial_sidebar_state="collapsed")
    page = st.navigation([st.Page(lambda: _student_view.render(conn, me, view), title=t("Your feedback"), url_path="feedback",
                                  default=True)], position="hidden")
    page.run()
    return True


def main() -> None:
    from pages import _common, _student_view
    from pages._i18n import N_

    with _common.shell():
        conn = _common.get_db()
        if student_page(conn, _student_view.visitor(conn)):
            return
    st.set_page_config(page_title="FairMark", page_icon=str(ICON), layout="wide")

    # The titles are the English messages (N_): NEEDS and the pages know a page by them; the
    # sidebar's menu shows them in the reader's language (pages/_common.menu).
    pages = {
        "": [st.Page("pages/home.py", title=N_("Home"), icon=":material/home:", default=True)],
        N_("Instructor"): [
            st.Page("pages/upload.py", title=N_("Upload"), icon=":material/upload_file:"),
            st.Page("pages/assess.py", title=N_("Assess"), icon=":material/smart_toy:"),
            st.Page("pages/calibrate.py", title=N_("Calibrate"), icon=":material/tune:"),
            st.Page("pages/second_marking.py", title=N_("Second marking"), icon=":material/rate_review:"),
            st.Page("pages/review.py", title=N_("Review"), icon=":material/fact_check:"),
            st.Page("pages/release.py", title=N_("Release"), icon=":material/send:"),
            st.Page("pages/student.py", title=N_("Students"), icon=":material/person:"),
            st.Page("pages/compare.py", title=N_("Compare"), icon=":material/compare:"),
            st.Page("pages/lessons.py", title=N_("Lessons"), icon=":material/menu_book:"),
            st.Page("pages/lesson_review.py", title=N_("Lesson"), icon=":material/article:"),
        ],
        N_("Coordinator"): [
            st.Page("pages/agreement.py", title=N_("Agreement"), icon=":material/balance:"),
            st.Page("pages/fairness.py", title=N_("Fairness"), icon=":material/diversity_3:"),
            st.Page("pages/costs.py", title=N_("Costs"), icon=":material/payments:"),
            st.Page("pages/ai_quality.py", title=N_("AI quality"), icon=":material/verified:"),
            st.Page("pages/learning.py", title=N_("Learning"), icon=":material/trending_up:"),
            st.Page("pages/moderation.py", title=N_("Moderation"), icon=":material/group:"),
            st.Page("pages/markers.py", title=N_("Markers"), icon=":material/groups:"),
        ],
        N_("Admin"): [st.Page("pages/settings.py", title=N_("Settings"), icon=":material/settings:")],
    }

    # .streamlit/config.toml turns Streamlit's own sidebar menu off (client.showSidebarNavigation), so a
    # fresh server never lists the files in pages/; the sidebar draws this menu instead.
    page = st.navigation(pages, position="hidden")
    with _common.shell():
        conn = _common.get_db()
        _common.sign_in(conn)  # signed out: only the sign-in form, on every page
        _common.sidebar(conn, pages, NEEDS)
        _common.refuse_unless(NEEDS.get(page.title, "read"))
        page.run()


if __name__ == "__main__":
    main()
else:
    import sys

    import core.web.server
    from core.errors import ConfigError
    from core.settings import db_location, reach_database

    try:
        # FAIRMARK_DB an address FairMark does not support, or a PostgreSQL database that cannot be
        # reached: the server does not start, nothing is made.
        reach_database(db_location())
    except ConfigError as e:
        print(f"FairMark cannot start: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    app = st.App(__file__, routes=core.web.server.routes(), lifespan=core.web.server.lifespan)
