"""The platforms' public keys (their JWKS), fetched with httpx and cached per URL.

A launch whose `kid` is not in the cached set fetches the set again (the platform rotated its
key), at most once per REFETCH_MIN_S per URL, so forged tokens with made-up kids cannot make
FairMark hammer the LMS. A cached set is used for CACHE_S, then fetched again on next use."""
from __future__ import annotations

import threading
import time

import httpx
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from core.errors import LaunchRefused
from core.language.interface import Message

CACHE_S = 3600.0
REFETCH_MIN_S = 5.0
TIMEOUT_S = 10.0
MAX_BYTES = 256 * 1024


class JwksCache:
    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self._sets: dict[str, tuple[float, dict]] = {}
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._sets.clear()

    def key_for(self, jwks_url: str, kid: str | None) -> dict:
        """The platform's public key (a JWK dict) named `kid` (None: the set's only key)."""
        with self._lock:
            cached = self._sets.get(jwks_url)
        now = self.clock()
        if cached is None or now - cached[0] > CACHE_S:
            cached = self._fetch(jwks_url)
        found = _pick(cached[1], kid)
        if found is None and now - cached[0] >= REFETCH_MIN_S:
            cached = self._fetch(jwks_url)   # an unknown kid: the platform may have rotated its key
            found = _pick(cached[1], kid)
        if found is None:
            raise LaunchRefused(Message("The launch was signed with a key (kid {kid!r}) that the platform's public "
                                        "keys at {jwks_url} do not list. Check the platform's JWKS URL on Settings → "
                                        "LMS platforms (it must be the LMS's own keyset URL).", kid=str(kid)[:80],
                                        jwks_url=jwks_url))
        return found

    def _fetch(self, jwks_url: str) -> tuple[float, dict]:
        try:
            response = httpx.get(jwks_url, timeout=TIMEOUT_S, follow_redirects=True)
            response.raise_for_status()
            if len(response.content) > MAX_BYTES:
                raise ValueError(f"the answer is larger than {MAX_BYTES // 1024} KB")
            body = response.json()
            KeySet.import_key_set(body)   # a set of well-formed public keys, or refused here
        except (httpx.HTTPError, ValueError, JoseError, TypeError, KeyError) as e:
            raise LaunchRefused(Message("FairMark could not read the platform's public keys from {jwks_url} "
                                        "({error}). Check the platform's JWKS URL on Settings → LMS platforms, and "
                                        "that this server can reach the LMS.", jwks_url=jwks_url, error=str(e))) from e
        entry = (self.clock(), body)
        with self._lock:
            self._sets[jwks_url] = entry
        return entry


def _pick(keyset: dict, kid: str | None) -> dict | None:
    keys = [k for k in keyset.get("keys", []) if isinstance(k, dict) and k.get("kty") == "RSA"]
    if kid is None:
        return keys[0] if len(keys) == 1 else None
    return next((k for k in keys if k.get("kid") == kid), None)


CACHE = JwksCache()
