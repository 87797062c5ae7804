"""The moderator's path in a real browser (Chromium driven by Playwright against `streamlit run`):
the second marker marks blind on the Second marking page (nothing of the AI's draft shown before
committing), then the coordinator settles the difference on the Moderation page."""
from __future__ import annotations

import pytest

import db as dbmod
import factories as f
from core.moderation import sample
from core.signoff import actions
from db import moderation as mod_db
from db import reviews
from e2e_support import PASSWORD, choose, choose_typed, idle, load, new_page, sign_in, streamlit_server

pytestmark = pytest.mark.slow   # a real `streamlit run` (docs/testing.md)

LOW = {"concept_understanding": 1, "real_world_application": 1, "reflection_depth": 1, "clarity": 1}
SECRET = "THE AI DRAFT SAYS PURPLE"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """One item the instructor ines approved as the AI drafted (all 1s), drawn with tom second."""
    tmp = tmp_path_factory.mktemp("e2e_moderation")
    path = tmp / "fairmark.db"
    conn = dbmod.connect(path)
    c = f.course(conn, "Moderated course")
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], name="Pupil M"),
                       text="Pupil M wrote that temperature changes how random the answers are.")
    f.draft(conn, sid, LOW, comment=SECRET)
    ines = f.user(conn, "ines", "instructor", courses=[c["course_id"]], password=PASSWORD)
    f.user(conn, "tom", "ta", courses=[c["course_id"]], password=PASSWORD)
    cora = f.user(conn, "cora", "coordinator", courses=[c["course_id"]], password=PASSWORD)
    actions.open_item(conn, sid, actor=ines)
    actions.approve(conn, sid, version=reviews.get_review(conn, sid)["version"], actor=ines)
    assert sample.draw(conn, c["assignment_id"], size=1, actor=cora)["sample"][0]["second_marker"] == "tom"
    conn.close()
    with streamlit_server(path, tmp) as url:
        yield {"url": url, "path": path, "sid": sid, "rubric": c["rubric"]}


def _main(page):
    return page.locator('[data-testid="stMain"]')


def test_blind_second_mark_then_the_moderators_settlement(world, browser):
    from playwright.sync_api import expect

    page = new_page(browser)
    sign_in(page, f"{world['url']}/second_marking", user="tom")
    load(page, f"{world['url']}/second_marking")
    page.get_by_role("button", name="Mark blind").click()
    idle(page)
    expect(_main(page).get_by_text("Pupil M wrote that temperature")).to_be_visible()
    assert SECRET not in _main(page).inner_text()
    for c in world["rubric"].criteria:
        choose(page, page.get_by_test_id("stSelectbox").filter(has_text=c.title), "3")
    page.get_by_role("button", name="Commit my mark").click()
    idle(page)
    expect(_main(page).get_by_text(SECRET)).to_be_visible()
    page.context.close()

    page = new_page(browser)
    sign_in(page, f"{world['url']}/moderation", user="cora")
    load(page, f"{world['url']}/moderation")
    expect(_main(page).get_by_text("Marks that differ by more than a level")).to_be_visible()
    for c in world["rubric"].criteria:
        choose_typed(page, page.get_by_test_id("stSelectbox").filter(has_text=c.title), "2")
    page.get_by_label("Note (why these scores)").fill("both half right")
    page.get_by_role("button", name="Settle").click()
    idle(page)
    expect(_main(page).get_by_text("Settled: both half right")).to_be_visible()
    page.context.close()
    conn = dbmod.connect(world["path"])
    try:
        row = mod_db.item(conn, world["sid"])
        assert {k: v["score"] for k, v in row["settled"].items()} == {k: 2 for k in LOW}
        assert reviews.get_review(conn, world["sid"])["scores"] == {k: 2 for k in LOW}
    finally:
        conn.close()
