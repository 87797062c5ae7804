"""One launch's id_token, checked claim by claim against the platform the login started with.
Each refusal is a LaunchRefused whose message says what was wrong and which setting to check;
nothing here writes anything.

Checked: the token's size and form; the signature (RS256 only) against the platform's public
keys; iss; aud (and azp when there are several audiences or azp is sent); exp and iat (a minute
of clock skew); the nonce the login issued; the deployment id registered; the message type
LtiResourceLinkRequest and version 1.3.0; and the claims FairMark stores (present, of the right
type, within their size limits)."""
from __future__ import annotations

import json
import time

from joserfc import jws, jwt
from joserfc.errors import BadSignatureError, JoseError
from joserfc.jwk import RSAKey

from core.errors import LaunchRefused
from core.language.interface import Message
from core.lti.platform_keys import CACHE

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
MAX_TOKEN_BYTES = 64 * 1024     # real launches are a few KB; more is refused before it is parsed
MAX_ID = 255                    # the specification's limit for sub, context, resource link and deployment ids
MAX_TEXT = 500                  # names and titles FairMark stores
MAX_URL = 2000
CLOCK_SKEW_S = 60
MAX_AGE_S = 600                 # an id_token issued longer ago than this is stale (platforms issue them at login)


def _refuse(message: Message):
    """Refuse the launch: `message` reads English in the log and the LMS's answer, and is said in
    the launch's language on its refusal page (core.lti.web). Page names ("Settings → LMS platforms")
    are in the template, to be translated; claim names, URLs and values stay as they are."""
    raise LaunchRefused(message)


