"""GET /s/<token>: a student's private link, exchanged for the student cookie.

A live link (core.students.links.open_link) gives the browser a fresh student session in the
`fairmark_student` cookie (HttpOnly, SameSite=Lax, Path=/, Secure over HTTPS, lasting as long
as the session) and a 303 to the student page at `/`, so the token leaves the address bar; the
answer says `Referrer-Policy: no-referrer` and `Cache-Control: no-store`, so the address with
the token reaches no other site and no cache. A revoked or expired link gets a plain page that
says so and what to do; an unknown one a plain page that tells nothing of what exists; too many
failed tries from one address a page that says how long to wait (429, Retry-After).

Unlike the sign-in's hand-over (core.web.session), a link is opened from other sites (an
e-mail, the LMS): a cross-site GET is expected and not refused. It cannot sign anybody in as
someone else in a harmful way: the cookie opens only the link's own student's released work.

`start_learner(conn, actor, request)` gives a Learner launch (core.lti.web) the same cookie.
"""
from __future__ import annotations

import html

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

import db
from core.language import DEFAULT
from core.language.interface import N_, Interface, from_browser
from core.settings import load_settings
from core.students import links, sessions
from core.web.session import https

COOKIE = sessions.COOKIE
PAGE = "/"
STATUS = {"unknown": 404, "revoked": 410, "expired": 410, "too_many": 429}
TITLES = {"unknown": N_("This link does not open anything"), "revoked": N_("This link was replaced"),
          "expired": N_("This link has expired"), "too_many": N_("Too many tries")}


def _private(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"   # the token is in this address
    return response


def plain_page(title: str, text: str, status: int = 200, *, language: str = DEFAULT) -> HTMLResponse:
    """A page for a student: a title and a sentence, phone-sized, no script, no link elsewhere."""
    body = (f"<!doctype html><html lang='{html.escape(language)}'><head><meta charset='utf-8'><meta name='viewport' "
            f"content='width=device-width, initial-scale=1'><title>FairMark: {html.escape(title)}</title></head>"
            f"<body style='font-family: sans-serif; max-width: 36em; margin: 2em auto; padding: 0 1em'>"
            f"<h1>{html.escape(title)}</h1><p>{html.escape(text)}</p></body></html>")
    response = HTMLResponse(body, status_code=status,
                            headers={"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"})
    return _private(response)


def with_student_cookie(response: Response, token: str, expires, request: Request) -> Response:
    from datetime import datetime, timezone

    max_age = max(0, int((expires - datetime.now(timezone.utc)).total_seconds()))
    response.set_cookie(COOKIE, token, max_age=max_age, path="/", httponly=True, samesite="lax",
                        secure=https(request))
    return _private(response)


def _client(request: Request) -> str:
    """The address failed tries are counted by (uvicorn gives the proxy's client address when
    the proxy is trusted, docs/deploy.md)."""
    return request.client.host if request.client else "unknown"


async def open_link(request: Request) -> Response:
    token = request.path_params.get("token", "")
    client = _client(request)

    def work():
        conn = db.connect(load_settings().db_path)
        try:
            return links.open_link(conn, token, client=client)
        finally:
            conn.close()

    try:
        opened = await run_in_threadpool(work)
    except links.LinkRefused as e:
        # In the browser's language (a refused link names no course to take it from), else English.
        said = Interface(from_browser(None, request.headers.get("accept-language")) or DEFAULT)
        response = plain_page(said(TITLES[e.kind]), said.said(e), STATUS[e.kind], language=said.language)
        if e.kind == "too_many":
            response.headers["Retry-After"] = str(e.minutes * 60)
        return response
    return with_student_cookie(RedirectResponse(PAGE, status_code=303), opened.token, opened.expires, request)


def start_learner(conn, actor, request: Request) -> Response:
    """A Learner launch core.lti verified, for a student FairMark knows: the student cookie (the
    launch's assignment, else the whole course) and the student page."""
    token, expires = sessions.open_for(conn, actor=actor)
    return with_student_cookie(RedirectResponse(PAGE, status_code=303), token, expires, request)


ROUTES = [Route(links.PATH + "{token}", open_link, methods=["GET"])]
