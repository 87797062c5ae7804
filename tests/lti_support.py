"""Helpers of the LTI tests: FairMark's routes under Starlette's TestClient, launches through
the test platform (tests/lti_platform) over real HTTP, and the row counts a refusal must leave."""
from __future__ import annotations

import re
import time

import httpx
import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

import factories as f
from core.lti import launch as lti_launch
from core.lti.platform_keys import CACHE
from core.lti.web import ROUTES, SESSION_COOKIE
from lti_platform import launch_claims, mint, serve

SECRET = "a test secret that is long enough to seal keys 123"
TABLES = ("lti_platforms", "lti_deployments", "lti_keys", "lti_states", "lti_nonces", "lti_contexts", "lti_users",
          "lti_links", "users", "sessions", "grants", "courses", "assignments", "students", "audit_log", "rubrics")


@pytest.fixture
def lti_env(monkeypatch):
    monkeypatch.setenv("FAIRMARK_LTI_KEY_SECRET", SECRET)
    CACHE.clear()
    yield
    CACHE.clear()


@pytest.fixture
def platform(conn, lti_env):
    with serve() as p:
        p.register(conn, f.actor("admin"))
        p.launches["default"] = launch_claims(p)
        yield p


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


def signed_in(conn, response):
    """The Actor the launch's session cookie opens (None: no session)."""
    from core.accounts import identity

    token = response.cookies.get(SESSION_COOKIE)
    return identity.resume(conn, token) if token else None


def now() -> int:
    return int(time.time())


__all__ = ["lti_env", "platform", "client", "counts", "login", "platform_answer", "launch", "signed_in", "now",
           "lti_launch", "launch_claims", "mint"]
