"""Widgets for issue 16 (evaluating the feedback) shared by several pages: the AI configuration
in use and its eval gate (Settings, with the admin's override; Assess and AI quality show it),
and the review item's extras (the judges that did not run, the draft's configuration, "save as
eval case", last week's next steps). Pages call one function each; the logic is in core.evals."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from core.courses import browse
from core.agents import registry
from core.errors import FairMarkError
from core.evals import DIMENSIONS, gate, saved
from core.growth import learning
from core.evals import config as ai_config
from core.llm import default_provider
from core.offline import LABEL as OFFLINE_LABEL
from core.text import escape_markdown, format_timestamp
from pages import _common
from pages._i18n import N_, said, t

ACTED = {"yes": N_("Yes, acted on them"), "partly": N_("Partly"), "no": N_("No")}
MARKED = {"yes": N_("yes"), "partly": N_("partly"), "no": N_("no")}   # the mark, in the expander's title
WENT_WRONG = {"leakage": N_("It gave the answer away"),
              "grounding": N_("It said something the text or source does not"),
              "level": N_("Language or depth did not fit the student"),
              "pedagogy": N_("It did not lead: no question, no next step, did the work")}
# The columns of core.evals.config.describe's rows, named where shown (its role and prompt are N_ labels).
ROLE_COLUMNS = {"role": N_("role"), "model": N_("model"), "temperature": N_("temperature"), "prompt": N_("prompt")}

STATE_BOX = {"passed": st.success, "failed": st.error, "unevaluated": st.warning, "offline": st.info}


# --- the configuration in use and its gate --------------------------------------------------
def _status_for(conn, provider: str) -> tuple[dict, dict]:
    defn = ai_config.current(provider, _common.settings())
    return defn, gate.status(conn, ai_config.config_hash(defn), provider, definition=defn)


def config_status(conn, provider: str | None = None, *, key: str = "cfg", overridable: bool = False,
                  current: tuple[dict, dict] | None = None, may_override: bool = False) -> dict:
    """The configuration in use, whether it passed its blocking eval cases, and (`overridable`:
    the Settings page, an admin's page; `may_override`: its read says the actor may) the override
    form. `current`: (definition, gate status) as the page's read returned them."""
    if overridable and (msg := st.session_state.pop("evals_flash", None)):
        st.success(msg)
    defn, s = current or _status_for(conn, provider or default_provider(_common.settings()))
    box = st.info if s["cleared"] and s["state"] != "passed" else STATE_BOX[s["state"]]
    box(escape_markdown(t("AI configuration ({name}): {label}.", name=said(s["name"]), label=t(s["label"]))
                        + " " + said(s["message"])))
    with st.expander(t("What this configuration is (prompt, model and temperature per role)")):
        roles = pd.DataFrame(ai_config.describe(defn))
        for column in ("role", "prompt"):   # core's N_ labels
            if column in roles:
                roles[column] = roles[column].map(t)
        st.dataframe(roles.rename(columns=lambda k: t(ROLE_COLUMNS[k]) if k in ROLE_COLUMNS else k),
                     hide_index=True, width="stretch")
    if overridable and may_override and s["state"] in ("failed", "unevaluated"):
        override_form(conn, s, defn, key=key)
    return s


def override_form(conn, s: dict, defn: dict, *, key: str) -> None:
    if s["override"]:
        return
    with st.expander(t("Admin: let this configuration run without passing (audited)")):
        st.caption(t("Only for an admin who knows why the eval cases do not apply. The override holds for exactly "
                     "this configuration; any change to a prompt, model or temperature needs its own."))
        with st.form(f"override_{key}_{s['hash']}"):
            reason = st.text_area(t("Reason (goes to the audit log)"), key=f"override_reason_{key}")
            if st.form_submit_button(t("Override the gate")):
                try:
                    gate.override(conn, s["hash"], actor=_common.actor(), reason=reason, definition=defn)
                except FairMarkError as e:
                    _common.show_error(e)
                else:
                    st.session_state["evals_flash"] = t("Override recorded in the audit log.")
                    st.rerun()


def assess_gate(conn, provider: str) -> bool:
    """Assess page: warn before running a configuration that has not passed; True when it may run.
    Only an admin may override the gate: the form is on the Settings page, never here."""
    _, s = _status_for(conn, provider)
    if s["state"] == "passed" or s["state"] == "offline":
        st.caption(escape_markdown(t("AI configuration ({name}): {label}.", name=said(s["name"]), label=t(s["label"]))))
        return True
    box = st.info if s["cleared"] else st.warning
    box(escape_markdown(t("AI configuration ({name}): {label}.", name=said(s["name"]), label=t(s["label"]))
                        + " " + said(s["message"])))
    return s["cleared"]


def eval_runs(runs: list[dict]) -> None:
    """The eval runs as the page's read returned them (core.evals.views.eval_runs)."""
    if not runs:
        st.caption(t("No eval run yet: `python -m core evals run` records one."))
        return
    st.dataframe(pd.DataFrame([{
        t("run"): r["id"], t("configuration"): said(r["configuration"]), t("provider"): r["provider"],
        t("cases"): r["cases"],
        t("passed"): r["passed"], t("failed"): r["failed"], t("not run"): r["not_run"],
        t("blocking failed"): r["blocking_failed"], t("blocking not run"): r["blocking_not_run"],
        t("suite version"): r["suite_version"], t("when"): format_timestamp(r["created_at"]),
        t("by"): _common.person(r["created_by"])}
        for r in runs]), hide_index=True, width="stretch")


# --- the review item ----------------------------------------------------------------------
def review_item(conn, item: dict) -> None:
    """Below the AI details: judges not run, the draft's configuration, next steps, save as case
    (from the Review page's view of the item: core.signoff.review_view)."""
    data = item["data"]
    draft = data["draft"] or {}
    not_run = [t(r.label) for r in registry.roles() if r.needs_llm and r.name not in (draft.get("outputs") or {})]
    if draft and not_run and draft.get("is_offline"):
        st.caption(t("Not run ({label}): {roles} — their verdicts need a language model.", label=t(OFFLINE_LABEL),
                     roles=", ".join(not_run)))
    if s := item["ai_config"]:
        st.caption(escape_markdown(t("Drafted by AI configuration ({name}): {label}.", name=said(s["name"]),
                                     label=t(s["label"]))))
    sid = data["submission"]["id"]
    _next_steps(conn, sid, item["previous_next_steps"])
    _save_as_case(conn, sid, draft, item["saved_cases"])


def _next_steps(conn, sid: int, prev: dict | None) -> None:
    if prev is None:
        return
    marked = t(MARKED[prev["acted"]]) if prev["acted"] in MARKED else prev["acted"]
    with st.expander(_common.md(t("Last week's next steps (week {week}: {title})", week=prev["week"],
                                  title=prev["title"])
                                + (" · " + t("marked: {mark}", mark=marked) if prev["acted"] else ""))):
        st.text(prev["comment"])
        st.caption(t("The AI drafts with this comment and your mark: next week's drafts for this student are "
                     "told it, and Regenerate redrafts this one with it."))
        options = list(learning.ACTED)
        with st.form(f"next_steps_{sid}"):
            acted = st.radio(t("Did the student act on these next steps in this submission?"), options,
                             index=options.index(prev["acted"]) if prev["acted"] in options else None,
                             format_func=lambda k: t(ACTED[k]) if k in ACTED else k, horizontal=True)
            if st.form_submit_button(t("Save mark")):
                try:
                    learning.mark_next_steps(conn, sid, acted, actor=_common.actor())
                except FairMarkError as e:
                    _common.show_error(e)
                else:
                    st.toast(t("Marked."))
                    st.rerun()


def _save_as_case(conn, sid: int, draft: dict, n: int) -> None:
    if not (draft.get("comment") or "").strip():
        return
    with st.expander(t("Save as eval case") + (" · " + t("{count} saved", count=n) if n else "")):
        st.caption(t("When the AI's comment went wrong, save this item as an eval case: a future AI change must "
                     "get it right before it is used. The student's name and e-mail are replaced by the pseudonym."))
        with st.form(f"save_case_{sid}_{draft.get('id')}"):
            dim = st.selectbox(t("What went wrong"), DIMENSIONS,
                               format_func=lambda k: t(WENT_WRONG[k]) if k in WENT_WRONG else k)
            reason = st.text_area(t("What should the comment do instead? (the case's requirement)"))
            if st.form_submit_button(t("Save as eval case")):
                try:
                    cid = saved.save_case(conn, sid, dimension=dim, reason=reason, actor=_common.actor())
                except FairMarkError as e:
                    _common.show_error(e)
                else:
                    st.toast(t("Saved as eval case #{id}.", id=cid))
                    st.rerun()
