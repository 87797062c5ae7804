"""Settings tab "LMS platforms" (admins): FairMark's addresses to paste into an LMS, the LMSs
registered with FairMark and the LMS courses linked to FairMark courses, and the form that
registers an LMS (core.lti.platforms, audited)."""
import pandas as pd
import streamlit as st

from core.errors import FairMarkError
from core.lti import platforms
from pages import _common


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
        st.warning("LTI is off until the setting FAIRMARK_LTI_KEY_SECRET is set (a random text of at least 32 "
                   "characters): it seals FairMark's signing key. See the configuration reference.")
    st.subheader("FairMark's addresses for the LMS")
    if data["urls"] is None:
        st.info("Set FAIRMARK_PUBLIC_URL to the address the LMS reaches FairMark at to see them here.")
    else:
        for label, key in (("Login URL (OpenID Connect initiation)", "login"),
                           ("Launch URL (redirect URI, target link URI)", "launch"),
                           ("Public keys URL (JWKS)", "jwks")):
            st.text(label)
            st.code(data["urls"][key], language=None)
        if not data["from_setting"]:
            st.caption("Taken from this page's address. If people reach FairMark through another address (a "
                       "proxy), set FAIRMARK_PUBLIC_URL to it.")

    st.subheader("Registered LMSs")
    if data["platforms"]:
        st.dataframe(pd.DataFrame([{"issuer": p["issuer"], "client id": p["client_id"],
                                    "deployments": ", ".join(p["deployments"]), "authorization URL": p["auth_url"],
                                    "token URL": p["token_url"], "public keys URL": p["jwks_url"]}
                                   for p in data["platforms"]]), hide_index=True, width="stretch")
    else:
        st.caption("None yet.")
    if data["contexts"]:
        st.subheader("LMS courses linked to FairMark courses")
        st.dataframe(pd.DataFrame([{"LMS course": c["title"], "FairMark course": c["course"] or ""}
                                   for c in data["contexts"]]), hide_index=True, width="stretch")

    st.subheader("Register an LMS")
    with st.form("lti_add", clear_on_submit=True):
        c1, c2 = st.columns(2)
        issuer = c1.text_input("Issuer", key="lti_issuer")
        client_id = c2.text_input("Client ID", key="lti_client_id")
        deployments = st.text_area("Deployment IDs (one per line)", height=80, key="lti_deployments")
        auth_url = st.text_input("Authorization URL", key="lti_auth_url")
        token_url = st.text_input("Token URL", key="lti_token_url")
        jwks_url = st.text_input("Public keys (JWKS) URL", key="lti_jwks_url")
        if st.form_submit_button("Register"):
            try:
                done = platforms.add(conn, issuer=issuer, client_id=client_id,
                                     deployment_ids=[d for d in deployments.splitlines() if d.strip()],
                                     auth_url=auth_url, token_url=token_url, jwks_url=jwks_url, actor=me)
            except FairMarkError as e:
                _common.show_error(e)
            else:
                st.session_state["lti_flash"] = (f"Registered {done['issuer']} (client id {done['client_id']}, "
                                                 f"deployments {', '.join(done['deployments'])}).")
                st.rerun()
