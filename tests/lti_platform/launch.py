"""The test platform's launch side: its OIDC authorization endpoint and its id_tokens.

`auth` answers FairMark's authentication request the way an LMS does: it checks the request
(client id, redirect URI, form_post, openid scope, a state and a nonce) and answers with an
auto-submitting form that posts a signed id_token and the state to the redirect URI. What the
id_token says is `Platform.launches[lti_message_hint]`: the claims of the launch a test set up."""
from __future__ import annotations

import html
import time
import uuid

from joserfc import jwt
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
LIS = "http://purl.imsglobal.org/vocab/lis/v2/"
INSTRUCTOR = LIS + "membership#Instructor"
LEARNER = LIS + "membership#Learner"
TA = LIS + "membership/Instructor#TeachingAssistant"
ADMINISTRATOR = LIS + "institution/person#Administrator"


def launch_claims(platform, *, sub: str = "user-1", roles=(INSTRUCTOR,), name: str = "Ines Instructor",
                  context_id: str = "ctx-1", context_title: str = "Biology 101", link_id: str = "link-1",
                  link_title: str = "Week 1 reflection", lineitem: str | None = None, **extra) -> dict:
    """The claims of a resource link launch (without iss/aud/nonce/times: `mint` adds them)."""
    claims = {
        "sub": sub, "name": name, "email": f"{sub}@lms.example",
        CLAIM + "message_type": "LtiResourceLinkRequest", CLAIM + "version": "1.3.0",
        CLAIM + "deployment_id": platform.deployment_id, CLAIM + "target_link_uri": "http://fairmark.test/lti/launch",
        CLAIM + "roles": list(roles),
        CLAIM + "context": {"id": context_id, "title": context_title, "label": context_title[:10]},
        CLAIM + "resource_link": {"id": link_id, "title": link_title},
        CLAIM + "lis": {"person_sourcedid": f"sis-{sub}"},
        "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": {
            "context_memberships_url": f"{platform.url}/nrps/{context_id}", "service_versions": ["2.0"]},
        "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
            "scope": ["https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
                      "https://purl.imsglobal.org/spec/lti-ags/scope/score"],
            "lineitems": f"{platform.url}/ags/{context_id}/lineitems",
            **({"lineitem": lineitem} if lineitem else {})},
    }
    claims.update(extra)
    return claims


def mint(platform, claims: dict, *, nonce: str, key=None, kid: str | None = None, aud=None, iss: str | None = None,
         exp: float | None = None, iat: float | None = None, alg: str = "RS256") -> str:
    """A signed id_token of `claims` for `nonce` (the platform's own key unless `key` is given)."""
    now = int(time.time())
    body = {"iss": iss or platform.issuer, "aud": aud if aud is not None else platform.client_id,
            "iat": int(iat if iat is not None else now), "exp": int(exp if exp is not None else now + 300),
            "nonce": nonce, "jti": uuid.uuid4().hex, **claims}
    key = key or platform.key
    return jwt.encode({"alg": alg, "kid": kid or key.kid, "typ": "JWT"}, body, key)


async def auth(request: Request) -> Response:
    platform = request.app.state.platform
    q = dict(request.query_params) if request.method == "GET" else dict(await request.form())
    platform.auth_requests.append(q)
    wrong = [k for k, want in (("scope", "openid"), ("response_type", "id_token"), ("response_mode", "form_post"),
                               ("client_id", platform.client_id), ("prompt", "none")) if q.get(k) != want]
    if wrong or not q.get("state") or not q.get("nonce") or not q.get("redirect_uri") or not q.get("login_hint"):
        return JSONResponse({"error": "invalid_request", "wrong": wrong}, status_code=400)
    claims = platform.launches[q.get("lti_message_hint") or "default"]
    token = mint(platform, claims, nonce=q["nonce"])
    fields = {"id_token": token, "state": q["state"]}
    inputs = "".join(f'<input type="hidden" name="{k}" value="{html.escape(v)}">' for k, v in fields.items())
    return HTMLResponse(f'<!doctype html><html><body><form method="post" action="{html.escape(q["redirect_uri"])}">'
                        f'{inputs}<noscript><button>Continue</button></noscript></form>'
                        f'<script>document.forms[0].submit()</script></body></html>')


async def tool_launch(request: Request) -> Response:
    """What the LMS's page does when someone opens FairMark from a course: a form that posts the
    third-party login to the tool (`Platform.tool_login_url`)."""
    platform = request.app.state.platform
    fields = platform.login_params(request.path_params["hint"])
    inputs = "".join(f'<input type="hidden" name="{k}" value="{html.escape(v)}">' for k, v in fields.items())
    return HTMLResponse(f'<!doctype html><html><body><form method="post" action="{html.escape(platform.tool_login_url)}"'
                        f'>{inputs}</form><script>document.forms[0].submit()</script></body></html>')


async def jwks(request: Request) -> Response:
    platform = request.app.state.platform
    platform.jwks_fetches += 1
    return JSONResponse({"keys": [k.as_dict(private=False) | {"use": "sig", "alg": "RS256"} for k in platform.keys]})
