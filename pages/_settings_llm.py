"""Settings tab "Language model & prices": endpoint status and a connection test, the model per
role, limits, and the price table. The API key is never shown, only whether one is set."""
import pandas as pd
import streamlit as st

import db
from core import admin, llm
from core.agents import registry
from core.errors import FairMarkError
from core.judging.judges import family
from core.text import format_timestamp
from pages import _common
from pages._i18n import said, t, tn


def render(conn) -> None:
    msg = st.session_state.pop("llm_flash", None)
    if msg:
        st.success(_common.md(msg))
    base = _common.settings()                 # environment / secrets.toml
    eff = llm.effective_settings(base, conn)  # plus this page's overrides
    data = admin.llm_tab(conn, actor=_common.actor())  # the tab's one read
    _endpoint(conn, eff, data["last_test"])
    st.divider()
    _models_and_limits(conn, base, eff, data["overrides"])
    st.divider()
    _prices(conn, data)


def _endpoint(conn, eff, last: dict | None) -> None:
    st.subheader(t("Endpoint"))
    if not eff.llm_configured:
        st.info(t("No language model is configured, so FairMark drafts with the {baseline}. To use a model, set "
                  "`FAIRMARK_LLM_BASE_URL` (any OpenAI-compatible server) and/or `FAIRMARK_LLM_API_KEY` in the "
                  "environment or `.streamlit/secrets.toml`, then restart the app.",
                  baseline="**" + t("offline baseline — no LLM") + "**"))
    if eff.llm_configured:
        base_url = (f"`{eff.llm_base_url.replace('`', '')}`" if eff.llm_base_url
                    else t("`https://api.openai.com/v1` (OpenAI's default: no base URL is set)"))
        st.markdown("**" + t("Base URL") + ":** " + base_url + "  \n"
                    + "**" + t("API key") + ":** " + (t("set") if eff.llm_api_key else t("not set")) + " ("
                    + t("read from the environment or secrets only; never shown or stored") + ")")
    else:
        st.markdown("**" + t("Base URL") + ":** " + t("none: no language model is used (offline baseline)") + "  \n"
                    + "**" + t("API key") + ":** " + t("not set"))
    if last:
        when = format_timestamp(last["at"])
        if last.get("ok"):
            st.caption(_common.md(t("Last test {when}: reachable — model {model}, {ms} ms, structured output via "
                                    "{mode}.", when=when, model=last.get("model"), ms=last.get("latency_ms"),
                                    mode=last.get("mode"))))
        else:   # the stored error: core's Message where its form was kept (core.admin), else its English
            st.caption(_common.md(t("Last test {when}: failed — {error}", when=when, error=said(last.get("error")))))
    if st.button(t("Test connection"), key="llm_test_connection", disabled=not eff.llm_configured,
                 help=t("Makes one tiny call with the Evaluator's model (logged, not cached).")):
        with st.spinner(t("Calling the model…")):
            try:
                result = llm.test_connection(eff, eff.db_path)
            except FairMarkError as e:
                admin.save_connection_test(conn, admin.failed_connection_test(db.now(), e), actor=_common.actor())
                _common.show_error(e)
            else:
                admin.save_connection_test(conn, {"at": db.now(), "ok": True, **result}, actor=_common.actor())
                st.success(_common.md(t("Reachable: model {model} answered in {ms} ms ({tokens_in} tokens in, "
                                        "{tokens_out} out).", model=result["model"], ms=result["latency_ms"],
                                        tokens_in=result["tokens_in"], tokens_out=result["tokens_out"])))


