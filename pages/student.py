"""Students: one student's released scores across weeks and their released comments."""
import pandas as pd
import streamlit as st

from core import charts
from core.courses import browse
from core.export import released as export
from core.signoff import labels
from core.text import format_timestamp
from pages import _common

st.title("Students")
conn = _common.get_db()
me = _common.actor()
cid = _common.require_course()
if cid is not None:
    students = browse.list_students(conn, cid, actor=me)
    if not students:
        st.info("This course has no students yet.")
    else:
        by_id = {s["id"]: s for s in students}
        released = browse.students_with_releases(conn, cid, actor=me)
        ids = list(by_id)
        # Open on someone with released work: an empty view first says nothing useful.
        first = next((i for i in ids if i in released), ids[0])
        if st.session_state.get("student_pick") not in by_id:
            st.session_state["student_pick"] = first

        def _name(i):
            s = by_id[i]
            return (f"{s['name'] or s['external_id']}" + (f" ({s['external_id']})" if s["external_id"] else "")
                    + ("" if i in released else " · nothing released yet"))

        sid = st.selectbox("Student", ids, key="student_pick", format_func=_name)
        rows = browse.student_released(conn, sid, actor=me)
        name = by_id[sid]["name"] or by_id[sid]["external_id"]
        if not rows:
            st.info(f"Nothing released for {_common.md(name)} yet. Only released (teacher-approved) "
                    "work shows here; their drafts appear once a teacher approves and releases them on the "
                    "Release page."
                    + ("" if released else " Nobody in this course has released work yet."))
        else:
            rubrics = {r["rubric_id"]: browse.get_rubric(conn, r["rubric_id"], actor=me) for r in rows}
            rubric = rubrics[rows[-1]["rubric_id"]]  # the latest week's rubric names the criteria
            st.caption("Released, teacher-approved scores per criterion across weeks: growth over time.")
            st.plotly_chart(charts.student_progress_chart(rows, rubric), width="stretch", key="student_chart")
            st.dataframe(pd.DataFrame(labels.student_score_rows(rows, rubric)), hide_index=True, width="stretch")
            for r in rows:
                week = f"Week {r['week']}: " if r["week"] is not None else ""
                st.subheader(week + _common.md(r["title"]))
                st.text(labels.scores_text(r["scores"], rubrics[r["rubric_id"]]))
                st.text(r["comment"])
                st.caption(export.marker(r["is_offline"]) + f" · released {format_timestamp(r['released_at'])}")
