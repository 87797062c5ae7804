"""The OIDC third-party-initiated login and the launch (the LTI 1.3 core specification).

Login (`login`): the LMS names itself (iss, client_id) and the user (login_hint); FairMark
stores a random state and nonce, bound to this browser by a cookie holding a random token whose
SHA-256 the state row keeps, and sends the browser to the platform's authorization URL.

Launch (`launch`): the platform posts back a signed id_token and the state. The state must be
one FairMark issued less than STATE_LIFE_S ago to this browser (its cookie), the token must
pass core.lti.verify against the platform of that login, and its nonce must be unused. Only
then, in one transaction, the nonce and state are spent and core.lti.people links the person,
course and assignment. A refusal raises LaunchRefused and writes nothing (the refusal goes to
the server's log)."""
from __future__ import annotations

import hashlib
import logging
import secrets
from datetime import datetime, timedelta, timezone
from urllib.parse import urlencode

import db
from core.errors import LaunchRefused
from core.language.interface import Message
from core.lti import people, verify
from core.lti.platforms import LAUNCH
from db import lti as lti_db

log = logging.getLogger(__name__)
STATE_LIFE_S = 600          # a launch must come back within 10 minutes of its login
STATE_COOKIE = "fairmark_lti_browser"
MAX_PARAM = 4000


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _param(params: dict, name: str, *, required: bool = True) -> str | None:
    value = params.get(name)
    if value in (None, ""):
        if required:
            raise LaunchRefused(Message("The LMS's login request to FairMark lacks {name}. Check that the LMS's login "
                                        "(initiation) URL for FairMark is the login URL shown on Settings → LMS "
                                        "platforms, and launch again.", name=name))
        return None
    if not isinstance(value, str) or len(value) > MAX_PARAM:
        raise LaunchRefused(Message("The LMS's login request has a {name} FairMark cannot use (too long or not text).",
                                    name=name))
    return value


def _platform_of(conn, issuer: str, client_id: str | None) -> dict:
    if client_id:
        found = lti_db.find_platform(conn, issuer, client_id)
        if found is None:
            raise LaunchRefused(Message("No LMS with issuer {issuer} and client id {client_id} is registered with "
                                        "FairMark. An admin registers it on Settings → LMS platforms (or `python -m "
                                        "core lti platform add`).", issuer=verify._show(issuer),
                                        client_id=verify._show(client_id)))
        return found
    found = lti_db.platforms_of_issuer(conn, issuer)
    if not found:
        raise LaunchRefused(Message("No LMS with issuer {issuer} is registered with FairMark. An admin registers it "
                                    "on Settings → LMS platforms (or `python -m core lti platform add`).",
                                    issuer=verify._show(issuer)))
    if len(found) > 1:
        raise LaunchRefused(Message("Several registrations share this issuer and the LMS did not say which "
                                    "(client_id). Turn on sending the client id in the LMS, or keep one registration."))
    return found[0]


def valid_browser_token(value) -> bool:
    return isinstance(value, str) and 20 <= len(value) <= 100 and value.replace("-", "").replace("_", "").isalnum()


def login(conn, params: dict, *, browser_token: str | None, base_url: str) -> dict:
    """Start a launch. Returns {"redirect": the platform's authorization URL with the OIDC
    request, "browser_token": the cookie's value (the one sent, when it was FairMark's)}."""
    issuer = _param(params, "iss")
    login_hint = _param(params, "login_hint")
    target = _param(params, "target_link_uri")
    client_id = _param(params, "client_id", required=False)
    deployment = _param(params, "lti_deployment_id", required=False)
    message_hint = _param(params, "lti_message_hint", required=False)
    platform = _platform_of(conn, issuer, client_id)
    if deployment is not None and not lti_db.has_deployment(conn, platform["id"], deployment):
        raise LaunchRefused(Message("The LMS is launching from deployment {deployment}, which is not registered for "
                                    "this platform. Add it on Settings → LMS platforms.",
                                    deployment=verify._show(deployment)))
    token = browser_token if valid_browser_token(browser_token) else secrets.token_urlsafe(32)
    state, nonce = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    now = datetime.now(timezone.utc)
    with db.write_transaction(conn):
        lti_db.purge_expired(conn, states_before=_stamp(now - timedelta(seconds=STATE_LIFE_S)),
                             nonces_before=_stamp(now))
        lti_db.insert_state(conn, state=state, platform_id=platform["id"], nonce=nonce, browser_hash=_hash(token),
                            target_link_uri=target)
    query = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post", "prompt": "none",
             "client_id": platform["client_id"], "redirect_uri": base_url.rstrip("/") + LAUNCH,
             "login_hint": login_hint, "state": state, "nonce": nonce}
    if message_hint is not None:
        query["lti_message_hint"] = message_hint
    sep = "&" if "?" in platform["auth_url"] else "?"
    return {"redirect": platform["auth_url"] + sep + urlencode(query), "browser_token": token}


def launch(conn, form: dict, *, browser_token: str | None) -> dict:
    """Verify a launch and act on it: people.apply's result ({kind, user_id, course_id,
    assignment_id, ...}). LaunchRefused changes nothing."""
    try:
        return _launch(conn, form, browser_token)
    except LaunchRefused as e:
        log.warning("LTI launch refused: %s", e)
        raise


def _launch(conn, form: dict, browser_token: str | None) -> dict:
    id_token, state = form.get("id_token"), form.get("state")
    if form.get("error"):
        raise LaunchRefused(Message("The LMS answered FairMark's login with an error ({error}: {description}). Check "
                                    "FairMark's registration in the LMS (its redirect URL and client id).",
                                    error=verify._show(form.get('error')),
                                    description=verify._show(form.get('error_description') or '')))
    verify.unverified(id_token)   # malformed or oversized: refused before anything is looked up
    row = lti_db.get_state(conn, state) if isinstance(state, str) and len(state) <= 100 else None
    now = datetime.now(timezone.utc)
    if row is None or row["created_at"] < _stamp(now - timedelta(seconds=STATE_LIFE_S)):
        raise LaunchRefused(Message("This launch's login state is unknown or older than 10 minutes. Start the launch "
                                    "again from the LMS; if it keeps failing, check that the LMS's login URL for "
                                    "FairMark is the one shown on Settings → LMS platforms."))
    if not valid_browser_token(browser_token) or _hash(browser_token) != row["browser_hash"]:
        raise LaunchRefused(Message("This browser is not the one that started this launch (FairMark's launch cookie "
                                    "is missing or different). Launch again from the LMS; inside an LMS frame, set "
                                    "FairMark's placement to open in a new window (see the admin's guide)."))
    platform = lti_db.platform(conn, row["platform_id"])
    claims = verify.check(id_token, platform, nonce=row["nonce"],
                          registered_deployment=lambda d: lti_db.has_deployment(conn, platform["id"], d))
    if lti_db.nonce_used(conn, platform["id"], row["nonce"]) or row["used_at"]:
        raise LaunchRefused(Message("This launch was used already (its nonce was seen before): a launch signs in "
                                    "once. Launch again from the LMS."))
    expires = datetime.fromtimestamp(float(claims["exp"]) + verify.CLOCK_SKEW_S, timezone.utc)
    with db.write_transaction(conn):
        if not lti_db.use_nonce(conn, platform["id"], row["nonce"], expires_at=_stamp(expires)) \
                or not lti_db.use_state(conn, state):
            raise LaunchRefused(Message("This launch was used already (its nonce was seen before). Launch again from "
                                        "the LMS."))
        return people.apply(conn, platform, claims)
