"""Identity (issue 13): Argon2id hashes, waits and lockout, sessions that expire, the first admin,
and the institutional sign-in's mapping from OpenID Connect claims to a FairMark user."""
from __future__ import annotations

import pytest

import factories as f
from core.accounts import identity as accounts
from core.errors import ConfigError, ConflictError, Forbidden, NotSignedIn
from core.settings import load_settings
from stored import stored_text


def stamp_ago(seconds: float) -> str:
    from datetime import timedelta

    return accounts._stamp(accounts._now() - timedelta(seconds=seconds))


def test_the_first_account_is_an_admin_and_only_admins_add_users_after_it(conn):
    with pytest.raises(ConfigError, match="first account must be an admin"):
        accounts.add_user(conn, username="tom", role="ta", password="long enough pw")
    accounts.add_user(conn, username="anna", role="admin", password="long enough pw")
    with pytest.raises(Forbidden, match="first admin already"):
        accounts.add_user(conn, username="eve", role="admin", password="long enough pw")
    ta = f.user(conn, "tom", "ta")
    with pytest.raises(Forbidden, match=r"Your role \(teaching assistant\) may not manage users"):
        accounts.add_user(conn, username="eve", role="admin", password="long enough pw", actor=ta)
    with pytest.raises(ConflictError):
        accounts.add_user(conn, username="TOM", role="ta", password="long enough pw", actor=f.actor())
    with pytest.raises(ConfigError, match="at least 10"):
        accounts.add_user(conn, username="short", role="ta", password="short", actor=f.actor())


def test_passwords_are_argon2id_hashes_never_the_password(conn):
    accounts.add_user(conn, username="anna", role="admin", password="my very secret words")
    stored = conn.execute("SELECT password_hash FROM users").fetchone()[0]
    assert stored.startswith("$argon2id$")
    assert "my very secret words" not in stored_text(conn)
    actor, token = accounts.sign_in(conn, "anna", "my very secret words")
    assert actor.role == "admin" and actor.all_courses
    assert conn.execute("SELECT COUNT(*) FROM sessions WHERE token_hash = ?", [token]).fetchone()[0] == 0
    assert token not in stored_text(conn)


def test_a_failed_sign_in_never_says_which_part_was_wrong(conn):
    f.user(conn, "anna", "admin")
    with pytest.raises(NotSignedIn) as known:
        accounts.sign_in(conn, "anna", "wrong password")
    with pytest.raises(NotSignedIn) as unknown:
        accounts.sign_in(conn, "nobody", "wrong password")
    assert str(known.value) == str(unknown.value) == accounts.SIGNIN_FAILED
    assert "wrong password" not in str(known.value)


def test_failures_make_the_next_try_wait_then_lock_the_name(conn, monkeypatch):
    monkeypatch.setenv("FAIRMARK_SIGNIN_LOCK_AFTER", "4")
    monkeypatch.setenv("FAIRMARK_SIGNIN_LOCK_MINUTES", "15")
    f.user(conn, "anna", "admin")
    with pytest.raises(NotSignedIn, match="not right"):
        accounts.sign_in(conn, "anna", "wrong 1")           # the first failure: no wait
    with pytest.raises(NotSignedIn, match="not right"):
        accounts.sign_in(conn, "anna", "wrong 2")           # the second: the next try waits 1 s
    with pytest.raises(NotSignedIn, match=r"try again in \d+ second"):
        accounts.sign_in(conn, "anna", f.PASSWORD)          # refused without checking the password
    for n in (3, 4):
        conn.execute("UPDATE signin_failures SET locked_until = ?", [stamp_ago(1)])
        with pytest.raises(NotSignedIn):
            accounts.sign_in(conn, "anna", f"wrong {n}")
    with pytest.raises(NotSignedIn, match="locked for 15 more minute"):
        accounts.sign_in(conn, "anna", f.PASSWORD)
    conn.execute("UPDATE signin_failures SET locked_until = ?", [stamp_ago(1)])   # the lock has run out
    actor, _ = accounts.sign_in(conn, "anna", f.PASSWORD)
    assert str(actor) == "anna"
    assert conn.execute("SELECT COUNT(*) FROM signin_failures").fetchone()[0] == 0


