"""LTI 1.3 launches over HTTP: FairMark's routes (Starlette's TestClient) against the test
platform serving its keys and its authorization endpoint over real HTTP on 127.0.0.1. A good
launch signs in; each refusal says what was wrong and where to fix it, and changes nothing."""
from __future__ import annotations

import html

import pytest
from joserfc.jwk import RSAKey

from core.lti import platform_keys
from lti_platform.launch import ADMINISTRATOR, INSTRUCTOR, LEARNER, TA
from core.accounts.access import Actor
from lti_support import (client, counts, launch, launch_claims, launched, lti_env, login, mint, now,  # noqa: F401
                         platform, signed_in)

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"


def test_a_good_instructor_launch_signs_in_to_a_new_course_and_assignment(conn, platform, client):
    r, _ = launch(client, platform)
    assert r.status_code == 303, r.text
    who = signed_in(conn, r)
    assert who is not None and who.role == "instructor" and who.display_name == "Ines Instructor"
    course = conn.execute("SELECT id, name FROM courses").fetchone()
    assignment = conn.execute("SELECT id, title, course_id FROM assignments").fetchone()
    assert course[1] == "Biology 101" and assignment[1:] == ("Week 1 reflection", course[0])
    assert set(who.courses) == {course[0]}              # that course only
    assert r.headers["location"] == f"/?course={course[0]}&assignment={assignment[0]}"
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie
    link = conn.execute("SELECT assignment_id, lineitems_url, nrps_url, ags_scopes FROM lti_links").fetchone()
    assert link[0] == assignment[0] and link[1].endswith("/ags/ctx-1/lineitems") and link[2].endswith("/nrps/ctx-1")
    assert "score" in link[3]
    assert conn.execute("SELECT email, password_hash FROM users WHERE id = ?", [who.user_id]).fetchone() == (None, None)
    actions = {a for (a,) in conn.execute("SELECT action FROM audit_log")}
    assert {"lti_launch", "lti_user_link", "lti_context_link", "lti_link", "add_user", "create"} <= actions
    # The OIDC request FairMark sent the platform.
    sent = platform.auth_requests[-1]
    assert sent["redirect_uri"] == "http://testserver/lti/launch" and sent["lti_message_hint"] == "default"


def test_the_second_launch_signs_the_same_user_into_the_same_course(conn, platform, client):
    first, _ = launch(client, platform)
    again, _ = launch(client, platform)
    assert signed_in(conn, first).user_id == signed_in(conn, again).user_id
    assert conn.execute("SELECT COUNT(*) FROM courses").fetchone()[0] == 1
    assert conn.execute("SELECT COUNT(*) FROM assignments").fetchone()[0] == 1


def _refused(conn, client, platform, hint="default", **token_args):
    before = counts(conn)
    r, _ = launch(client, platform, hint, **token_args)
    assert r.status_code == 400, r.text
    after = counts(conn)
    before["lti_states"] = after["lti_states"]          # the login's own row: the launch changed nothing
    assert after == before
    assert "fairmark_session" not in r.headers.get("set-cookie", "")
    return html.unescape(r.text)


def test_a_replayed_launch_is_refused(conn, platform, client):
    r, fields = launch(client, platform)
    assert r.status_code == 303
    before = counts(conn)
    again = client.post("/lti/launch", data=fields)
    assert again.status_code == 400 and "used already" in again.text and "nonce" in again.text
    assert counts(conn) == before


def test_a_wrong_signature_is_refused(conn, platform, client):
    forger = RSAKey.generate_key(2048, auto_kid=True)
    text = _refused(conn, client, platform, key=forger, kid=platform.key.kid)
    assert "signature does not verify" in text and platform.urls["jwks_url"] in text


def test_an_expired_token_is_refused(conn, platform, client):
    text = _refused(conn, client, platform, iat=now() - 500, exp=now() - 200)
    assert "has expired" in text and "clocks" in text


def test_a_wrong_audience_is_refused(conn, platform, client):
    text = _refused(conn, client, platform, aud="another-tool")
    assert "addressed to client id 'another-tool'" in text and "fairmark-client" in text


