"""Sign-in and roles in the app (issue 13, AppTest): signed out, every page is the sign-in form;
the first visit of a fresh database creates the admin; lockout; an instructor cannot open
another course's item by its address; a coordinator reads without approving, editing or
releasing; a teaching assistant cannot release; the audit log names the signed-in user."""
from __future__ import annotations

import pytest

import factories as f
from db import reviews
from shown import plain
from stored import stored_text

PAGE_FILES = ["pages/home.py", "pages/upload.py", "pages/assess.py", "pages/calibrate.py", "pages/review.py",
              "pages/release.py", "pages/student.py", "pages/compare.py", "pages/lessons.py", "pages/lesson_review.py",
              "pages/agreement.py", "pages/fairness.py", "pages/costs.py", "pages/ai_quality.py",
              "pages/learning.py", "pages/settings.py"]
HIGH = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 3}


def text_of(at) -> str:
    parts = [e.value for kind in ("markdown", "caption", "info", "warning", "error", "success", "title", "subheader")
             for e in getattr(at, kind)]
    return plain(" ".join(str(p) for p in parts))


@pytest.fixture
def two_courses(conn):
    """Course A and course B, each with one drafted item."""
    out = {}
    for name in ("A", "B"):
        c = f.course(conn, f"Course {name}")
        sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], name=f"Pupil {name}"),
                           text=f"Pupil {name} wrote about temperature and bias in language models.")
        f.draft(conn, sid, HIGH)
        out[name] = {**c, "item": sid}
    f.user(conn, "admin", "admin")  # the database has its admin: no first-visit form
    return out


def item_page(app_test, c, sid, **who):
    at = app_test("pages/review.py", **who)
    at.query_params["item"] = str(sid)
    return at.run()


@pytest.mark.parametrize("page", PAGE_FILES)
def test_signed_out_every_page_shows_only_the_sign_in_form(app_test, conn, two_courses, page):
    at = app_test(page, signed_in=False).run()
    assert not at.exception, at.exception
    assert [t.label for t in at.text_input] == ["User name", "Password"]
    assert [b.label for b in at.button] == ["Sign in"]
    assert "Pupil" not in text_of(at) and not at.sidebar.selectbox and not at.dataframe


def test_a_deep_link_survives_the_sign_in(app_test, conn, two_courses):
    b = two_courses["B"]
    f.user(conn, "ines", "instructor", courses=[b["course_id"]])
    at = app_test("pages/review.py", signed_in=False)
    at.query_params["item"] = str(b["item"])
    at.run()
    at.text_input(key="signin_name").input("ines")
    at.text_input(key="signin_password").input(f.PASSWORD)
    at.button[0].click().run()
    assert not at.exception, at.exception
    assert "Pupil B wrote about temperature" in text_of(at) or any(
        "Pupil B wrote" in str(t.value) for t in at.text)
    assert str(at.query_params["item"][0] if isinstance(at.query_params["item"], list) else at.query_params["item"]) \
        == str(b["item"])


def test_first_visit_of_a_fresh_database_creates_the_admin(app_test, conn):
    at = app_test(signed_in=False).run()
    assert "no users yet" in text_of(at)
    at.text_input(key="first_name").input("anna")
    at.text_input(key="first_display").input("Anna Berg")
    at.text_input(key="first_password").input("a long enough secret")
    at.text_input(key="first_again").input("a long enough secret")
    at.button[0].click().run()
    assert not at.exception, at.exception
    assert "Signed in as Anna Berg (admin)" in plain(" ".join(str(c.value) for c in at.sidebar.caption))
    row = conn.execute("SELECT username, role, password_hash FROM users").fetchone()
    assert row[0] == "anna" and row[1] == "admin" and row[2].startswith("$argon2id$")
    assert "a long enough secret" not in stored_text(conn)


def test_a_database_with_courses_but_no_users_offers_no_first_admin_form(app_test, conn):
    from core.accounts import identity as accounts
    from core.errors import Forbidden

    f.course(conn, "Course from before sign-in")
    at = app_test(signed_in=False).run()
    assert not at.exception, at.exception
    assert "python -m core user add NAME --role admin" in text_of(at)
    assert not [t for t in at.text_input if t.key in ("first_name", "first_password")]
    assert "create the first admin account" not in text_of(at)
    with pytest.raises(Forbidden, match="courses but no users"):
        accounts.first_admin(conn, username="stranger", password="a long enough secret")
    assert conn.execute("SELECT COUNT(*) FROM users").fetchone()[0] == 0
    # whoever runs the server makes the first admin (`python -m core user add`: no actor yet)
    accounts.add_user(conn, username="anna", role="admin", password="a long enough secret")
    at = app_test(signed_in=False).run()
    assert [t for t in at.text_input if t.key == "signin_name"] and "python -m core" not in text_of(at)