def test_the_failure_that_locks_the_name_says_it_is_locked(conn, monkeypatch):
    """Issue 21 item 14: the fifth failure said "Sign-in failed"; the lock was told only on the sixth."""
    monkeypatch.setenv("FAIRMARK_SIGNIN_LOCK_AFTER", "3")
    monkeypatch.setenv("FAIRMARK_SIGNIN_LOCK_MINUTES", "15")
    f.user(conn, "anna", "admin")
    for n in (1, 2):
        conn.execute("UPDATE signin_failures SET locked_until = ?", [stamp_ago(1)])
        with pytest.raises(NotSignedIn, match="not right"):
            accounts.sign_in(conn, "anna", f"wrong {n}")
    conn.execute("UPDATE signin_failures SET locked_until = ?", [stamp_ago(1)])
    with pytest.raises(NotSignedIn, match="locked for 15 more minute") as third:
        accounts.sign_in(conn, "anna", "wrong 3")
    assert "not right" not in str(third.value)
    conn.execute("UPDATE signin_failures SET locked_until = ?", [stamp_ago(1)])
    actor, _ = accounts.sign_in(conn, "anna", f.PASSWORD)   # a right password at the last try still signs in
    assert str(actor) == "anna"


def test_an_unknown_name_is_slowed_down_like_a_known_one(conn):
    for n in range(2):
        with pytest.raises(NotSignedIn):
            accounts.sign_in(conn, "ghost", f"guess {n}")
    with pytest.raises(NotSignedIn, match="try again"):
        accounts.sign_in(conn, "ghost", "guess 3")


def test_sessions_end_when_idle_too_old_signed_out_or_deactivated(conn, monkeypatch):
    monkeypatch.setenv("FAIRMARK_SESSION_IDLE_MINUTES", "30")
    monkeypatch.setenv("FAIRMARK_SESSION_MAX_HOURS", "8")
    tom = f.user(conn, "tom", "ta")
    _, token = accounts.sign_in(conn, "tom", f.PASSWORD)
    assert accounts.resume(conn, token) == tom
    conn.execute("UPDATE sessions SET last_seen_at = ?", [stamp_ago(29 * 60)])
    assert accounts.resume(conn, token) is not None                       # a click within the idle time
    assert conn.execute("SELECT last_seen_at FROM sessions").fetchone()[0] > stamp_ago(5)   # ... renews it
    conn.execute("UPDATE sessions SET last_seen_at = ?", [stamp_ago(31 * 60)])
    assert accounts.resume(conn, token) is None                           # idle too long: ended for good
    conn.execute("UPDATE sessions SET last_seen_at = ?", [stamp_ago(0)])
    assert accounts.resume(conn, token) is None
    _, token = accounts.sign_in(conn, "tom", f.PASSWORD)
    conn.execute("UPDATE sessions SET created_at = ? WHERE ended_at IS NULL", [stamp_ago(8 * 3600 + 1)])
    assert accounts.resume(conn, token) is None                           # older than the longest session
    _, token = accounts.sign_in(conn, "tom", f.PASSWORD)
    accounts.sign_out(conn, token)
    assert accounts.resume(conn, token) is None
    _, token = accounts.sign_in(conn, "tom", f.PASSWORD)
    accounts.set_active(conn, tom.user_id, False, actor=f.actor())
    assert accounts.resume(conn, token) is None
    with pytest.raises(NotSignedIn, match="deactivated"):
        accounts.sign_in(conn, "tom", f.PASSWORD)
    assert accounts.resume(conn, "a guessed token") is None


def test_a_changed_role_or_grant_applies_at_the_next_click(conn):
    c = f.course(conn)
    tom = f.user(conn, "tom", "ta")
    _, token = accounts.sign_in(conn, "tom", f.PASSWORD)
    assert not accounts.resume(conn, token).has_course(c["course_id"])
    accounts.grant(conn, tom.user_id, course_id=c["course_id"], actor=f.actor())
    accounts.set_role(conn, tom.user_id, "instructor", actor=f.actor())
    again = accounts.resume(conn, token)
    assert again.role == "instructor" and again.has_course(c["course_id"])


def test_a_department_grant_covers_its_courses(conn):
    c = f.course(conn, "Physics 1")
    conn.execute("UPDATE courses SET department = 'Physics' WHERE id = ?", [c["course_id"]])
    other = f.course(conn, "History 1")
    cora = f.user(conn, "cora", "coordinator")
    accounts.grant(conn, cora.user_id, department="Physics", sees_names=True, actor=f.actor())
    cora = accounts.actor_of(conn, "cora")
    assert cora.has_course(c["course_id"]) and not cora.has_course(other["course_id"])
    assert cora.courses[c["course_id"]] is True


