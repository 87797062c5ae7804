"""Fairness: is the AI equally accurate for weaker students and for every group? (issue #5)"""
import streamlit as st

from core import charts, reports
from pages import _appeal_rates, _common
from pages import _dashboard as ui

st.title("Fairness")
st.caption("Error of the AI's scores by score band, by student group and by length, with 95% bootstrap CIs that "
           "resample students.")
conn = _common.get_db()
scope = ui.current_scope()
ui.scope_caption(scope)
c1, c2, c3 = st.columns(3)
with c3:
    threshold = st.number_input("Alert when ΔMAE exceeds", min_value=0.0, max_value=10.0, value=0.25, step=0.05,
                                key="fairness_threshold")
with st.expander("Band and sample-size settings"):
    cut = st.number_input("Largest reference score in the low band (empty: lower half of the scale)",
                          value=None, step=0.5, key="fairness_cut")
    min_n = st.number_input("Flag bands and groups with fewer items than", min_value=2, value=10, step=1,
                            key="fairness_min_n")
me = _common.actor()
data = ui.read_or_stop(lambda: reports.fairness_page(  # the page's one read: the pickers' options and the view
    conn, scope, reference=st.session_state.get("fairness_reference", "auto"),
    criterion=st.session_state.get("fairness_criterion"), cut=cut, min_n=int(min_n), actor=me))
titles = data["titles"]  # the rubric's names, never keys
with c1:
    ui.reference_picker(data, key="fairness_reference")
with c2:
    if st.session_state.get("fairness_criterion") != data["criterion"]:
        st.session_state["fairness_criterion"] = data["criterion"]  # not offered in this scope: all criteria
    st.selectbox("Criterion", data["criteria"], key="fairness_criterion",
                 format_func=lambda c: "All criteria (pooled)" if c is None else reports.title_of(titles, c))
chosen = data["options"]
view = ui.shown(data["view"], data["error"])
if view is not None:
    ui.intervals_pending(view, lambda c: reports.fairness_view(c, scope, **chosen, wait=False, actor=me))
    pending = reports.later.pending(view)
    ui.reference_caption(view)
    bands = view["bands"]
    delta = bands["delta_mae"]
    st.metric("ΔMAE = MAE(low band) − MAE(high band)", ui.num(delta),
              help="The published multi-agent study (Zhang & Luo 2025) reports 0.50: twice the error for "
                   "students scored 0–1.")
    low, high = bands["bands"]["low"], bands["bands"]["high"]
    both = ("" if pending or not view.get("students") else
            f" (of {view['students']} students: a student whose scores fall in both bands, on different criteria "
            "or weeks, is counted in each)")
    st.caption(f"95% CI {ui.ci_text(bands['delta_mae_ci'], 3, pending)}; "
               f"low band {'…' if pending else low['students'] or 0} students, high band "
               f"{'…' if pending else high['students'] or 0} students{both}"
               + (f" — {bands['delta_mae_note']}" if bands["delta_mae_note"] else ""))
    if delta == delta and delta > threshold:
        ci = bands["delta_mae_ci"]
        sure = " (the whole CI is above it)" if ci and ci[0] > threshold else " (the CI includes the threshold)"
        st.error(f"ΔMAE {delta:.2f} exceeds the alert threshold {threshold:.2f}{sure}: the AI errs more for "
                 "weaker students. Review low-band drafts with extra care.")
    for w in bands["warnings"]:
        st.warning(_common.md(w))
    frame = charts.band_frame(bands)
    ui.chart(charts.band_chart(frame), frame, "error_by_band")
    if len(view["bands_by_criterion"]):
        st.caption("ΔMAE per criterion")
        ui.table(reports.titled(view["bands_by_criterion"], titles), "delta_mae_by_criterion", "ΔMAE by criterion")

    st.subheader("By student group")
    if not view["groups"]:
        st.info("No student attributes (section, ELL status, …) were uploaded with the students.")
    for attr, rep in view["groups"].items():
        st.markdown(f"**{_common.md(attr)}**")  # a column name from the uploaded file
        diff = rep["difference"]
        pair = " and ".join(str(g) for g in diff.get("mae_pair", []))
        st.caption(_common.md(f"Largest MAE gap between groups: {ui.num(diff['mae'])}" + (f" ({pair})" if pair else "")
                              + f", 95% CI {ui.ci_text(diff['mae_ci'], 3, pending)}"
                              + (f" — {diff['notes']['mae']}" if "mae" in diff["notes"] else "")
                              + ". An interval that includes 0 is no evidence of a difference."))
        if rep["tests"]:
            ui.table(charts.group_tests_frame(rep["tests"]), f"group_tests_{attr}", f"group tests by {attr}")
        for w in rep["warnings"]:
            st.warning(_common.md(w))
        gframe = charts.group_frame(rep)
        ui.chart(charts.group_chart(gframe, overall=rep["overall"]["mae"], title=f"MAE by {attr}"), gframe,
                 f"error_by_{attr}")

    st.subheader("By length")
    lb = view["length"]
    cols = st.columns(3)
    cols[0].metric("Pearson r (error vs words)", ui.num(lb["pearson"]),
                   help=f"95% CI {ui.ci_text(lb['pearson_ci'], 3)}, p = {ui.num(lb['pearson_p'], 4)}")
    cols[1].metric("Spearman ρ", ui.num(lb["spearman"]), help=f"p = {ui.num(lb['spearman_p'], 4)}")
    cols[2].metric(f"MAE under {lb['short_words']} words vs rest",
                   f"{ui.num(lb['short']['mae'], 2)} vs {ui.num(lb['rest']['mae'], 2)}",
                   help=f"n = {lb['short']['n']} vs {lb['rest']['n']}; difference CI "
                        f"{ui.ci_text(lb['short_minus_rest_mae_ci'], 3, pending)}")
    for note in lb["notes"]:
        st.caption(_common.md(note))
    lframe = charts.length_frame(view["length_cells"])
    ui.chart(charts.length_chart(lframe, short_words=lb["short_words"]), lframe, "error_by_length")

_appeal_rates.render(data["appeals"], by_assignment=False, by_band=True, by_group=True)
