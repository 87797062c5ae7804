"""End to end in a real browser: Debian's chromium driven by Playwright against `streamlit run`.

Load the demo course, run the offline assessment, open the first item in Review, change a score
with a reason, approve (and decide the other items that need attention, which the release gate
requires), release, download the CSV and check it. FAIRMARK_SCREENSHOT=1 also rewrites
docs/review-page.png for the README (otherwise nothing in the repository is written).
A missing chromium is a failure, not a skip: CI installs it (README test command).

Issue 11 (the second half of this file):

- item 1: two clicks on Approve 0.15, 0.6, 0.9 and 1.2 s apart approve exactly one item, the one
  on screen (clicked on the same spot, and on whatever Approve button the page then shows);
- item 3: after a refused Save (no reason, an edit conflict) every action button is still there;
- item 6: course, assignment, item and run live in the address: a link to another course's item
  switches the sidebar to it, and a refresh (F5) shows exactly what was on screen;
- item 7: user text with Markdown and Streamlit shortcodes is shown as text on every page (with the
  pages of issues 12, 16 and 17: Calibrate, Compare, AI quality, Learning, Lessons, Lesson, and the
  review item's "last week's next steps"; the teacher's own name is a payload too);
- item 14: a freshly started server never shows Streamlit's list of the files in pages/, has no
  Deploy button, and fetches nothing from another host (the tab icon is a local image).

One server and one database serve these issue-11 tests (a demo course assessed offline, plus a course whose
names and texts are made of payloads); each test opens its own browser page.
"""
from __future__ import annotations

import csv
import io
import os
import re
import sqlite3
import time

import pytest

import db as dbmod
from core import demo
from core.ingest import commit as ingest
from core.runs import reflections as runs
from core.accounts.access import Actor
from core.signoff import actions, release
from db import courses, reviews
from e2e_support import (MENU, ROOT, TIMEOUT_MS, USER, choose, choose_typed, idle, item_id, load, nav, new_page,
                         session_cookie, sign_in, streamlit_server)

# The README's screenshot is rewritten only on request: tests write to temporary directories.
SCREENSHOT = ROOT / "docs" / "review-page.png"


@pytest.fixture
def server(tmp_path, db_path):
    with streamlit_server(db_path, tmp_path) as url:
        yield url


def approve(page) -> None:
    from playwright.sync_api import expect

    button = page.locator('[class*="st-key-ri_approve_"] button')
    expect(button).to_have_count(1)  # no stale copy left from the previous run
    button.click()


def next_to_decide(page) -> None:
    current = item_id(page)
    page.locator('[class*="st-key-ri_nextdecide_"] button').click()
    page.wait_for_function(f"() => !location.search.includes('item={current}')", timeout=TIMEOUT_MS)
    idle(page)


def test_review_release_download_in_chromium(server, browser, db_path, tmp_path):
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1440, "height": 1200}, accept_downloads=True)
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    sign_in(page, server)
    page.goto(server)
    page.get_by_role("button", name="Load demo course").click()
    expect(page.get_by_text("Next steps:")).to_be_visible()

    nav(page, "Assess")
    page.get_by_role("button", name="Start assessment").click()
    expect(page.get_by_text(re.compile(r"Run \d+: finished"))).to_be_visible()

    nav(page, "Review")
    expect(page.get_by_text("Needs attention").first).to_be_visible()
    page.locator('[class*="st-key-open_"] button').first.click()
    idle(page)
    expect(page.get_by_text("Your version")).to_be_visible()
    first = item_id(page)

    # Change the first criterion's score with a reason.
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="(AI:").first
    ai = int(re.search(r"\(AI: (\d)\)", box.inner_text()).group(1))
    new = 0 if ai > 0 else 1
    choose(page, box, f"{new} —")
    reasons = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Why did you change it?")
    reasons.get_by_role("combobox").click()
    page.keyboard.type("Too lenient" if new < ai else "Too harsh")  # typing filters the options
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")  # close the dropdown (it would cover the buttons)
    idle(page)
    expect(reasons).to_contain_text("Too lenient" if new < ai else "Too harsh")
    page.get_by_role("heading", name="Review").scroll_into_view_if_needed()
    page.mouse.move(0, 0)
    # FAIRMARK_SCREENSHOT=1 regenerates the README's picture; otherwise only a temporary copy.
    page.screenshot(path=str(SCREENSHOT if os.environ.get("FAIRMARK_SCREENSHOT") == "1"
                             else tmp_path / "review-page.png"))
    approve(page)
    idle(page)
    expect(page.get_by_text(re.compile("^Approved "))).to_be_visible()
    assert item_id(page) == first  # the approved item stays on screen, marked
    next_to_decide(page)
    assert item_id(page) != first

    # The release gate needs every item that needed attention decided: approve the rest of them.
    while page.get_by_text("Queue group: Needs attention").count():
        approve(page)
        idle(page)
        next_to_decide(page)

    con = sqlite3.connect(db_path)
    sid, before, after = con.execute(
        "SELECT submission_id, before, after FROM audit_log WHERE action = 'edit' ORDER BY id").fetchone()
    assert str(sid) == first
    external_id = con.execute("SELECT st.external_id FROM submissions s JOIN students st ON st.id = s.student_id "
                              "WHERE s.id = ?", [sid]).fetchone()[0]
    approved = con.execute("SELECT COUNT(*) FROM submissions WHERE status = 'approved'").fetchone()[0]
    con.close()
    assert approved >= 2

    nav(page, "Release")
    release = page.get_by_role("button", name=f"Release {approved} approved item(s)")
    expect(release).to_be_enabled()
    release.click()
    idle(page)
    expect(page.get_by_text(f"Released {approved} item(s)")).to_be_visible()

    with page.expect_download() as dl:
        page.get_by_role("button", name="Download CSV").click()
    path = tmp_path / "export.csv"
    dl.value.save_as(path)
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    assert len(rows) == approved
    assert all(r["marker"] == "AI-assisted, teacher-approved; offline baseline — no LLM" for r in rows)
    edited = next(r for r in rows if r["student_id"] == external_id)
    assert edited["concept_understanding"] == str(new) and edited["status"] == "released"
    ctx.close()


def test_deep_link_as_first_request_still_runs_through_the_app_shell(server, browser, conn):
    """A teacher's tab left on /review reconnects to a restarted server: the page must come up
    with the sidebar and the role navigation, not Streamlit's legacy listing of pages/."""
    from playwright.sync_api import expect

    from core import demo

    demo.load_demo(conn, actor=Actor("test", role="admin"))
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    sign_in(page, f"{server}/review")   # the deep link is the fresh server's first request
    load(page, f"{server}/review")
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_text("Course", exact=True)).to_be_visible()
    expect(sidebar.get_by_text("Coordinator")).to_be_visible()        # navigation grouped by role
    expect(sidebar.get_by_text("_common")).to_have_count(0)
    expect(page.locator(MENU).get_by_text("Review", exact=True)).to_be_visible()
    expect(page.get_by_role("heading", name="Review")).to_be_visible()

