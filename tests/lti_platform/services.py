"""The LMS's side of LTI Advantage for the tests: an OAuth2 token endpoint that verifies the
tool's JWT client assertion against the tool's JWKS, Names and Role Provisioning Services
(memberships, paged with Link rel="next") and Assignment and Grade Services (line items and
scores, each post recorded).

`Services` holds the platform's state (`Platform.services`); `routes()` join the platform's
own routes on its one server (tests/lti_platform/__init__.py). What a test can make it do:
`fail_scores` (answer the next N score posts with 500), `fail_lineitems` (the next N line
item creations with 503), `slow_scores` (seconds to sleep first,
for a timeout), `refuse_tokens`, `on_memberships` (run while a roster request is being answered).
"""
from __future__ import annotations

import asyncio
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

NRPS_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
SCOPE = {"score": "https://purl.imsglobal.org/spec/lti-ags/scope/score",
         "lineitem": "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
         "nrps": "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"}
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"


@dataclass
class Services:
    client_id: str
    tool_jwks: Callable[[], dict]               # the tool's public keys (what /lti/jwks serves)
    base_url: str = ""                          # set once the server listens
    platform_id: int | None = None              # FairMark's id of the platform, once registered
    members: list[dict] = field(default_factory=list)
    page_size: int = 2
    lineitems: dict[str, dict] = field(default_factory=dict)   # id -> line item
    scores: list[dict] = field(default_factory=list)           # every score post received, in order
    lineitem_posts: int = 0
    token_requests: int = 0
    tokens: dict[str, set] = field(default_factory=dict)       # issued token -> scopes
    seen_jti: set = field(default_factory=set)
    fail_scores: int = 0
    fail_lineitems: int = 0
    slow_scores: float = 0.0
    refuse_tokens: bool = False
    on_memberships: Callable[[], None] | None = None   # called as a roster request arrives (in the server's thread)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def token_url(self) -> str:
        return f"{self.base_url}/token"

    def lineitems_url(self, context: str = "ctx-1") -> str:
        return f"{self.base_url}/ags/{context}/lineitems"

    def nrps_url(self, context: str = "ctx-1") -> str:
        return f"{self.base_url}/nrps/{context}"

    def add_lineitem(self, label: str = "Week 1", maximum: float = 12, context: str = "ctx-1") -> str:
        """A line item the platform made itself (a launch's `lineitem` claim); returns its URL."""
        ident = str(len(self.lineitems) + 1)
        url = f"{self.lineitems_url(context)}/{ident}"
        self.lineitems[ident] = {"id": url, "label": label, "scoreMaximum": maximum}
        return url

    def scores_for(self, user_id: str) -> list[dict]:
        return [s for s in self.scores if s["userId"] == user_id]


def routes(svc: Services) -> list[Route]:
    def bearer(request: Request, scope: str) -> Response | None:
        auth = request.headers.get("authorization", "")
        token = auth.removeprefix("Bearer ").strip()
        if token not in svc.tokens:
            return JSONResponse({"error": "invalid_token"}, status_code=401)
        if SCOPE[scope] not in svc.tokens[token]:
            return JSONResponse({"error": "insufficient_scope"}, status_code=403)
        return None

    async def token(request: Request) -> Response:
        form = await request.form()
        with svc.lock:
            svc.token_requests += 1
        if svc.refuse_tokens:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        if form.get("grant_type") != "client_credentials" or form.get("client_assertion_type") != \
                "urn:ietf:params:oauth:client-assertion-type:jwt-bearer":
            return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
        try:
            keys = KeySet.import_key_set(svc.tool_jwks())
            claims = jwt.decode(str(form.get("client_assertion", "")), keys, algorithms=["RS256"]).claims
        except (JoseError, ValueError) as e:
            return JSONResponse({"error": "invalid_client", "error_description": str(e)}, status_code=401)
        now = time.time()
        if not (claims.get("iss") == claims.get("sub") == svc.client_id and claims.get("aud") == svc.token_url
                and claims.get("exp", 0) > now and claims.get("jti") and claims["jti"] not in svc.seen_jti):
            return JSONResponse({"error": "invalid_client", "error_description": "bad claims"}, status_code=401)
        svc.seen_jti.add(claims["jti"])
        wanted = set(str(form.get("scope", "")).split())
        if not wanted or not wanted <= set(SCOPE.values()):
            return JSONResponse({"error": "invalid_scope"}, status_code=400)
        issued = f"tok-{len(svc.tokens) + 1}"
        svc.tokens[issued] = wanted
        return JSONResponse({"access_token": issued, "token_type": "Bearer", "expires_in": 3600,
                             "scope": " ".join(sorted(wanted))})

    async def memberships(request: Request) -> Response:
        if (refused := bearer(request, "nrps")) is not None:
            return refused
        if svc.on_memberships is not None:
            svc.on_memberships()
        page = int(request.query_params.get("page", "0"))
        chunk = svc.members[page * svc.page_size:(page + 1) * svc.page_size]
        headers = {}
        if (page + 1) * svc.page_size < len(svc.members):
            headers["Link"] = f'<{svc.nrps_url(request.path_params["context"])}?page={page + 1}>; rel="next"'
        body = {"id": str(request.url), "context": {"id": request.path_params["context"]}, "members": chunk}
        return Response(json.dumps(body), media_type=NRPS_TYPE, headers=headers)

    async def lineitems(request: Request) -> Response:
        context = request.path_params["context"]
        if request.method == "POST":
            if (refused := bearer(request, "lineitem")) is not None:
                return refused
            item = await request.json()
            with svc.lock:
                if svc.fail_lineitems > 0:
                    svc.fail_lineitems -= 1
                    return JSONResponse({"error": "server trouble"}, status_code=503)
                svc.lineitem_posts += 1
                ident = str(len(svc.lineitems) + 1)
                item["id"] = f"{svc.lineitems_url(context)}/{ident}"
                svc.lineitems[ident] = item
            return Response(json.dumps(item), status_code=201, media_type=LINEITEM_TYPE)
        if (refused := bearer(request, "lineitem")) is not None:
            return refused
        found = [i for i in svc.lineitems.values()
                 if request.query_params.get("resource_id") in (None, i.get("resourceId"))]
        return Response(json.dumps(found), media_type=LINEITEMS_TYPE)

    async def scores(request: Request) -> Response:
        if (refused := bearer(request, "score")) is not None:
            return refused
        if request.headers.get("content-type", "").split(";")[0] != SCORE_TYPE:
            return JSONResponse({"error": "wrong content type"}, status_code=415)
        if svc.slow_scores:            # answers too late for the tool, and records nothing
            await asyncio.sleep(svc.slow_scores)
            return JSONResponse({"error": "too slow"}, status_code=504)
        with svc.lock:
            if svc.fail_scores > 0:
                svc.fail_scores -= 1
                return JSONResponse({"error": "server trouble"}, status_code=500)
        ident = request.path_params["item"]
        if ident not in svc.lineitems:
            return JSONResponse({"error": "no such line item"}, status_code=404)
        body = await request.json()
        with svc.lock:
            svc.scores.append({**body, "lineitem": svc.lineitems[ident]["id"]})
        return Response(status_code=200)

    return [
        Route("/token", token, methods=["POST"]),
        Route("/nrps/{context}", memberships, methods=["GET"]),
        Route("/ags/{context}/lineitems", lineitems, methods=["GET", "POST"]),
        Route("/ags/{context}/lineitems/{item}/scores", scores, methods=["POST"]),
    ]
