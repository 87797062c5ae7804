"""The session cookie, set and cleared by server routes only (issue 25).

The cookie holds the session's random token (core.accounts.identity keeps only its hash). It is
HttpOnly (no script in the page can read it), SameSite=Lax (sent when a link from elsewhere
opens FairMark, never with another site's form posts or background requests), Secure when the
browser came over HTTPS, Path=/, and lasts `session_max_hours` (the server ends the session
earlier when idle).

- GET /auth/session?code=...&next=/path: the page's sign-in left a one-time code
  (core.accounts.handoff); a good code sets the cookie and redirects to `next`; a missing,
  unknown, used or expired code, or a `next` that is not a path of this site, sets nothing and
  says why.
- GET /auth/signout?next=/path: ends the session the cookie names and clears the cookie.
- Both come from FairMark's own page: a browser that says another site sent it (Sec-Fetch-Site)
  is refused, so a link elsewhere cannot sign a browser in as someone else or sign it out.
- start_response(conn, user_id, redirect_to, request): a sign-in another route has verified
  (an LTI launch) opens its session here and gets the same cookie.
"""
from __future__ import annotations

import html
from urllib.parse import urlencode, urlsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

import db
from core.accounts import handoff
from core.accounts import identity as accounts
from core.errors import NotSignedIn
from core.settings import load_settings
from db import users as users_db

COOKIE = "fairmark_session"
SESSION_PATH = "/auth/session"
SIGNOUT_PATH = "/auth/signout"
MAX_NEXT = 2048
NOT_A_PATH = ("This sign-in link sends you to another site or to an address that is not a page of FairMark, "
              "so it was refused: sign in again from FairMark's own page.")


def safe_next(value: str | None) -> str | None:
    """`next` as a path of this site ("/" when absent), or None when it could leave it: another
    host (`https://x`, `//x`, `/\\x`), a scheme (`javascript:`), control characters."""
    if value is None or value == "":
        return "/"
    if (len(value) > MAX_NEXT or not value.startswith("/") or value.startswith("//") or "\\" in value
            or any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value)):
        return None
    parts = urlsplit(value)
    return value if not parts.scheme and not parts.netloc else None


FROM_ELSEWHERE = ("This sign-in link was opened from another site, so it was refused (a link someone sent "
                  "could sign you in as them): sign in again from FairMark's own page.")


def from_another_site(request: Request) -> bool:
    """The browser says a page of another site sent it here (Sec-Fetch-Site). The page's own
    hand-over and Sign out are same-origin; a browser that sends no such header is believed."""
    return request.headers.get("sec-fetch-site") in ("cross-site", "same-site")


def session_url(code: str, next_path: str) -> str:
    """Where the page sends the browser after a sign-in (the route that sets the cookie)."""
    return f"{SESSION_PATH}?{urlencode({'code': code, 'next': next_path})}"


def signout_url(next_path: str = "/") -> str:
    return f"{SIGNOUT_PATH}?{urlencode({'next': next_path})}"


def https(request: Request) -> bool:
    """Did the browser come over HTTPS: directly (uvicorn sets the scheme from X-Forwarded-Proto
    when the proxy is trusted, docs/deploy.md), or behind a proxy FAIRMARK_PUBLIC_URL names as
    https:// (a proxy on another machine whose header the server does not believe)."""
    return request.url.scheme == "https" or (load_settings().public_url or "").startswith("https://")


def _cookie_args(request: Request) -> dict:
    return {"path": "/", "httponly": True, "samesite": "lax", "secure": https(request)}


def _private(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"  # the code is in this address
    return response


def with_cookie(response: Response, token: str, request: Request) -> Response:
    response.set_cookie(COOKIE, token, max_age=int(load_settings().session_max_hours * 3600), **_cookie_args(request))
    return _private(response)


def _redirect(to: str) -> RedirectResponse:
    return RedirectResponse(to, status_code=303)  # 303: the next request is a GET, whatever this one was


def refused(message: str, status: int = 400) -> HTMLResponse:
    """A plain page that says why, with the way back; it sets no cookie."""
    body = (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>FairMark: not signed in</title>"
            f"</head><body><h1>FairMark</h1><p>{html.escape(message)}</p><p><a href='/'>Back to the sign-in</a>"
            f"</p></body></html>")
    return _private(HTMLResponse(body, status_code=status))


def start_response(conn, user_id: int, redirect_to: str, request: Request, *, via: str = "lti") -> Response:
    """Sign a user in whom another check has verified (an LTI launch): a new session, the
    cookie, a redirect to `redirect_to` (a path of this site). A deactivated account, or a
    `redirect_to` elsewhere, gets a refusal page and no session."""
    to = safe_next(redirect_to)
    if to is None:
        return refused(NOT_A_PATH)
    if not users_db.get(conn, user_id)["active"]:
        return refused("This account is deactivated; ask an admin.", 403)
    with db.write_transaction(conn):
        token = accounts.open_session(conn, user_id, via)
    return with_cookie(_redirect(to), token, request)


def exchange(request: Request) -> Response:
    """GET /auth/session: a one-time code for the cookie, then back to `next`."""
    to = safe_next(request.query_params.get("next"))
    if to is None:
        return refused(NOT_A_PATH)
    if from_another_site(request):
        return refused(FROM_ELSEWHERE)
    conn = db.connect(load_settings().db_path)
    try:
        token = handoff.redeem(conn, request.query_params.get("code"))
    except NotSignedIn as e:
        return refused(str(e))
    finally:
        conn.close()
    return with_cookie(_redirect(to), token, request)


def signout(request: Request) -> Response:
    """GET /auth/signout: end the cookie's session (the page has ended it already when its
    Sign out was clicked) and clear the cookie."""
    if from_another_site(request):
        return _private(_redirect("/"))   # a link elsewhere does not sign anyone out
    to = safe_next(request.query_params.get("next")) or "/"
    conn = db.connect(load_settings().db_path)
    try:
        accounts.sign_out(conn, request.cookies.get(COOKIE))
    finally:
        conn.close()
    response = _redirect(to)
    response.delete_cookie(COOKIE, **_cookie_args(request))
    return _private(response)


ROUTES = [Route(SESSION_PATH, exchange, methods=["GET"]), Route(SIGNOUT_PATH, signout, methods=["GET"])]
