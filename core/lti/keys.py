"""The tool's own signing keys: RSA 2048, RS256, made on first use and rotatable.

Where the private key lives: in the database (table lti_keys), sealed with AES-256-GCM (a JWE,
"dir" + A256GCM) under a key derived from the setting FAIRMARK_LTI_KEY_SECRET, which is never
stored. So a backup holds the keys the LMS knows (a restore keeps LTI working) but a copy of the
database alone cannot sign as FairMark. Without the secret FairMark makes no key and signs
nothing (a ConfigError says which setting to set); with another secret than the one that sealed
a key, signing fails with a message, never silently makes a second identity.

Rotation (`rotate`, `python -m core lti keys rotate`): a new key signs from then on; the old
one stays in the JWKS for RETIRED_KEPT_S (15 minutes), then its row is dropped. Every token
FairMark signs lives at most TOKEN_LIFETIME_S (5 minutes: `sign` refuses a longer `exp`), and
platforms allow about a minute of clock skew, so after 15 minutes no token signed with the old
key can still be accepted anywhere: it has nothing left to verify.
"""
from __future__ import annotations

import hashlib
import time
from datetime import datetime, timedelta, timezone

from joserfc import jwe, jwt
from joserfc.errors import JoseError
from joserfc.jwk import OctKey, RSAKey

import db
from core.accounts import access
from core.accounts.access import Actor
from core.errors import ConfigError
from core.language.interface import Message
from core.settings import load_settings
from db import lti as lti_db

TOKEN_LIFETIME_S = 300     # the longest a token FairMark signs may live (client assertions live 5 minutes)
CLOCK_SKEW_S = 60          # what platforms allow between clocks
RETIRED_KEPT_S = 900       # a rotated key stays published this long: > TOKEN_LIFETIME_S + CLOCK_SKEW_S
MIN_SECRET = 32
SYSTEM = "FairMark (LTI keys)"   # who made a key on first use, in the audit log


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _sealing_key() -> OctKey:
    secret = load_settings().lti_key_secret or ""
    if len(secret) < MIN_SECRET:
        raise ConfigError(Message("LTI needs the setting FAIRMARK_LTI_KEY_SECRET (a random text of at least {count} "
                                  "characters, e.g. from `python -c \"import secrets; "
                                  "print(secrets.token_urlsafe(48))\"`): it seals the tool's private key in the "
                                  "database. Set it in the environment or .streamlit/secrets.toml and keep it with "
                                  "your backups' secrets.", count=MIN_SECRET))
    return OctKey.import_key(hashlib.sha256(b"fairmark lti tool key\0" + secret.encode()).digest())


def _seal(pem: bytes, kid: str) -> str:
    return jwe.encrypt_compact({"alg": "dir", "enc": "A256GCM", "kid": kid}, pem, _sealing_key())


def _unseal(sealed: str, kid: str) -> RSAKey:
    try:
        pem = jwe.decrypt_compact(sealed, _sealing_key()).plaintext
    except (JoseError, ValueError) as e:
        raise ConfigError(Message("FairMark's LTI key {kid} cannot be opened with the FAIRMARK_LTI_KEY_SECRET set "
                                  "now (it was sealed with another one). Set the secret it was made with, or make a "
                                  "new key with `python -m core lti keys rotate` (LMSs fetch it from /lti/jwks).",
                                  kid=kid)) from e
    return RSAKey.import_key(pem, parameters={"kid": kid, "use": "sig", "alg": "RS256"})


def _new_key(conn, actor) -> dict:
    key = RSAKey.generate_key(2048, parameters={"use": "sig", "alg": "RS256"}, auto_kid=True)
    public = {**key.as_dict(private=False), "use": "sig", "alg": "RS256", "kid": key.kid}
    lti_db.insert_key(conn, kid=key.kid, public_jwk=public, private_key=_seal(key.as_pem(private=True), key.kid),
                      actor=actor)
    return lti_db.current_key(conn)


def _current(conn) -> dict:
    """The signing key, made on first use (one writer: two first uses at once make one key)."""
    row = lti_db.current_key(conn)
    if row is not None:
        return row
    _sealing_key()   # refuse before taking the write lock
    with db.write_transaction(conn):
        return lti_db.current_key(conn) or _new_key(conn, SYSTEM)


def sign(claims: dict, conn) -> str:
    """An RS256 JWT of `claims`, signed with the current tool key (its kid in the header). `iat`
    and `exp` are added when absent (exp: TOKEN_LIFETIME_S from now); a later `exp` is refused,
    since a rotated key is published only as long as such a token can live."""
    now = int(time.time())
    claims = {"iat": now, "exp": now + TOKEN_LIFETIME_S, **claims}
    if not isinstance(claims["exp"], int) or claims["exp"] > now + TOKEN_LIFETIME_S:
        raise ConfigError(Message("A token FairMark signs may live at most {count} seconds (exp).",
                                  count=TOKEN_LIFETIME_S))
    row = _current(conn)
    key = _unseal(row["private_key"], row["kid"])
    return jwt.encode({"alg": "RS256", "kid": row["kid"], "typ": "JWT"}, claims, key)


def jwks(conn) -> dict:
    """The tool's public keys, {"keys": [...]}: the current key (made on first use) and keys
    retired less than RETIRED_KEPT_S ago."""
    _current(conn)
    cut = _stamp(datetime.now(timezone.utc) - timedelta(seconds=RETIRED_KEPT_S))
    return {"keys": lti_db.published_keys(conn, retired_after=cut)}


def rotate(conn, *, actor: Actor) -> dict:
    """A new signing key; the previous ones are retired (published RETIRED_KEPT_S more) and keys
    retired longer ago are dropped. Returns {kid, retired, dropped, old_keys_published_until}."""
    access.require(actor, "lti")
    _sealing_key()
    now = datetime.now(timezone.utc)
    with db.write_transaction(conn):
        dropped = lti_db.drop_keys_retired_before(conn, _stamp(now - timedelta(seconds=RETIRED_KEPT_S)))
        row = _new_key(conn, actor)
        retired = lti_db.retire_keys(conn, keep=row["kid"], actor=actor)
    return {"kid": row["kid"], "retired": retired, "dropped": dropped,
            "old_keys_published_until": _stamp(now + timedelta(seconds=RETIRED_KEPT_S)) if retired else None}
