"""Sign-in (issue 13): the only thing a signed-out visitor sees, on every page.

The session lives server-side (core.accounts.identity); the browser keeps only its random token
in an HttpOnly cookie (issue 25), which no script in the page can read. Streamlit cannot set a
cookie, so the server's route does: a sign-in here opens the session for this Streamlit session
and leaves a one-time code (core.accounts.handoff); the browser is then sent to /auth/session
(core.web.session), which gives the session a fresh token in the cookie and sends the browser
back to the page it signed in on. A refresh or a deep link opens a new Streamlit session, which
reads the cookie server-side (st.context.cookies). Sign-out ends the session here and sends the
browser to /auth/signout, which clears the cookie. Institutional sign-in is Streamlit's own
st.login (OpenID Connect, .streamlit/secrets.toml [auth]); its identity's e-mail is mapped to a
FairMark user by core.accounts.identity.oidc_actor.
"""
from __future__ import annotations

from urllib.parse import urlencode, urlsplit

import streamlit as st

import db
from core.accounts import handoff
from core.accounts import identity as accounts
from core.accounts.access import Actor
from core.errors import FairMarkError
from core.settings import load_settings
from core.text import escape_markdown
from core.web import session as web
from pages._i18n import said, t, tn

COOKIE = web.COOKIE
TOKEN = "_session_token"
GO = "_go_to"               # the route this Streamlit session sends the browser to (sign-in, sign-out)
STREAMLIT_LOGOUT = "/auth/logout"   # st.logout's own route: leaves the institution's sign-in too


def providers() -> list[str | None]:
    """The OpenID Connect providers configured for st.login ([auth] alone: one unnamed provider)."""
    try:
        auth = st.secrets.get("auth", {})
    except (FileNotFoundError, KeyError, AttributeError, ValueError):
        return []
    if not auth:
        return []
    named = [name for name, value in auth.items() if hasattr(value, "items")]
    return named or ([None] if "client_id" in auth else [])


def trusts_email(provider: str) -> bool:
    """Whether the admin marked this provider's e-mails as verified (`fairmark_trust_email = true`
    in its [auth.<provider>] section, or in [auth] for the only provider): for Entra ID, which
    sends no `email_verified` claim."""
    try:
        auth = st.secrets.get("auth", {})
        section = auth if provider == "default" else auth.get(provider, {})
        return section.get("fairmark_trust_email") is True
    except (FileNotFoundError, KeyError, AttributeError, ValueError):
        return False


def _oidc_claims() -> dict | None:
    try:
        user = st.user
        return user.to_dict() if user.get("is_logged_in") else None
    except (AttributeError, KeyError, FairMarkError):
        return None


def _cookie() -> str | None:
    """The session cookie the browser sent when this Streamlit session opened (a refresh, a link)."""
    try:
        value = st.context.cookies.get(COOKIE)
    except (AttributeError, RuntimeError):
        return None
    return value if isinstance(value, str) else None


def current(conn, *, touch: bool = True) -> Actor | None:
    """The signed-in Actor of this browser session, read fresh (role, grants, expiry): the
    session's token (this Streamlit session's, else the cookie a refresh sent), else the
    institution's identity from st.login, which opens a FairMark session once (so it times out
    like a password's; a spent one signs the browser out of st.login). `touch=False` (a
    fragment's auto-refresh, a widget callback) neither renews the idle time nor signs in."""
    token = st.session_state.get(TOKEN)
    if token is None and not st.session_state.get("_signed_out"):
        token = _cookie()
    actor = accounts.resume(conn, token, touch=touch)
    if actor is not None:
        st.session_state[TOKEN] = token
        return actor
    st.session_state.pop(TOKEN, None)
    # Once this session has sent the browser to a cookie route (a sign-in handed over, a sign-out),
    # the institution's identity (st.user, until st.logout's route) does not sign it in again: the
    # page the browser comes back to reads the cookie.
    claims = _oidc_claims() if touch and GO not in st.session_state else None
    if claims is None:
        return None
    try:
        found = accounts.Claims.of(claims)
        opened = accounts.oidc_sign_in(conn, found, trust_email=trusts_email(found.provider))
    except FairMarkError as e:
        st.session_state["_signin_error"] = said(e)
        return None
    if opened is None:  # this institutional sign-in had its session (timed out or signed out)
        st.logout()
        return None
    actor, token = opened
    _hand_over(conn, token)
    return actor