# ==== Issue 11: sign-off, addresses, escaping, the first page ====================================
# Markdown and Streamlit syntax a student or teacher might type. The app itself never renders
# these words on their own, so an element whose whole text is one of them was interpreted.
PAYLOADS = [":material/skull:", ":skull:", ":violet[VIOLET]", ":violet-badge[BADGE]", "$\\pi^2$",
            "[LINK](https://evil.example/x)", "https://evil.example/bare", "**BOLD**", "_EM_", "~~STRIKE~~",
            "`CODE`", "<b>HTML</b>"]
ALONE = ["BOLD", "EM", "STRIKE", "CODE", "HTML", "HEAD", "VIOLET", "BADGE", "LINK", "skull"]
ONE = " ".join(PAYLOADS)
COURSE = f"Pay {ONE}"
ASSIGNMENT = f"Week 1 {ONE}"
NAME = f"Zoë Ñúñez {ONE}"
TEACHER = Actor(NAME, role="admin")
TEXT = ("This week I learned how temperature changes the answers of a language model, for example at work "
        "when I tried the same prompt twice. I wonder why the high setting wrote a poem?\n"
        + "\n".join(PAYLOADS) + "\n# HEAD\nIn my team we now keep the temperature low for support replies, "
        "because customers should get the same answer to the same question. " * 2)
COMMENT = f"Edited by the teacher: {ONE}. (1) Add an example. (2) Proofread. What will you try next?"
ASSIGNMENT_2 = f"Week 2 {ONE}"
NAME_2 = f"Åsa Öberg {ONE}"
LESSON_COURSE = f"{COURSE} lessons"
LESSON_TITLE = f"Lesson {ONE}"


