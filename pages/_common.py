"""UI-side helpers shared by the pages: database handle, current selection, small widgets.

This is the only place pages get the database and settings from, so tests can point the
whole app at a temporary SQLite file with the FAIRMARK_DB environment variable.
"""
from __future__ import annotations

import contextlib
import threading

import streamlit as st

import db
from core.settings import Settings, load_settings
from db import courses


def settings() -> Settings:
    return load_settings()


_shell = threading.local()


@contextlib.contextmanager
def shell():
    """app.py runs every page inside this, so a page can tell it was routed by app.py."""
    _shell.active = True
    try:
        yield
    finally:
        _shell.active = False


def _ensure_shell() -> None:
    """Because the page files live in `pages/`, a freshly started server whose first request is
    a deep link (/review?item=5) runs that file in Streamlit's legacy multipage mode, without
    app.py: no sidebar, every file listed as a page. st.navigation switches that mode off for
    the process; until app.py has run once, do the same here and rerun through app.py."""
    if getattr(_shell, "active", False):
        return
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False
    st.rerun()


def get_db():
    """A connection for this script run (cheap; migrations run once per process)."""
    _ensure_shell()
    return db.connect(settings().db_path)


def actor() -> str:
    return st.session_state.get("actor") or settings().actor


def course_id() -> int | None:
    return st.session_state.get("course_id")


def assignment_id() -> int | None:
    return st.session_state.get("assignment_id")


def scope() -> str:
    """Dashboard scope chosen in the sidebar: 'assignment', 'course' or 'all'."""
    return st.session_state.get("scope", "assignment")


def select(course_id: int | None, assignment_id: int | None) -> None:
    """Make this course and assignment the current selection (e.g. after an import). The sidebar
    applies it to its pickers on the next run: a keyed widget keeps its own value otherwise, and
    its key cannot be written once it has been drawn in this run."""
    st.session_state["course_id"] = course_id
    st.session_state["assignment_id"] = assignment_id
    st.session_state["_pick_pending"] = True


def rubric_label(name: str) -> str:
    """A rubric's name for display. The stored name stays (renaming it would make a new version);
    the bundled rubric's internal "(seed 000)" tag is shown as the study it comes from."""
    return str(name).replace("(seed 000)", "(Zhang & Luo 2025)")


def no_courses_message() -> str:
    return "No courses yet: load the demo course on Home or upload reflections."


def require_course() -> int | None:
    cid = course_id()
    if cid is None:
        st.info("No course yet. Load the demo course on the Home page or upload reflections first.")
    return cid


def require_assignment() -> int | None:
    aid = assignment_id()
    if aid is None:
        st.info("Choose a course and an assignment in the sidebar first.")
    return aid


def sidebar(conn) -> None:
    """Course and assignment picker shared by every page."""
    with st.sidebar:
        all_courses = courses.list_courses(conn)
        if not all_courses:
            st.caption("No courses yet.")
            st.session_state["course_id"] = None
            st.session_state["assignment_id"] = None
            return
        ids = [c["id"] for c in all_courses]
        names = {c["id"]: c["name"] + (" (synthetic)" if c["is_synthetic"] and "synthetic" not in c["name"].lower() else "")
                 for c in all_courses}
        current = st.session_state.get("course_id")
        idx = ids.index(current) if current in ids else 0
        pending = st.session_state.pop("_pick_pending", False)  # set by select(): move the pickers
        if pending and current in ids:
            st.session_state["_pick_course"], idx = current, 0  # the state wins; 0 avoids a duplicate default
        cid = st.selectbox("Course", ids, index=idx, format_func=names.get, key="_pick_course")
        st.session_state["course_id"] = cid
        assignments = courses.list_assignments(conn, cid)
        if assignments:
            aids = [a["id"] for a in assignments]
            titles = {a["id"]: (f"Week {a['week']}: " if a["week"] is not None else "") + a["title"] for a in assignments}
            cur_a = st.session_state.get("assignment_id")
            aidx = aids.index(cur_a) if cur_a in aids else 0
            if pending and cur_a in aids:
                st.session_state["_pick_assignment"], aidx = cur_a, 0
            aid = st.selectbox("Assignment", aids, index=aidx, format_func=titles.get, key="_pick_assignment")
            st.session_state["assignment_id"] = aid
        else:
            st.caption("This course has no assignments yet.")
            st.session_state["assignment_id"] = None
        scopes = {"assignment": "This assignment", "course": "This course", "all": "All courses"}
        cur_s = st.session_state.get("scope", "assignment")
        st.session_state["scope"] = st.radio(
            "Dashboards show", list(scopes), index=list(scopes).index(cur_s), format_func=scopes.get,
            key="_pick_scope", help="Scope of the Agreement, Fairness and Costs pages.")
        st.text_input("Your name (for the audit log)", key="actor", placeholder=settings().actor)