def unverified(id_token) -> tuple[dict, dict]:
    """(header, claims) of a compact JWS, before its signature is checked: to know which key."""
    if not isinstance(id_token, str) or not id_token:
        _refuse(Message("The launch came without an id_token. Start it again from the LMS; if it keeps failing, "
                        "check that the LMS's redirect (launch) URL is FairMark's launch URL shown on Settings → LMS "
                        "platforms."))
    if len(id_token.encode()) > MAX_TOKEN_BYTES:
        _refuse(Message("The launch's id_token is larger than {size} KB, which no LMS sends for a launch; it was "
                        "refused unread. Check the custom parameters the LMS adds to FairMark's launches.",
                        size=MAX_TOKEN_BYTES // 1024))
    try:
        obj = jws.extract_compact(id_token.encode())
        claims = json.loads(obj.payload)
    except (JoseError, ValueError, UnicodeDecodeError):
        _refuse(Message("The launch's id_token is not a signed JSON Web Token FairMark can read. Start it again from "
                        "the LMS; if it keeps failing, the LMS is not speaking LTI 1.3 to this address."))
    if not isinstance(claims, dict):
        _refuse(Message("The launch's id_token holds no claims. Start it again from the LMS."))
    return dict(obj.headers()), claims


def check(id_token: str, platform: dict, *, nonce: str, registered_deployment) -> dict:
    """The verified claims of a launch, or LaunchRefused. `registered_deployment(id)` says whether
    the deployment id is registered for this platform."""
    header, claims = unverified(id_token)
    if claims.get("iss") != platform["issuer"]:
        _refuse(Message("The launch's issuer ({issuer}) is not the platform its login came from ({expected}). "
                        "Check the issuer registered on Settings → LMS platforms.",
                        issuer=_show(claims.get("iss")), expected=platform["issuer"]))
    if header.get("alg") != "RS256":
        _refuse(Message("The launch is signed with {alg}; LTI 1.3 launches are signed with RS256. Check the LMS's "
                        "key settings for FairMark.", alg=_show(header.get("alg"))))
    jwk = CACHE.key_for(platform["jwks_url"], header.get("kid"))
    try:
        jwt.decode(id_token, RSAKey.import_key(jwk), algorithms=["RS256"])
    except BadSignatureError:
        _refuse(Message("The launch's signature does not verify against the platform's public keys at {jwks_url}. "
                        "Check the JWKS URL registered on Settings → LMS platforms (the LMS's own keyset URL).",
                        jwks_url=platform["jwks_url"]))
    except (JoseError, ValueError) as e:
        _refuse(Message("The platform's key for this launch cannot verify it ({error}). Check the JWKS URL on "
                        "Settings → LMS platforms.", error=e))
    _audience(claims, platform)
    _times(claims)
    if claims.get("nonce") != nonce:
        _refuse(Message("The launch's nonce is not the one FairMark's login sent for it. Start the launch again "
                        "from the LMS."))
    deployment = claims.get(CLAIM + "deployment_id")
    if not isinstance(deployment, str) or not registered_deployment(deployment):
        _refuse(Message("The launch comes from deployment {deployment}, which is not registered for this platform. "
                        "Add it on Settings → LMS platforms (or `python -m core lti platform add … --deployment-id "
                        "…`).", deployment=_show(deployment)))
    if claims.get(CLAIM + "message_type") != "LtiResourceLinkRequest":
        _refuse(Message("The launch's message type is {message_type}; FairMark takes only resource link launches "
                        "(LtiResourceLinkRequest). Check the placement FairMark is added to in the LMS.",
                        message_type=_show(claims.get(CLAIM + "message_type"))))
    if claims.get(CLAIM + "version") != "1.3.0":
        _refuse(Message("The launch's LTI version is {version}; FairMark speaks LTI 1.3.0. Register FairMark in the "
                        "LMS as an LTI 1.3 tool.", version=_show(claims.get(CLAIM + "version"))))
    _shapes(claims)
    return claims


def _audience(claims: dict, platform: dict) -> None:
    aud = claims.get("aud")
    auds = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
    if platform["client_id"] not in auds:
        _refuse(Message("The launch is addressed to client id {aud}, not to FairMark's client id on this platform "
                        "({client_id}). Check the client id registered on Settings → LMS platforms.",
                        aud=_show(aud), client_id=platform["client_id"]))
    if (len(auds) > 1 or "azp" in claims) and claims.get("azp") != platform["client_id"]:
        _refuse(Message("The launch's authorized party (azp {azp}) is not FairMark's client id ({client_id}). Check "
                        "the client id registered on Settings → LMS platforms.",
                        azp=_show(claims.get("azp")), client_id=platform["client_id"]))


def _times(claims: dict) -> None:
    now = time.time()
    exp, iat = claims.get("exp"), claims.get("iat")
    if not isinstance(exp, (int, float)) or isinstance(exp, bool) or exp < now - CLOCK_SKEW_S:
        _refuse(Message("The launch's id_token has expired (exp). Start it again from the LMS; if every launch says "
                        "this, the clocks of the LMS and of FairMark's server differ: check both use network time."))
    if not isinstance(iat, (int, float)) or isinstance(iat, bool) or iat > now + CLOCK_SKEW_S \
            or iat < now - MAX_AGE_S:
        _refuse(Message.plural(
            "The launch's id_token was issued at a time (iat) FairMark cannot accept: in the future or more than "
            "{count} minute ago. Check that the LMS's and FairMark's server clocks use network time.",
            "The launch's id_token was issued at a time (iat) FairMark cannot accept: in the future or more than "
            "{count} minutes ago. Check that the LMS's and FairMark's server clocks use network time.",
            MAX_AGE_S // 60))


def _shapes(claims: dict) -> None:
    """The claims FairMark stores: present, of their type, within their limits."""
    _id(Message("user id (sub)"), claims.get("sub"))
    link = claims.get(CLAIM + "resource_link")
    context = claims.get(CLAIM + "context")
    if not isinstance(link, dict) or not isinstance(context, dict):
        _refuse(Message("The launch names no resource link or no course (context). Add FairMark to a course's "
                        "assignment or module in the LMS and launch it from there."))
    _id(Message("resource link id"), link.get("id"))
    _id(Message("course (context) id"), context.get("id"))
    roles = claims.get(CLAIM + "roles")
    if not isinstance(roles, list) or not all(isinstance(r, str) and len(r) <= MAX_URL for r in roles) \
            or len(roles) > 50:
        _refuse(Message("The launch's roles are not a list of role names. Check the LMS's LTI settings for "
                        "FairMark."))
    for label, value in ((Message("name"), claims.get("name")), (Message("given name"), claims.get("given_name")),
                         (Message("family name"), claims.get("family_name")), (Message("e-mail"), claims.get("email")),
                         (Message("course title"), context.get("title")),
                         (Message("course label"), context.get("label")),
                         (Message("resource link title"), link.get("title"))):
        if value is not None and (not isinstance(value, str) or len(value) > MAX_TEXT):
            _refuse(Message.plural(
                "The launch's {label} is not a text of at most {count} character; it was refused and nothing was "
                "stored. Shorten it in the LMS.",
                "The launch's {label} is not a text of at most {count} characters; it was refused and nothing was "
                "stored. Shorten it in the LMS.", MAX_TEXT, label=label))
    for claim, fields in ((AGS, ("lineitem", "lineitems")), (NRPS, ("context_memberships_url",))):
        service = claims.get(claim)
        if service is None:
            continue
        if not isinstance(service, dict) or any(service.get(f) is not None and (not isinstance(service.get(f), str)
                                                or len(service[f]) > MAX_URL) for f in fields):
            _refuse(Message("The launch's grade or roster service claim is malformed. Check the LMS's LTI Advantage "
                            "services for FairMark."))


def _id(label: Message, value) -> None:
    if not isinstance(value, str) or not value or len(value) > MAX_ID:
        _refuse(Message.plural(
            "The launch's {label} is missing or longer than {count} character. FairMark needs it to know who and "
            "where; an anonymous launch is refused. Check the LMS's privacy setting for FairMark (it must send the "
            "user's id).",
            "The launch's {label} is missing or longer than {count} characters. FairMark needs it to know who and "
            "where; an anonymous launch is refused. Check the LMS's privacy setting for FairMark (it must send the "
            "user's id).", MAX_ID, label=label))


def _show(value) -> str:
    """A claim's value as it may appear in a message (shortened; the page escapes it)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return repr(text[:120] + ("…" if len(text) > 120 else ""))