def _csv(rows: list[dict]) -> bytes:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue().encode("utf-8")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The demo course assessed offline, and the payload course: imported through the real
    import, assessed offline, one item edited, approved and released, one rejected."""
    tmp = tmp_path_factory.mktemp("e2e_signoff")
    path = tmp / "fairmark.db"
    conn = dbmod.connect(path)
    demo.load_demo(conn, actor=Actor("test", role="admin"))
    first = courses.list_courses(conn)[0]["id"]
    run_demo = runs.create(conn, course_id=first, provider="offline", actor=Actor("test", role="admin"))
    runs.execute(path, run_demo, actor=Actor("test", role="admin"))
    rows = [{"student_id": f"p{i}", "name": NAME if i == 0 else f"Student {i}", "text": TEXT + f" ({i})",
             "section": "A" if i % 2 else "B", "clarity": 2, "concept_understanding": 1} for i in range(4)]
    result = ingest.import_files(conn, [("payload.csv", _csv(rows))], ingest.Target(COURSE, ASSIGNMENT, week=1),
                                 actor=TEACHER)
    cid, aid = result.course_id, result.assignment_ids[0]
    run_pay = runs.create(conn, course_id=cid, provider="offline", actor=Actor("test", role="admin"))
    runs.execute(path, run_pay, actor=Actor("test", role="admin"))
    subs = {r[1]: r[0] for r in conn.execute(
        "SELECT s.id, st.external_id FROM submissions s JOIN students st ON st.id = s.student_id "
        "WHERE s.assignment_id = ?", [aid]).fetchall()}
    pay, other = subs["p0"], subs["p1"]
    for sid in (pay, other):
        actions.open_item(conn, sid, actor=TEACHER)
    r = reviews.get_review(conn, pay)
    r = actions.save_edit(conn, pay, version=r["version"], scores=r["scores"], comment=COMMENT,
                          reasons=["other"], note=ONE, actor=TEACHER)
    actions.approve(conn, pay, version=r["version"], actor=TEACHER)
    actions.reject(conn, other, version=1, note=ONE, actor=TEACHER)
    for sid in subs.values():  # the release gate: nothing needing attention left undecided
        if conn.execute("SELECT status FROM submissions WHERE id = ?", [sid]).fetchone()[0] == "needs_attention":
            actions.open_item(conn, sid, actor=TEACHER)
            actions.reject(conn, sid, version=reviews.get_review(conn, sid)["version"], note=ONE, actor=TEACHER)
    release.release(conn, aid, actor=TEACHER, note=ONE)
    more = _payloads_on_later_pages(conn, path, tmp, cid, pay)
    conn.close()
    # the signed-in teacher's own name (its display name) is a payload too
    with streamlit_server(path, tmp, display_name=NAME) as url:
        yield {"url": url, "path": path, "first_course": first, "course": cid, "assignment": aid, "item": pay,
               "rejected": other, "run": run_pay, **more}


def _payloads_on_later_pages(conn, path, tmp, cid: int, pay: int) -> dict:
    """Payloads for the pages of issues 12, 16 and 17 (review finding 3): a week-2 reflection of
    the payload student (last week's next steps, with the week-1 title) and a new student in
    the week-2 calibration set; a saved eval case and a drafted blind comparison; a course of
    lessons whose title and text are payloads."""
    from core.calibration import draw
    from core.evals import saved
    from core.lessons import ingest as lesson_ingest
    from core.lessons import runs as lesson_runs

    rows = [{"student_id": "p0", "name": NAME, "text": TEXT + " (week 2)"},
            {"student_id": "p9", "name": NAME_2, "text": TEXT + " (9)"}]
    week2 = ingest.import_files(conn, [("week2.csv", _csv(rows))], ingest.Target(COURSE, ASSIGNMENT_2, week=2),
                                actor=TEACHER).assignment_ids[0]
    runs.execute(path, runs.create(conn, course_id=cid, assignment_id=week2, provider="offline", actor=TEACHER),
                 actor=TEACHER)
    item2 = next(r[0] for r in conn.execute("SELECT s.id FROM submissions s JOIN students st ON st.id = s.student_id "
                                           "WHERE s.assignment_id = ? AND st.external_id = 'p0'", [week2]))
    actions.open_item(conn, item2, actor=TEACHER)          # opened: the calibration set draws p9
    draw.draw(conn, week2, size=1, actor=TEACHER)
    saved.save_case(conn, pay, dimension="pedagogy", reason=ONE, actor=TEACHER)
    root = tmp / "variants"
    (root / "questions").mkdir(parents=True)
    (root / "questions" / "aggregator.md").write_text((prompts.PROMPT_DIR / "aggregator.md").read_text().replace(
        "Include one of the coach's questions", "Ask two questions and include one of the coach's questions"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ai_config, "VARIANTS_DIR", root)
        comparison = pairwise.create(conn, course_id=cid, variant_b="questions", sample_size=2, seed=3,
                                     provider="openai", actor=TEACHER)   # offline, B would write A's comments
        b = good_llm().always("aggregator", {"comment": "Why did it change? Next: (1) guess, (2) test. What then?"})
        pairwise.draft(str(path), comparison, llm_a=good_llm(), llm_b=b, actor=TEACHER)
    lesson = f"# {LESSON_TITLE}\n\n{TEXT}\n".encode()
    out = lesson_ingest.import_lessons(conn, [("payload.md", lesson)], course_name=LESSON_COURSE, actor=TEACHER)
    lesson_runs.execute(path, lesson_runs.create(conn, course_id=out["course_id"], provider="offline", actor=TEACHER),
                        actor=TEACHER)
    return {"week2": week2, "item2": item2, "lesson": out["lesson_ids"][0], "lesson_course": out["course_id"]}


def _db(world):
    return dbmod.connect(world["path"])


def _undecided(world, n: int) -> list[int]:
    """Items of the demo course's first week nobody has touched yet."""
    conn = _db(world)
    rows = conn.execute(
        "SELECT s.id FROM submissions s JOIN assignments a ON a.id = s.assignment_id "
        "LEFT JOIN reviews r ON r.submission_id = s.id WHERE a.course_id = ? AND s.status = 'drafted' "
        "AND r.id IS NULL ORDER BY s.id", [world["first_course"]]).fetchall()
    return [r[0] for r in rows[:n]]


def _approvals(world) -> list[int]:
    return [r[0] for r in _db(world).execute(
        "SELECT submission_id FROM audit_log WHERE action = 'approve' ORDER BY id").fetchall()]


# --- item 1 ---------------------------------------------------------------------------------
GAPS = [0.15, 0.6, 0.9, 1.2]


@pytest.mark.parametrize("gap", GAPS)
def test_two_clicks_on_approve_approve_exactly_the_item_on_screen(world, browser, gap):
    index = GAPS.index(gap)
    for mode, sid in zip(("same spot", "whatever Approve is shown"), _undecided(world, 8)[2 * index:2 * index + 2]):
        page = new_page(browser, signed_in_at=world["url"])
        load(page, f"{world['url']}/review?item={sid}")
        button = page.locator('[class*="st-key-ri_approve_"] button')
        button.scroll_into_view_if_needed()
        box = button.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        before = _approvals(world)
        page.mouse.click(x, y)
        page.wait_for_timeout(gap * 1000)
        if mode == "same spot":
            page.mouse.click(x, y)
        else:  # the Approve button the page shows by then, clicked without waiting for it to be enabled
            page.locator('[class*="st-key-ri_approve_"] button').first.click(force=True)
        page.wait_for_timeout(1500)
        idle(page)
        assert _approvals(world)[len(before):] == [sid], (mode, gap)
        assert item_id(page) == str(sid)  # still the approved item, marked, not the next one
        page.context.close()


# --- item 3 ---------------------------------------------------------------------------------
def _buttons(page) -> set[str]:
    return set(page.evaluate("""() => [...document.querySelectorAll('[class*="st-key-ri_"] button')]
        .map(b => (b.closest('[class*="st-key-ri_"]').className.match(/st-key-(ri_[a-z]+)/) || ['', ''])[1])"""))


def test_a_refused_save_keeps_every_action_button(world, browser):
    from playwright.sync_api import expect

    sid = _undecided(world, 9)[-1]
    page = new_page(browser, signed_in_at=world["url"])
    load(page, f"{world['url']}/review?item={sid}")
    page.wait_for_selector('[class*="st-key-ri_approve_"] button')
    assert {"ri_save", "ri_approve", "ri_reject", "ri_regen"} <= _buttons(page)
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="(AI:").first
    ai = int(re.search(r"\(AI: (\d)\)", box.inner_text()).group(1))
    box.get_by_role("combobox").click()
    page.locator('[role="option"]').filter(has_text=re.compile(f"^{0 if ai else 1} —")).first.click()
    idle(page)
    page.locator('[class*="st-key-ri_save_"] button').click()
    idle(page)
    expect(page.get_by_text("pick at least one reason")).to_be_visible()
    assert {"ri_save", "ri_approve", "ri_reject", "ri_regen"} <= _buttons(page)  # no other widget changed
    # An edit conflict: the teacher gives a reason, a colleague saves meanwhile, then Save.
    reasons = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Why did you change it?")
    reasons.get_by_role("combobox").click()
    page.keyboard.type("Too harsh")
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    idle(page)
    conn = _db(world)
    r = reviews.get_review(conn, sid)
    actions.save_edit(conn, sid, version=r["version"], scores=r["scores"], comment="A colleague's words. Why?",
                      reasons=["tone"], actor=Actor("bob", role="admin"))
    page.locator('[class*="st-key-ri_save_"] button').click()
    idle(page)
    expect(page.get_by_text("your change was not saved")).to_be_visible()
    # Still all there; Save, Approve and Reject wait for "Load the latest version" (explained above them).
    assert {"ri_save", "ri_approve", "ri_reject", "ri_regen"} <= _buttons(page)
    expect(page.get_by_role("button", name="Load the latest version")).to_be_visible()
    page.context.close()


# --- item 6 ---------------------------------------------------------------------------------
def _sidebar_course(page) -> str:
    return page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"] input').first.input_value()


def test_a_link_to_another_courses_item_switches_the_sidebar_and_f5_restores_it(world, browser):
    from playwright.sync_api import expect

    page = new_page(browser, signed_in_at=world["url"])
    load(page, f"{world['url']}/review?item={world['item']}")
    assert "Pay :material/skull:" in _sidebar_course(page)
    expect(page.get_by_text("Your version")).to_be_visible()
    assert f"course={world['course']}" in page.url and f"assignment={world['assignment']}" in page.url
    for button in (".st-key-ri_next button", ".st-key-ri_prev button"):  # another item of that course
        page.locator(button).click()
        idle(page)   # the click's run has ended: the address names the item it opened, if any
        if item_id(page) != str(world["item"]):
            break    # else the first or last item: the other direction
    shown = item_id(page)
    assert shown != str(world["item"])
    load(page, None)
    assert item_id(page) == shown and "Pay :material/skull:" in _sidebar_course(page)
    expect(page.get_by_text("Your version")).to_be_visible()
    header = page.locator('[data-testid="stMarkdownContainer"]').filter(has_text="review version").first
    assert header.is_visible()
    page.context.close()


