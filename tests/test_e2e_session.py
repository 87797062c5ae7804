"""The session cookie in a real browser and FairMark's routes on a real server (issue 25):
`streamlit run app.py` (app.py's st.App) serves core.web's routes beside the app; a sign-in
through the real form leaves the session token where the browser keeps it but no script in the
page can read it (HttpOnly); a refresh keeps the user signed in; Sign out ends the session and
the browser drops the cookie."""
from __future__ import annotations

import urllib.error
import urllib.request

import pytest

import db as dbmod
from e2e_support import COOKIE, MENU, PASSWORD, USER, idle, load, new_page, session_cookie, sign_in, streamlit_server

pytestmark = pytest.mark.slow   # every test here talks to a real `streamlit run` (docs/testing.md)

# (path, status, words in the answer) GET from the running server: each route app.py serves.
SERVED = [
    ("/auth/session", 400, "This sign-in link has no code"),
    ("/auth/session?code=made-up&next=/", 400, "is not valid"),
    ("/auth/session?code=x&next=https://evil.example/", 400, "another site"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("e2e_session")
    path = tmp / "fairmark.db"
    with streamlit_server(path, tmp) as url:
        yield {"url": url, "path": path}


def _get(url: str) -> tuple[int, str, dict]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), dict(e.headers)


@pytest.mark.parametrize("path,status,words", SERVED)
def test_streamlit_run_app_py_serves_fairmarks_routes(server, path, status, words):
    got, body, headers = _get(server["url"] + path)
    assert (got, words in body) == (status, True), body[:300]
    assert "set-cookie" not in {k.lower() for k in headers}
    assert _get(server["url"] + "/_stcore/health")[0] == 200       # Streamlit's own routes are still there


def _open_sessions(path) -> int:
    conn = dbmod.connect(path)
    try:
        return conn.execute("SELECT COUNT(*) FROM sessions WHERE ended_at IS NULL").fetchone()[0]
    finally:
        conn.close()


def test_the_session_cookie_is_httponly_survives_a_refresh_and_sign_out_ends_it(server, browser):
    from playwright.sync_api import expect

    page = new_page(browser)
    sign_in(page, f"{server['url']}/upload")
    assert page.url.endswith("/upload")                             # back on the page it signed in on
    cookie = session_cookie(page.context)
    assert cookie["httpOnly"] is True and cookie["sameSite"] == "Lax" and cookie["path"] == "/"
    assert cookie["secure"] is False                                # plain http here; Secure over HTTPS
    assert COOKIE not in page.evaluate("() => document.cookie")      # no script in the page can read it
    assert cookie["value"] not in page.evaluate("() => document.cookie + JSON.stringify(localStorage)")
    assert _open_sessions(server["path"]) == 1
    load(page, None)                                                # F5: a new Streamlit session, the cookie
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_text(f"Signed in as {USER} (admin)")).to_be_visible()
    sidebar.get_by_role("button", name="Sign out").click()
    page.get_by_role("button", name="Sign in").wait_for()
    for _ in range(50):                                             # the browser goes through /auth/signout
        if session_cookie(page.context) is None:
            break
        page.wait_for_timeout(100)
    assert session_cookie(page.context) is None
    assert _open_sessions(server["path"]) == 0
    page.reload()
    page.get_by_role("button", name="Sign in").wait_for()
    idle(page)
    assert page.locator(MENU).count() == 0
    page.context.close()


def test_a_copied_cookie_stops_working_after_sign_out(server, browser):
    """The token the cookie held is ended server-side, not only forgotten by this browser."""
    from playwright.sync_api import expect

    page = new_page(browser, signed_in_at=server["url"])
    stolen = session_cookie(page.context)
    page.locator('[data-testid="stSidebar"]').get_by_role("button", name="Sign out").click()
    page.get_by_role("button", name="Sign in").wait_for()
    page.context.close()
    other = browser.new_context()
    other.add_cookies([{k: stolen[k] for k in ("name", "value", "domain", "path")}])
    page = other.new_page()
    page.goto(server["url"])
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    idle(page)
    assert page.locator(MENU).count() == 0
    other.close()


def test_behind_an_https_proxy_the_cookie_is_secure(server):
    """nginx on this machine says X-Forwarded-Proto: https (docs/deploy.md); the server that
    `streamlit run` starts believes a proxy on the loopback address, so the cookie is Secure."""
    from core.accounts import handoff
    from core.accounts import identity as accounts

    conn = dbmod.connect(server["path"])
    try:
        _, token = accounts.sign_in(conn, USER, PASSWORD)
        code = handoff.issue(conn, token)
    finally:
        conn.close()

    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None                                              # read the 303 itself

    request = urllib.request.Request(f"{server['url']}/auth/session?code={code}&next=/review",
                                     headers={"X-Forwarded-Proto": "https"})
    with pytest.raises(urllib.error.HTTPError) as answer:
        urllib.request.build_opener(Stay).open(request, timeout=30)
    assert answer.value.code == 303 and answer.value.headers["Location"] == "/review"
    [cookie] = answer.value.headers.get_all("Set-Cookie")
    attrs = [a.strip().lower() for a in cookie.split(";")]
    assert cookie.startswith(f"{COOKIE}=") and "secure" in attrs and "httponly" in attrs and "samesite=lax" in attrs
