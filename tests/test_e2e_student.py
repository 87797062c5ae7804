"""A student's private link in a real browser on a real server (issue 26): opening it lands on the
student page with the token gone from the address, the released scores, comment and disclosure
readable on a phone-width screen, nothing unreleased or of another student, no staff menu; a
revoked link says so plainly."""
from __future__ import annotations

import pytest

import db as dbmod
from e2e_support import MENU, idle, new_page, streamlit_server
from student_support import classroom

pytestmark = pytest.mark.slow   # a real `streamlit run` and Chromium (docs/testing.md)

PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("e2e_student")
    path = tmp / "fairmark.db"
    conn = dbmod.connect(path)
    try:
        c = classroom(conn)          # the command line's release: links are bare paths (no public address)
    finally:
        conn.close()
        dbmod.forget_migrated(path)
    with streamlit_server(path, tmp) as url:
        yield {"url": url, "path": path, **c}


def test_a_link_opens_the_students_released_feedback_on_a_phone(server, browser):
    from playwright.sync_api import expect

    page = new_page(browser, **PHONE, is_mobile=True)
    link = server["url"] + server["links"][server["sam1"]]
    page.goto(link)
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_role("heading", name="Your feedback")).to_be_visible(timeout=90_000)
    idle(page)
    assert page.url.rstrip("/") == server["url"] and "/s/" not in page.url     # the token left the address bar
    cookie = next(c for c in page.context.cookies() if c["name"] == "fairmark_student")
    assert cookie["httpOnly"] is True and cookie["sameSite"] == "Lax"
    assert "fairmark_student" not in page.evaluate("() => document.cookie")
    text = main.inner_text()
    assert "Good *start*: add an example <b>next</b> time." in text               # shown as the teacher wrote it
    assert "Concept understanding" in text and "3 of 3" in text and "Total: 10 of 12" in text
    assert "Drafted with AI assistance, checked and approved by Ada Lovelace." in text
    for never in ("An unreleased draft", "Kim", "AI draft words", "Week 2"):
        assert never not in text, never
    assert page.locator(MENU).count() == 0 and page.get_by_role("button", name="Sign in").count() == 0
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]   # one column, no sideways scroll
    page.reload()                                                                   # the cookie keeps the page
    expect(main.get_by_role("heading", name="Your feedback")).to_be_visible(timeout=90_000)
    page.context.close()


def test_a_replaced_link_and_an_unknown_one_say_so_plainly(server, browser):
    from core.students import links

    conn = dbmod.connect(server["path"])
    try:
        old = server["links"][server["kim1"]]
        links.mint(conn, server["course_id"], server["week1"], actor=server["teacher"])
    finally:
        conn.close()
    page = new_page(browser, **PHONE)
    page.goto(server["url"] + old)
    assert page.get_by_role("heading", name="This link was replaced").is_visible()
    assert "Ask your teacher for your new link" in page.inner_text("body")
    page.goto(server["url"] + "/s/" + "z" * 43)
    assert page.get_by_role("heading", name="This link does not open anything").is_visible()
    assert not [c for c in page.context.cookies() if c["name"] == "fairmark_student"]
    page.context.close()
