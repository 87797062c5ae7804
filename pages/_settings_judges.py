"""Settings tab "Judges & confidence": the judge models of the cascade's consensus step with
their weights, where each one's endpoint comes from (never its key), and when the first judge's
scores are confident enough to stand alone."""
import pandas as pd
import streamlit as st

from core import admin, llm
from core.errors import FairMarkError
from core.settings import judge_endpoint
from pages import _common
from pages._i18n import t


def render(conn) -> None:
    msg = st.session_state.pop("judging_flash", None)
    if msg:
        st.success(msg)
    base = _common.settings()
    eff = llm.effective_settings(base, conn)
    st.markdown(t(
        "Every reflection is scored by the Evaluator at temperature 0. When it is sure of every criterion "
        "(from the model's token probabilities, or from a small self-consistency sample where the endpoint "
        "gives none) and the result is not close to the low/high band boundary, its scores stand. Otherwise the "
        "first judge below scores it too; only when the two disagree does the second judge vote, and the "
        "weighted majority decides. Items the judges cannot agree on go to the \"unsure\" group of the queue."))
    _judges(conn, eff)
    st.divider()
    _thresholds(conn, base, eff)
    if admin.judging_overrides(conn, actor=_common.actor()) and st.button(t("Reset judges to environment settings"),
                                                                          key="judging_reset"):
        admin.save_judging_overrides(conn, {}, actor=_common.actor())
        st.session_state["judging_flash"] = t("Back to the environment's judges and thresholds.")
        st.rerun()


def _judges(conn, eff) -> None:
    st.subheader(t("Judges"))
    st.caption(t("A judge from another model family than the Evaluator is less biased towards its style. Each judge's "
                 "endpoint and key come only from the environment or secrets: FAIRMARK_JUDGE_<NAME>_BASE_URL and "
                 "FAIRMARK_JUDGE_<NAME>_API_KEY; without them it uses the main endpoint."))
    frame = pd.DataFrame([j.model_dump() for j in eff.judges], columns=["name", "model", "weight"])
    with st.form("judges_form"):
        edited = st.data_editor(
            frame, num_rows="dynamic", hide_index=True, key="judges_editor",
            column_config={"name": st.column_config.TextColumn(t("Name"), required=True),
                           "model": st.column_config.TextColumn(t("Model (exact name)"), required=True),
                           "weight": st.column_config.NumberColumn(t("Weight"), min_value=0.1, max_value=10.0,
                                                                   format="%.2f")})
        saved = st.form_submit_button(t("Save judges"))
    if saved:
        _save(conn, {"judges": edited.to_dict("records")}, t("Saved the judges. New runs use them."))
    evaluator = eff.model_for("evaluator")
    rows = []
    for judge in eff.judges:
        url, key = judge_endpoint(judge)
        rows.append({t("Judge"): judge.name, t("Model"): judge.model, t("Weight"): judge.weight,
                     t("Endpoint"): url or ("OpenAI" if key else t("the main endpoint")),
                     t("Key"): t("set") if key else (t("the main key") if not url else t("not set"))})
        if judge.model == evaluator:
            st.warning(t("Judge {name} uses the Evaluator's own model ({model}): its vote adds little. "
                         "Choose a model from another family.", name=judge.name, model=judge.model))
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    else:
        st.info(t("No judges: the Evaluator's scores stand, and items it is unsure of go to the \"unsure\" group."))


def _thresholds(conn, base, eff) -> None:
    st.subheader(t("When the first judge's scores stand"))
    with st.form("cascade_form"):
        c1, c2, c3, c4 = st.columns(4)
        values = {
            "cascade_min_confidence": c1.number_input(
                t("Confident at"), 0.5, 1.0, float(eff.cascade_min_confidence), 0.01, key="cascade_min_confidence",
                help=t("Every criterion's score must be at least this probable.")),
            "cascade_ev_tolerance": c2.number_input(
                t("Expected score within"), 0.0, 1.0, float(eff.cascade_ev_tolerance), 0.05, key="cascade_ev_tolerance",
                help=t("...and the expected score (the probability-weighted mean level) this close to it.")),
            "cascade_band_margin": c3.number_input(
                t("Band cut margin"), 0.0, 5.0, float(eff.cascade_band_margin), 0.05, key="cascade_band_margin",
                help=t("A mean score this close to the low/high band boundary always gets the judges' votes.")),
            "cascade_samples": c4.number_input(
                t("Self-consistency samples"), 0, 8, int(eff.cascade_samples), 1, key="cascade_samples",
                help=t("Extra answers at temperature 0.7 where the endpoint gives no token probabilities.")),
        }
        saved = st.form_submit_button(t("Save thresholds"))
    if saved:
        changed = {k: v for k, v in values.items() if v != getattr(base, k)}
        keep = {k: v for k, v in admin.judging_overrides(conn, actor=_common.actor()).items() if k == "judges"}
        _save(conn, {**keep, **changed}, t("Saved the thresholds. New runs use them."), replace=True)


def _save(conn, values: dict, flash: str, *, replace: bool = False) -> None:
    current = {} if replace else admin.judging_overrides(conn, actor=_common.actor())
    try:
        admin.save_judging_overrides(conn, {**current, **values}, actor=_common.actor())
    except FairMarkError as e:
        _common.show_error(e)
    else:
        st.session_state["judging_flash"] = flash
        st.rerun()
