"""Agreement: does the AI score like the human reference? (issue #5)"""
import streamlit as st

from core import charts, reports
from core.export import analysis as export_analysis
from core.reports.agreement import ALL
from core.text import escape_markdown
from pages import _common
from pages import _dashboard as ui
from pages import _appeal_rates, _lessons_agreement
from pages._i18n import here, said, t, tn

st.title(t("Agreement"))
st.caption(t("The AI's scores before any teacher edit, compared with reference scores given without seeing "
             "them."))
conn = _common.get_db()
me = _common.actor()
scope = ui.current_scope()
ui.scope_caption(scope)
data = ui.read_or_stop(lambda: reports.agreement_page(   # the page's one read: everything below comes from it
    conn, scope, reference=st.session_state.get("agreement_reference", "auto"), course_id=_common.course_id(),
    actor=me))
titles = data["titles"]  # criteria by the rubric's names, never their keys


def _title(key) -> str:
    """A criterion by the rubric's name; the pooled figures (core's "All criteria") in this session's language."""
    return t("All criteria") if key == ALL else reports.title_of(titles, key)


ui.reference_picker(data, key="agreement_reference")
view = ui.shown(data["view"], data["error"])
if view is not None:
    ui.intervals_pending(view, lambda c: reports.agreement_view(c, scope, reference=view["reference"], wait=False,
                                                                actor=me))
    lo, hi = view["scale"]["lo"], view["scale"]["hi"]
    st.caption(t("Scale {lo}–{hi}.", lo=lo, hi=hi))
    ui.reference_caption(view)
    if view["reference"] == "teacher":
        st.warning(t("These teachers' scores were given after seeing the AI draft, so they lean towards it: "
                     "agreement here overstates the AI. Bulk approvals never count."))
    overall = view["headline"].iloc[-1]
    pending = reports.later.pending(view)
    cols = st.columns(6)
    cols[0].metric(t("Scored pairs (n)"), int(overall["n"]))
    cols[1].metric(t("Students"), int(overall["students"]) if "students" in overall else "…",
                   help=t("The intervals resample students: a student's criteria and weeks are not independent of "
                          "each other."))
    cols[2].metric(t("MAE"), ui.num(overall["mae"]), help=t("Mean absolute error in score points (0 = the same "
                                                            "scores as the reference; lower is better)."))
    cols[3].metric(t("QWK"), ui.num(overall["qwk"]), help=t("Quadratic weighted kappa over the full scale, from −1 "
                                                            "to 1: 1 = the same scores as the reference, 0 = no "
                                                            "better than chance."))
    for col, stat in ((cols[2], "mae"), (cols[3], "qwk")):
        col.caption(ui.interval_caption(overall, stat, pending))
    cols[4].metric(t("Exact agreement"), ui.percent(overall["exact"]))
    cols[5].metric(t("Within ±1"), ui.percent(overall["adjacent"]))
    st.subheader(t("By criterion"))
    headline = view["headline"]   # readable() shows the criteria by their titles; the pooled row's is core's
    ui.table(headline.assign(title=headline["title"].where(headline["criterion"] != ALL, t("All criteria"))),
             key="agreement_by_criterion")

    st.subheader(t("Where they disagree"))
    names = list(view["confusion"])
    crit = st.selectbox(t("Criterion"), names, index=len(names) - 1, key="agreement_criterion",
                        format_func=_title)
    left, right = st.columns(2)
    with left:
        cm = view["confusion"][crit]
        ui.chart(charts.confusion_heatmap(cm, t("Confusion matrix: {criterion}", criterion=_title(crit)),
                                          interface=here()),
                 cm.reset_index(), "confusion_matrix")
    with right:
        cells = view["cells"][crit]
        title = t("AI vs reference: {criterion}", criterion=_title(crit))
        ui.chart(charts.agreement_scatter(cells, lo, hi, title=title, interface=here()), cells, "ai_vs_reference", t("AI vs reference"))

    st.subheader(t("Over time and across versions"))
    left, right = st.columns(2)
    with left:
        ui.chart(charts.trend_chart(view["by_week"], "week", title=t("By week")), view["by_week"], "trend_by_week")
    with right:
        ui.chart(charts.trend_chart(view["by_version"], "version", title=t("By model / prompt version")),
                 view["by_version"], "trend_by_version")

anchored = data["anchored"]
if not anchored["empty"] and (view is None or view["reference"] != "teacher"):
    st.subheader(t("After seeing the AI draft"))
    st.caption(t("Teachers' approved scores ({scores} from {students}), given after reading the AI's draft: they "
                 "lean towards it, so this agreement overstates the AI. Shown apart from the honest references "
                 "above; bulk approvals never count.",
                 scores=tn("{count} criterion score", "{count} criterion scores", anchored["n"]),
                 students=tn("{count} student", "{count} students", anchored["students"])))
    cols = st.columns(3)
    cols[0].metric(t("MAE (after seeing the AI draft)"), ui.num(anchored["mae"]))
    cols[1].metric(t("QWK (after seeing the AI draft)"), ui.num(anchored["qwk"]))
    cols[2].metric(t("Exact (after seeing the AI draft)"), ui.percent(anchored["exact"]))