def test_the_assess_page_keeps_its_course_and_run_after_a_refresh(world, browser):
    from playwright.sync_api import expect

    page = new_page(browser, signed_in_at=world["url"])
    load(page, f"{world['url']}/assess?course={world['course']}")
    expect(page.get_by_text(f"Run {world['run']}: finished")).to_be_visible()
    assert f"run={world['run']}" in page.url
    load(page, None)
    expect(page.get_by_text(f"Run {world['run']}: finished")).to_be_visible()
    assert "Pay :material/skull:" in _sidebar_course(page)
    page.context.close()


# --- item 7 ---------------------------------------------------------------------------------
INTERPRETED = """(alone) => {
    const bad = [];
    for (const el of document.querySelectorAll('body *')) {
        const text = el.textContent.trim();
        if (el.children.length === 0 && alone.includes(text)) bad.push(el.tagName + ': ' + text);
    }
    const text = document.body.innerText;
    if (text.includes('\\u{1F480}')) bad.push('emoji :skull:');
    if (document.querySelector('.katex')) bad.push('maths');
    for (const a of document.querySelectorAll('a[href]')) {
        if (a.href.includes('evil.example')) bad.push('link ' + a.href);
    }
    return bad;
}"""
# The page's text and the values its boxes show (a select box shows its choice in an input).
SHOWN = ("() => document.body.innerText + '\\n' + "
         "[...document.querySelectorAll('input, textarea')].map(i => i.value).join('\\n')")
# Page -> what it shows of the payloads verbatim (besides the sidebar's course name, on every
# page). Text in inputs and tables is not in the page's text; those are plain text anyway.
PAGES = {
    "": [], "upload": [], "assess": [f"Every assignment of {COURSE}", ASSIGNMENT], "review": [NAME],
    "review?item={item}": [NAME, COMMENT, *PAYLOADS, "# HEAD"], "release": [],
    "student": [ASSIGNMENT, NAME, COMMENT],
    "agreement": [], "fairness": [], "costs": [], "settings": [],
    # review finding 3: the pages of issues 12, 16 and 17
    "review?item={item2}": [NAME, f"Last week's next steps (week 1: {ASSIGNMENT})"],
    "calibrate?course={course}&assignment={week2}": [NAME_2],
    "compare": [f"Judging as {NAME}."], "ai_quality": [], "learning": [],
    "lessons": [f"'{COURSE}' has no lessons yet"], "lessons?course={lesson_course}": [LESSON_COURSE, LESSON_TITLE],
    "lesson_review?lesson={lesson}": [LESSON_COURSE, LESSON_TITLE, *PAYLOADS, "# HEAD"],
}


@pytest.mark.parametrize("path", list(PAGES))
def test_user_text_is_shown_as_text_on_every_page(world, browser, path):
    page = new_page(browser, signed_in_at=world["url"])
    url = f"{world['url']}/{path.format(**world)}"
    if "course=" not in url:
        url += ("&" if "?" in url else "?") + f"course={world['course']}&assignment={world['assignment']}"
    load(page, url)
    page.wait_for_timeout(500)
    assert page.evaluate(INTERPRETED, ALONE) == []
    text = page.evaluate(SHOWN).replace("\u2060", "")
    missing = [field for field in [COURSE, *PAGES[path]] if field not in text]
    assert not missing, (path, missing, text[:1500])
    page.context.close()


# --- item 14 --------------------------------------------------------------------------------
def test_a_fresh_server_shows_no_file_list_no_deploy_and_fetches_nothing_elsewhere(browser, tmp_path):
    path = tmp_path / "fresh.db"
    demo.load_demo(dbmod.connect(path), actor=Actor("test", role="admin"))
    with streamlit_server(path, tmp_path) as url:
        page = new_page(browser, signed_in_at=url)
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.goto(url)
        seen = set()
        for _ in range(40):  # the first 4 s, when Streamlit's automatic page list used to show
            seen |= set(page.evaluate("""() => [...document.querySelectorAll('[data-testid="stSidebar"] a')]
                                            .map(a => a.innerText.trim())"""))
            page.wait_for_timeout(100)
        idle(page)
        assert seen and not {"_common", "_dashboard", "_review_item", "review", "home"} & seen, seen
        assert page.get_by_role("button", name="Deploy").count() == 0
        icon = page.evaluate("() => document.querySelector('link[rel~=\"icon\"]')?.href || ''")
        assert icon.startswith(url), icon
        elsewhere = sorted({r for r in requests if not r.startswith((url, "data:", "blob:"))})
        assert elsewhere == []
        page.context.close()


def test_a_calibration_item_stays_hidden_until_scored_blind_in_chromium(server, browser, conn):
    """Calibration: a calibration item's AI draft cannot be seen — not in Review, not on Calibrate
    — until the teacher has saved a blind score; then Calibrate shows the AI beside it."""
    from playwright.sync_api import expect

    from core.calibration import draw
    from test_pages_calibrate import SCORES, TEXT, seeded

    c, sids = seeded(conn, 4)
    draw.draw(conn, c["assignment_id"], size=2, actor=Actor("e2e teacher", role="admin"))
    sid = draw.state(conn, c["assignment_id"], actor=Actor("test", role="admin")).items[0]["submission_id"]
    secret = f"SECRET AI COMMENT {sids.index(sid)}"
    page = browser.new_context(viewport={"width": 1440, "height": 1200}).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    sign_in(page, server)

    page.goto(f"{server}/review?item={sid}")  # a deep link straight to the hidden item
    idle(page)
    expect(page.get_by_text(re.compile("score it blind on the Calibrate page")).first).to_be_visible()
    assert "SECRET AI COMMENT" not in page.locator("body").inner_text()

    nav(page, "Calibrate")
    expect(page.get_by_text("AI not yet calibrated for this assignment", exact=False).first).to_be_visible()
    listed = page.locator("body").inner_text()      # the set: the length stratum, never the AI's band
    assert "shorter half" in listed and not re.search(r"(low|high) band ·", listed)
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
    assert scored == [(USER, 4)]  # the signed-in teacher's blind scores


# --- issue 16: a teacher completes a 10-pair blind comparison ---------------------------------
# The two comments of each pair come without labels on sides drawn at random; at the end B's win
# rate and its CI appear, and they agree with the sides the teacher actually picked.
import factories as f  # noqa: E402
from assess_script import RICH_TEXT, good_llm  # noqa: E402
from core import prompts  # noqa: E402
from core.evals import config as ai_config  # noqa: E402
from core.evals import pairwise  # noqa: E402
from db import comparisons as cmp_db  # noqa: E402

N = 10


