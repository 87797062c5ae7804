"""The session cookie's routes over HTTP (issue 25; Starlette's TestClient on core.web.server.routes(),
the app.py list): a good one-time code sets exactly one HttpOnly, SameSite=Lax cookie and
redirects to a path of this site; a used, expired, wrong or missing code sets nothing and says
why; a `next` elsewhere is refused; sign-out ends the session and clears the cookie."""
from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

import core.web.server
import factories as f
from core.accounts import handoff
from core.accounts import identity as accounts
from core.web import session as web

COOKIE = "fairmark_session"


@pytest.fixture
def client(db_path):
    with TestClient(Starlette(routes=core.web.server.routes()), follow_redirects=False) as c:
        yield c


@pytest.fixture
def signed_in(conn):
    """A password sign-in in the page: its session token and the one-time code it left."""
    f.user(conn, "anna", "instructor")
    _, token = accounts.sign_in(conn, "anna", f.PASSWORD)
    return token, handoff.issue(conn, token)


def set_cookies(response) -> list[str]:
    """Every Set-Cookie header (of the TestClient's response, or of a Starlette Response)."""
    headers = response.headers
    return headers.get_list("set-cookie") if hasattr(headers, "get_list") else headers.getlist("set-cookie")


def test_a_good_code_sets_one_httponly_lax_cookie_and_redirects_to_the_path(client, conn, signed_in):
    page_token, code = signed_in
    r = client.get("/auth/session", params={"code": code, "next": "/review?item=5&course=2"})
    assert r.status_code == 303 and r.headers["location"] == "/review?item=5&course=2"
    [cookie] = set_cookies(r)
    attrs = [a.strip().lower() for a in cookie.split(";")]
    name, token = cookie.split(";")[0].split("=", 1)
    assert name == COOKIE and "httponly" in attrs and "samesite=lax" in attrs and "path=/" in attrs
    assert "secure" not in attrs                                   # plain http: a Secure cookie would not come back
    assert f"max-age={12 * 3600}" in attrs                          # session_max_hours (default 12)
    assert token != page_token and token != code
    assert accounts.resume(conn, token) == "anna"          # the cookie's token opens the session
    assert accounts.resume(conn, page_token) is None                 # the page's copy of the old one does not
    assert conn.execute("SELECT COUNT(*) FROM sessions WHERE ended_at IS NULL").fetchone()[0] == 1
    assert r.headers["cache-control"] == "no-store" and r.headers["referrer-policy"] == "no-referrer"


def test_over_https_the_cookie_is_secure(db_path, conn, signed_in):
    with TestClient(Starlette(routes=core.web.server.routes()), base_url="https://fairmark.example",
                    follow_redirects=False) as c:
        r = c.get("/auth/session", params={"code": signed_in[1], "next": "/"})
    assert r.status_code == 303
    assert "secure" in [a.strip().lower() for a in set_cookies(r)[0].split(";")]


def test_no_next_goes_home(client, signed_in):
    r = client.get("/auth/session", params={"code": signed_in[1]})
    assert r.status_code == 303 and r.headers["location"] == "/"


def _refused(r, words: str):
    assert r.status_code == 400, r.text
    assert set_cookies(r) == []
    assert words in r.text


def test_a_used_code_sets_nothing_and_says_so(client, conn, signed_in):
    assert client.get("/auth/session", params={"code": signed_in[1]}).status_code == 303
    _refused(client.get("/auth/session", params={"code": signed_in[1]}), "was used already")
    assert conn.execute("SELECT COUNT(*) FROM sessions WHERE ended_at IS NULL").fetchone()[0] == 1


def test_an_expired_code_sets_nothing_and_says_so(client, conn, signed_in):
    conn.execute("UPDATE signin_codes SET expires_at = '2000-01-01T00:00:00.000000Z'")
    conn.conn.commit()
    _refused(client.get("/auth/session", params={"code": signed_in[1]}), "expired")
    assert accounts.resume(conn, signed_in[0]) is not None          # the session itself is untouched
    assert conn.execute("SELECT used_at FROM signin_codes").fetchone()[0] is None


def test_a_wrong_or_missing_code_sets_nothing_and_says_so(client, signed_in):
    _refused(client.get("/auth/session", params={"code": signed_in[1] + "x"}), "not valid")
    _refused(client.get("/auth/session", params={"code": ""}), "has no code")
    _refused(client.get("/auth/session"), "has no code")


def test_the_code_of_an_ended_session_sets_nothing(client, conn, signed_in):
    accounts.sign_out(conn, signed_in[0])
    conn.conn.commit()
    _refused(client.get("/auth/session", params={"code": signed_in[1]}), "has ended")


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/x", "/\\evil.example", "http:/x",
                                    "javascript:alert(1)", "review", "/ok\r\nSet-Cookie: x=1", " /"])
