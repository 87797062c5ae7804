"""The LTI routes, as Starlette handlers (app.py passes them to st.App with core.web's):
/lti/login (GET and POST, the OIDC third-party-initiated login), /lti/launch (POST, the
id_token form post) and /lti/jwks (GET, the tool's public keys). Thin: parse the request, call
core.lti, answer. Every page they show is built here from escaped text, with a Content Security
Policy that allows no script but the one auto-submitting form of the cookie step.

Frames and cookies: the OIDC state cookie is HttpOnly and SameSite=Lax (Secure over HTTPS).
The platform's form post of the id_token is a cross-site POST, on which browsers do not send a
Lax cookie, so a launch that arrives without it is answered once with a form that posts the same
id_token and state back to /lti/launch from FairMark's own page (a same-site post: the cookie
comes along). Inside an LMS frame (Canvas and Moodle frame tools by default) no Lax cookie is
ever sent, so a login asked for from inside a frame (Sec-Fetch-Dest: iframe) answers with a
button that opens FairMark in a new window; the admin's guide says how to make the LMS open it
in a new window in the first place."""
from __future__ import annotations

import base64
import hashlib
import html
import logging
from urllib.parse import parse_qsl

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

import db
from core.errors import ConfigError, FairMarkError, LaunchRefused
from core.language import DEFAULT
from core.language.interface import N_, Interface, Message, from_browser
from core.lti import keys, launch, people, roster, verify
from core.lti.verify import MAX_TOKEN_BYTES
from core.settings import load_settings
from core.accounts import access
from core.web import session
from core.web import student as student_web
from db import users as users_db

log = logging.getLogger(__name__)

MAX_BODY = MAX_TOKEN_BYTES + 16 * 1024
SESSION_COOKIE = session.COOKIE
_SUBMIT = "document.forms[0].submit();"
_SUBMIT_HASH = base64.b64encode(hashlib.sha256(_SUBMIT.encode()).digest()).decode()
NO_SCRIPT = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors *"
NOTHING_YET = "Nothing for you in FairMark yet"
REFUSED = N_("FairMark could not open this launch")
STUDENT_TEXT = ("Your teacher has not released anything for you in FairMark yet. When they have, open FairMark "
                "from this assignment in the LMS again to see your feedback.")


