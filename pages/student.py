"""Students: one student's released scores across weeks and their released comments."""
import pandas as pd
import streamlit as st

from core import charts
from core.courses import browse
from core.export import released as export
from core.signoff import labels
from core.text import format_timestamp
from pages import _common
from pages._i18n import here, t

st.title(t("Students"))
conn = _common.get_db()
me = _common.actor()
cid = _common.require_course()
if cid is not None:
    # Opens on someone with released work (an empty view first says nothing useful): the view picks.
    view = browse.students_page(conn, cid, actor=me, student_id=st.session_state.get("student_pick"))
    students = view["students"]
    if not students:
        st.info(t("This course has no students yet."))
    else:
        by_id = {s["id"]: s for s in students}
        released = view["released"]
        ids = list(by_id)
        st.session_state["student_pick"] = view["student_id"]

        def _name(i):
            s = by_id[i]
            return (f"{s['name'] or s['external_id']}" + (f" ({s['external_id']})" if s["external_id"] else "")
                    + ("" if i in released else " · " + t("nothing released yet")))

        sid = st.selectbox(t("Student"), ids, key="student_pick", format_func=_name)
        rows = view["rows"]
        name = by_id[sid]["name"] or by_id[sid]["external_id"]
        if not rows:
            st.info(t("Nothing released for {name} yet. Only released (teacher-approved) work shows here; their "
                      "drafts appear once a teacher approves and releases them on the Release page.",
                      name=_common.md(name))
                    + ("" if released else " " + t("Nobody in this course has released work yet.")))
        else:
            rubrics = view["rubrics"]
            rubric = rubrics[rows[-1]["rubric_id"]]  # the latest week's rubric names the criteria
            st.caption(t("Released, teacher-approved scores per criterion across weeks: growth over time."))
            st.plotly_chart(charts.student_progress_chart(rows, rubric, title=t("Released scores by week"),
                                                          interface=here()), width="stretch", key="student_chart")
            st.dataframe(pd.DataFrame(labels.student_score_rows(rows, rubric)), hide_index=True, width="stretch")
            for r in rows:
                week = t("Week {week}: ", week=r["week"]) if r["week"] is not None else ""
                st.subheader(week + _common.md(r["title"]))
                st.text(labels.scores_text(r["scores"], rubrics[r["rubric_id"]]))
                st.text(r["comment"])
                st.caption(export.marker(r["is_offline"]) + " · "
                           + t("released {when}", when=format_timestamp(r["released_at"])))