def test_a_next_outside_this_site_is_refused_and_the_code_stays_unused(client, conn, signed_in, target):
    _refused(client.get("/auth/session", params={"code": signed_in[1], "next": target}), "another site")
    assert conn.execute("SELECT used_at FROM signin_codes").fetchone()[0] is None


def test_safe_next_keeps_paths_of_this_site():
    assert web.safe_next("/review?item=3") == "/review?item=3"
    assert web.safe_next(None) == "/" and web.safe_next("") == "/"
    assert web.safe_next("//x") is None and web.safe_next("/" + "a" * 3000) is None


def test_sign_out_ends_the_session_and_clears_the_cookie(client, conn, signed_in):
    r = client.get("/auth/session", params={"code": signed_in[1], "next": "/"})
    token = r.cookies[COOKIE]
    r = client.get("/auth/signout", params={"next": "/upload"})
    assert r.status_code == 303 and r.headers["location"] == "/upload"
    [cleared] = set_cookies(r)
    attrs = [a.strip().lower() for a in cleared.split(";")]
    assert cleared.startswith(f'{COOKIE}=""') or cleared.startswith(f"{COOKIE}=;")
    assert "max-age=0" in attrs and "httponly" in attrs and "path=/" in attrs
    assert accounts.resume(conn, token) is None
    assert conn.execute("SELECT COUNT(*) FROM sessions WHERE ended_at IS NULL").fetchone()[0] == 0


def test_sign_out_to_another_site_goes_home(client):
    r = client.get("/auth/signout", params={"next": "https://evil.example/"})
    assert r.status_code == 303 and r.headers["location"] == "/"


def test_start_response_opens_a_session_with_the_cookie(conn):
    from starlette.requests import Request

    uid = f.user(conn, "lena", "instructor").user_id
    request = Request({"type": "http", "scheme": "https", "server": ("fm.example", 443), "path": "/lti/launch",
                       "headers": [], "query_string": b""})
    r = web.start_response(conn, uid, "/review", request)
    assert r.status_code == 303 and r.headers["location"] == "/review"
    [cookie] = set_cookies(r)
    attrs = [a.strip().lower() for a in cookie.split(";")]
    assert "httponly" in attrs and "samesite=lax" in attrs and "secure" in attrs
    token = cookie.split(";")[0].split("=", 1)[1]
    assert accounts.resume(conn, token) == "lena"
    assert set_cookies(web.start_response(conn, uid, "https://evil.example", request)) == []


def test_behind_a_proxy_an_https_public_url_makes_the_session_cookie_secure(client, conn, signed_in, monkeypatch):
    # The proxy speaks plain HTTP to the server (no trusted X-Forwarded-Proto): FAIRMARK_PUBLIC_URL's
    # https:// says where browsers are, as it does for the LTI launch's own cookie.
    monkeypatch.setenv("FAIRMARK_PUBLIC_URL", "https://fairmark.uni.example")
    r = client.get("/auth/session", params={"code": signed_in[1], "next": "/"})
    assert r.status_code == 303
    assert "secure" in [a.strip().lower() for a in set_cookies(r)[0].split(";")]
    r = client.get("/auth/signout")
    assert "secure" in [a.strip().lower() for a in set_cookies(r)[0].split(";")]


def test_a_sign_in_link_opened_from_another_site_is_refused_and_the_code_stays_unused(client, conn, signed_in):
    # Login CSRF: someone's own code, sent to another person as a link on a web page or in web mail,
    # would sign that person's browser in as them. The page's own hand-over is same-origin.
    _refused(client.get("/auth/session", params={"code": signed_in[1]}, headers={"Sec-Fetch-Site": "cross-site"}),
             "another site")
    assert conn.execute("SELECT used_at FROM signin_codes").fetchone()[0] is None
    r = client.get("/auth/session", params={"code": signed_in[1]}, headers={"Sec-Fetch-Site": "same-origin"})
    assert r.status_code == 303 and len(set_cookies(r)) == 1


def test_a_sign_out_link_from_another_site_ends_nothing(client, conn, signed_in):
    token = client.get("/auth/session", params={"code": signed_in[1], "next": "/"}).cookies[COOKIE]
    r = client.get("/auth/signout", params={"next": "/upload"}, headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 303 and r.headers["location"] == "/" and set_cookies(r) == []
    assert accounts.resume(conn, token) == "anna"
    r = client.get("/auth/signout", headers={"Sec-Fetch-Site": "same-origin"})
    assert accounts.resume(conn, token) is None
