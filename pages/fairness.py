"""Fairness: is the AI equally accurate for weaker students and for every group? (issue #5)"""
import streamlit as st

from core import charts, reports
from pages import _appeal_rates, _common
from pages import _dashboard as ui
from pages._i18n import here, said, t, tn

st.title(t("Fairness"))
st.caption(t("Error of the AI's scores by score band, by student group and by length, with 95% bootstrap CIs that "
             "resample students."))
conn = _common.get_db()
scope = ui.current_scope()
ui.scope_caption(scope)
c1, c2, c3 = st.columns(3)
with c3:
    threshold = st.number_input(t("Alert when ΔMAE exceeds"), min_value=0.0, max_value=10.0, value=0.25, step=0.05,
                                key="fairness_threshold")
with st.expander(t("Band and sample-size settings")):
    cut = st.number_input(t("Largest reference score in the low band (empty: lower half of the scale)"),
                          value=None, step=0.5, key="fairness_cut")
    min_n = st.number_input(t("Flag bands and groups with fewer items than"), min_value=2, value=10, step=1,
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
    st.selectbox(t("Criterion"), data["criteria"], key="fairness_criterion",
                 format_func=lambda c: t("All criteria (pooled)") if c is None else reports.title_of(titles, c))
chosen = data["options"]
view = ui.shown(data["view"], data["error"])
if view is not None:
    ui.intervals_pending(view, lambda c: reports.fairness_view(c, scope, **chosen, wait=False, actor=me))
    pending = reports.later.pending(view)
    ui.reference_caption(view)
    bands = view["bands"]
    delta = bands["delta_mae"]
    st.metric(t("ΔMAE = MAE(low band) − MAE(high band)"), ui.num(delta),
              help=t("The published multi-agent study (Zhang & Luo 2025) reports 0.50: twice the error for "
                     "students scored 0–1."))
    low, high = bands["bands"]["low"], bands["bands"]["high"]
    both = ("" if pending or not view.get("students") else
            " (" + tn("of {count} student: a student whose scores fall in both bands, on different criteria or "
                      "weeks, is counted in each",
                      "of {count} students: a student whose scores fall in both bands, on different criteria or "
                      "weeks, is counted in each", view["students"]) + ")")
    st.caption(t("95% CI {interval}; low band {low} students, high band {high} students",
                 interval=ui.ci_text(bands["delta_mae_ci"], 3, pending), low="…" if pending else low["students"] or 0,
                 high="…" if pending else high["students"] or 0)
               + both + (" — " + said(bands["delta_mae_note"]) if bands["delta_mae_note"] else ""))   # core's
    if delta == delta and delta > threshold:
        ci = bands["delta_mae_ci"]
        values = dict(delta=f"{delta:.2f}", threshold=f"{threshold:.2f}")
        if ci and ci[0] > threshold:
            st.error(t("ΔMAE {delta} exceeds the alert threshold {threshold} (the whole CI is above it): the AI errs "
                       "more for weaker students. Review low-band drafts with extra care.", **values))
        else:
            st.error(t("ΔMAE {delta} exceeds the alert threshold {threshold} (the CI includes the threshold): the AI "
                       "errs more for weaker students. Review low-band drafts with extra care.", **values))
    for w in bands["warnings"]:
        st.warning(_common.md(said(w)))   # core's Messages, in the reader's language
    frame = charts.band_frame(bands)
    ui.chart(charts.band_chart(frame, title=t("Error by score band"), interface=here()), frame, "error_by_band")
    if len(view["bands_by_criterion"]):
        st.caption(t("ΔMAE per criterion"))
        ui.table(reports.titled(view["bands_by_criterion"], titles), key="delta_mae_by_criterion",
                 name=t("ΔMAE by criterion"))

    st.subheader(t("By student group"))
    if not view["groups"]:
        st.info(t("No student attributes (section, ELL status, …) were uploaded with the students."))
    for attr, rep in view["groups"].items():
        st.markdown(f"**{_common.md(attr)}**")  # a column name from the uploaded file
        diff = rep["difference"]
        groups = [str(g) for g in diff.get("mae_pair", [])]
        pair = t("{group} and {other}", group=groups[0], other=groups[1]) if len(groups) == 2 else ", ".join(groups)
        st.caption(_common.md(t("Largest MAE gap between groups: {gap}", gap=ui.num(diff["mae"]))
                              + (f" ({pair})" if pair else "")
                              + ", " + t("95% CI {interval}", interval=ui.ci_text(diff["mae_ci"], 3, pending))
                              + (" — " + said(diff["notes"]["mae"]) if "mae" in diff["notes"] else "")   # core's
                              + ". " + t("An interval that includes 0 is no evidence of a difference.")))
        if rep["tests"]:
            tests = charts.group_tests_frame(rep["tests"])   # "the rest": core's label (N_)
            tests["compared_with"] = [t(c) if x["vs"] == "rest" else c for c, x in zip(tests["compared_with"],
                                                                                      rep["tests"])]
            ui.table(tests, key=f"group_tests_{attr}",
                     name=t("group tests by {column}", column=attr))
        for w in rep["warnings"]:
            st.warning(_common.md(said(w)))
        gframe = charts.group_frame(rep)
        ui.chart(charts.group_chart(gframe, overall=rep["overall"]["mae"], title=t("MAE by {column}", column=attr),
                                  interface=here()),
                 gframe, f"error_by_{attr}", t("error by {column}", column=attr))

    st.subheader(t("By length"))
    lb = view["length"]
    cols = st.columns(3)
    cols[0].metric(t("Pearson r (error vs words)"), ui.num(lb["pearson"]),
                   help=t("95% CI {interval}, p = {p}", interval=ui.ci_text(lb["pearson_ci"], 3),
                          p=ui.num(lb["pearson_p"], 4)))
    cols[1].metric(t("Spearman ρ"), ui.num(lb["spearman"]), help=t("p = {p}", p=ui.num(lb["spearman_p"], 4)))
    cols[2].metric(tn("MAE under {count} word vs rest", "MAE under {count} words vs rest", lb["short_words"]),
                   t("{short} vs {rest}", short=ui.num(lb["short"]["mae"], 2), rest=ui.num(lb["rest"]["mae"], 2)),
                   help=t("n = {short} vs {rest}; difference CI {interval}", short=lb["short"]["n"],
                          rest=lb["rest"]["n"], interval=ui.ci_text(lb["short_minus_rest_mae_ci"], 3, pending)))
    for note in lb["notes"]:
        st.caption(_common.md(said(note)))   # core's Messages
    lframe = charts.length_frame(view["length_cells"])
    ui.chart(charts.length_chart(lframe, short_words=lb["short_words"], title=t("Error by length"),
                                 interface=here()), lframe,
             "error_by_length")

_appeal_rates.render(data["appeals"], by_assignment=False, by_band=True, by_group=True)
