"""Agreement: does the AI score like the human reference? (issue #5)"""
import streamlit as st

from core import charts, reports
from core.export import analysis as export_analysis
from core.text import count, escape_markdown
from pages import _common
from pages import _dashboard as ui
from pages import _appeal_rates, _lessons_agreement

st.title("Agreement")
st.caption("The AI's scores before any teacher edit, compared with reference scores given without seeing them.")
conn = _common.get_db()
me = _common.actor()
scope = ui.current_scope()
ui.scope_caption(scope)
data = ui.read_or_stop(lambda: reports.agreement_page(   # the page's one read: everything below comes from it
    conn, scope, reference=st.session_state.get("agreement_reference", "auto"), course_id=_common.course_id(),
    actor=me))
titles = data["titles"]  # criteria by the rubric's names, never their keys
ui.reference_picker(data, key="agreement_reference")
view = ui.shown(data["view"], data["error"])
if view is not None:
    ui.intervals_pending(view, lambda c: reports.agreement_view(c, scope, reference=view["reference"], wait=False,
                                                                actor=me))
    lo, hi = view["scale"]["lo"], view["scale"]["hi"]
    st.caption(f"Scale {lo}–{hi}.")
    ui.reference_caption(view)
    if view["reference"] == "teacher":
        st.warning("These teachers' scores were given after seeing the AI draft, so they lean towards it: agreement "
                   "here overstates the AI. Bulk approvals never count.")
    overall = view["headline"].iloc[-1]
    pending = reports.later.pending(view)
    cols = st.columns(6)
    cols[0].metric("Scored pairs (n)", int(overall["n"]))
    cols[1].metric("Students", int(overall["students"]) if "students" in overall else "…",
                   help="The intervals resample students: a student's "
                   "criteria and weeks are not independent of each other.")
    cols[2].metric("MAE", ui.num(overall["mae"]), help="Mean absolute error in score points (0 = the same scores "
                                                       "as the reference; lower is better).")
    cols[3].metric("QWK", ui.num(overall["qwk"]), help="Quadratic weighted kappa over the full scale, from −1 to 1: "
                                                       "1 = the same scores as the reference, 0 = no better than "
                                                       "chance.")
    for col, stat in ((cols[2], "mae"), (cols[3], "qwk")):
        col.caption(ui.interval_caption(overall, stat, pending))
    cols[4].metric("Exact agreement", ui.percent(overall["exact"]))
    cols[5].metric("Within ±1", ui.percent(overall["adjacent"]))
    st.subheader("By criterion")
    ui.table(view["headline"].drop(columns="criterion").rename(columns={"title": "criterion"}),
             "agreement_by_criterion")

    st.subheader("Where they disagree")
    names = list(view["confusion"])
    crit = st.selectbox("Criterion", names, index=len(names) - 1, key="agreement_criterion",
                        format_func=lambda k: reports.title_of(titles, k))
    left, right = st.columns(2)
    with left:
        cm = view["confusion"][crit]
        ui.chart(charts.confusion_heatmap(cm, f"Confusion matrix: {reports.title_of(titles, crit)}"), cm.reset_index(),
                 "confusion_matrix")
    with right:
        cells = view["cells"][crit]
        ui.chart(charts.agreement_scatter(cells, lo, hi, title=f"AI vs reference: {reports.title_of(titles, crit)}"),
                 cells, "ai_vs_reference", "AI vs reference")

    st.subheader("Over time and across versions")
    left, right = st.columns(2)
    with left:
        ui.chart(charts.trend_chart(view["by_week"], "week", title="By week"), view["by_week"], "trend_by_week")
    with right:
        ui.chart(charts.trend_chart(view["by_version"], "version", title="By model / prompt version"),
                 view["by_version"], "trend_by_version")

anchored = data["anchored"]
if not anchored["empty"] and (view is None or view["reference"] != "teacher"):
    st.subheader("After seeing the AI draft")
    st.caption(f"Teachers' approved scores ({count(anchored['n'], 'criterion score')} from "
               f"{count(anchored['students'], 'student')}), "
               "given after reading the AI's draft: they lean towards it, so this agreement overstates the AI. "
               "Shown apart from the honest references above; bulk approvals never count.")
    cols = st.columns(3)
    cols[0].metric("MAE (after seeing the AI draft)", ui.num(anchored["mae"]))
    cols[1].metric("QWK (after seeing the AI draft)", ui.num(anchored["qwk"]))
    cols[2].metric("Exact (after seeing the AI draft)", ui.percent(anchored["exact"]))

