"""The access token for the LMS's services (issue 25): a client-credentials grant whose JWT
assertion (signed by core.lti.keys) the test platform verifies against the key set FairMark's
own /lti/jwks serves; cached per platform and scopes; each refusal a specific message."""
from __future__ import annotations

import pytest

from core.lti import tokens
from lti_platform.services import SCOPE
from lti_support import client, lti_env, platform as lms  # noqa: F401  (fixtures)


@pytest.fixture
def svc(lms, client):
    lms.services.tool_jwks = lambda: client.get("/lti/jwks").json()     # FairMark's route, as an LMS reads it
    return lms.services


def platform(svc, **change):
    """The platform as core.lti.links gives it to the services (the registered one)."""
    return {"id": svc.platform_id, "issuer": svc.base_url, "client_id": svc.client_id, "token_url": svc.token_url,
            **change}


def test_a_token_is_granted_for_the_tools_signed_assertion_and_cached(conn, svc):
    first = tokens.access_token(conn, platform(svc), [SCOPE["score"]])
    assert svc.tokens[first] == {SCOPE["score"]} and svc.token_requests == 1
    assert tokens.access_token(conn, platform(svc), [SCOPE["score"]]) == first and svc.token_requests == 1
    other = tokens.access_token(conn, platform(svc), [SCOPE["score"], SCOPE["lineitem"]])
    assert other != first and svc.token_requests == 2                 # other scopes: another token


def test_a_token_near_its_expiry_is_asked_for_again(conn, svc, monkeypatch):
    monkeypatch.setattr(tokens, "EARLY_SECONDS", 3600)                # the platform's hour is "about to expire"
    first = tokens.access_token(conn, platform(svc), [SCOPE["score"]])
    assert tokens.access_token(conn, platform(svc), [SCOPE["score"]]) != first and svc.token_requests == 2


def test_a_wrong_client_id_is_refused_with_what_to_check(conn, svc):
    with pytest.raises(tokens.ServiceError, match="refused FairMark's key .*client id") as e:
        tokens.access_token(conn, platform(svc, client_id="someone-else"), [SCOPE["score"]])
    assert e.value.retry is False and not svc.tokens


def test_an_unknown_scope_and_an_unreachable_platform_say_so(conn, svc):
    with pytest.raises(tokens.ServiceError, match="does not grant FairMark the services"):
        tokens.access_token(conn, platform(svc), ["https://example.org/scope/everything"])
    with pytest.raises(tokens.ServiceError, match="could not reach the LMS's token URL"):
        unreachable = platform(svc, id=svc.platform_id + 1, token_url="http://127.0.0.1:9/token")
        tokens.access_token(conn, unreachable, [SCOPE["score"]])
