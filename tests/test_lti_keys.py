"""The tool's signing keys: made on first use, sealed in the database, rotatable with the old
key published until no token it signed can still be valid."""
from __future__ import annotations

import time

import pytest
from joserfc import jwt
from joserfc.jwk import KeySet

import factories as f
from core.errors import ConfigError, Forbidden
from core.lti import keys
from lti_support import SECRET, lti_env  # noqa: F401
from stored import stored_text


def _verify(token: str, jwks: dict) -> dict:
    return jwt.decode(token, KeySet.import_key_set(jwks), algorithms=["RS256"]).claims


def test_the_first_use_makes_one_key_that_signs_what_the_jwks_verifies(conn, lti_env):
    assert conn.execute("SELECT COUNT(*) FROM lti_keys").fetchone()[0] == 0
    token = keys.sign({"iss": "fairmark", "sub": "x"}, conn)
    published = keys.jwks(conn)
    assert len(published["keys"]) == 1 and "d" not in published["keys"][0]
    claims = _verify(token, published)
    assert claims["sub"] == "x" and claims["exp"] - claims["iat"] == keys.TOKEN_LIFETIME_S
    assert jwt.decode(token, KeySet.import_key_set(published)).header["kid"] == published["keys"][0]["kid"]
    assert conn.execute("SELECT COUNT(*) FROM lti_keys").fetchone()[0] == 1


def test_the_private_key_is_sealed_not_stored_in_clear(conn, lti_env):
    keys.jwks(conn)
    sealed = conn.execute("SELECT private_key FROM lti_keys").fetchone()[0]
    assert "PRIVATE KEY" not in sealed and sealed.count(".") == 4     # a compact JWE


def test_another_secret_cannot_open_the_key_and_says_so(conn, lti_env, monkeypatch):
    keys.jwks(conn)
    monkeypatch.setenv("FAIRMARK_LTI_KEY_SECRET", "another secret that is long enough, really 12345")
    with pytest.raises(ConfigError, match="sealed with another one"):
        keys.sign({"sub": "x"}, conn)


def test_without_the_secret_no_key_is_made(conn, monkeypatch):
    monkeypatch.delenv("FAIRMARK_LTI_KEY_SECRET", raising=False)
    with pytest.raises(ConfigError, match="FAIRMARK_LTI_KEY_SECRET"):
        keys.jwks(conn)
    assert conn.execute("SELECT COUNT(*) FROM lti_keys").fetchone()[0] == 0


def test_a_token_longer_lived_than_a_rotated_key_is_published_is_refused(conn, lti_env):
    with pytest.raises(ConfigError, match="at most 300 seconds"):
        keys.sign({"exp": int(time.time()) + 3600}, conn)


def test_rotation_signs_with_the_new_key_and_keeps_the_old_one_published(conn, lti_env):
    old_token = keys.sign({"sub": "before"}, conn)
    out = keys.rotate(conn, actor=f.actor("admin"))
    published = keys.jwks(conn)
    assert len(published["keys"]) == 2 and out["retired"] and out["old_keys_published_until"]
    assert _verify(old_token, published)["sub"] == "before"          # still in flight: still verifiable
    new_token = keys.sign({"sub": "after"}, conn)
    assert jwt.decode(new_token, KeySet.import_key_set(published)).header["kid"] == out["kid"]
    assert keys.RETIRED_KEPT_S > keys.TOKEN_LIFETIME_S + keys.CLOCK_SKEW_S


def test_a_key_retired_longer_ago_than_tokens_live_leaves_the_jwks_and_then_the_database(conn, lti_env):
    keys.jwks(conn)
    first = keys.rotate(conn, actor=f.actor("admin"))
    long_ago = "2000-01-01T00:00:00.000000Z"
    conn.execute("UPDATE lti_keys SET retired_at = ? WHERE retired_at IS NOT NULL", [long_ago])
    assert [k["kid"] for k in keys.jwks(conn)["keys"]] == [first["kid"]]
    second = keys.rotate(conn, actor=f.actor("admin"))
    assert second["dropped"] == 1
    assert {r[0] for r in conn.execute("SELECT kid FROM lti_keys")} == {first["kid"], second["kid"]}


def test_only_an_admin_rotates(conn, lti_env):
    teacher = f.user(conn, "ines", "instructor")
    with pytest.raises(Forbidden, match="rotate FairMark's LTI keys"):
        keys.rotate(conn, actor=teacher)
    assert conn.execute("SELECT COUNT(*) FROM lti_keys").fetchone()[0] == 0


def test_the_secret_never_reaches_the_database(conn, lti_env):
    keys.sign({"sub": "x"}, conn)
    keys.rotate(conn, actor=f.actor("admin"))
    assert SECRET not in stored_text(conn)
