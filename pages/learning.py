"""Learning: growth per criterion across weeks from released scores, per student and for the
cohort; growth after each AI configuration's feedback; next steps acted on. No satisfaction
figure is shown: liked feedback is often feedback that did the work for the student."""
import pandas as pd
import streamlit as st

from core import charts
from core.reports import dashboards
from core.signoff import labels
from pages import _common
from pages._i18n import here, said, t

st.title(t("Learning over time"))
st.caption(t("From released, teacher-approved scores only. No satisfaction measure is shown as success: students "
             "often like best the feedback that did the work for them."))
conn = _common.get_db()
me = _common.actor()
cid = _common.require_course()
if cid is None:
    st.stop()
data = dashboards.learning_page(conn, cid, actor=me)  # the page's one read
g = data["growth"]
if not g["released"]:
    st.info(t("Nothing released in this course yet: growth appears once work is released."))
    st.stop()
if g["by_position"]:
    st.caption(_common.md(t("Without a week number, counted at their place among the course's assignments: {names}.",
                            names=", ".join(g["by_position"]))))
rubric = data["rubric"]
cohort_rows = [{"week": w, "scores": {c["criterion"]: c["mean"] for c in g["cohort"] if c["week"] == w}}
               for w in g["weeks"]]
st.plotly_chart(charts.student_progress_chart(cohort_rows, rubric, title=t("Cohort: mean released score by week"),
                                              interface=here()),
                width="stretch", key="learning_cohort")
st.subheader(t("Growth per criterion (points per week)"))
st.dataframe(pd.DataFrame([{t("criterion"): labels.criterion_title(rubric, k), t("students"): s["n"],
                            t("mean growth per week"): s["mean"],
                            t("95 % CI"): s["ci"] or s["ci_note"]} for k, s in g["slopes"].items()]),
             hide_index=True, width="stretch")
names = sorted({(s["student_id"], s["name"]) for s in g["students"]}, key=lambda x: x[1])
if names:
    pick = st.selectbox(t("Student"), [i for i, _ in names], format_func=dict(names).get, key="learning_student")
    st.dataframe(pd.DataFrame([{t("criterion"): labels.criterion_title(rubric, s["criterion"]),
                                t("weeks released"): s["weeks"], t("first"): s["first"],
                                t("last"): s["last"], t("growth per week"): s["slope"]}
                               for s in g["students"] if s["student_id"] == pick]), hide_index=True, width="stretch")
st.subheader(t("After each AI configuration's feedback"))
st.caption(t("Mean change of a student's score from the week of the feedback to their next week, by the configuration "
             "that drafted that feedback. Observational, no control group: a difference is a question, not a proof."))
after = data["after"]
st.dataframe(pd.DataFrame([{t("configuration"): said(a["name"]), t("from week"): a["from_week"],
                            t("transitions"): a["n"],
                            t("mean change"): a["mean"], t("95 % CI"): a["ci"] or a["ci_note"]} for a in after]),
             hide_index=True, width="stretch")
st.subheader(t("Did students act on last week's next steps?"))
ns = data["next_steps"]
if not ns["overall"]["n"]:
    st.caption(t("No teacher has marked it yet (on the Review page, under 'Last week's next steps')."))
else:
    st.dataframe(pd.DataFrame([{t("week"): w["week"], t("marked"): w["n"], t("yes"): w["yes"], t("partly"): w["partly"],
                                t("no"): w["no"], t("acted (yes + half partly)"): w["acted_share"]}
                               for w in ns["by_week"]]), hide_index=True, width="stretch")
    st.dataframe(pd.DataFrame([{t("configuration of the feedback"): said(c["name"]), t("marked"): c["n"],
                                t("acted (yes + half partly)"): c["acted_share"]} for c in ns["by_config"]]),
                 hide_index=True, width="stretch")
