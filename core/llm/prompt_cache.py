"""What a provider's prompt cache bills at the cached price, as OpenAI documents it: a prompt of
CACHE_MIN tokens or more is cached; a later prompt to the same model that starts with the same
tokens gets the shared prefix at the cached price, counted in steps of CACHE_STEP from
CACHE_MIN (a shared prefix under CACHE_MIN earns nothing). One formula for bench.tokens and the
run estimate (core.estimate); the call log records what a provider really cached."""
from __future__ import annotations

CACHE_MIN, CACHE_STEP = 1024, 128


def cached_tokens(shared_prefix: int) -> int:
    """The tokens billed at the cached price for a prefix shared with an earlier prompt.

    >>> cached_tokens(1023), cached_tokens(1024), cached_tokens(1300), cached_tokens(1408)
    (0, 1024, 1280, 1408)
    """
    if shared_prefix < CACHE_MIN:
        return 0
    return CACHE_MIN + (shared_prefix - CACHE_MIN) // CACHE_STEP * CACHE_STEP
