"""The access token for the LMS's services (issue 25): a client-credentials grant whose JWT
assertion the test platform verifies against the tool's key set; cached per platform and scopes;
each refusal a specific message."""
from __future__ import annotations

import pytest

import lti_services_support as lti_support
from core.lti import tokens
from lti_platform.services import SCOPE, Services

lti_support.install_standins()


@pytest.fixture
def svc():
    tokens.forget()
    with lti_support.serve(Services(client_id="fairmark-tool", tool_jwks=lti_support._jwks)) as s:
        yield s
    tokens.forget()


def platform(svc, **change):
    return {"id": 1, "issuer": svc.base_url, "client_id": svc.client_id, "token_url": svc.token_url, **change}


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
        tokens.access_token(conn, platform(svc, id=2, token_url="http://127.0.0.1:9/token"), [SCOPE["score"]])
