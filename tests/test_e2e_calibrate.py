"""End to end in a real browser (the fixtures and helpers of test_e2e_browser.py): a calibration
item's AI draft cannot be seen — not in Review, not on Calibrate — until the teacher has saved
a blind score; then Calibrate shows the AI beside it."""
from __future__ import annotations

import re

from test_e2e_browser import TIMEOUT_MS, browser, choose, idle, nav, server  # noqa: F401  (fixtures)
from test_pages_calibrate import SCORES, TEXT, seeded

from core.calibration import draw


def test_a_calibration_item_stays_hidden_until_scored_blind_in_chromium(server, browser, conn):  # noqa: F811
    from playwright.sync_api import expect

    c, sids = seeded(conn, 4)
    draw.draw(conn, c["assignment_id"], size=2, actor="e2e teacher")
    sid = draw.state(conn, c["assignment_id"]).items[0]["submission_id"]
    secret = f"SECRET AI COMMENT {sids.index(sid)}"
    page = browser.new_context(viewport={"width": 1440, "height": 1200}).new_page()
    page.set_default_timeout(TIMEOUT_MS)

    page.goto(f"{server}/review?item={sid}")  # a deep link straight to the hidden item
    idle(page)
    expect(page.get_by_text(re.compile("score it blind on the Calibrate page")).first).to_be_visible()
    assert "SECRET AI COMMENT" not in page.locator("body").inner_text()

    nav(page, "Calibrate")
    expect(page.get_by_text("AI not yet calibrated for this assignment", exact=False).first).to_be_visible()
    page.locator(f'[class*="st-key-cal_open_{sid}"] button').click()
    idle(page)
    expect(page.get_by_text(TEXT, exact=False).first).to_be_visible()
    body = page.locator("body").inner_text()
    assert "SECRET AI COMMENT" not in body and "(AI:" not in body
    for key in SCORES:
        choose(page, page.locator(f'[class*="st-key-cal_score_{sid}_"][class*="{key}"]'), "2 —")
    page.get_by_role("button", name="Save blind scores").click()
    idle(page)
    expect(page.get_by_text(secret)).to_be_visible()
    expect(page.get_by_text("Saved. Here is how the AI scored it.")).to_be_visible()
    scored = conn.execute("SELECT rater, COUNT(*) FROM calibration_scores WHERE submission_id = ? GROUP BY rater",
                          [sid]).fetchall()
    assert scored == [("e2e teacher", 4)]