def test_several_audiences_need_fairmark_as_the_authorized_party(conn, platform, client):
    text = _refused(conn, client, platform, aud=["fairmark-client", "other"])
    assert "authorized party" in text


def test_an_unknown_deployment_is_refused(conn, platform, client):
    claims = {**platform.launches["default"], CLAIM + "deployment_id": "dep-unknown"}
    text = _refused(conn, client, platform, claims=claims)
    assert "deployment 'dep-unknown'" in text and "not registered" in text


@pytest.mark.parametrize("claim, value, words", [
    ("message_type", "LtiDeepLinkingRequest", "message type is 'LtiDeepLinkingRequest'"),
    ("version", "1.1.0", "LTI version is '1.1.0'"),
])
def test_a_wrong_message_type_or_version_is_refused(conn, platform, client, claim, value, words):
    text = _refused(conn, client, platform, claims={**platform.launches["default"], CLAIM + claim: value})
    assert words in text


def test_a_wrong_issuer_and_a_wrong_nonce_are_refused(conn, platform, client):
    assert "issuer ('https://evil.example')" in _refused(conn, client, platform, iss="https://evil.example")
    assert "nonce is not the one" in _refused(conn, client, platform, nonce="made-up")


def test_a_key_the_platform_does_not_publish_is_refused(conn, platform, client):
    stranger = RSAKey.generate_key(2048, auto_kid=True)
    assert "do not list" in _refused(conn, client, platform, key=stranger)


def test_a_wrong_state_cookie_is_refused(conn, platform, client):
    query = login(client, platform)
    client.cookies.clear()
    client.cookies.set("fairmark_lti_browser", "another-browser-token-0123456789", path="/lti/")
    before = counts(conn)
    token = mint(platform, platform.launches["default"], nonce=query["nonce"])
    r = client.post("/lti/launch", data={"id_token": token, "state": query["state"], "fm_repost": "1"})
    assert r.status_code == 400 and "not the one that started this launch" in html.unescape(r.text)
    assert "new window" in r.text and counts(conn) == before


def test_an_unknown_state_is_refused(conn, platform, client):
    login(client, platform)
    token = mint(platform, platform.launches["default"], nonce="n")
    r = client.post("/lti/launch", data={"id_token": token, "state": "no-such-state"})
    assert r.status_code == 400 and "unknown or older than 10 minutes" in r.text


@pytest.mark.parametrize("token, words", [
    ("", "without an id_token"), ("not a token", "not a signed JSON Web Token"),
    ("a.b.c", "not a signed JSON Web Token"), ("x" * 70_000, "larger than 64 KB"),
])
def test_malformed_and_oversized_id_tokens_change_nothing(conn, platform, client, token, words):
    query = login(client, platform)
    before = counts(conn)
    r = client.post("/lti/launch", data={"id_token": token, "state": query["state"]})
    assert r.status_code == 400 and words in r.text and counts(conn) == before


def test_an_oversized_body_is_refused_unread(conn, platform, client):
    query = login(client, platform)
    before = counts(conn)
    r = client.post("/lti/launch", data={"id_token": "x" * 200_000, "state": query["state"]})
    assert r.status_code == 413 and counts(conn) == before


def test_an_oversized_claim_is_refused(conn, platform, client):
    text = _refused(conn, client, platform, claims={**platform.launches["default"], "name": "N" * 600})
    assert "name is not a text of at most 500 characters" in text


def test_a_role_fairmark_does_not_serve_is_refused(conn, platform, client):
    claims = launch_claims(platform, roles=["http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"])
    assert "your role in this LMS course is Mentor" in _refused(conn, client, platform, claims=claims)


def test_hostile_text_in_claims_is_shown_as_text(conn, platform, client):
    evil = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    claims = {**platform.launches["default"], CLAIM + "deployment_id": evil}
    before = counts(conn)
    r, _ = launch(client, platform, claims=claims)
    assert r.status_code == 400 and "<script>alert" not in r.text and "<img" not in r.text
    assert html.escape(evil, quote=False).replace('"', "&quot;") in r.text or "&lt;script&gt;" in r.text
    assert "script-src" not in r.headers["content-security-policy"]    # no script runs on a refusal page
    assert counts(conn)["lti_users"] == before["lti_users"]