@pytest.mark.parametrize("claims, expected", [
    ({"is_logged_in": True, "email": "Anna.Berg@Uni.example", "email_verified": True, "name": "Anna Berg",
      "iss": "https://login.example"}, ("anna", "instructor")),
    # Microsoft Entra ID: no `email` claim, the UPN in preferred_username
    ({"is_logged_in": True, "preferred_username": "anna.berg@uni.example", "name": "Anna Berg"},
     ("anna", "instructor")),
    ({"is_logged_in": True, "email": "anna.berg@uni.example", "email_verified": "true"}, ("anna", "instructor")),
])
def test_oidc_claims_map_to_the_fairmark_user_with_that_email(conn, claims, expected):
    accounts.add_user(conn, username="admin", role="admin", password=f.PASSWORD)
    accounts.add_user(conn, username="anna", role="instructor", email="anna.berg@uni.example", actor=f.actor())
    trusted = "email_verified" not in claims  # Entra ID: the admin marks it fairmark_trust_email
    actor = accounts.oidc_actor(conn, accounts.Claims.of(claims), trust_email=trusted)
    assert (str(actor), actor.role, actor.via) == (*expected, "oidc")


@pytest.mark.parametrize("claims, message", [
    ({"is_logged_in": True, "name": "No Mail"}, "sent no e-mail"),
    ({"is_logged_in": True, "email": "anna.berg@uni.example", "email_verified": False}, "not verified"),
    # a provider that does not say it verified the e-mail (and is not marked trusted)
    ({"is_logged_in": True, "email": "anna.berg@uni.example"}, "not verified"),
    ({"is_logged_in": True, "preferred_username": "anna.berg@uni.example"}, "not verified"),
    ({"is_logged_in": True, "email": "stranger@uni.example", "email_verified": True}, "No active FairMark account"),
])
def test_oidc_claims_without_a_verified_known_email_are_refused(conn, claims, message):
    accounts.add_user(conn, username="admin", role="admin", password=f.PASSWORD)
    accounts.add_user(conn, username="anna", role="instructor", email="anna.berg@uni.example", actor=f.actor())
    with pytest.raises(NotSignedIn, match=message):
        accounts.oidc_actor(conn, accounts.Claims.of(claims))


def test_an_institution_only_account_cannot_sign_in_with_a_password(conn):
    accounts.add_user(conn, username="admin", role="admin", password=f.PASSWORD)
    accounts.add_user(conn, username="anna", role="instructor", email="anna@uni.example", actor=f.actor())
    with pytest.raises(NotSignedIn, match="not right"):
        accounts.sign_in(conn, "anna", "")


def test_settings_default_to_an_hour_idle_and_five_failures():
    s = load_settings()
    assert (s.session_idle_minutes, s.session_max_hours, s.signin_lock_after, s.signin_lock_minutes) == (60, 12, 5, 15)


def _oidc_claims(seconds_ago: float = 5) -> accounts.Claims:
    import time

    return accounts.Claims.of({"is_logged_in": True, "email": "anna.berg@uni.example", "email_verified": True,
                               "iat": int(time.time() - seconds_ago)})


def test_an_institutional_sign_in_times_out_when_idle_like_a_password_one(conn, monkeypatch):
    monkeypatch.setenv("FAIRMARK_SESSION_IDLE_MINUTES", "30")
    monkeypatch.setenv("FAIRMARK_SESSION_MAX_HOURS", "8")
    accounts.add_user(conn, username="admin", role="admin", password=f.PASSWORD)
    accounts.add_user(conn, username="anna", role="instructor", email="anna.berg@uni.example", actor=f.actor())
    claims = _oidc_claims()
    actor, token = accounts.oidc_sign_in(conn, claims)
    assert (str(actor), actor.via) == ("anna", "oidc") and accounts.resume(conn, token) == actor
    conn.execute("UPDATE sessions SET last_seen_at = ?", [stamp_ago(31 * 60)])
    assert accounts.resume(conn, token) is None                          # idle too long, like a password's
    assert accounts.oidc_sign_in(conn, claims) is None                   # the same st.login opens no new one
    # ... nor does it when the browser lost the cookie and the idle session was never resumed
    conn.execute("DELETE FROM sessions")
    accounts.oidc_sign_in(conn, claims)
    conn.execute("UPDATE sessions SET last_seen_at = ?", [stamp_ago(31 * 60)])
    assert accounts.oidc_sign_in(conn, claims) is None
    assert accounts.oidc_sign_in(conn, _oidc_claims(9 * 3600)) is None   # an st.login older than a session may be
    # signing in at the institution again opens a new session (the old one ended before it)
    conn.execute("UPDATE sessions SET ended_at = ?", [stamp_ago(120)])
    again = accounts.oidc_sign_in(conn, _oidc_claims(seconds_ago=1))
    assert again is not None and accounts.resume(conn, again[1]) == actor