def _models_and_limits(conn, base, eff, overrides: dict) -> None:
    st.subheader(t("Models and limits"))
    reviewer, aggregator = eff.model_for("reviewer"), eff.model_for("aggregator")
    if eff.llm_configured and family(reviewer) == family(aggregator):  # the offline baseline has no model
        st.warning(t("The Reviewer uses the same model family as the Aggregator ({model}). A judge from a "
                     "different model family catches more: models prefer their own writing "
                     "(self-preference bias of +10% to +25% in the published multi-agent study, "
                     "Zhang & Luo 2025). Choose another model for the Reviewer if your endpoint offers one.",
                     model=_common.md(reviewer)))
    with st.form("llm_settings"):
        default_model = st.text_input(t("Default model"), eff.llm_model, key="llm_default_model")
        models = {}
        cols = st.columns(2)
        for i, role in enumerate([*registry.roles(), *registry.tools()]):
            models[role.name] = cols[i % 2].text_input(   # an agent's name and duty: core's, marked with N_
                f"{t(role.label)} ({t(role.duty)})", eff.models.get(role.name, ""), key=f"llm_model_{role.name}",
                placeholder=t("default ({model})", model=default_model))
        c1, c2, c3, c4 = st.columns(4)
        temperature = c1.number_input(t("Temperature"), 0.0, 2.0, float(eff.temperature), 0.1, key="llm_temperature",
                                      help=t("For the writing roles; the Evaluator and the judges score at 0."))
        concurrency = c2.number_input(t("Concurrent submissions"), 1, 64, int(eff.concurrency), key="llm_concurrency")
        max_retries = c3.number_input(t("Retries per call"), 0, 10, int(eff.max_retries), key="llm_max_retries",
                                      help=t("Timeouts, rate limits (429) and server errors (5xx) are "
                                             "retried with backoff; other errors are not."))
        timeout_s = c4.number_input(t("Timeout (s)"), 1.0, 600.0, float(eff.timeout_s), 5.0, key="llm_timeout")
        st.caption(t("Precedence: values saved here > environment variables > `.streamlit/secrets.toml` > defaults. "
                     "The endpoint and the key come only from the environment or secrets."))
        saved = st.form_submit_button(t("Save model settings"))
    if saved:
        # Store only what differs from the environment, so later environment changes still apply.
        wanted = {"llm_model": default_model.strip(), "temperature": temperature, "concurrency": concurrency,
                  "max_retries": max_retries, "timeout_s": timeout_s}
        over = {k: v for k, v in wanted.items() if v != getattr(base, k)}
        role_models = {r: m.strip() for r, m in models.items() if m.strip() and m.strip() != base.models.get(r)}
        if role_models:
            over["models"] = role_models
        try:
            admin.save_llm_overrides(conn, over, actor=_common.actor())
        except FairMarkError as e:
            _common.show_error(e)
        else:
            st.session_state["llm_flash"] = t("Saved the model settings. New runs use them.")
            st.rerun()
    if overrides and st.button(t("Reset to environment settings"), key="llm_reset"):
        admin.save_llm_overrides(conn, {}, actor=_common.actor())
        st.session_state["llm_flash"] = t("Back to the environment's settings.")
        st.rerun()


def _prices(conn, data: dict) -> None:
    st.subheader(t("Prices (US$ per million tokens)"))
    unpriced = data["unpriced"]
    if unpriced:
        st.warning(_common.md(t("Calls to these models were counted at $0 because they have no price: {models}. "
                                "Add them below.", models=", ".join(unpriced))))
    df = pd.DataFrame(data["prices"],
                      columns=["model", "input_per_mtok", "cached_input_per_mtok", "output_per_mtok"])
    edited = st.data_editor(
        df, num_rows="dynamic", hide_index=True, key="llm_prices",
        column_config={
            "model": st.column_config.TextColumn(t("Model (exact name)"), required=True),
            "input_per_mtok": st.column_config.NumberColumn(t("Input"), min_value=0.0, format="%.3f"),
            "cached_input_per_mtok": st.column_config.NumberColumn(t("Cached input"), min_value=0.0, format="%.3f"),
            "output_per_mtok": st.column_config.NumberColumn(t("Output"), min_value=0.0, format="%.3f"),
        })
    if st.button(t("Save prices"), key="llm_save_prices"):
        try:
            rows = edited.to_dict("records")
            n = admin.replace_prices(conn, rows, actor=_common.actor())
        except FairMarkError as e:
            _common.show_error(e)
        else:
            st.success(tn("Saved {count} price. It applies to calls from now on.",
                           "Saved {count} prices. They apply to calls from now on.", n))
