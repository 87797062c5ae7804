"""Settings tab "LMS platforms" (admins): FairMark's addresses to paste into an LMS, the LMSs
registered with FairMark and the LMS courses linked to FairMark courses, and the form that
registers an LMS (core.lti.platforms, audited)."""
import pandas as pd
import streamlit as st

from core.errors import FairMarkError
from core.lti import platforms
from pages import _common
from pages._i18n import N_, t

# FairMark's addresses, shown as a label above each one's box
URLS = ((N_("Login URL (OpenID Connect initiation)"), "login"),
        (N_("Launch URL (redirect URI, target link URI)"), "launch"),
        (N_("Public keys URL (JWKS)"), "jwks"))


def _page_url() -> str | None:
    try:
        return str(st.context.url or "") or None
    except (AttributeError, RuntimeError):
        return None


def render(conn) -> None:
    me = _common.actor()
    if msg := st.session_state.pop("lti_flash", None):
        st.success(_common.md(msg))
    data = platforms.settings_view(conn, actor=me, page_url=_page_url())  # the tab's one read
    if not data["keys_ready"]:
        st.warning(t("LTI is off until the setting FAIRMARK_LTI_KEY_SECRET is set (a random text of at least 32 "
                     "characters): it seals FairMark's signing key. See the configuration reference."))
    st.subheader(t("FairMark's addresses for the LMS"))
    if data["urls"] is None:
        st.info(t("Set FAIRMARK_PUBLIC_URL to the address the LMS reaches FairMark at to see them here."))
    else:
        for label, key in URLS:
            st.text(t(label))
            st.code(data["urls"][key], language=None)
        if not data["from_setting"]:
            st.caption(t("Taken from this page's address. If people reach FairMark through another address (a "
                         "proxy), set FAIRMARK_PUBLIC_URL to it."))

    st.subheader(t("Registered LMSs"))
    if data["platforms"]:
        st.dataframe(pd.DataFrame([{t("issuer"): p["issuer"], t("client id"): p["client_id"],
                                    t("deployments"): ", ".join(p["deployments"]),
                                    t("authorization URL"): p["auth_url"],
                                    t("token URL"): p["token_url"], t("public keys URL"): p["jwks_url"]}
                                   for p in data["platforms"]]), hide_index=True, width="stretch")
    else:
        st.caption(t("None yet."))
    if data["contexts"]:
        st.subheader(t("LMS courses linked to FairMark courses"))
        st.dataframe(pd.DataFrame([{t("LMS course"): c["title"], t("FairMark course"): c["course"] or ""}
                                   for c in data["contexts"]]), hide_index=True, width="stretch")

    st.subheader(t("Register an LMS"))
    with st.form("lti_add", clear_on_submit=True):
        c1, c2 = st.columns(2)
        issuer = c1.text_input(t("Issuer"), key="lti_issuer")
        client_id = c2.text_input(t("Client ID"), key="lti_client_id")
        deployments = st.text_area(t("Deployment IDs (one per line)"), height=80, key="lti_deployments")
        auth_url = st.text_input(t("Authorization URL"), key="lti_auth_url")
        token_url = st.text_input(t("Token URL"), key="lti_token_url")
        jwks_url = st.text_input(t("Public keys (JWKS) URL"), key="lti_jwks_url")
        if st.form_submit_button(t("Register")):
            try:
                done = platforms.add(conn, issuer=issuer, client_id=client_id,
                                     deployment_ids=[d for d in deployments.splitlines() if d.strip()],
                                     auth_url=auth_url, token_url=token_url, jwks_url=jwks_url, actor=me)
            except FairMarkError as e:
                _common.show_error(e)
            else:
                st.session_state["lti_flash"] = t("Registered {issuer} (client id {client_id}, deployments "
                                                  "{deployments}).", issuer=done["issuer"],
                                                  client_id=done["client_id"],
                                                  deployments=", ".join(done["deployments"]))
                st.rerun()
