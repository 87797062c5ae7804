"""End to end in a real browser (Debian's chromium, Playwright, `streamlit run`): a teacher
completes a 10-pair blind comparison of two AI configurations. The two comments of each pair
come without labels on sides drawn at random; at the end B's win rate and its CI appear, and
they agree with the sides the teacher actually picked."""
from __future__ import annotations

import re

import pytest

import factories as f
from assess_script import RICH_TEXT, good_llm
from core import prompts
from core.evals import config as ai_config
from core.evals import pairwise
from db import comparisons as cmp_db
from test_e2e_browser import TIMEOUT_MS, browser, idle, nav, server  # noqa: F401 (fixtures)

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


def test_a_teacher_completes_a_blind_10_pair_comparison(comparison, server, browser, conn):  # noqa: F811
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
