"""core's LTI refusals in the reader's language: each reads its English text as before (the
command line, the log, the LMS's HTTP answers), and says it in Swedish or Russian where a person
reads it (Interface.said; the refused launch's page in the launch's or the browser's language)."""
from __future__ import annotations

import html

import pytest

import factories as f
from core.errors import ConfigError, LaunchRefused, NotFound
from core.language.interface import Interface, Message
from core.lti import grades, people, platforms, roster, verify
from lti_support import (client, counts, launch, launch_claims, lti_env, lti_launch, login, mint,  # noqa: F401
                         now, platform)

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
SV, RU = Interface("sv"), Interface("ru")


def test_an_unregistered_lms_is_refused_at_login_in_english_and_said_in_swedish_and_russian(conn, platform):
    before = counts(conn)
    with pytest.raises(LaunchRefused) as refused:
        lti_launch.login(conn, platform.login_params(iss="https://unknown.example"), browser_token=None,
                         base_url="http://testserver")
    assert counts(conn) == before
    assert str(refused.value) == (
        "No LMS with issuer 'https://unknown.example' and client id 'fairmark-client' is registered with FairMark. "
        "An admin registers it on Settings → LMS platforms (or `python -m core lti platform add`).")
    assert SV.said(refused.value) == (
        "Ingen lärplattform med utfärdaren (issuer) 'https://unknown.example' och klient-ID 'fairmark-client' är "
        "registrerad i FairMark. En administratör registrerar den under Inställningar → Lärplattformar (eller med "
        "`python -m core lti platform add`).")
    assert RU.said(refused.value) == (
        "LMS с издателем (issuer) 'https://unknown.example' и ID клиента 'fairmark-client' не зарегистрирована в "
        "FairMark. Администратор регистрирует её в разделе Настройки → Платформы LMS (или командой `python -m core "
        "lti platform add`).")


def test_a_launch_of_an_unknown_state_is_refused_in_english_and_said_translated(conn, platform, client):
    login(client, platform)
    token = mint(platform, platform.launches["default"], nonce="n")
    with pytest.raises(LaunchRefused) as refused:
        lti_launch.launch(conn, {"id_token": token, "state": "no-such-state"}, browser_token=None)
    assert str(refused.value) == (
        "This launch's login state is unknown or older than 10 minutes. Start the launch again from the LMS; if it "
        "keeps failing, check that the LMS's login URL for FairMark is the one shown on Settings → LMS platforms.")
    assert SV.said(refused.value).startswith("Inloggningstillståndet för den här starten är okänt eller äldre än "
                                             "10 minuter.")
    assert "Inställningar → Lärplattformar" in SV.said(refused.value)
    assert RU.said(refused.value).startswith("Состояние входа для этого запуска неизвестно или старше 10 минут.")


def test_a_role_fairmark_does_not_serve_names_it_and_an_empty_role_list_says_none_in_each_language():
    with pytest.raises(LaunchRefused) as mentor:
        people.role_of(["http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"])
    assert str(mentor.value) == (
        "FairMark serves instructors, administrators, teaching assistants and learners; your role in this LMS "
        "course is Mentor. Ask the course's instructor to give you one of those roles in the LMS.")
    assert "din roll i den här kursen i lärplattformen: Mentor." in SV.said(mentor.value)
    with pytest.raises(LaunchRefused) as nothing:
        people.role_of([])
    assert "your role in this LMS course is none." in str(nothing.value)
    assert "din roll i den här kursen i lärplattformen: inga." in SV.said(nothing.value)
    assert "ваша роль в этом курсе LMS: нет." in RU.said(nothing.value)


def test_the_refused_launchs_page_speaks_the_launchs_locale(conn, platform, client):
    claims = launch_claims(platform, roles=["http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"],
                           **{CLAIM + "launch_presentation": {"locale": "sv-SE"}})
    before = counts(conn)
    r, _ = launch(client, platform, claims=claims)
    text = html.unescape(r.text)
    assert r.status_code == 400 and "<h1>FairMark kunde inte öppna den här starten</h1>" in text
    assert '<html lang="sv">' in text                  # the page says its language
    assert "FairMark är till för lärare" in text and "din roll i den här kursen i lärplattformen: Mentor." in text
    assert "your role" not in text
    after = counts(conn)
    before["lti_states"] = after["lti_states"]          # the login's own row: the launch changed nothing
    assert after == before


def test_a_refused_login_speaks_the_browsers_language_and_english_without_one(conn, platform, client):
    params = platform.login_params(client_id="other")
    ru = client.post("/lti/login", data=params, headers={"Accept-Language": "de-DE, ru;q=0.8, en;q=0.5"})
    text = html.unescape(ru.text)
    assert ru.status_code == 400 and "<h1>FairMark не удалось выполнить этот запуск</h1>" in text
    assert "и ID клиента 'other' не зарегистрирована в FairMark" in text
    en = html.unescape(client.post("/lti/login", data=params).text)
    assert "<h1>FairMark could not open this launch</h1>" in en and "and client id 'other' is registered" in en
    assert '<html lang="ru">' in text and '<html lang="en">' in en


