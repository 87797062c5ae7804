"""The access token the LMS's services ask for: OAuth2 client credentials with a JWT client
assertion (RFC 7523, as LTI Advantage's security framework requires).

The assertion is signed with the tool's current key (core.lti.keys.sign): iss = sub = the
client id the LMS gave FairMark, aud = the platform's token URL, a fresh jti, valid five
minutes. A token is kept per platform and set of scopes until shortly before it expires, so a
release of 200 grades asks for one token, not 200.
"""
from __future__ import annotations

import secrets
import threading
import time

import httpx

from core.errors import FairMarkError
from core.language.interface import Message

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ASSERTION_SECONDS = 300
EARLY_SECONDS = 60          # a cached token is renewed this long before it expires
TIMEOUT = httpx.Timeout(10.0, connect=5.0)

_cache: dict[tuple, tuple[str, float]] = {}
_lock = threading.Lock()


class ServiceError(FairMarkError):
    """The LMS's token endpoint or one of its services refused or did not answer; the message
    says what to check. `retry` is False when trying again cannot help until someone changes
    something (a refused key, a missing scope); `one_item` when it is about one grade or person
    only (the next may well go through), else the LMS itself is the trouble."""

    def __init__(self, message: str, *, retry: bool = True, one_item: bool = False):
        super().__init__(message)
        self.retry, self.one_item = retry, one_item


def forget() -> None:
    """Drop every cached token (tests; a key rotation)."""
    with _lock:
        _cache.clear()


def _key(platform: dict, scopes: list[str]) -> tuple:
    return (platform["id"], platform["token_url"], platform["client_id"], tuple(sorted(set(scopes))))


def access_token(conn, platform: dict, scopes: list[str]) -> str:
    """A bearer token for `scopes` from the platform's token endpoint ({id, issuer, client_id,
    token_url}), cached until EARLY_SECONDS before it expires."""
    key = _key(platform, scopes)
    with _lock:
        cached = _cache.get(key)
        if cached and cached[1] > time.time():
            return cached[0]
    token, lifetime = _request(conn, platform, sorted(set(scopes)))
    with _lock:
        _cache[key] = (token, time.time() + max(0, lifetime - EARLY_SECONDS))
    return token


def assertion(conn, platform: dict) -> str:
    """The signed client assertion for one token request."""
    from core.lti import keys  # l-lti's module: the tool's keys

    issued = int(time.time())
    return keys.sign({"iss": platform["client_id"], "sub": platform["client_id"], "aud": platform["token_url"],
                      "iat": issued, "exp": issued + ASSERTION_SECONDS, "jti": secrets.token_urlsafe(16)}, conn)


def _request(conn, platform: dict, scopes: list[str]) -> tuple[str, int]:
    where = platform.get("issuer") or platform["token_url"]
    form = {"grant_type": "client_credentials", "client_assertion_type": ASSERTION_TYPE,
            "client_assertion": assertion(conn, platform), "scope": " ".join(scopes)}
    try:
        response = httpx.post(platform["token_url"], data=form, timeout=TIMEOUT,
                              headers={"Accept": "application/json"})
    except httpx.TimeoutException as e:
        raise ServiceError(Message("the LMS ({where}) did not answer FairMark's token request in time; it is tried "
                                   "again later", where=where)) from e
    except httpx.HTTPError as e:
        raise ServiceError(Message("FairMark could not reach the LMS's token URL {url} ({error}); check the address "
                                   "registered for the platform, or try again later", url=platform['token_url'],
                                   error=str(e))) from e
    if response.status_code in (400, 401, 403):
        error = _json(response).get("error", "")
        if error == "invalid_scope":
            raise ServiceError(Message("the LMS ({where}) does not grant FairMark the services it needs ({scopes}); "
                                       "enable them in the LMS's tool settings (see the admin guide, LTI services)",
                                       where=where, scopes=" ".join(scopes)), retry=False)
        raise ServiceError(Message("the LMS ({where}) refused FairMark's key ({error}); check that the LMS has "
                                   "FairMark's client id and its key set URL (/lti/jwks)", where=where,
                                   error=error or response.status_code), retry=False)
    if response.status_code >= 300:
        raise ServiceError(Message("the LMS's token URL answered {status}; it is tried again later",
                                   status=response.status_code))
    body = _json(response)
    token = body.get("access_token")
    if not isinstance(token, str) or not token:
        raise ServiceError(Message("the LMS ({where}) answered the token request without a token; it is tried again "
                                   "later", where=where))
    lifetime = body.get("expires_in", 3600)
    return token, int(lifetime) if isinstance(lifetime, (int, float)) else 3600


def _json(response: httpx.Response) -> dict:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
