"""UI-side helpers shared by the pages: database handle, current selection, small widgets.

This is the only place pages get the database and settings from, so tests can point the
whole app at a temporary SQLite file with the FAIRMARK_DB environment variable.
"""
from __future__ import annotations

import streamlit as st

import db
from core.settings import Settings, load_settings
from db import courses


def settings() -> Settings:
    return load_settings()


def get_db():
    """A connection for this script run (cheap; migrations run once per process)."""
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


def not_landed(issue: int, what: str) -> None:
    st.info(f"{what} is not built yet: it arrives with issue #{issue}.")


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
        names = {c["id"]: c["name"] + (" (synthetic demo)" if c["is_synthetic"] else "") for c in all_courses}
        current = st.session_state.get("course_id")
        idx = ids.index(current) if current in ids else 0
        cid = st.selectbox("Course", ids, index=idx, format_func=names.get, key="_pick_course")
        st.session_state["course_id"] = cid
        assignments = courses.list_assignments(conn, cid)
        if assignments:
            aids = [a["id"] for a in assignments]
            titles = {a["id"]: (f"Week {a['week']}: " if a["week"] is not None else "") + a["title"] for a in assignments}
            cur_a = st.session_state.get("assignment_id")
            aidx = aids.index(cur_a) if cur_a in aids else 0
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