def test_the_wrong_password_that_locks_the_name_says_so_on_the_page(app_test, conn, two_courses):
    """Issue 21 item 14: the fifth failure (the one that locks) said "Sign-in failed"."""
    f.user(conn, "tom", "ta", courses=[two_courses["A"]["course_id"]])
    at = app_test(signed_in=False).run()
    for attempt in range(5):
        conn.execute("UPDATE signin_failures SET locked_until = NULL")  # skip the short waits
        at.text_input(key="signin_name").input("tom")
        at.text_input(key="signin_password").input(f"wrong {attempt}")
        at.button[0].click().run()
        said = text_of(at)
        if attempt < 4:
            assert "the name or the password is not right" in said and "locked" not in said
    assert "locked for 15 more minute" in said and "not right" not in said


def test_wrong_passwords_slow_down_then_lock_the_name(app_test, conn, two_courses):
    f.user(conn, "tom", "ta", courses=[two_courses["A"]["course_id"]])
    conn.execute("UPDATE signin_failures SET locked_until = NULL")
    at = app_test(signed_in=False).run()
    for attempt in range(5):
        conn.execute("UPDATE signin_failures SET locked_until = NULL WHERE failures < 5")  # skip the short waits
        at.text_input(key="signin_name").input("tom")
        at.text_input(key="signin_password").input(f"wrong {attempt}")
        at.button[0].click().run()
        assert ("the name or the password is not right" in text_of(at) or "try again" in text_of(at)
                or (attempt == 4 and "locked" in text_of(at)))
    at.text_input(key="signin_password").input(f.PASSWORD)  # the right one, too late
    at.button[0].click().run()
    assert "locked" in text_of(at)
    assert [b.label for b in at.button] == ["Sign in"]
    assert f.PASSWORD not in text_of(at)


def test_an_instructor_cannot_open_another_courses_item_by_its_address(app_test, conn, two_courses):
    a, b = two_courses["A"], two_courses["B"]
    f.user(conn, "ines", "instructor", courses=[a["course_id"]])
    at = item_page(app_test, a, b["item"], user="ines", role="instructor")
    assert not at.exception, at.exception
    shown = text_of(at) + " ".join(str(t.value) for t in at.text)
    assert "Pupil B" not in shown
    assert [o for o in at.sidebar.selectbox(key="_pick_course").options] == ["Course A"]
    assert reviews.get_review(conn, b["item"]) is None           # nothing opened, nothing written


def test_a_coordinator_reads_an_item_but_cannot_approve_edit_or_release(app_test, conn, two_courses):
    a = two_courses["A"]
    at = item_page(app_test, a, a["item"], user="cora", role="coordinator", courses=[a["course_id"]])
    assert not at.exception, at.exception
    assert "Read only: your role (coordinator)" in text_of(at)
    labels = {b.label for b in at.button}
    assert not labels & {"Approve", "Save", "Reject", "Regenerate"}
    assert "Pupil A" not in text_of(at) + " ".join(str(t.value) for t in at.text)  # pseudonyms only
    assert reviews.get_review(conn, a["item"]) is None            # looking does not open it
    at = app_test("pages/release.py", user="cora", role="coordinator", courses=[a["course_id"]])
    at.session_state["course_id"], at.session_state["assignment_id"] = a["course_id"], a["assignment_id"]
    at.run()
    assert "Your role (coordinator) may not release feedback" in text_of(at)
    assert not [b for b in at.button if b.label.startswith("Release")]


def test_a_coordinator_granted_names_sees_them(app_test, conn, two_courses):
    a = two_courses["A"]
    at = item_page(app_test, a, a["item"], user="cora", role="coordinator", courses=[a["course_id"]], names=True)
    assert "Pupil A" in text_of(at) + " ".join(str(t.value) for t in at.text)


def test_a_teaching_assistant_reviews_but_cannot_release(app_test, conn, two_courses):
    a = two_courses["A"]
    at = item_page(app_test, a, a["item"], user="tom", role="ta", courses=[a["course_id"]])
    assert not at.exception, at.exception
    assert any(b.label.startswith("Approve") for b in at.button)
    at = app_test("pages/release.py", user="tom", role="ta", courses=[a["course_id"]])
    at.session_state["course_id"], at.session_state["assignment_id"] = a["course_id"], a["assignment_id"]
    at.run()
    assert "Your role (teaching assistant) may not release feedback" in text_of(at)
    menu = [link.label for link in at.sidebar.get("page_link")]
    assert "Review" in menu and "Release" not in menu and "Settings" not in menu


def test_the_audit_log_names_the_signed_in_user_and_role(app_test, conn, two_courses):
    a = two_courses["A"]
    at = item_page(app_test, a, a["item"], user="ines", role="instructor", courses=[a["course_id"]])
    approve = next(b for b in at.button if b.label.startswith("Approve"))
    approve.click().run()
    assert not at.exception, at.exception
    rows = conn.execute("SELECT a.actor, a.role, u.username FROM audit_log a JOIN users u ON u.id = a.user_id "
                        "WHERE a.submission_id = ? AND a.action = 'approve'", [a["item"]]).fetchall()
    assert rows == [("ines", "instructor", "ines")]