def test_a_registration_names_the_field_it_refuses_in_the_readers_language(conn, lti_env):
    with pytest.raises(ConfigError) as refused:
        platforms.add(conn, issuer="http://lms.example", client_id="c", deployment_ids=["d"],
                      auth_url="https://lms.example/auth", token_url="https://lms.example/token",
                      jwks_url="https://lms.example/jwks", actor=f.actor("admin"))
    assert str(refused.value) == ("The issuer must be an https:// address (http:// only on this machine), as the LMS "
                                  "shows it; got 'http://lms.example'. Nothing was registered.")
    assert SV.said(refused.value).startswith("Fältet ”utfärdare” måste vara en https://-adress")
    assert "angivet: 'http://lms.example'. Inget registrerades." in SV.said(refused.value)
    assert RU.said(refused.value).startswith("Поле «издатель» должно содержать адрес https://")
    with pytest.raises(ConfigError) as no_deployment:
        platforms.add(conn, issuer="https://lms.example", client_id="c", deployment_ids=[" x\ty "],
                      auth_url="https://lms.example/auth", token_url="https://lms.example/token",
                      jwks_url="https://lms.example/jwks", actor=f.actor("admin"))
    assert str(no_deployment.value).startswith("The deployment id is missing or not one line of at most 1000 "
                                               "characters;")
    assert RU.said(no_deployment.value).startswith("Поле «ID развёртывания» не заполнено или не является одной "
                                                   "строкой длиной не более 1000 символов;")
    assert conn.execute("SELECT COUNT(*) FROM lti_platforms").fetchone()[0] == 0


def test_an_unlinked_courses_roster_and_grades_are_refused_in_english_and_said_translated(conn, lti_env):
    course, other = f.course(conn, "Chemistry"), f.course(conn, "Physics")
    with pytest.raises(ConfigError) as unlinked:
        roster.sync(conn, course["course_id"], actor=f.actor("admin"))
    cid = course["course_id"]
    assert str(unlinked.value) == (f"course {cid} is not linked to an LMS course: its instructor launches FairMark "
                                   "from the LMS course once, then the roster can be read")
    assert SV.said(unlinked.value) == (f"kurs {cid} är inte kopplad till någon kurs i lärplattformen: kursens lärare "
                                       "startar FairMark från kursen i lärplattformen en gång, sedan kan "
                                       "deltagarlistan läsas")
    assert RU.said(unlinked.value).startswith(f"курс {cid} не связан с курсом LMS")
    with pytest.raises(NotFound) as elsewhere:
        grades.retry(conn, other["course_id"], course["assignment_id"], actor=f.actor("admin"))
    assert str(elsewhere.value) == f"assignment {course['assignment_id']} is not in course {other['course_id']}"
    assert SV.said(elsewhere.value) == f"uppgift {course['assignment_id']} ingår inte i kurs {other['course_id']}"
    assert RU.said(elsewhere.value) == f"задание {course['assignment_id']} не входит в курс {other['course_id']}"


def test_a_wrong_nonce_is_refused_in_english_and_its_page_speaks_the_launchs_locale(conn, platform, client):
    """core.lti.verify's refusals are Messages: the page of a launch with a made-up nonce is Swedish."""
    claims = {**platform.launches["default"], CLAIM + "launch_presentation": {"locale": "sv-SE"}}
    r, _ = launch(client, platform, claims=claims, nonce="made-up")
    text = html.unescape(r.text)
    assert r.status_code == 400 and "<h1>FairMark kunde inte öppna den här starten</h1>" in text
    assert "Startens nonce är inte den som FairMarks inloggning skickade för den." in text
    assert "nonce is not the one" not in text


def test_an_expired_id_token_is_refused_in_english_and_its_page_is_swedish(conn, platform, client):
    """A real launch whose id_token expired an hour ago: the refusal reads its English text as before
    (the log, the command line), and its page over HTTP speaks the launch's locale."""
    claims = launch_claims(platform, **{CLAIM + "launch_presentation": {"locale": "sv-SE"}})
    before = counts(conn)
    r, _ = launch(client, platform, claims=claims, exp=now() - 3600, iat=now() - 3700)
    text = html.unescape(r.text)
    assert r.status_code == 400 and "<h1>FairMark kunde inte öppna den här starten</h1>" in text
    assert ("Startens id_token har gått ut (exp). Starta igen från lärplattformen; om varje start säger detta går "
            "lärplattformens och FairMark-serverns klockor olika: kontrollera att båda använder nätverkstid.") in text
    assert "has expired" not in text
    after = counts(conn)
    before["lti_states"] = after["lti_states"]
    assert after == before
    with pytest.raises(LaunchRefused) as refused:
        verify._times({"exp": now() - 3600, "iat": now() - 3700})
    assert str(refused.value) == (
        "The launch's id_token has expired (exp). Start it again from the LMS; if every launch says this, the clocks "
        "of the LMS and of FairMark's server differ: check both use network time.")
    assert RU.said(refused.value).startswith("Срок действия id_token запуска истёк (exp).")


def test_a_too_long_claim_names_its_field_in_the_readers_language():
    with pytest.raises(LaunchRefused) as refused:
        verify._id(Message("user id (sub)"), "x" * 300)
    assert str(refused.value).startswith("The launch's user id (sub) is missing or longer than 255 characters.")
    assert SV.said(refused.value).startswith("Fältet ”användar-ID (sub)” i starten saknas eller är längre än 255 tecken.")
    assert RU.said(refused.value).startswith("Поле «ID пользователя (sub)» в запуске отсутствует или длиннее 255 "
                                             "символов.")
