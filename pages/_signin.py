"""Sign-in (issue 13): the only thing a signed-out visitor sees, on every page.

The session lives server-side (core.accounts.identity); the browser keeps only its random token in a
cookie, set and deleted through extra-streamlit-components' CookieManager (Streamlit reads
cookies, st.context.cookies, but cannot set one) and read back with st.context.cookies when a
refresh or a deep link opens a new Streamlit session. Institutional sign-in is Streamlit's own
st.login (OpenID Connect, .streamlit/secrets.toml [auth]); its identity's e-mail is mapped to a
FairMark user by core.accounts.identity.oidc_actor.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import streamlit as st

import db
from core.accounts import identity as accounts
from core.accounts.access import Actor
from core.errors import FairMarkError
from core.settings import load_settings
from core.text import escape_markdown

COOKIE = "fairmark_session"
TOKEN = "_session_token"


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
    claims = _oidc_claims() if touch else None
    if claims is None:
        return None
    try:
        found = accounts.Claims.of(claims)
        opened = accounts.oidc_sign_in(conn, found, trust_email=trusts_email(found.provider))
    except FairMarkError as e:
        st.session_state["_signin_error"] = str(e)
        return None
    if opened is None:  # this institutional sign-in had its session (timed out or signed out)
        st.session_state["_delete_cookie"] = True
        st.logout()
        return None
    actor, token = opened
    st.session_state[TOKEN] = token
    st.session_state["_set_cookie"] = token
    st.session_state.pop("_signed_out", None)
    return actor


def _error(error) -> None:
    st.error(escape_markdown(str(error)))  # may quote what was typed


def form(conn) -> None:
    """The sign-in form (or, on a fresh database, the first admin's), then stop the page."""
    st.title("FairMark")
    error = st.session_state.pop("_signin_error", None)
    if error:
        _error(error)
    if accounts.first_visit_makes_admin(conn):
        _first_admin(conn)
    elif accounts.needs_first_admin(conn):
        st.info(accounts.FIRST_ADMIN_BY_COMMAND)
    else:
        _password_form(conn)
        for provider in providers():
            label = "Sign in with your institution" + (f" ({provider})" if provider else "")
            if st.button(label, key=f"oidc_{provider or 'default'}"):
                st.login(provider) if provider else st.login()
    st.stop()


def _password_form(conn) -> None:
    st.caption("Sign in to see your courses.")
    with st.form("signin"):
        name = st.text_input("User name", key="signin_name")
        password = st.text_input("Password", type="password", key="signin_password")
        pressed = st.form_submit_button("Sign in", type="primary")
    if pressed:
        try:
            _, token = accounts.sign_in(conn, name, password)
        except FairMarkError as e:
            _error(e)
            return
        _signed_in(token)


def _first_admin(conn) -> None:
    st.info("Welcome. This database has no users yet: create the first admin account. The admin adds "
            "everyone else (Settings → Users, or `python -m core user add`).")
    with st.form("first_admin"):
        name = st.text_input("User name", key="first_name", placeholder="e.g. anna.berg")
        display = st.text_input("Your name as shown", key="first_display")
        password = st.text_input(f"Password (at least {accounts.MIN_PASSWORD} characters)", type="password",
                                 key="first_password")
        again = st.text_input("Password again", type="password", key="first_again")
        pressed = st.form_submit_button("Create the admin account", type="primary")
    if pressed:
        if password != again:
            st.error("The two passwords differ.")
            return
        try:
            _, token = accounts.first_admin(conn, username=name, password=password, display_name=display)
        except FairMarkError as e:
            _error(e)
            return
        _signed_in(token)


def _signed_in(token: str) -> None:
    for key in ("signin_password", "first_password", "first_again"):
        st.session_state.pop(key, None)
    st.session_state[TOKEN] = token
    st.session_state["_set_cookie"] = token
    st.session_state.pop("_signed_out", None)
    st.rerun()


def _https() -> bool:
    """Whether the browser opened the app over HTTPS (then the cookie is Secure: never sent in clear)."""
    try:
        return str(st.context.url or "").lower().startswith("https://")
    except (AttributeError, RuntimeError):
        return False


def cookie_sync() -> None:
    """Set or delete the browser's cookie after a sign-in or sign-out. The component is drawn on
    every run until the browser reports the cookie as it should be: a run cut short by a rerun
    may remove it before its script has run."""
    token = st.session_state.get("_set_cookie")
    delete = st.session_state.get("_delete_cookie", False)
    if token is None and not delete:
        return
    import extra_streamlit_components as stx  # only while a cookie changes: its component is an iframe

    with st.sidebar:
        cookies = stx.CookieManager(key="fm_cookie_manager")
        now = dict(cookies.cookies or {})
        if token is not None:
            if now.get(COOKIE) == token:
                st.session_state.pop("_set_cookie", None)
            else:
                cookies.set(COOKIE, token, key="fm_cookie_set", same_site="strict", secure=_https() or None,
                            expires_at=datetime.now(timezone.utc) + timedelta(hours=load_settings().session_max_hours))
        elif COOKIE in now:
            cookies.delete(COOKIE, key="fm_cookie_delete")
        elif now:  # the browser answered and holds no session cookie any more
            st.session_state.pop("_delete_cookie", None)


def sign_out(actor: Actor) -> None:
    """The sidebar's Sign out (a button callback): end the server-side session, forget this
    browser session's state, and delete the cookie (even if that fails, its token opens nothing
    any more)."""
    accounts.sign_out(db.connect(load_settings().db_path), st.session_state.get(TOKEN))
    for key in list(st.session_state):
        st.session_state.pop(key, None)
    st.session_state["_signed_out"] = True
    st.session_state["_delete_cookie"] = True
    if actor.via == "oidc":
        st.logout()
