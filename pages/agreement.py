"""Agreement: does the AI score like the human reference? (issue #5)"""
import streamlit as st

from core import charts, reports
from pages import _common
from pages import _dashboard as ui
from pages import _lessons_agreement

st.title("Agreement")
st.caption("The AI's scores before any teacher edit, compared with the reference scores.")
conn = _common.get_db()
scope = ui.current_scope()
ui.scope_caption(scope)
view = ui.view_or_stop(lambda: reports.agreement_view(
    conn, scope, reference=ui.reference_picker(conn, scope, key="agreement_reference")))
if view is not None:
    lo, hi = view["scale"]["lo"], view["scale"]["hi"]
    src = view["sources"]
    st.caption(f"Scale {lo}–{hi}. Reference: {src.get('expert', 0)} expert-scored and {src.get('teacher', 0)} "
               "teacher-approved criterion scores. Teacher scores were given after seeing the AI draft, so they "
               "may lean towards it.")
    overall = view["headline"].iloc[-1]
    cols = st.columns(5)
    cols[0].metric("Scored pairs (n)", int(overall["n"]))
    cols[1].metric("MAE", ui.num(overall["mae"]), help="Mean absolute error in score points (lower is better).")
    cols[2].metric("QWK", ui.num(overall["qwk"]), help="Quadratic weighted kappa over the full scale.")
    cols[3].metric("Exact agreement", f"{overall['exact']:.0%}")
    cols[4].metric("Within ±1", f"{overall['adjacent']:.0%}")
    st.subheader("By criterion")
    ui.table(view["headline"], "agreement_by_criterion")

    st.subheader("Where they disagree")
    names = list(view["confusion"])
    crit = st.selectbox("Criterion", names, index=len(names) - 1, key="agreement_criterion")
    left, right = st.columns(2)
    with left:
        cm = view["confusion"][crit]
        ui.chart(charts.confusion_heatmap(cm, f"Confusion matrix: {crit}"), cm.reset_index(), "confusion_matrix")
    with right:
        cells = view["cells"][crit]
        ui.chart(charts.agreement_scatter(cells, lo, hi, title=f"AI vs reference: {crit}"), cells, "ai_vs_reference",
                 "AI vs reference")

    st.subheader("Over time and across versions")
    left, right = st.columns(2)
    with left:
        ui.chart(charts.trend_chart(view["by_week"], "week", title="By week"), view["by_week"], "trend_by_week")
    with right:
        ui.chart(charts.trend_chart(view["by_version"], "version", title="By model / prompt version"),
                 view["by_version"], "trend_by_version")

judges = reports.judge_view(conn, scope)
if judges["available"]:
    st.subheader("Agreement between models")
    st.caption("Krippendorff's alpha (ordinal) between " + ", ".join(judges["versions"])
               + " on the submissions they all scored (1 = identical, 0 = chance).")
    ui.table(judges["alpha"], "judge_agreement", "agreement between models")

edits = reports.edit_view(conn, scope)
st.subheader("What teachers changed")
if not edits["n_decided"]:
    st.info("No approved or rejected reviews yet: edit analytics appear once teachers decide on drafts.")
else:
    cols = st.columns(3)
    cols[0].metric("Approved unchanged", ui.num(edits["share_unchanged"] * 100, 0) + "%",
                   help=f"{edits['approved_unchanged']} of {edits['n_approved']} approved drafts.")
    ce = edits["comment_edits"]
    cols[1].metric("Comment edit distance", ui.num(ce["mean_edit_distance"], 2),
                   help=f"1 − difflib similarity, mean over the newest {ce['n']} edited comments "
                        f"(at most {edits['comment_sample_limit']}); 0 = unchanged, 1 = rewritten.")
    cols[2].metric("Decided reviews", edits["n_decided"])
    if len(edits["by_criterion"]):
        ui.chart(charts.edit_chart(edits["by_criterion"]), edits["by_criterion"], "teacher_score_changes")
    if len(edits["reason_codes"]):
        st.caption("Reason codes given with edits")
        ui.table(edits["reason_codes"], "reason_codes")

_lessons_agreement.render(conn, ui.current_scope())
