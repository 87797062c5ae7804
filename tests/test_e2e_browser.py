"""End to end in a real browser: Debian's chromium driven by Playwright against `streamlit run`.

Load the demo course, run the offline assessment, open the first item in Review, change a score
with a reason, approve (and decide the other items that need attention, which the release gate
requires), release, download the CSV and check it. Saves docs/review-page.png for the README.
And (issue 16) a teacher completes a 10-pair blind comparison of two AI configurations.
A missing chromium is a failure, not a skip: CI installs it (README test command).
"""
from __future__ import annotations

import csv
import io
import os
import re
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOT = ROOT / "docs" / "review-page.png"
TIMEOUT_MS = 60_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path, db_path):
    port = free_port()
    env = dict(os.environ, FAIRMARK_DB=str(db_path), FAIRMARK_ACTOR="e2e teacher")
    log = open(tmp_path / "streamlit.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).status == 200:
                break
        except OSError:
            time.sleep(0.3)
        if proc.poll() is not None:
            pytest.fail(f"streamlit exited early:\n{(tmp_path / 'streamlit.log').read_text()}")
    else:
        proc.terminate()
        pytest.fail("streamlit did not become healthy within 60 s")
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is required for the end-to-end test but {CHROMIUM} is missing: "
                    "install Debian's package with `apt-get install -y chromium` (the README's test command does).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def idle(page) -> None:
    """Wait until Streamlit has finished its current script run."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid^=\"stStatusWidgetRunning\"]')", timeout=TIMEOUT_MS)


def nav(page, label: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_text(label, exact=True).click()
    idle(page)


def choose(page, widget, option_prefix: str) -> None:
    widget.get_by_role("combobox").click()
    page.locator('[role="option"]').filter(has_text=re.compile("^" + re.escape(option_prefix))).first.click()
    idle(page)


def approve(page) -> None:
    from playwright.sync_api import expect

    button = page.locator('[class*="st-key-ri_approve_"] button')
    expect(button).to_have_count(1)  # no stale copy left from the previous run
    button.click()


def item_id(page) -> str:
    return re.search(r"item=(\d+)", page.url).group(1)


def test_review_release_download_in_chromium(server, browser, db_path, tmp_path):
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1440, "height": 1200}, accept_downloads=True)
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT_MS)
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
    page.screenshot(path=str(SCREENSHOT))
    approve(page)
    idle(page)
    expect(page.get_by_text(re.compile("^Approved "))).to_be_visible()
    assert item_id(page) != first

    # The release gate needs every item that needed attention decided: approve the rest of them.
    while page.get_by_text("Queue group: Needs attention").count():
        current = item_id(page)
        approve(page)
        page.wait_for_function(f"() => !location.search.includes('item={current}')", timeout=TIMEOUT_MS)
        idle(page)

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

    demo.load_demo(conn)
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{server}/review")
    idle(page)
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_text("Course", exact=True)).to_be_visible()
    expect(sidebar.get_by_text("Coordinator")).to_be_visible()        # navigation grouped by role
    expect(page.locator('[data-testid="stSidebarNav"]').get_by_text("_common")).to_have_count(0)
    expect(page.get_by_role("heading", name="Review")).to_be_visible()


def test_a_calibration_item_stays_hidden_until_scored_blind_in_chromium(server, browser, conn):
    """Calibration: a calibration item's AI draft cannot be seen — not in Review, not on Calibrate
    — until the teacher has saved a blind score; then Calibrate shows the AI beside it."""
    from playwright.sync_api import expect

    from core.calibration import draw
    from test_pages_calibrate import SCORES, TEXT, seeded

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
                          provider="offline", actor="Coordinator C")
    pairwise.draft(str(db_path), cid, llm_a=a, llm_b=b)
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
    page.goto(server)
    idle(page)
    page.get_by_label("Your name (for the audit log)").fill("Ms Blind")
    page.keyboard.press("Enter")
    idle(page)
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
    stored = pairwise.results(conn, comparison)["by_dimension"]["level"]
    assert stored["win_rate"] == b_picked / N and stored["n"] == N and stored["ci"] is not None
    assert 0 < b_picked < N                          # the teacher's "always left" was not "always B"