@pytest.fixture
def comparison(conn, db_path, tmp_path, monkeypatch):
    """A course with 12 drafted submissions and a 10-pair comparison, drafted by two scripted
    configurations that write different comments (A's name steps, B's asks more)."""
    root = tmp_path / "variants"
    (root / "socratic").mkdir(parents=True)
    text = (prompts.PROMPT_DIR / "aggregator.md").read_text().replace(
        "Include one of the coach's questions", "Ask two questions and include one of the coach's questions")
    (root / "socratic" / "aggregator.md").write_text(text)
    monkeypatch.setattr(ai_config, "VARIANTS_DIR", root)
    c = f.course(conn)
    for i in range(12):
        sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT + f" Week note {i}.")
        f.draft(conn, sid, dict.fromkeys(c["rubric"].keys, 1 + (i % 3)))

    def writer(style):
        def write(messages, schema):
            if style == "steps":
                return {"comment": "Your example is concrete. Next: (1) name the bias, (2) test twice. "
                                   "What will you compare?"}
            return {"comment": "Why did the drafts change? What would a fair test look like? "
                               "Next: (1) write your guess, (2) test it."}
        return write

    a = good_llm().always("aggregator", writer("steps"))
    b = good_llm().always("aggregator", writer("questions"))
    cid = pairwise.create(conn, course_id=c["course_id"], variant_b="socratic", sample_size=N, seed=11,
                          provider="openai", actor=Actor("Coordinator C", role="admin"))
    pairwise.draft(str(db_path), cid, llm_a=a, llm_b=b, actor=Actor("test", role="admin"))
    pairs = cmp_db.pairs(conn, cid)
    assert len(pairs) == N and 0 < sum(p["b_on_left"] for p in pairs) < N      # sides really vary
    return cid


def test_a_teacher_completes_a_blind_10_pair_comparison(comparison, server, browser, conn):
    from playwright.sync_api import expect

    comp = cmp_db.get(conn, comparison)
    rows = list(conn.query("SELECT p.comment_a, p.comment_b, p.b_on_left, s.text FROM comparison_pairs p "
                           "JOIN submissions s ON s.id = p.submission_id WHERE p.comparison_id = ?", [comparison]))
    note = re.compile(r"Week note \d+\.")
    page = browser.new_context(viewport={"width": 1440, "height": 1100}).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    sign_in(page, server)               # the choices are the signed-in teacher's (e2e.teacher)
    nav(page, "Compare")
    b_picked = 0
    for i in range(N):
        expect(page.get_by_text(f"Pair {i + 1} of {N}")).to_be_visible(timeout=TIMEOUT_MS)
        html = page.content()
        for hidden in (comp["config_a"], comp["config_b"], "socratic", "Configuration A", "Configuration B"):
            assert hidden not in html, f"pair {i + 1} reveals {hidden!r}"
        shown = note.search(page.locator('[data-testid="stExpander"]').filter(has_text="The student's text")
                            .inner_text()).group(0)
        pair = next(r for r in rows if r["text"].endswith(shown))          # which pair this is
        left = page.locator('[data-testid="stColumn"]').filter(has_text="Response 1").last.inner_text()
        right = page.locator('[data-testid="stColumn"]').filter(has_text="Response 2").last.inner_text()
        left_is_b = pair["comment_b"] in left and pair["comment_a"] in right
        assert left_is_b == bool(pair["b_on_left"])
        b_picked += left_is_b
        radios = page.locator('[data-testid="stRadio"]').filter(has_text="Equally good")
        for k in range(2):        # level fit, then pedagogy: always the left response
            radios.nth(k).get_by_text("Response 1", exact=True).click()
            expect(radios.nth(k).get_by_role("radio", name="Response 1")).to_be_checked()
        page.get_by_role("button", name="Save and next pair").click()
        idle(page)
        expect(page.get_by_text(f"{i + 1} of {N} pairs judged")).to_be_visible(timeout=TIMEOUT_MS)
        idle(page)      # the run that drew the next pair has finished: its radios will not be redrawn
    expect(page.get_by_text(f"You have judged all {N} pairs")).to_be_visible(timeout=TIMEOUT_MS)
    rate = f"{b_picked / N:.0%}"
    level = page.locator('[data-testid="stMetric"]').filter(has_text="Level fit: B's win rate")
    expect(level).to_contain_text(rate)
    expect(page.locator('[data-testid="stMetric"]').filter(has_text="Pedagogy: B's win rate")).to_contain_text(rate)
    expect(page.get_by_text(re.compile(r"95 % CI \d+%–\d+% · n = 10")).first).to_be_visible()
    stored = pairwise.results(conn, comparison, actor=Actor("test", role="admin"))["by_dimension"]["level"]
    assert stored["win_rate"] == b_picked / N and stored["n"] == N and stored["ci"] is not None
    assert 0 < b_picked < N                          # the teacher's "always left" was not "always B"


# --- lesson review (issue 17) -------------------------------------------------------------------------
LESSON_SCREENSHOT = ROOT / "docs" / "lesson-page.png"


def test_upload_review_approve_and_export_a_lesson_in_chromium(server, browser, conn, db_path, tmp_path):
    """Upload a lesson file on the Lessons page, review it with the offline baseline, open it,
    give a verdict, approve it and download the Markdown export with its review record. Then a
    demo lesson reviewed by the scripted judge, with its highlighted issue and proposed fix
    (with FAIRMARK_SCREENSHOT=1 saved as docs/lesson-page.png for the README)."""
    from playwright.sync_api import expect

    from lesson_helpers import LESSON

    lesson_file = tmp_path / "water.md"
    lesson_file.write_bytes(LESSON)
    ctx = browser.new_context(viewport={"width": 1440, "height": 1300}, accept_downloads=True)
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    sign_in(page, server)
    page.goto(server)
    idle(page)
    nav(page, "Lessons")
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(lesson_file))
    page.get_by_label("Course", exact=True).fill("Science, grade 5")
    page.get_by_role("button", name="Import lessons").click()
    idle(page)
    expect(page.get_by_text("Imported 1 lesson(s)")).to_be_visible()

    page.get_by_role("button", name="Start review (1 lesson(s))").click()
    expect(page.get_by_text(re.compile(r"1 of 1 lesson, done"))).to_be_visible()
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
    assert dl.value.suggested_filename == "The_water_cycle.md"
    assert text.startswith("---\ntitle: The water cycle") and f"approved_by: {USER}" in text
    assert "## Review record" in text and "offline baseline — no LLM" in text and "Have you ever seen a puddle" in text
    ref = next(conn.query("SELECT rater, verdict FROM lesson_references"))
    assert ref == {"rater": f"teacher:{USER}", "verdict": "publish"}

    # A demo lesson judged by the scripted judge: its quoted issue and its fix, for the README.
    from bench.lesson_judge import DemoJudge
    from core.lessons import demo, runs
    from core.llm import LoggedLLM
    from db import lessons as lessons_db

    cid = demo.load_demo(conn, actor=Actor("test", role="admin"))["course_id"]
    runs.execute(db_path, runs.create(conn, course_id=cid, provider="offline", actor=Actor("test", role="admin")), LoggedLLM(DemoJudge(), db_path), actor=Actor("test", role="admin"))
    storms = next(x["id"] for x in lessons_db.queue(conn, cid) if x["title"] == "Storms and staying safe")
    page.goto(f"{server}/lesson_review?lesson={storms}")    # a deep link into the other course
    idle(page)
    # escape_markdown puts an invisible word joiner after each colon (it breaks :shortcodes:)
    fix = re.compile("Round 1:\u2060? Engagement & tone in 'Storms and staying safe'")
    expect(page.get_by_text(fix)).to_be_visible(timeout=TIMEOUT_MS)
    expect(page.get_by_role("heading", name="Proposed fixes")).to_be_visible()
    expect(page.get_by_role("button", name="Accept")).to_be_visible()
    if os.environ.get("FAIRMARK_SCREENSHOT") == "1":   # the README's picture: only when asked for
        page.mouse.move(0, 0)
        page.screenshot(path=str(LESSON_SCREENSHOT), full_page=False)
    ctx.close()


