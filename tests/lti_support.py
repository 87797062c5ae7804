"""Helpers of the LTI tests: FairMark's routes under Starlette's TestClient, launches through
the test platform (tests/lti_platform) over real HTTP, the row counts a refusal must leave, and
the LMS's side of the services (NRPS members; a course linked by a real launch, whose platform's
token endpoint verifies FairMark's assertions against FairMark's own key set)."""
from __future__ import annotations

import contextlib
import re
import time
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

import factories as f
import db
from core.lti import keys
from core.lti import launch as lti_launch
from core.lti import tokens
from core.lti.platform_keys import CACHE
from core.lti.web import ROUTES, SESSION_COOKIE
from lti_platform import launch_claims, mint, serve
from lti_platform.launch import INSTRUCTOR
from lti_platform.services import SCOPE

SECRET = "a test secret that is long enough to seal keys 123"
TABLES = ("lti_platforms", "lti_deployments", "lti_keys", "lti_states", "lti_nonces", "lti_contexts", "lti_users",
          "lti_links", "users", "sessions", "grants", "courses", "assignments", "students", "audit_log", "rubrics")


@pytest.fixture
def lti_env(monkeypatch):
    monkeypatch.setenv("FAIRMARK_LTI_KEY_SECRET", SECRET)
    CACHE.clear()
    tokens.forget()
    yield
    CACHE.clear()
    tokens.forget()


@pytest.fixture
def platform(conn, db_path, lti_env):
    """The test platform, registered by an admin; its token endpoint reads FairMark's keys."""
    with serve() as p:
        p.register(conn, f.actor("admin"))
        p.launches["default"] = launch_claims(p)
        p.services.tool_jwks = tool_jwks(db_path)
        yield p


def tool_jwks(db_path):
    """FairMark's public keys as /lti/jwks serves them (core.lti.keys.jwks of that database)."""
    def read() -> dict:
        conn = db.connect(db_path)
        try:
            return keys.jwks(conn)
        finally:
            conn.close()
    return read


@pytest.fixture
def client(lti_env):
    with TestClient(Starlette(routes=ROUTES), follow_redirects=False) as c:
        yield c


def counts(conn) -> dict:
    return {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}


def login(client, platform, hint: str = "default", **extra) -> dict:
    """FairMark's /lti/login as the LMS calls it; returns the OIDC request it redirected to."""
    r = client.get("/lti/login", params=platform.login_params(hint, **extra))
    assert r.status_code == 302, r.text
    assert r.headers["location"].startswith(platform.urls["auth_url"] + "?")
    return platform.auth_query(r.headers["location"])


def platform_answer(location_query: dict, platform) -> dict:
    """The form the platform's authorization endpoint answers with (over HTTP): its fields."""
    r = httpx.get(platform.urls["auth_url"], params=location_query, timeout=10)
    assert r.status_code == 200, r.text
    return dict(re.findall(r'name="([a-z_]+)" value="([^"]*)"', r.text))


def launch(client, platform, hint: str = "default", **token_args):
    """A whole launch: login, the platform's answer (or a token minted with `token_args`), the post."""
    query = login(client, platform, hint)
    if token_args:
        claims = token_args.pop("claims", None) or platform.launches[hint]
        fields = {"id_token": mint(platform, claims, nonce=token_args.pop("nonce", query["nonce"]), **token_args),
                  "state": query["state"]}
    else:
        fields = platform_answer(query, platform)
    return client.post("/lti/launch", data=fields), fields


def launched(client, platform, hint: str = "default", **claims) -> dict:
    """A whole good launch of `launch_claims(platform, **claims)` (an instructor's unless `roles`
    says otherwise): {"course_id", "assignment_id", "platform_id"} where it signed the person in,
    and the "response" (its session cookie: `signed_in`)."""
    platform.launches[hint] = launch_claims(platform, **claims)
    response, _ = launch(client, platform, hint)
    assert response.status_code == 303, response.text
    where = {k: int(v[0]) for k, v in parse_qs(urlsplit(response.headers["location"]).query).items()}
    return {"course_id": where["course"], "assignment_id": where.get("assignment"),
            "platform_id": platform.platform_id, "response": response}


def ags(base_url: str, scopes=("score", "lineitem"), *, lineitem: str | None = None, context_id: str = "ctx-1") -> dict:
    """The claims of a launch whose AGS endpoint (the platform at base_url) offers `scopes` (and
    the platform's own line item), for launch_claims(**...)."""
    return {"https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
        "scope": [SCOPE[s] for s in scopes], "lineitems": f"{base_url}/ags/{context_id}/lineitems",
        **({"lineitem": lineitem} if lineitem else {})}}


def member(user_id: str, name: str, email: str = "", sis: str = "", *, role: str = "Learner",
           status: str = "Active") -> dict:
    """One NRPS member as an LMS sends it."""
    m = {"status": status, "name": name, "user_id": user_id,
         "roles": [f"http://purl.imsglobal.org/vocab/lis/v2/membership#{role}"]}
    if email:
        m["email"] = email
    if sis:
        m["lis_person_sourcedid"] = sis
    return m


@contextlib.contextmanager
def linked_course(db_path, course_name: str):
    """A course of that name made and linked by a real instructor launch from a served test
    platform, whose roster has one learner (the command line reference's runs, tests/test_docs.py).
    The caller sets FAIRMARK_LTI_KEY_SECRET (SECRET) and FAIRMARK_DB (db_path)."""
    tokens.forget()
    CACHE.clear()
    with serve() as p, TestClient(Starlette(routes=ROUTES), follow_redirects=False) as client:
        conn = db.connect(db_path)
        try:
            p.register(conn, f.actor("admin"))
        finally:
            conn.close()
        p.services.tool_jwks = tool_jwks(db_path)
        p.services.members = [member("u1", "Ana López", "ana@school.example")]
        launched(client, p, context_title=course_name, roles=(INSTRUCTOR,))
        yield p
    tokens.forget()
    CACHE.clear()


def signed_in(conn, response):
    """The Actor the launch's session cookie opens (None: no session)."""
    from core.accounts import identity

    token = response.cookies.get(SESSION_COOKIE)
    return identity.resume(conn, token) if token else None


def now() -> int:
    return int(time.time())


__all__ = ["lti_env", "platform", "client", "counts", "login", "platform_answer", "launch", "signed_in", "now",
           "lti_launch", "launch_claims", "mint", "launched", "ags", "member", "linked_course", "tool_jwks", "SECRET"]