def test_a_signed_out_institutional_sign_in_opens_no_new_session(conn):
    accounts.add_user(conn, username="admin", role="admin", password=f.PASSWORD)
    accounts.add_user(conn, username="anna", role="instructor", email="anna.berg@uni.example", actor=f.actor())
    claims = _oidc_claims()
    _, token = accounts.oidc_sign_in(conn, claims)
    accounts.sign_out(conn, token)
    assert accounts.oidc_sign_in(conn, claims) is None


def test_a_trusted_provider_is_believed_without_email_verified_but_not_against_a_false_one(conn):
    accounts.add_user(conn, username="admin", role="admin", password=f.PASSWORD)
    accounts.add_user(conn, username="anna", role="instructor", email="anna.berg@uni.example", actor=f.actor())
    entra = accounts.Claims.of({"is_logged_in": True, "preferred_username": "anna.berg@uni.example",
                                "provider": "entra"})
    assert entra.provider == "entra"
    with pytest.raises(NotSignedIn, match="not verified"):
        accounts.oidc_actor(conn, entra)
    assert str(accounts.oidc_actor(conn, entra, trust_email=True)) == "anna"
    denied = accounts.Claims.of({"is_logged_in": True, "email": "anna.berg@uni.example", "email_verified": False})
    with pytest.raises(NotSignedIn, match="not verified"):
        accounts.oidc_actor(conn, denied, trust_email=True)


def test_attempts_sent_at_once_are_each_counted_and_wait_like_sequential_ones(conn, db_path, monkeypatch):
    import threading
    import time

    import db as dbmod

    monkeypatch.setenv("FAIRMARK_SIGNIN_LOCK_AFTER", "5")
    f.user(conn, "anna", "admin")
    start, answers = threading.Barrier(8), []

    class SlowHasher:  # Argon2 on a server with free cores: every attempt checks at the same time
        def __getattr__(self, name):
            return getattr(real, name)

        def verify(self, hashed, password):
            time.sleep(0.3)
            return real.verify(hashed, password)

    real = accounts._hasher
    monkeypatch.setattr(accounts, "_hasher", SlowHasher())

    def attempt(n):
        own = dbmod.connect(db_path)
        start.wait()
        try:
            accounts.sign_in(own, "anna", f"parallel guess {n}")
        except NotSignedIn as e:
            answers.append(str(e))
        finally:
            own.close()

    threads = [threading.Thread(target=attempt, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    checked = answers.count(accounts.SIGNIN_FAILED)
    assert len(answers) == 8 and checked == 2            # the rest had to wait, unchecked
    assert all("try again" in a for a in answers if a != accounts.SIGNIN_FAILED)
    assert conn.execute("SELECT failures FROM signin_failures").fetchone()[0] == checked


def test_an_auto_refresh_does_not_keep_an_unattended_session_alive(conn, monkeypatch):
    monkeypatch.setenv("FAIRMARK_SESSION_IDLE_MINUTES", "30")
    tom = f.user(conn, "tom", "ta")
    _, token = accounts.sign_in(conn, "tom", f.PASSWORD)
    conn.execute("UPDATE sessions SET last_seen_at = ?", [stamp_ago(20 * 60)])
    assert accounts.resume(conn, token, touch=False) == tom            # a live run's progress, every second
    assert conn.execute("SELECT last_seen_at FROM sessions").fetchone()[0] < stamp_ago(19 * 60)
    conn.execute("UPDATE sessions SET last_seen_at = ?", [stamp_ago(31 * 60)])
    assert accounts.resume(conn, token, touch=False) is None           # nobody clicked: it timed out


@pytest.mark.slow   # eight spawned processes
def test_attempts_from_several_processes_at_once_are_each_counted_and_wait(conn, db_path, monkeypatch):
    """Eight hosts each get one guess at the same moment: the lockout counts across processes."""
    import at_once

    monkeypatch.setenv("FAIRMARK_SIGNIN_LOCK_AFTER", "5")   # the spawned processes inherit it
    f.user(conn, "anna", "admin")
    answers = at_once.run(at_once.sign_in, [(db_path, "anna", f"parallel guess {n}", 0.3) for n in range(8)])
    checked = answers.count(str(accounts.SIGNIN_FAILED))
    assert checked == 2 and all(a == str(accounts.SIGNIN_FAILED) or "try again" in a for a in answers), answers
    assert conn.execute("SELECT failures FROM signin_failures").fetchone()[0] == checked
