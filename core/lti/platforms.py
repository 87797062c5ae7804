"""The LMSs (platforms) an admin registered with FairMark, and the tool's own URLs to paste into
them. A platform is its issuer and the client id it gave FairMark, with the deployments allowed
to launch and the platform's three URLs (OIDC authorization, OAuth 2 token, public keys)."""
from __future__ import annotations

from urllib.parse import urlsplit

import db
from core.accounts import access
from core.accounts.access import Actor
from core.errors import ConfigError, ConflictError
from core.language.interface import Message
from core.lti import grades
from db import lti as lti_db

LOGIN, LAUNCH, JWKS = "/lti/login", "/lti/launch", "/lti/jwks"
MAX_FIELD = 1000


def _url(label: str, value: str) -> str:
    value = (value or "").strip()
    parts = urlsplit(value)
    local = parts.hostname in ("localhost", "127.0.0.1", "::1")
    if parts.scheme not in ("https", "http") or not parts.netloc or (parts.scheme == "http" and not local) \
            or len(value) > MAX_FIELD:
        raise ConfigError(Message("The {label} must be an https:// address (http:// only on this machine), as the "
                                  "LMS shows it; got {value!r}. Nothing was registered.", label=label,
                                  value=value[:200]))
    return value


def _text(label: str, value: str) -> str:
    value = (value or "").strip()
    if not value or len(value) > MAX_FIELD or any(ord(ch) < 32 for ch in value):
        raise ConfigError(Message("The {label} is missing or not one line of at most {count} characters; copy it "
                                  "from the LMS's registration of FairMark. Nothing was registered.", label=label,
                                  count=MAX_FIELD))
    return value


def add(conn, *, issuer: str, client_id: str, deployment_ids: list[str], auth_url: str, token_url: str,
        jwks_url: str, actor: Actor) -> dict:
    """Register a platform with its deployments (an issuer and client id registered already gain
    the new deployments, when its URLs are the same). Returns {platform_id, issuer, client_id,
    deployments}."""
    access.require(actor, "lti")
    issuer = _url(Message("issuer"), issuer)   # the field's name, translated where the refusal is shown
    client_id = _text(Message("client id"), client_id)
    deployments = [_text(Message("deployment id"), d) for d in deployment_ids or []]
    if not deployments:
        raise ConfigError(Message("Give at least one deployment id (the LMS shows it where FairMark is installed). "
                                  "Nothing was registered."))
    urls = {"auth_url": _url(Message("authorization URL"), auth_url),
            "token_url": _url(Message("token URL"), token_url),
            "jwks_url": _url(Message("public keys (JWKS) URL"), jwks_url)}
    with db.write_transaction(conn):
        found = lti_db.find_platform(conn, issuer, client_id)
        if found is None:
            pid = lti_db.insert_platform(conn, issuer=issuer, client_id=client_id, **urls, actor=actor)
        else:
            differ = [k for k, v in urls.items() if found[k] != v]
            if differ:
                raise ConflictError(Message("This issuer and client id are registered already with other URLs "
                                            "({fields}); nothing was changed.", fields=", ".join(differ)))
            pid = found["id"]
        for dep in deployments:
            lti_db.add_deployment(conn, pid, dep, actor=actor)
        return {"platform_id": pid, "issuer": issuer, "client_id": client_id,
                "deployments": lti_db.deployments(conn, pid)}


def list_all(conn, *, actor: Actor) -> list[dict]:
    """Every registered platform with its deployments."""
    access.require(actor, "lti")
    return _platforms(conn)


def _platforms(conn) -> list[dict]:
    return [{"platform_id": p["id"], **{k: p[k] for k in ("issuer", "client_id", "auth_url", "token_url",
                                                          "jwks_url", "deployments")}}
            for p in lti_db.list_platforms(conn)]


def _contexts(conn) -> list[dict]:
    return [{"context_id": c["context_id"], "title": c["title"], "course": c["course"]}
            for c in lti_db.list_contexts(conn)]


def status(conn, *, actor: Actor) -> dict:
    """{"platforms", "contexts": [{context_id, title, course}], "pending"} for `lti status`."""
    access.require(actor, "lti")
    return {"platforms": _platforms(conn), "contexts": _contexts(conn), "pending": grades.pending(conn)}


def tool_urls(base_url: str) -> dict:
    """The three addresses an LMS needs from FairMark (base_url: where people open FairMark)."""
    base = (base_url or "").rstrip("/")
    return {"login": base + LOGIN, "launch": base + LAUNCH, "jwks": base + JWKS}


def settings_view(conn, *, actor: Actor, page_url: str | None) -> dict:
    """The Settings page's "LMS platforms" tab in one read (one check): {"platforms",
    "contexts", "urls" (tool_urls), "from_setting" (the URLs come from FAIRMARK_PUBLIC_URL),
    "keys_ready" (FAIRMARK_LTI_KEY_SECRET is set)}. `page_url`: the address the admin opened the
    page at, whose origin stands for FairMark's when FAIRMARK_PUBLIC_URL is not set."""
    from core.lti.keys import MIN_SECRET
    from core.settings import load_settings

    access.require(actor, "lti")
    settings = load_settings()
    parts = urlsplit(page_url or "")
    base = settings.public_url or (f"{parts.scheme}://{parts.netloc}" if parts.netloc else "")
    return {"platforms": _platforms(conn), "contexts": _contexts(conn),
            "urls": tool_urls(base) if base else None, "from_setting": bool(settings.public_url),
            "keys_ready": len(settings.lti_key_secret or "") >= MIN_SECRET}
