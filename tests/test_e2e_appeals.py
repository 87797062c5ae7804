"""End to end in a real browser (issue 26, the teacher's half): a student's appeal is first in the
Review queue under "Appeals"; the teacher changes the appealed score with a reason and a note to
the student; the change goes out as a new release of that item, and the audit log agrees. (The
student's half — opening the private link and filing — needs the student links: the integrator
joins them; here the appeal is filed through core as the student actor.)"""
from __future__ import annotations

import re

import pytest

from appeal_items import appealable, released
from core.appeals import filing
from e2e_support import TIMEOUT_MS, choose, idle, sign_in, streamlit_server
from signoff_items import make_item

WHY = "My example from my job is a real-world application: **please** look again."


@pytest.fixture
def server(tmp_path, db_path):
    with streamlit_server(db_path, tmp_path) as url:
        yield url


def test_a_teacher_decides_an_appeal_on_the_review_page_and_it_is_released(server, browser, conn):
    from playwright.sync_api import expect

    c = appealable(conn)
    sid, me = released(conn, c)
    make_item(conn, c)                                   # a draft waits too, behind the appeal
    filing.file(conn, sid, {"real_world_application": WHY}, actor=me)
    releases_before = conn.execute("SELECT COUNT(*) FROM releases").fetchone()[0]

    page = browser.new_context(viewport={"width": 1440, "height": 1200}).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    sign_in(page, server)
    page.goto(f"{server}/review")
    idle(page)
    expect(page.get_by_text("Appeals", exact=True).first).to_be_visible()
    first = page.locator('[class*="st-key-open_"] button').first
    expect(first).to_be_visible()
    assert page.locator(f'[class*="st-key-open_{sid}"] button').count() == 1
    first.click()
    idle(page)
    assert re.search(rf"[?&]item={sid}\b", page.url)                      # the appeal was first in line
    expect(page.get_by_text("Appeal from the student")).to_be_visible()
    expect(page.get_by_text(WHY)).to_be_visible()                         # the student's words, as typed

    form = page.locator('[data-testid="stForm"]').filter(has_text="Decide the appeal")
    form.locator('[data-testid="stRadio"]').get_by_text("Change the score").click()
    choose(page, page.locator(f'[class*="st-key-ap_score_{sid}_real_world_application"]'), "3 —")
    choose(page, page.locator(f'[class*="st-key-ap_reason_{sid}"]'), "Too harsh")
    form.locator("textarea").fill("You are right: your job example counts.")
    form.get_by_role("button", name="Decide the appeal").click()
    idle(page)
    expect(page.get_by_text("Appeal decided: the score is changed and released to the student.")).to_be_visible()

    status, new_release, note = conn.execute(
        "SELECT status, new_release_id, note FROM appeals WHERE submission_id = ?", [sid]).fetchone()
    assert (status, note) == ("changed", "You are right: your job example counts.")
    assert conn.execute("SELECT COUNT(*) FROM releases").fetchone()[0] == releases_before + 1
    locked = conn.execute("SELECT submission_id, json_extract(scores, '$.real_world_application') FROM release_items "
                          "WHERE release_id = ?", [new_release]).fetchall()
    assert locked == [(sid, 3)]                                           # that item alone, with the new score
    trail = [r[0] for r in conn.execute("SELECT action FROM audit_log WHERE submission_id = ? ORDER BY id", [sid])]
    assert trail[trail.index("appeal"):] == ["appeal", "edit", "approve", "appeal_change", "release"]
    who = {r[0] for r in conn.execute("SELECT actor FROM audit_log WHERE submission_id = ? AND action IN "
                                      "('edit', 'approve', 'appeal_change', 'release') AND id > (SELECT MAX(id) FROM "
                                      "audit_log WHERE action = 'appeal')", [sid])}
    assert who == {"e2e.teacher"}                                         # the signed-in teacher, every step
    reason = conn.execute("SELECT reason FROM audit_log WHERE submission_id = ? AND action = 'edit' "
                          "ORDER BY id DESC", [sid]).fetchone()[0]
    assert reason == "too_harsh: You are right: your job example counts."
    assert filing.for_student(conn, sid, actor=me)["appeals"][0]["criteria"][0]["new_score"] == 3
