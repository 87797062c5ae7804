"""Issue 11 in a real browser (Debian's chromium, Playwright, `streamlit run`):

- item 1: two clicks on Approve 0.15, 0.6, 0.9 and 1.2 s apart approve exactly one item, the one
  on screen (clicked on the same spot, and on whatever Approve button the page then shows);
- item 3: after a refused Save (no reason, an edit conflict) every action button is still there;
- item 6: course, assignment, item and run live in the address: a link to another course's item
  switches the sidebar to it, and a refresh (F5) shows exactly what was on screen;
- item 7: user text with Markdown and Streamlit shortcodes is shown as text on every page;
- item 14: a freshly started server never shows Streamlit's list of the files in pages/, has no
  Deploy button, and fetches nothing from another host (the tab icon is a local image).

One server and one database serve the module (a demo course assessed offline, plus a course whose
names and texts are made of payloads); each test opens its own browser page.
"""
from __future__ import annotations

import csv
import io
import re

import pytest

import db as dbmod
from core import demo, ingest, runs
from core.signoff import actions, release
from db import courses, reviews
from e2e_support import chromium, idle, item_id, load, new_page, streamlit_server

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
TEXT = ("This week I learned how temperature changes the answers of a language model, for example at work "
        "when I tried the same prompt twice. I wonder why the high setting wrote a poem?\n"
        + "\n".join(PAYLOADS) + "\n# HEAD\nIn my team we now keep the temperature low for support replies, "
        "because customers should get the same answer to the same question. " * 2)
COMMENT = f"Edited by the teacher: {ONE}. (1) Add an example. (2) Proofread. What will you try next?"


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
    demo.load_demo(conn)
    first = courses.list_courses(conn)[0]["id"]
    run_demo = runs.create(conn, course_id=first, provider="offline")
    runs.execute(path, run_demo)
    rows = [{"student_id": f"p{i}", "name": NAME if i == 0 else f"Student {i}", "text": TEXT + f" ({i})",
             "section": "A" if i % 2 else "B", "clarity": 2, "concept_understanding": 1} for i in range(4)]
    result = ingest.import_files(conn, [("payload.csv", _csv(rows))], ingest.Target(COURSE, ASSIGNMENT),
                                 actor=NAME)
    cid, aid = result.course_id, result.assignment_ids[0]
    run_pay = runs.create(conn, course_id=cid, provider="offline")
    runs.execute(path, run_pay)
    subs = {r[1]: r[0] for r in conn.execute(
        "SELECT s.id, st.external_id FROM submissions s JOIN students st ON st.id = s.student_id "
        "WHERE s.assignment_id = ?", [aid]).fetchall()}
    pay, other = subs["p0"], subs["p1"]
    for sid in (pay, other):
        actions.open_item(conn, sid, actor=NAME)
    r = reviews.get_review(conn, pay)
    r = actions.save_edit(conn, pay, version=r["version"], scores=r["scores"], comment=COMMENT,
                          reasons=["other"], note=ONE, actor=NAME)
    actions.approve(conn, pay, version=r["version"], actor=NAME)
    actions.reject(conn, other, version=1, note=ONE, actor=NAME)
    for sid in subs.values():  # the release gate: nothing needing attention left undecided
        if conn.execute("SELECT status FROM submissions WHERE id = ?", [sid]).fetchone()[0] == "needs_attention":
            actions.open_item(conn, sid, actor=NAME)
            actions.reject(conn, sid, version=reviews.get_review(conn, sid)["version"], note=ONE, actor=NAME)
    release.release(conn, aid, actor=NAME, note=ONE)
    conn.close()
    with streamlit_server(path, tmp) as url:
        yield {"url": url, "path": path, "first_course": first, "course": cid, "assignment": aid, "item": pay,
               "rejected": other, "run": run_pay}


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


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
        page = new_page(browser)
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
            page.locator('[class*="st-key-ri_approve_"] button').first.click(force=True, timeout=5000)
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
    page = new_page(browser)
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
                      reasons=["tone"], actor="bob")
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

    page = new_page(browser)
    load(page, f"{world['url']}/review?item={world['item']}")
    assert "Pay :material/skull:" in _sidebar_course(page)
    expect(page.get_by_text("Your version")).to_be_visible()
    assert f"course={world['course']}" in page.url and f"assignment={world['assignment']}" in page.url
    for button in (".st-key-ri_next button", ".st-key-ri_prev button"):  # another item of that course
        page.locator(button).click()
        try:
            page.wait_for_function(f"() => !location.search.includes('item={world['item']}&')"
                                   f" && !location.search.endsWith('item={world['item']}')", timeout=15_000)
            break
        except Exception:  # the first or last item: the other direction
            continue
    idle(page)
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

    page = new_page(browser)
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
        if (el.children.length === 0 && alone.includes(el.textContent.trim())) bad.push(el.tagName + ': ' + el.textContent);
    }
    const text = document.body.innerText;
    if (text.includes('\\u{1F480}')) bad.push('emoji :skull:');
    if (document.querySelector('.katex')) bad.push('maths');
    for (const a of document.querySelectorAll('a[href]')) if (a.href.includes('evil.example')) bad.push('link ' + a.href);
    return bad;
}"""
# The page's text and the values its boxes show (a select box shows its choice in an input).
SHOWN = "() => document.body.innerText + '\\n' + [...document.querySelectorAll('input, textarea')].map(i => i.value).join('\\n')"
# Page -> what it shows of the payloads verbatim (besides the sidebar's course name, on every
# page). Text in inputs and tables is not in the page's text; those are plain text anyway.
PAGES = {
    "": [], "upload": [], "assess": [f"Every assignment of {COURSE}", ASSIGNMENT], "review": [NAME],
    "review?item={item}": [NAME, COMMENT, *PAYLOADS, "# HEAD"], "release": [],
    "student": [ASSIGNMENT, NAME, COMMENT],
    "agreement": [], "fairness": [], "costs": [], "settings": [],
}


@pytest.mark.parametrize("path", list(PAGES))
def test_user_text_is_shown_as_text_on_every_page(world, browser, path):
    page = new_page(browser)
    url = f"{world['url']}/{path.format(item=world['item'])}"
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
    demo.load_demo(dbmod.connect(path))
    with streamlit_server(path, tmp_path) as url:
        page = new_page(browser)
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
