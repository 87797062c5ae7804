"""End to end in a real browser (Debian's chromium via Playwright against `streamlit run`):
upload a lesson file on the Lessons page, review it with the offline baseline, open it, give a
verdict, approve it and download the Markdown export with its review record. Then a demo lesson
reviewed by the scripted judge, to see its highlighted issue and proposed fix (saved as
docs/lesson-page.png for the README)."""
from __future__ import annotations

import re
from pathlib import Path

from lesson_helpers import LESSON
from test_e2e_browser import TIMEOUT_MS, browser, idle, nav, server  # noqa: F401  (fixtures and helpers)

SCREENSHOT = Path(__file__).resolve().parent.parent / "docs" / "lesson-page.png"


def test_upload_review_approve_and_export_a_lesson_in_chromium(server, browser, conn, db_path, tmp_path):  # noqa: F811
    from playwright.sync_api import expect

    lesson_file = tmp_path / "water.md"
    lesson_file.write_bytes(LESSON)
    ctx = browser.new_context(viewport={"width": 1440, "height": 1300}, accept_downloads=True)
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server)
    idle(page)
    nav(page, "Lessons")
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(lesson_file))
    page.get_by_label("Course", exact=True).fill("Science, grade 5")
    page.get_by_role("button", name="Import lessons").click()
    idle(page)
    expect(page.get_by_text("Imported 1 lesson(s)")).to_be_visible()

    page.get_by_role("button", name="Start review (1 lesson(s))").click()
    expect(page.get_by_text(re.compile(r"1 of 1 lessons, done"))).to_be_visible()
    idle(page)
    page.get_by_role("link", name=re.compile("^The water cycle")).click()
    idle(page)
    expect(page.get_by_role("heading", name="Lesson", exact=True)).to_be_visible()
    expect(page.get_by_text("Reviewed by the offline baseline — no LLM").first).to_be_visible()

    page.get_by_text("Publishable as uploaded").click()
    idle(page)
    page.get_by_role("button", name="Approve lesson").click()
    idle(page)
    expect(page.get_by_text("Approved. You can download it below.")).to_be_visible()
    with page.expect_download() as dl:
        page.get_by_role("button", name="Download MD").click()
    path = tmp_path / "lesson.md"
    dl.value.save_as(path)
    text = path.read_text(encoding="utf-8")
    assert dl.value.suggested_filename == "the-water-cycle.md"
    assert text.startswith("---\ntitle: The water cycle") and "approved_by: e2e teacher" in text
    assert "## Review record" in text and "offline baseline — no LLM" in text and "Have you ever seen a puddle" in text
    ref = next(conn.query("SELECT rater, verdict FROM lesson_references"))
    assert ref == {"rater": "teacher:e2e teacher", "verdict": "publish"}

    # A demo lesson judged by the scripted judge: its quoted issue and its fix, for the README.
    from bench.lesson_judge import DemoJudge
    from core.lessons import demo, runs
    from core.llm import LoggedLLM
    from db import lessons as lessons_db

    cid = demo.load_demo(conn)["course_id"]
    runs.execute(db_path, runs.create(conn, course_id=cid, provider="offline"), LoggedLLM(DemoJudge(), db_path))
    storms = next(x["id"] for x in lessons_db.queue(conn, cid) if x["title"] == "Storms and staying safe")
    page.goto(f"{server}/lesson_review?lesson={storms}")    # a deep link into the other course
    idle(page)
    expect(page.get_by_text("Round 1: Engagement & tone in 'Storms and staying safe'")).to_be_visible(
        timeout=TIMEOUT_MS)
    expect(page.get_by_role("heading", name="Proposed fixes")).to_be_visible()
    expect(page.get_by_role("button", name="Accept")).to_be_visible()
    page.mouse.move(0, 0)
    page.screenshot(path=str(SCREENSHOT), full_page=False)
    ctx.close()