judges = data["judges"]
if judges["available"]:
    st.subheader("Agreement between models")
    st.caption(_common.md("Krippendorff's alpha (ordinal) between " + ", ".join(judges["versions"])
                          + " on the submissions they all scored (1 = identical, 0 = chance)."))
    ui.table(reports.titled(judges["alpha"], titles), "judge_agreement", "agreement between models")

judging = data["judging"]
st.subheader("Agreement between judges")
if not judging["available"]:
    st.caption(judging["message"])
else:
    for note in judging["notes"]:
        st.caption(note)
    for mark in judging["marks"]:
        if mark["verdict"] in ("poor", "flagged"):
            st.warning(f"{escape_markdown(mark['title'])}: the judges agree "
                       + ("poorly (α < 0.67): " + f"{mark['sent_to_teacher']} item(s) where they disagreed went to a "
                          "teacher." if mark["verdict"] == "poor" else "only moderately (0.67 ≤ α < 0.80)."))
    ui.table(reports.titled(judging["alpha"], titles), "judge_alpha", "agreement between judges")
    st.caption("Each judge against the teachers' blind calibration scores and the uploaded expert scores "
               "(exact agreement and MAE over the scores both have).")
    ui.table(judging["judges"], "judges_vs_reference", "judges against teachers and experts")

edits = data["edits"]
st.subheader("What teachers changed")
if not edits["n_decided"]:
    st.info("No approved or rejected reviews yet: edit analytics appear once teachers decide on drafts.")
else:
    cols = st.columns(3)
    cols[0].metric("Approved unchanged", ui.percent(edits["share_unchanged"]),
                   help=f"{edits['approved_unchanged']} of {edits['n_approved']} drafts approved one by one "
                        "(bulk approvals are not counted).")
    ce = edits["comment_edits"]
    cols[1].metric("Comment edit distance", ui.num(ce["mean_edit_distance"], 2),
                   help=f"1 − difflib similarity, mean over the newest {ce['n']} edited comments "
                        f"(at most {edits['comment_sample_limit']}); 0 = unchanged, 1 = rewritten.")
    cols[2].metric("Decided reviews", edits["n_decided"])
    if edits["bulk_approved"]:
        st.caption(f"{edits['bulk_approved']} bulk approval(s) are not counted: a bulk approval is the AI's draft "
                   "as it stands, not a teacher's judgement of it.")
    if len(edits["by_criterion"]):
        by_criterion = reports.titled(edits["by_criterion"], titles)
        ui.chart(charts.edit_chart(by_criterion), by_criterion, "teacher_score_changes")
    if len(edits["reason_codes"]):
        st.caption("Reason codes given with edits")
        ui.table(edits["reason_codes"], "reason_codes")

_lessons_agreement.render(data["lessons"])
_appeal_rates.render(data["appeals"], by_assignment=True, by_band=True)

# --- data for analysis: every submission's AI, teacher and reference scores (issue 11) -----
if data["analysis"] is not None:
    st.subheader("Data for your own analysis")
    target = _common.assignment_id() if scope.kind == "assignment" else None
    course = data["analysis"]  # read now: the deferred download runs outside this run's session state

    def _analysis() -> bytes:  # deferred: no rerun on the click, which would drop it before it is built
        return export_analysis.export(_common.connect(), course, target, actor=me).data

    st.caption("Every submission of " + ("this assignment" if target else "this course")
               + ": the AI's scores, the teacher's approved scores (and whether they were edited, approved as "
                 "drafted or bulk approved) and the mean of the uploaded reference scores. For analysis only — "
                 "not for students.")
    st.download_button(ui.download_label("analysis", "AI and teacher scores for analysis (not for students)"),
                       _analysis,
                       file_name="scores-for-analysis-NOT-for-students.csv", mime="text/csv", key="dl_analysis",
                       on_click="ignore")