# ==== Issue 13: sign-in, roles and course scoping in a real browser ================================
@pytest.fixture(scope="module")
def campus(tmp_path_factory):
    """Two courses with drafted items; an instructor and a coordinator of course A, a teaching
    assistant of course A; accounts made with the command line before the server starts."""
    from e2e_support import add_user

    tmp = tmp_path_factory.mktemp("e2e_access")
    path = tmp / "fairmark.db"
    conn = dbmod.connect(path)
    import factories as f

    items = {}
    for name in ("A", "B"):
        c = f.course(conn, f"Course {name}")
        sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], name=f"Pupil {name}"),
                           text=f"Pupil {name} wrote that temperature changes how random the answers are.")
        f.draft(conn, sid, {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3,
                            "clarity": 3})
        items[name] = {"course": c["course_id"], "assignment": c["assignment_id"], "item": sid}
    conn.close()
    add_user(path, "boss", "admin")
    for user, role in (("ines", "instructor"), ("cora", "coordinator"), ("tom", "ta")):
        add_user(path, user, role)
        import subprocess
        import sys
        done = subprocess.run([sys.executable, "-m", "core", "user", "grant", user, "--course", "Course A"],
                              cwd=ROOT, capture_output=True, text=True, env={**os.environ, "FAIRMARK_DB": str(path)})
        assert done.returncode == 0, done.stderr
    with streamlit_server(path, tmp) as url:
        yield {"url": url, "path": path, **items}


def _shown(page) -> str:
    return page.locator('[data-testid="stMain"]').inner_text()


def test_signed_out_a_deep_link_shows_only_the_sign_in_form(campus, browser):
    page = new_page(browser)
    page.goto(f"{campus['url']}/review?item={campus['A']['item']}")
    page.get_by_role("button", name="Sign in").wait_for()
    idle(page)
    assert "Pupil A" not in _shown(page)
    assert page.locator(MENU).count() == 0
    assert page.get_by_label("Password", exact=True).count() == 1
    page.context.close()


def test_an_instructor_stays_signed_in_across_a_refresh_and_cannot_open_another_courses_item(campus, browser):
    from playwright.sync_api import expect

    page = new_page(browser)
    sign_in(page, f"{campus['url']}/review?item={campus['B']['item']}", user="ines")
    assert "Pupil B" not in _shown(page)
    expect(page.get_by_text("no access to")).to_be_visible()           # the toast: nothing of it is shown
    load(page, f"{campus['url']}/review?item={campus['A']['item']}")   # a new tab's worth: the cookie
    expect(page.get_by_text("Pupil A wrote that temperature").first).to_be_visible()
    load(page, None)                                                   # F5
    expect(page.get_by_text("Pupil A wrote that temperature").first).to_be_visible()
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_text("Signed in as ines (instructor)")).to_be_visible()
    approve(page)
    idle(page)
    conn = dbmod.connect(campus["path"])
    row = conn.execute("SELECT a.actor, a.role, u.username FROM audit_log a JOIN users u ON u.id = a.user_id "
                       "WHERE a.action = 'approve' AND a.submission_id = ?", [campus["A"]["item"]]).fetchone()
    assert tuple(row) == ("ines", "instructor", "ines")
    sidebar.get_by_role("button", name="Sign out").click()
    page.get_by_role("button", name="Sign in").wait_for()
    load_signed_out = page.goto(f"{campus['url']}/review?item={campus['A']['item']}")
    assert load_signed_out is not None
    page.get_by_role("button", name="Sign in").wait_for()
    idle(page)
    assert "Pupil A" not in _shown(page)
    page.context.close()


def test_a_coordinator_reads_but_cannot_approve_and_a_ta_cannot_release(campus, browser):
    from playwright.sync_api import expect

    page = new_page(browser)
    sign_in(page, f"{campus['url']}/review?item={campus['A']['item']}", user="cora")
    expect(page.get_by_text(re.compile(r"Read only:\W*your role \(coordinator\)"))).to_be_visible()
    assert page.locator('[class*="st-key-ri_approve_"] button').count() == 0
    assert "Pupil A" not in _shown(page)                                  # pseudonyms without a names grant
    expect(page.get_by_text(re.compile(r"Student-\d+ wrote that temperature"))).to_be_visible()
    page.context.close()
    page = new_page(browser)
    sign_in(page, f"{campus['url']}/release", user="tom")
    expect(page.get_by_text("Your role (teaching assistant) may not release feedback")).to_be_visible()
    assert page.locator(MENU).get_by_text("Release", exact=True).count() == 0
    page.context.close()