def test_sign_out_ends_the_session(app_test, conn, two_courses):
    at = app_test("pages/home.py").run()
    token = at.session_state["_session_token"]
    at.sidebar.button(key="sign_out").click().run()
    assert [b.label for b in at.button] == ["Sign in"]
    assert conn.execute("SELECT ended_at IS NOT NULL FROM sessions").fetchall() == [(1,)]
    from core.accounts import identity as accounts
    assert accounts.resume(conn, token) is None


def _route(url: str):
    """Follow a /auth/... address the page sent the browser to, as the browser would."""
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    import core.web.server

    with TestClient(Starlette(routes=core.web.server.routes()), follow_redirects=False) as client:
        return client.get(url)


def test_signing_in_sends_the_browser_to_the_cookie_route_and_back_to_the_link(app_test, conn, two_courses):
    """Issue 25: the page sets no cookie; it leaves a one-time code, and the route sets the
    HttpOnly cookie and sends the browser back to the deep link (its address kept)."""
    from core.accounts import identity as accounts

    b = two_courses["B"]
    f.user(conn, "ines", "instructor", courses=[b["course_id"]])
    at = app_test("pages/review.py", signed_in=False)
    at.query_params["item"] = str(b["item"])
    at.run()
    assert "_go_to" not in at.session_state
    at.text_input(key="signin_name").input("ines")
    at.text_input(key="signin_password").input(f.PASSWORD)
    at.button[0].click().run()
    go = at.session_state["_go_to"]
    assert go.startswith("/auth/session?code=")
    r = _route(go)
    assert r.status_code == 303 and f"item={b['item']}" in r.headers["location"]
    assert r.headers["location"].startswith("/")
    assert accounts.resume(conn, r.cookies["fairmark_session"]) == "ines"
    assert accounts.resume(conn, at.session_state["_session_token"]) is None   # only the cookie opens it now
    assert _route(go).status_code == 400                                        # once


def test_a_wrong_password_sends_the_browser_nowhere(app_test, conn, two_courses):
    f.user(conn, "ines", "instructor")
    at = app_test(signed_in=False).run()
    at.text_input(key="signin_name").input("ines")
    at.text_input(key="signin_password").input("not the password")
    at.button[0].click().run()
    assert "_go_to" not in at.session_state
    assert conn.execute("SELECT COUNT(*) FROM signin_codes").fetchone()[0] == 0


def test_sign_out_sends_the_browser_to_the_route_that_clears_the_cookie(app_test, conn, two_courses):
    at = app_test("pages/home.py").run()
    at.sidebar.button(key="sign_out").click().run()
    assert at.session_state["_go_to"] == "/auth/signout?next=%2F"
    r = _route(at.session_state["_go_to"])
    assert r.status_code == 303 and r.headers["location"] == "/"
    assert 'fairmark_session=""' in r.headers["set-cookie"] and "Max-Age=0" in r.headers["set-cookie"]


def test_signing_out_of_an_institutional_sign_in_also_leaves_streamlits_sign_in(app_test, conn, two_courses):
    """An st.login session: after /auth/signout the browser goes on to st.logout's own route."""
    import db
    from core.accounts import identity as accounts

    uid = f.user(conn, "ines", "instructor").user_id
    with db.write_transaction(conn):
        token = accounts.open_session(conn, uid, "oidc")
    at = app_test("pages/home.py", signed_in=False)
    at.session_state["_session_token"] = token
    at.run()
    at.sidebar.button(key="sign_out").click().run()
    assert at.session_state["_go_to"] == "/auth/signout?next=%2Fauth%2Flogout"
    assert _route(at.session_state["_go_to"]).headers["location"] == "/auth/logout"
    assert accounts.resume(conn, token) is None


def test_an_institutional_sign_in_handed_to_the_cookie_does_not_sign_the_old_tab_in_again(app_test, conn,
                                                                                         two_courses, monkeypatch):
    """After /auth/session gave the session a new token (the cookie's), the Streamlit session that
    handed it over is signed out, and st.user does not open a second session there."""
    import time

    from core.accounts import identity as accounts
    from pages import _signin

    accounts.add_user(conn, username="anna", role="instructor", email="anna@uni.example",
                      actor=f.actor("test setup"))
    monkeypatch.setattr(_signin, "_oidc_claims", lambda: {"email": "anna@uni.example", "email_verified": True,
                                                          "iat": int(time.time()), "is_logged_in": True})
    at = app_test("pages/home.py", signed_in=False).run()
    assert not at.exception, at.exception
    go = at.session_state["_go_to"]
    assert go.startswith("/auth/session?code=")
    assert _route(go).status_code == 303                          # the browser got its cookie
    at.run()                                                      # a late rerun of the tab it left
    assert [b.label for b in at.button] == ["Sign in"]
    assert conn.execute("SELECT COUNT(*) FROM sessions WHERE ended_at IS NULL").fetchone()[0] == 1
