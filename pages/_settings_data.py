"""Settings tab "Data" (admins): a backup to download, deleting one student's or a whole course's
data on request, and the retention period for old courses (core.data_care; each step audited)."""
import tempfile
from pathlib import Path

import streamlit as st

from core import browse, data_care
from core.errors import FairMarkError
from pages import _common


def _backup_bytes() -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fairmark-backup.db"
        data_care.backup(_common.connect(), path, actor=_common.actor())
        return path.read_bytes()


def render(conn) -> None:
    me = _common.actor()
    if msg := st.session_state.pop("data_flash", None):
        st.success(_common.md(msg))
    st.subheader("Backup")
    st.caption("A consistent copy of the whole database, taken while the app keeps running (SQLite's online "
               "backup). Restore it with `python -m core data restore FILE` (the current database is kept beside it).")
    st.download_button("Download a backup", _backup_bytes, file_name="fairmark-backup.db",
                       mime="application/vnd.sqlite3", key="data_backup")

    st.subheader("Delete on request")
    courses = browse.list_courses(conn, actor=me)
    if courses:
        names = {c["id"]: c["name"] for c in courses}
        cid = st.selectbox("Course", list(names), format_func=names.get, key="data_course")
        students = browse.list_students(conn, cid, actor=me)
        with st.form("data_delete_student"):
            sid = st.selectbox("Student", [s["id"] for s in students],
                               format_func={s["id"]: f"{s['name'] or s['external_id']} ({s['external_id']})"
                                            for s in students}.get)
            reason = st.text_input("Reason (audit log)", placeholder="e.g. the student's request of 3 May")
            sure = st.checkbox("Delete everything about this student: their reflections, drafts, reviews, "
                               "scores and releases")
            if st.form_submit_button("Delete the student's data") and sure and sid is not None:
                _do(lambda: data_care.delete_student(conn, sid, actor=me, reason=reason), "Deleted")
        with st.form("data_delete_course"):
            typed = st.text_input(f"Type the course's name to delete it with everything in it: {names[cid]}")
            reason = st.text_input("Reason (audit log)", key="data_course_reason")
            if st.form_submit_button("Delete the course") and typed == names[cid]:
                _do(lambda: data_care.delete_course(conn, cid, actor=me, reason=reason), "Deleted")

    st.subheader("Retention")
    days = data_care.retention_days(conn)
    with st.form("data_retention"):
        keep = st.number_input("Delete courses with no work for this many days (empty: keep them)", 30, 3650,
                               value=days, step=30)
        if st.form_submit_button("Save"):
            _do(lambda: data_care.set_retention(conn, keep, actor=me), "Saved")
    expired = data_care.expired_courses(conn, actor=me)
    st.caption((", ".join(f"{c['name']} (last work {c['last_activity'][:10]})" for c in expired)
                + " would be deleted by `python -m core data apply-retention`.") if expired
               else "No course is past the retention period.")


def _do(action, done: str) -> None:
    try:
        counts = action()
    except FairMarkError as e:
        _common.show_error(e)
    else:
        st.session_state["data_flash"] = done + (": " + ", ".join(f"{n} {t}" for t, n in counts.items())
                                                 if isinstance(counts, dict) else ".")
        st.rerun()