def _error(error) -> None:
    st.error(escape_markdown(said(error)))  # may quote what was typed


def form(conn) -> None:
    """The sign-in form (or, on a fresh database, the first admin's), then stop the page."""
    st.title("FairMark")
    error = st.session_state.pop("_signin_error", None)
    if error:
        _error(error)
    if accounts.first_visit_makes_admin(conn):
        _first_admin(conn)
    elif accounts.needs_first_admin(conn):
        st.info(said(accounts.FIRST_ADMIN_BY_COMMAND))
    else:
        _password_form(conn)
        for provider in providers():
            label = (t("Sign in with your institution ({provider})", provider=provider) if provider
                     else t("Sign in with your institution"))
            if st.button(label, key=f"oidc_{provider or 'default'}"):
                st.login(provider) if provider else st.login()
    st.stop()


def _password_form(conn) -> None:
    st.caption(t("Sign in to see your courses."))
    with st.form("signin"):
        name = st.text_input(t("User name"), key="signin_name")
        password = st.text_input(t("Password"), type="password", key="signin_password")
        pressed = st.form_submit_button(t("Sign in"), type="primary")
    if pressed:
        try:
            _, token = accounts.sign_in(conn, name, password)
        except FairMarkError as e:
            _error(e)
            return
        _signed_in(conn, token)


def _first_admin(conn) -> None:
    st.info(t("Welcome. This database has no users yet: create the first admin account. The admin adds "
              "everyone else (Settings → Users, or `python -m core user add`)."))
    with st.form("first_admin"):
        name = st.text_input(t("User name"), key="first_name", placeholder=t("e.g. anna.berg"))
        display = st.text_input(t("Your name as shown"), key="first_display")
        password = st.text_input(tn("Password (at least {count} character)", "Password (at least {count} characters)",
                                    accounts.MIN_PASSWORD),
                                 type="password", key="first_password")
        again = st.text_input(t("Password again"), type="password", key="first_again")
        pressed = st.form_submit_button(t("Create the admin account"), type="primary")
    if pressed:
        if password != again:
            st.error(t("The two passwords differ."))
            return
        try:
            _, token = accounts.first_admin(conn, username=name, password=password, display_name=display)
        except FairMarkError as e:
            _error(e)
            return
        _signed_in(conn, token)


def _signed_in(conn, token: str) -> None:
    for key in ("signin_password", "first_password", "first_again"):
        st.session_state.pop(key, None)
    _hand_over(conn, token)
    st.rerun()


def _hand_over(conn, token: str) -> None:
    """This Streamlit session is signed in at once; the browser is sent to the route that puts
    the session in its cookie (a refresh, a new tab) and back to this page and its address."""
    st.session_state[TOKEN] = token
    st.session_state.pop("_signed_out", None)
    st.session_state[GO] = web.session_url(handoff.issue(conn, token), _here())


def _here() -> str:
    """This page's path and address (`?item=...`) as the browser shows it."""
    try:
        path = urlsplit(str(st.context.url or "")).path or "/"
    except (AttributeError, RuntimeError):
        path = "/"
    query = urlencode(st.query_params.to_dict())
    return path + (f"?{query}" if query else "")


def follow() -> None:
    """Send the browser to the route a sign-in or sign-out left (app.py's gate, every run until
    the browser has gone: a message of a run cut short by a rerun never reaches it). A full page
    load through Streamlit's own redirect message, the one st.login and st.logout send: the
    page sets window.location."""
    url = st.session_state.get(GO)
    if not url:
        return
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is not None:
        msg = ForwardMsg()
        msg.auth_redirect.url = url
        ctx.enqueue(msg)


def sign_out(actor: Actor) -> None:
    """The sidebar's Sign out (a button callback): end the server-side session, forget this
    browser session's state, and send the browser to /auth/signout, which clears the cookie
    (even if it never gets there, the cookie's token opens nothing any more). An institutional
    sign-in then leaves st.login's too (its logout route)."""
    conn = db.connect(load_settings().db_path)
    try:
        accounts.sign_out(conn, st.session_state.get(TOKEN))
    finally:
        conn.close()
    for key in list(st.session_state):
        st.session_state.pop(key, None)
    st.session_state["_signed_out"] = True
    st.session_state[GO] = web.signout_url(STREAMLIT_LOGOUT if actor.via == "oidc" else "/")