def test_hostile_names_are_stored_as_text_and_link_no_existing_account(conn, platform, client):
    import factories as f

    anna = f.user(conn, "anna", "admin")
    conn.execute("UPDATE users SET email = 'user-1@lms.example' WHERE id = ?", [anna.user_id])
    evil = '**anna** <b>admin</b> [x](javascript:alert(1))'
    platform.launches["default"] = launch_claims(platform, name=evil, context_title=evil)
    r, _ = launch(client, platform)
    who = signed_in(conn, r)
    assert who.user_id != anna.user_id and who.role == "instructor" and who.display_name == evil
    assert conn.execute("SELECT name FROM courses").fetchone()[0] == evil
    assert conn.execute("SELECT role, display_name FROM users WHERE id = ?", [anna.user_id]).fetchone() == ("admin", "")


def test_a_course_of_the_same_name_is_never_joined(conn, platform, client):
    import factories as f

    existing = f.course(conn, "Biology 101")
    r, _ = launch(client, platform)
    who = signed_in(conn, r)
    assert existing["course_id"] not in who.courses
    assert [n for (n,) in conn.execute("SELECT name FROM courses ORDER BY id")] == ["Biology 101", "Biology 101 (2)"]


def test_roles_map_to_fairmark_roles(conn, platform, client):
    launch(client, platform)   # the instructor links the course first
    platform.launches["ta"] = launch_claims(platform, sub="ta-1", roles=[INSTRUCTOR, TA], name="Tom TA")
    platform.launches["admin"] = launch_claims(platform, sub="adm-1", roles=[ADMINISTRATOR], name="Ada Admin")
    ta, _ = launch(client, platform, "ta")
    admin, _ = launch(client, platform, "admin")
    assert signed_in(conn, ta).role == "ta" and signed_in(conn, admin).role == "instructor"


def test_a_matched_learner_gets_the_student_cookie_for_the_links_assignment_and_no_staff_session(
        conn, platform, client):
    from core.students import sessions

    launch(client, platform)
    course_id, assignment_id = conn.execute("SELECT course_id, id FROM assignments").fetchone()
    student = conn.execute("INSERT INTO students (course_id, external_id, name, pseudonym) VALUES (?, ?, ?, ?)",
                           [course_id, "sis-stu-1", "Sam Student", "Student A"]).lastrowid
    platform.launches["learner"] = launch_claims(platform, sub="stu-1", roles=[LEARNER], name="Sam Student")
    r, _ = launch(client, platform, "learner")
    assert r.status_code == 303 and r.headers["location"] == "/"           # the student page
    assert signed_in(conn, r) is None                                       # never a staff session
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(sessions.COOKIE + "=") and "HttpOnly" in cookie and "samesite=lax" in cookie.lower()
    me = sessions.resume(conn, r.cookies.get(sessions.COOKIE))
    assert (me.role, me.student_id, me.courses, me.assignment_id, me.via) == (
        "student", student, {course_id: False}, assignment_id, "lti")
    row = conn.execute("SELECT user_id, student_id, role FROM lti_users WHERE sub = 'stu-1'").fetchone()
    assert row == (None, student, "student")


def test_a_learner_fairmark_does_not_know_sees_that_nothing_was_released_for_them(conn, platform, client):
    from core.students import sessions

    launch(client, platform)
    platform.launches["learner"] = launch_claims(platform, sub="stu-9", roles=[LEARNER], name="New Pupil")
    r, _ = launch(client, platform, "learner")
    assert r.status_code == 200 and "has not released anything for you" in r.text
    assert signed_in(conn, r) is None and sessions.COOKIE not in r.headers.get("set-cookie", "")
    assert "Students" not in r.text


def test_a_learner_or_ta_in_an_unlinked_course_is_refused(conn, platform, client):
    for hint, roles in (("learner", [LEARNER]), ("ta", [TA])):
        platform.launches[hint] = launch_claims(platform, sub=f"{hint}-1", roles=roles)
        assert "not linked to a FairMark course yet" in _refused(conn, client, platform, hint)