def test_an_instructor_drafts_a_rubric_offline_and_saves_it_in_chromium(campus, browser):
    """Issue 27's Rubric builder on the teacher's path: Settings → Rubrics, describe the work,
    draft (no language model here: the template, said so), rename it, save it as a rubric."""
    from playwright.sync_api import expect

    page = new_page(browser)
    sign_in(page, f"{campus['url']}/settings", user="ines")
    page.get_by_role("tab", name="Rubrics").click()
    idle(page)
    page.get_by_label("Describe the work", exact=True).fill("an essay on a policy question, 4 criteria, 1 to 6")
    page.get_by_role("button", name="Draft a rubric").click()
    idle(page)
    expect(page.get_by_text("This is a template, not written by a language model").first).to_be_visible()
    name = page.get_by_label("Rubric name", exact=True)
    expect(name).to_have_value("Essay rubric (template)")
    name.fill("Policy essay rubric")
    name.press("Tab")
    idle(page)
    page.get_by_role("button", name="Save as rubric").click()
    idle(page)
    expect(page.get_by_text("Saved Policy essay rubric as version 1").first).to_be_visible()
    conn = dbmod.connect(campus["path"])
    try:
        saved = conn.execute("SELECT definition FROM rubrics WHERE name = 'Policy essay rubric'").fetchall()
        drafts = conn.execute("SELECT saved_by FROM rubric_drafts").fetchall()
    finally:
        conn.close()
    assert len(saved) == 1 and '"scale_max": 6' in saved[0][0]
    assert [tuple(d) for d in drafts] == [("ines",)]
    page.context.close()


def test_an_instructor_puts_a_note_on_a_sentence_and_keeps_the_ais_in_chromium(campus, browser):
    """Issue 27's notes on the text on the teacher's path: open the item, keep the AI's suggested
    note, pick a sentence, write a note, add it; both passages are highlighted, both notes stored."""
    from playwright.sync_api import expect

    sid = campus["A"]["item"]
    conn = dbmod.connect(campus["path"])
    try:   # the Evaluator quoted the student: its suggestion waits on the item
        did = conn.execute("SELECT current_draft_id FROM submissions WHERE id = ?", [sid]).fetchone()[0]
        conn.execute("UPDATE drafts SET outputs = json_set(outputs, '$.evaluator.clarity.evidence_quote', "
                     "'how random the answers are', '$.evaluator.clarity.reasoning', 'Plainly put.') WHERE id = ?",
                     [did])
        conn.commit()
    finally:
        conn.close()
    page = new_page(browser)
    sign_in(page, f"{campus['url']}/review?item={sid}", user="ines")
    page.locator(f'[class*="st-key-an_keep_{sid}_{did}_clarity"] button').click()
    idle(page)
    expect(page.get_by_text("Kept: the student sees this note once the item is released.")).to_be_visible()
    page.get_by_text("Add a note on the text").click()
    idle(page)
    choose_typed(page, page.locator(f".st-key-an_sent_{sid}"), "1. Pupil A wrote")
    page.get_by_label("Note for the student", exact=True).fill("Say which answers you compared.")
    page.get_by_role("button", name="Add note").click()
    idle(page)
    expect(page.get_by_text("Note added.")).to_be_visible()
    expect(page.get_by_text("Say which answers you compared.").first).to_be_visible()
    conn = dbmod.connect(campus["path"])
    try:
        rows = conn.execute("SELECT quote, note, origin, created_by FROM anchored_notes WHERE submission_id = ? "
                            "ORDER BY id", [sid]).fetchall()
    finally:
        conn.close()
    assert [tuple(r) for r in rows] == [
        ("how random the answers are", "Plainly put.", "ai", "ines"),
        ("Pupil A wrote that temperature changes how random the answers are.", "Say which answers you compared.",
         "teacher", "ines")]
    page.context.close()


def test_repeated_wrong_passwords_lock_the_name(campus, browser):
    from playwright.sync_api import expect

    page = new_page(browser)
    page.goto(campus["url"])
    conn = dbmod.connect(campus["path"])
    def recorded(n: int) -> None:
        """Wait until the server has written n failures: on a busy machine idle() returned before it
        had, and the short wait of the attempt before then refused the next one ("try again in 1 second")."""
        deadline = time.monotonic() + 60
        while conn.execute("SELECT COALESCE(MAX(failures), 0) FROM signin_failures WHERE username = 'tom'"
                           ).fetchone()[0] < n and time.monotonic() < deadline:
            time.sleep(0.1)

    for n in range(5):
        recorded(n)
        conn.execute("UPDATE signin_failures SET locked_until = NULL WHERE failures < 5")  # skip the short waits
        page.get_by_label("User name", exact=True).fill("tom")
        page.get_by_label("Password", exact=True).fill(f"wrong guess {n}")
        page.get_by_role("button", name="Sign in").click()
        idle(page)
    recorded(5)
    page.get_by_label("User name", exact=True).fill("tom")
    page.get_by_label("Password", exact=True).fill("e2e teacher's password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_text("locked for")).to_be_visible()
    assert page.locator(MENU).count() == 0
    conn.execute("DELETE FROM signin_failures")
    page.context.close()


def test_institutional_sign_in_through_a_local_openid_provider(browser, tmp_path):
    """The whole st.login flow against a real OpenID provider on this machine (oidc-provider-mock):
    the provider's e-mail claim signs in the FairMark user with that e-mail; an e-mail no FairMark
    user has is refused. Its FairMark session times out like a password's (then st.logout)."""
    import subprocess
    import sys

    import httpx
    import oidc_provider_mock
    from playwright.sync_api import expect

    from e2e_support import add_user

    path = tmp_path / "fairmark.db"
    add_user(path, "boss", "admin")
    done = subprocess.run([sys.executable, "-m", "core", "user", "add", "anna", "--role", "instructor", "--email",
                           "Anna.Berg@uni.example", "--display-name", "Anna Berg", "--no-password"],
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, "FAIRMARK_DB": str(path)})
    assert done.returncode == 0, done.stdout + done.stderr
    with oidc_provider_mock.run_server_in_thread() as oidc:
        issuer = f"http://localhost:{oidc.server_port}"
        for sub, email in (("anna", "anna.berg@uni.example"), ("eve", "eve@elsewhere.example")):
            assert httpx.put(f"{issuer}/users/{sub}", json={"email": email, "email_verified": True,
                                                             "name": sub.title()}).status_code == 204
        secrets = tmp_path / "streamlit-secrets.toml"
        secrets.write_text(
            '[auth]\nredirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
            'cookie_secret = "a test cookie secret of some length"\nclient_id = "fairmark"\n'
            f'client_secret = "test secret"\nserver_metadata_url = "{issuer}/.well-known/openid-configuration"\n')
        with streamlit_server(path, tmp_path, secrets=secrets) as url:
            # (the app breaks autolinks in shown text with an invisible word joiner, hence \W*)
            for sub, expected in (("anna", re.compile(r"Signed in as Anna Berg \(instructor\)")),
                                  ("eve", re.compile(r"No active FairMark account has the e-mail eve@\W*elsewhere"))):
                page = new_page(browser)
                page.goto(url)
                page.get_by_role("button", name="Sign in with your institution").click()
                page.get_by_placeholder("sub").fill(sub)
                page.get_by_role("button", name="Authorize").click()
                expect(page.get_by_text(expected)).to_be_visible()
                if sub == "eve":
                    assert page.locator(MENU).count() == 0
                else:  # a FairMark session with the idle limit: left alone too long, a refresh signs out
                    for _ in range(100):   # the sign-in sends the browser through /auth/session
                        if session_cookie(page.context) is not None:
                            break
                        page.wait_for_timeout(100)
                    assert session_cookie(page.context)["httpOnly"] is True
                    expect(page.get_by_text(expected)).to_be_visible()
                    idle(page)   # the sign-in's own reruns (and the page it came back to) touch the session first
                    conn = dbmod.connect(path)
                    assert [r[0] for r in conn.execute("SELECT via FROM sessions WHERE ended_at IS NULL")] == ["oidc"]
                    old = "2000-01-01T00:00:00.000000Z"
                    for _ in range(10):   # until no late rerun of the sign-in touches it again
                        conn.execute("UPDATE sessions SET last_seen_at = ?", [old])
                        page.wait_for_timeout(500)
                        if [r[0] for r in conn.execute("SELECT last_seen_at FROM sessions")] == [old]:
                            break
                    conn.close()
                    page.reload()  # st.logout: the provider's end-session page, then the app signed out
                    page.get_by_role("button", name="End session").click()
                    institution = page.get_by_role("button", name="Sign in with your institution")
                    expect(institution).to_be_visible()
                    assert page.locator(MENU).count() == 0
                    institution.click()  # signing in there again opens a new session
                    page.get_by_placeholder("sub").fill(sub)
                    page.get_by_role("button", name="Authorize").click()
                    expect(page.get_by_text(expected)).to_be_visible()
                    idle(page)
                    # Sign out: /auth/signout clears FairMark's cookie, then st.logout's route
                    # (the provider's end-session page) leaves the institution's sign-in too.
                    page.locator('[data-testid="stSidebar"]').get_by_role("button", name="Sign out").click()
                    page.get_by_role("button", name="End session").click()
                    expect(institution).to_be_visible()
                    idle(page)
                    assert session_cookie(page.context) is None and page.locator(MENU).count() == 0
                    conn = dbmod.connect(path)
                    assert conn.execute("SELECT COUNT(*) FROM sessions WHERE ended_at IS NULL").fetchone()[0] == 0
                    conn.close()
                page.context.close()