def _page(title: str, text: str, *, status: int = 200, form: str = "", script: bool = False,
          language: str = DEFAULT) -> HTMLResponse:
    policy = NO_SCRIPT + (f"; script-src 'sha256-{_SUBMIT_HASH}'" if script else "")
    body = (f"<!doctype html><html lang=\"{html.escape(language)}\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width"
            f"\"><title>{html.escape(title)}</title></head><body style=\"font-family: sans-serif; max-width: 40em; "
            f"margin: 3em auto\"><h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>{form}"
            + (f"<script>{_SUBMIT}</script>" if script else "") + "</body></html>")
    return HTMLResponse(body, status_code=status, headers={"Content-Security-Policy": policy,
                                                           "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})


def _refused(e: Exception, status: int = 400, *, language: str = DEFAULT) -> HTMLResponse:
    """The refusal's page, in `language` when core made its message a Message (the log keeps the
    English); a refusal in plain English gets an English page, not a translated title over English
    text (every refusal of core.lti is a Message now: tests/i18n_scan.py refusals())."""
    said = Interface(language if isinstance(e.args[0] if len(e.args) == 1 else None, Message) else DEFAULT)
    return _page(said(REFUSED), said.said(e), status=status, language=said.language)


def _language(request: Request, form: dict | None = None) -> str:
    """The language of a refusal's page: the launch's locale (its id_token's claims, read without
    checking its signature: they only choose the words), else the browser's, else English."""
    try:
        claims = verify.unverified(form.get("id_token"))[1] if form and form.get("id_token") else {}
    except LaunchRefused:
        claims = {}
    return people.language_of(claims) or from_browser(None, request.headers.get("accept-language")) or DEFAULT


def _hidden_form(action: str, fields: dict, *, target: str = "", button: str = "Continue") -> str:
    inputs = "".join(f"<input type=\"hidden\" name=\"{html.escape(k)}\" value=\"{html.escape(str(v))}\">"
                     for k, v in fields.items() if isinstance(v, str))
    target = f" target=\"{target}\" rel=\"opener\"" if target else ""
    return (f"<form method=\"post\" action=\"{html.escape(action)}\"{target}>{inputs}"
            f"<button type=\"submit\">{html.escape(button)}</button></form>")


def base_url(request: Request) -> str:
    """Where the LMS reaches FairMark: FAIRMARK_PUBLIC_URL, else this request's own address."""
    return load_settings().public_url or str(request.base_url).rstrip("/")


def _connect():
    return db.connect(load_settings().db_path)


async def _fields(request: Request) -> dict | None:
    """The fields of an HTML form post (application/x-www-form-urlencoded, what LMSs send), or
    None when the body is larger than any launch (counted as it arrives: a chunked body has no
    length to trust). Another kind of body gives no fields (each missing one is then named)."""
    if int(request.headers.get("content-length") or 0) > MAX_BODY:
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return None
    if not request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        return {}
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=50)
    except (UnicodeDecodeError, ValueError):
        return {}
    return dict(pairs)


async def lti_login(request: Request) -> Response:
    params = dict(request.query_params) if request.method == "GET" else await _fields(request)
    if params is None:
        return _refused(LaunchRefused(Message("The LMS's login request is too large; it was refused unread.")), 413,
                        language=_language(request))
    if request.headers.get("sec-fetch-dest") == "iframe":
        return _page("FairMark opens in its own window",
                     "Your LMS shows FairMark inside its page, where browsers keep FairMark's sign-in from working. "
                     "Open it in a new window:", form=_hidden_form("/lti/login", params, target="_blank",
                                                                  button="Open FairMark in a new window"))

    def work():
        conn = _connect()
        try:
            return launch.login(conn, params, browser_token=request.cookies.get(launch.STATE_COOKIE),
                                base_url=base_url(request))
        finally:
            conn.close()

    try:
        found = await run_in_threadpool(work)
    except LaunchRefused as e:
        return _refused(e, language=_language(request))
    response = RedirectResponse(found["redirect"], status_code=302)
    response.set_cookie(launch.STATE_COOKIE, found["browser_token"], max_age=launch.STATE_LIFE_S, path="/lti/",
                        httponly=True, samesite="lax", secure=session.https(request))
    return response


async def lti_launch(request: Request) -> Response:
    form = await _fields(request)
    if form is None:
        return _refused(LaunchRefused(Message("The launch is larger than {size} KB, which no LMS sends; it was "
                                              "refused unread. Check the custom parameters the LMS adds to FairMark.",
                                              size=MAX_BODY // 1024)), 413, language=_language(request))
    cookie = request.cookies.get(launch.STATE_COOKIE)
    if cookie is None and form.get("fm_repost") != "1":
        # The platform's cross-site post carried no Lax cookie: post the same fields again from here.
        fields = {k: form.get(k) for k in ("id_token", "state", "error", "error_description")}
        return _page("Opening FairMark…", "One moment: FairMark is checking your launch.",
                     form=_hidden_form("/lti/launch", {**fields, "fm_repost": "1"}), script=True)

    def work():
        conn = _connect()
        try:
            result = launch.launch(conn, form, browser_token=cookie)
            if result["kind"] == "student":
                if result.get("student_id") is None:   # the roster does not know them (yet)
                    return _page(NOTHING_YET, STUDENT_TEXT)
                me = access.student(result["student_id"], result["course_id"], assignment_id=result["assignment_id"],
                                    via="lti")
                return student_web.start_learner(conn, me, request)
            if result["role"] == "instructor":
                _sync_roster(conn, result)
            where = f"/?course={result['course_id']}" + (
                f"&assignment={result['assignment_id']}" if result["assignment_id"] else "")
            return session.start_response(conn, result["user_id"], where, request, via="lti")
        finally:
            conn.close()

    try:
        return await run_in_threadpool(work)
    except LaunchRefused as e:
        return _refused(e, language=_language(request, form))
    except ConfigError as e:
        return _refused(e, 500, language=_language(request, form))


def _sync_roster(conn, result: dict) -> None:
    """An instructor's launch reads the LMS course's roster: after the launch's transaction, never
    inside it (an HTTP call under the write lock), and a roster that cannot be read is logged while
    the launch goes on (`lti roster` or the next launch reads it)."""
    try:
        roster.sync(conn, result["course_id"], actor=users_db.actor_for(conn, result["user_id"], via="lti"))
    except FairMarkError as e:
        log.warning("LTI launch: the LMS roster of course %s was not read: %s", result["course_id"], e)
    except Exception:  # noqa: BLE001 - e.g. a malformed roster URL in the LMS's claim: the launch still goes on
        log.exception("LTI launch: the LMS roster of course %s could not be read", result["course_id"])


async def lti_jwks(request: Request) -> Response:
    def work():
        conn = _connect()
        try:
            return keys.jwks(conn)
        finally:
            conn.close()

    try:
        return JSONResponse(await run_in_threadpool(work), headers={"Cache-Control": "max-age=300"})
    except ConfigError as e:
        return JSONResponse({"error": str(e)}, status_code=503)


ROUTES: list[Route] = [
    Route("/lti/login", lti_login, methods=["GET", "POST"]),
    Route("/lti/launch", lti_launch, methods=["POST"]),
    Route("/lti/jwks", lti_jwks, methods=["GET"]),
]