judges = data["judges"]
if judges["available"]:
    st.subheader(t("Agreement between models"))
    st.caption(t("Krippendorff's alpha (ordinal) between {versions} on the submissions they all scored "
                 "(1 = identical, 0 = chance).", versions=_common.md(", ".join(judges["versions"]))))
    ui.table(reports.titled(judges["alpha"], titles), key="judge_agreement", name=t("agreement between models"))

judging = data["judging"]
st.subheader(t("Agreement between judges"))
if not judging["available"]:
    st.caption(said(judging["message"]))   # core's Messages, in the reader's language
else:
    for note in judging["notes"]:
        st.caption(said(note))
    for mark in judging["marks"]:
        if mark["verdict"] == "poor":
            st.warning(tn("{assignment}: the judges agree poorly (α < 0.67): {count} item(s) where they disagreed "
                          "went to a teacher.",
                          "{assignment}: the judges agree poorly (α < 0.67): {count} item(s) where they disagreed "
                          "went to a teacher.", mark["sent_to_teacher"], assignment=escape_markdown(mark["title"])))
        elif mark["verdict"] == "flagged":
            st.warning(t("{assignment}: the judges agree only moderately (0.67 ≤ α < 0.80).",
                         assignment=escape_markdown(mark["title"])))
    alpha = reports.titled(judging["alpha"], titles)   # its verdicts: core's labels (N_)
    if "verdict" in alpha.columns:
        alpha = alpha.assign(verdict=alpha["verdict"].map(t))
    ui.table(alpha, key="judge_alpha", name=t("agreement between judges"))
    st.caption(t("Each judge against the teachers' blind calibration scores and the uploaded expert scores "
                 "(exact agreement and MAE over the scores both have)."))
    ui.table(judging["judges"], key="judges_vs_reference", name=t("judges against teachers and experts"))

edits = data["edits"]
st.subheader(t("What teachers changed"))
if not edits["n_decided"]:
    st.info(t("No approved or rejected reviews yet: edit analytics appear once teachers decide on drafts."))
else:
    cols = st.columns(3)
    cols[0].metric(t("Approved unchanged"), ui.percent(edits["share_unchanged"]),
                   help=tn("{unchanged} of {count} drafts approved one by one (bulk approvals are not counted).",
                           "{unchanged} of {count} drafts approved one by one (bulk approvals are not counted).",
                           edits["n_approved"], unchanged=edits["approved_unchanged"]))
    ce = edits["comment_edits"]
    cols[1].metric(t("Comment edit distance"), ui.num(ce["mean_edit_distance"], 2),
                   help=tn("1 − difflib similarity, mean over the newest {count} edited comments (at most {limit}); "
                           "0 = unchanged, 1 = rewritten.",
                           "1 − difflib similarity, mean over the newest {count} edited comments (at most {limit}); "
                           "0 = unchanged, 1 = rewritten.", ce["n"], limit=edits["comment_sample_limit"]))
    cols[2].metric(t("Decided reviews"), edits["n_decided"])
    if edits["bulk_approved"]:
        st.caption(tn("{count} bulk approval(s) are not counted: a bulk approval is the AI's draft as it stands, not "
                      "a teacher's judgement of it.",
                      "{count} bulk approval(s) are not counted: a bulk approval is the AI's draft as it stands, not "
                      "a teacher's judgement of it.", edits["bulk_approved"]))
    if len(edits["by_criterion"]):
        by_criterion = reports.titled(edits["by_criterion"], titles)
        ui.chart(charts.edit_chart(by_criterion, title=t("Teacher changes to AI scores")), by_criterion,
                 "teacher_score_changes")
    if len(edits["reason_codes"]):
        st.caption(t("Reason codes given with edits"))
        ui.table(edits["reason_codes"], key="reason_codes")

_lessons_agreement.render(data["lessons"])
_appeal_rates.render(data["appeals"], by_assignment=True, by_band=True)

# --- data for analysis: every submission's AI, teacher and reference scores (issue 11) -----
if data["analysis"] is not None:
    st.subheader(t("Data for your own analysis"))
    target = _common.assignment_id() if scope.kind == "assignment" else None
    course = data["analysis"]  # read now: the deferred download runs outside this run's session state

    def _analysis() -> bytes:  # deferred: no rerun on the click, which would drop it before it is built
        return export_analysis.export(_common.connect(), course, target, actor=me).data

    st.caption(t("Every submission of this assignment: the AI's scores, the teacher's approved scores (and whether "
                 "they were edited, approved as drafted or bulk approved) and the mean of the uploaded reference "
                 "scores. For analysis only — not for students.") if target else
               t("Every submission of this course: the AI's scores, the teacher's approved scores (and whether "
                 "they were edited, approved as drafted or bulk approved) and the mean of the uploaded reference "
                 "scores. For analysis only — not for students."))
    st.download_button(t("Download data: {name}", name=t("AI and teacher scores for analysis (not for students)")),
                       _analysis,
                       file_name="scores-for-analysis-NOT-for-students.csv", mime="text/csv", key="dl_analysis",
                       on_click="ignore")