def test_the_lms_role_changes_at_the_next_launch(conn, platform, client):
    first, _ = launch(client, platform)
    platform.launches["default"] = launch_claims(platform, roles=[TA])
    again, _ = launch(client, platform)
    assert signed_in(conn, again).user_id == signed_in(conn, first).user_id
    assert signed_in(conn, again).role == "ta"


def test_links_on_the_same_gradebook_column_share_an_assignment(conn, platform, client):
    item = f"{platform.url}/ags/ctx-1/lineitems/7"
    platform.launches["a"] = launch_claims(platform, link_id="link-a", lineitem=item, link_title="Essay")
    platform.launches["b"] = launch_claims(platform, link_id="link-b", lineitem=item, link_title="Essay again")
    platform.launches["c"] = launch_claims(platform, link_id="link-c", link_title="Essay")
    for hint in "abc":
        assert launch(client, platform, hint)[0].status_code == 303
    rows = conn.execute("SELECT resource_link_id, assignment_id FROM lti_links ORDER BY resource_link_id").fetchall()
    assert rows[0][1] == rows[1][1] != rows[2][1]
    assert [t for (t,) in conn.execute("SELECT title FROM assignments ORDER BY id")] == ["Essay", "Essay (2)"]


def test_the_platforms_keys_are_fetched_again_for_an_unknown_kid(conn, platform, client, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(platform_keys.CACHE, "clock", lambda: clock[0])
    assert launch(client, platform)[0].status_code == 303 and platform.jwks_fetches == 1
    platform.rotate()
    assert launch(client, platform)[0].status_code == 400      # within REFETCH_MIN_S: not fetched again
    assert platform.jwks_fetches == 1
    clock[0] += platform_keys.REFETCH_MIN_S
    assert launch(client, platform)[0].status_code == 303 and platform.jwks_fetches == 2
    assert launch(client, platform)[0].status_code == 303 and platform.jwks_fetches == 2   # cached


def test_a_launch_without_the_cookie_is_posted_again_from_fairmarks_own_page(conn, platform, client):
    query = login(client, platform)
    cookie = client.cookies.get("fairmark_lti_browser")
    client.cookies.clear()
    token = mint(platform, platform.launches["default"], nonce=query["nonce"])
    before = counts(conn)
    r = client.post("/lti/launch", data={"id_token": token, "state": query["state"]})
    assert r.status_code == 200 and 'name="fm_repost" value="1"' in r.text and counts(conn) == before
    assert "script-src 'sha256-" in r.headers["content-security-policy"]
    client.cookies.set("fairmark_lti_browser", cookie, path="/lti/")
    again = client.post("/lti/launch", data={"id_token": token, "state": query["state"], "fm_repost": "1"})
    assert again.status_code == 303


def test_a_login_inside_a_frame_offers_a_new_window_and_writes_nothing(conn, platform, client):
    before = counts(conn)
    r = client.get("/lti/login", params=platform.login_params(), headers={"Sec-Fetch-Dest": "iframe"})
    assert r.status_code == 200 and 'target="_blank"' in r.text and "new window" in r.text
    assert counts(conn) == before


@pytest.mark.parametrize("change, words", [
    ({"iss": "https://unknown.example"}, "is registered with FairMark"),
    ({"client_id": "other"}, "client id 'other'"),
    ({"lti_deployment_id": "dep-9"}, "deployment 'dep-9'"),
    ({"login_hint": ""}, "lacks login_hint"),
])
def test_a_login_refusal_says_what_to_register(conn, platform, client, change, words):
    before = counts(conn)
    r = client.post("/lti/login", data=platform.login_params(**change))
    assert r.status_code == 400 and words in html.unescape(r.text) and counts(conn) == before


def test_the_login_sets_a_state_cookie_bound_to_the_lti_paths(conn, platform, client):
    r = client.get("/lti/login", params=platform.login_params())
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie and "path=/lti/" in cookie and "max-age=600" in cookie


def test_jwks_serves_the_tools_public_keys(conn, client):
    r = client.get("/lti/jwks")
    assert r.status_code == 200
    [key] = r.json()["keys"]
    assert key["kty"] == "RSA" and key["alg"] == "RS256" and "d" not in key


def test_jwks_without_the_key_secret_says_which_setting(conn, client, monkeypatch):
    monkeypatch.delenv("FAIRMARK_LTI_KEY_SECRET")
    r = client.get("/lti/jwks")
    assert r.status_code == 503 and "FAIRMARK_LTI_KEY_SECRET" in r.json()["error"]


def test_an_unreachable_platform_keyset_says_which_url_to_check(conn, platform, client):
    from e2e_support import free_port

    gone = f"http://127.0.0.1:{free_port()}/jwks"
    conn.execute("UPDATE lti_platforms SET jwks_url = ?", [gone])
    text = _refused(conn, client, platform, claims=platform.launches["default"])
    assert f"could not read the platform's public keys from {gone}" in text and "JWKS URL" in text


def test_behind_a_proxy_the_public_url_names_the_launch_url_and_makes_the_cookie_secure(
        conn, platform, client, monkeypatch):
    monkeypatch.setenv("FAIRMARK_PUBLIC_URL", "https://fairmark.uni.example/")
    r = client.get("/lti/login", params=platform.login_params())
    assert platform.auth_query(r.headers["location"])["redirect_uri"] == "https://fairmark.uni.example/lti/launch"
    assert "secure" in r.headers["set-cookie"].lower()


@pytest.mark.parametrize("scope", [7, "https://purl.imsglobal.org/spec/lti-ags/scope/score", None, [1, {"x": 2}]])
def test_a_grade_service_claim_with_odd_scopes_stores_only_scope_names(conn, platform, client, scope):
    ags = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
    claims = platform.launches["default"]
    claims[ags] = {**claims[ags], "scope": scope}
    r, _ = launch(client, platform)
    assert r.status_code == 303
    assert conn.execute("SELECT ags_scopes FROM lti_links").fetchone()[0] == "[]"


def test_an_oversized_chunked_body_is_refused_as_it_arrives(conn, platform, client):
    query = login(client, platform)
    before = counts(conn)

    def body():
        yield f"state={query['state']}&id_token=".encode()
        for _ in range(100):
            yield b"x" * 10_000

    r = client.post("/lti/launch", content=body(), headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 413 and counts(conn) == before


def test_a_launch_that_is_not_a_form_post_names_what_is_missing(conn, platform, client):
    login(client, platform)      # the browser holds the state cookie
    before = counts(conn)
    r = client.post("/lti/launch", json={"id_token": "x", "state": "y"})
    assert r.status_code == 400 and "without an id_token" in r.text and counts(conn) == before


@pytest.mark.parametrize("claims, language", [
    ({CLAIM + "launch_presentation": {"locale": "sv-SE"}}, "sv"),
    ({"locale": "ru_RU"}, "ru"),                                        # the person's OIDC locale
    ({CLAIM + "launch_presentation": {"locale": "de-DE"}, "locale": "sv"}, "sv"),
    ({CLAIM + "launch_presentation": {"locale": "de-DE"}}, "en"),       # not offered: the default
    ({}, "en"),
])
def test_the_first_launch_gives_the_new_course_the_lms_locale_as_its_language(conn, platform, client, claims,
                                                                               language):
    made = launched(client, platform, **claims)
    assert conn.execute("SELECT language FROM courses WHERE id = ?", [made["course_id"]]).fetchone()[0] == language
    [after] = [r[0] for r in conn.execute("SELECT after FROM audit_log WHERE entity = 'courses' AND action = 'create'")]
    assert f'"language": "{language}"' in after


def test_a_later_launch_keeps_the_language_the_teacher_chose(conn, platform, client):
    from core.courses import catalogue

    made = launched(client, platform, **{CLAIM + "launch_presentation": {"locale": "sv-SE"}})
    catalogue.set_language(conn, made["course_id"], "ru", actor=Actor("admin", role="admin"))
    launched(client, platform, hint="again", **{CLAIM + "launch_presentation": {"locale": "sv-SE"}})
    assert conn.execute("SELECT language FROM courses WHERE id = ?", [made["course_id"]]).fetchone()[0] == "ru"