BANK_HOSTILE = "<img src=x onerror=alert(1)> **x** [a](javascript:alert(2)) :red[y]"
BANK_SCORES = {"concept_understanding": 2, "real_world_application": 2, "reflection_depth": 2, "clarity": 2}


def test_a_teacher_saves_a_sentence_to_the_bank_and_inserts_it_into_another_comment_in_chromium(campus, browser):
    """Issue 27's Comment bank on the teacher's path: on one item save a sentence of the comment
    to my bank, on another item find it by search, insert it, see its use counted, save the item.
    A course bank comment made of HTML and Markdown is shown as typed (no image, link or alert)."""
    from playwright.sync_api import expect

    import factories as f
    from core.courses import comment_bank as bank
    from db import reviews

    conn = dbmod.connect(campus["path"])
    try:
        first, second = (f.submission(conn, campus["A"]["assignment"], f.student(conn, campus["A"]["course"], name=n),
                                      text=f"{n} wrote about sampling and bias.") for n in ("Pupil C", "Pupil D"))
        f.draft(conn, first, BANK_SCORES, comment="You explain bias well. Which source would you test first?")
        f.draft(conn, second, BANK_SCORES, comment="A clear start.")
        bank.add(conn, campus["A"]["course"], BANK_HOSTILE, actor=f.actor("boss"), mine=False)
    finally:
        conn.close()
    page = new_page(browser)
    alerts = []
    page.on("dialog", lambda d: (alerts.append(d.message), d.dismiss()))
    main = page.locator('[data-testid="stMain"]')

    def open_bank(sid: int):
        load(page, f"{campus['url']}/review?item={sid}")
        main.get_by_test_id("stExpander").filter(has_text="Comment bank").locator("summary").click()
        idle(page)

    sign_in(page, f"{campus['url']}/review?item={first}", user="ines")
    open_bank(first)
    # the course bank's hostile comment is the one picked: shown exactly as typed, nothing rendered
    expect(main.get_by_test_id("stText").filter(has_text="onerror")).to_have_text(BANK_HOSTILE)
    picked = main.get_by_test_id("stSelectbox").filter(has_text="Bank comment").get_by_role("combobox")
    expect(picked).to_have_value(re.compile(r"^Course · used 0× · <img src=x onerror=alert\(1\)> \*\*x\*\*"))
    assert main.locator('img[src="x"]').count() == 0
    assert main.locator('a[href^="javascript"]').count() == 0
    assert main.locator("strong").filter(has_text=re.compile("^x$")).count() == 0

    choose_typed(page, main.get_by_test_id("stSelectbox").filter(has_text="What to save"), "sentence 2")
    main.get_by_role("button", name="Save to bank").click()
    idle(page)
    expect(main.get_by_text("Saved to the bank.")).to_be_visible()

    open_bank(second)
    search = main.get_by_label("Search the bank", exact=True)
    search.fill("source would you")
    search.press("Enter")
    idle(page)
    expect(picked).to_have_value("Yours · used 0× · Which source would you test first?")
    main.get_by_role("button", name="Insert into the comment").click()
    idle(page)
    box = main.get_by_label("Comment for the student", exact=True)
    expect(box).to_have_value("A clear start. Which source would you test first?")
    expect(picked).to_have_value("Yours · used 1× · Which source would you test first?")
    choose_typed(page, main.get_by_test_id("stMultiSelect").filter(has_text="Why did you change it?"), "Generic")
    page.keyboard.press("Escape")
    saved = main.get_by_text(re.compile(r"^Saved \(version \d+\)\.$"))
    for wait_ms in (15_000, TIMEOUT_MS):   # a busy browser can drop the click made as the list closes
        main.get_by_role("button", name="Save", exact=True).click()
        idle(page)
        try:
            expect(saved).to_be_visible(timeout=wait_ms)
            break
        except AssertionError:
            if wait_ms == TIMEOUT_MS:
                raise
    assert not alerts
    page.context.close()
    conn = dbmod.connect(campus["path"])
    try:
        assert reviews.get_review(conn, second)["comment"] == "A clear start. Which source would you test first?"
        mine = conn.execute("SELECT text, uses FROM bank_comments WHERE owner = 'ines'").fetchall()
    finally:
        conn.close()
    assert [tuple(r) for r in mine] == [("Which source would you test first?", 1)]
