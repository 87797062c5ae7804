"""Issue 21, the closing browser test and sub-item 15 (wording): every page, as every role
(admin, instructor, teaching assistant, coordinator), shows no exception box and none of what a
teacher should never read: snake_case reason codes, ISO timestamps, configuration hashes, raw
criterion keys, "a item", "1 words", "Seed 00", reading grades outside any school grade, or the
user name of someone who has a display name (icons' ligature names and chart SVG are left out;
the Users tab lists user names by design). Text copied from the page is the name itself (no
invisible characters added by the escaping), and a link to a missing item says "an item".

One server for the module (and the session's one Chromium): the demo course assessed offline (one item edited
with a reason, approved, one rejected, week 1 released, a calibration sample, a saved eval
case), a lesson course reviewed offline, and a course whose name has a colon and shortcode-like
text. Everything the fixture does is done by users who have display names.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

import db as dbmod
from core import demo
from core.ingest import commit as ingest
from core.runs import reflections as runs
from core.rubric import default_rubric
from core.signoff import actions, labels, release
from db import reviews, users
from e2e_support import MENU, ROOT, TIMEOUT_MS, USER, add_user, idle, load, new_page, sign_in, streamlit_server

PEOPLE = {  # role -> (user name, display name)
    "admin": (USER, "Ada Admin"),
    "instructor": ("ines.o", "Ines Ortega"),
    "ta": ("tom.t", "Tom Tanaka"),
    "coordinator": ("cora.c", "Cora Castillo"),
}
COLON = "Physics: :material/science: and :red[light] 10:30 (a\\b)"  # a course name
PAGES = ["", "upload", "assess", "calibrate?assignment={week2}", "review", "review?item={edited}", "release",
         "student", "compare", "lessons?course={lesson_course}", "lesson_review?lesson={lesson}", "agreement",
         "fairness", "costs", "ai_quality", "learning", "settings", "second_marking?assignment={week2}",
         "moderation?assignment={week2}", "markers"]

# What no page may show (the list), as (what, pattern).
SNAKE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b(?!\.[a-z]{2,4}\b)")  # a file's name is not a code
NEVER = [("ISO timestamp", re.compile(r"\d{4}-\d\d-\d\dT\d\d")),
         ("configuration hash", re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{12,}\b")),
         ("'a' before a vowel", re.compile(r"\b[aA] (?:item|assignment|error|eval|input|answer|instructor|admin|"
                                            r"edit|offline|open|AI|LLM|hour)\b")),
         ("singular count with a plural noun",   # not "Stage 1 checks", "level 1 means"
          re.compile(r"(?<![\d.,/-])(?<!Stage )(?<!Week )(?<!week )(?<!Round )\b1 (?!means\b)[a-z]+s\b")),
         ("seed number", re.compile(r"\bseed 0\d", re.IGNORECASE)),
         ("reading grade outside 0-20", re.compile(r"grade (?:-|−)\d|grade (?:[2-9]\d|\d{3,})(?:\.\d+)?\b"))]
# Snake case that is the name of a thing a teacher types or a file holds (the column headings and
# rubric fields the Upload and Settings pages document).
SNAKE_OK = {"student_id", "student_name", "external_id", "front_matter", "target_grade", "key_concepts",
            "scale_min", "scale_max"}

SHOWN = ('[data-testid="stMain"] h1, [data-testid="stMain"] [data-testid="stAlert"], '
         '[data-testid="stException"]')
TEXT_JS = """() => {
    const parts = [];
    for (const root of document.querySelectorAll('[data-testid="stMain"], [data-testid="stSidebar"]')) {
        const copy = root.cloneNode(true);
        // icons are ligatures: their text is the icon's name ("menu_book"), not something shown
        copy.querySelectorAll('style, script, svg, [data-testid="stIconMaterial"], span[role="img"]')
            .forEach(e => e.remove());
        // keep table cells and blocks apart (a week's "1" and the next cell's "bias" are not "1 bias")
        copy.querySelectorAll('td, th, [role="gridcell"], [role="columnheader"], li, p, div, label')
            .forEach(e => e.append(' ¦ '));
        parts.push(copy.textContent);
    }
    for (const i of document.querySelectorAll('input, textarea')) parts.push(i.value);
    return parts.join('\\n');
}"""


def _cli(path, *args):
    done = subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "FAIRMARK_DB": str(path)})
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser):
    from core.calibration import draw
    from core.evals import saved
    from core.moderation import sample as moderation
    from core.lessons import ingest as lesson_ingest
    from core.lessons import runs as lesson_runs

    tmp = tmp_path_factory.mktemp("e2e_wording")
    path = tmp / "fairmark.db"
    for role, (name, shown) in PEOPLE.items():
        add_user(path, name, role, display_name=shown)
    conn = dbmod.connect(path)
    me = users.actor_for(conn, users.find(conn, USER)["id"])
    course = demo.load_demo(conn, actor=me)["course_id"]
    runs.execute(path, runs.create(conn, course_id=course, provider="offline", actor=me), actor=me)
    week1, week2 = (r[0] for r in conn.execute("SELECT id FROM assignments WHERE course_id = ? ORDER BY week",
                                               [course]).fetchall()[:2])
    items = [r[0] for r in conn.execute("SELECT id FROM submissions WHERE assignment_id = ? ORDER BY id", [week1])]
    edited, rejected = items[0], items[1]
    for sid in (edited, rejected):
        actions.open_item(conn, sid, actor=me)
    r = reviews.get_review(conn, edited)
    scores = {**r["scores"], "concept_understanding": (r["scores"]["concept_understanding"] + 1) % 4}
    r = actions.save_edit(conn, edited, version=r["version"], scores=scores, comment=r["comment"] + " Well done.",
                          reasons=["too_harsh"], note="", actor=me)
    actions.approve(conn, edited, version=r["version"], actor=me)
    actions.reject(conn, rejected, version=1, note="Too short to judge.", actor=me)
    for sid in items[2:]:  # the release gate: nothing needing attention left undecided
        if conn.execute("SELECT status FROM submissions WHERE id = ?", [sid]).fetchone()[0] == "needs_attention":
            actions.open_item(conn, sid, actor=me)
            actions.reject(conn, sid, version=reviews.get_review(conn, sid)["version"], note="Later.", actor=me)
    release.release(conn, week1, actor=me, note="Week 1 feedback")
    actions.open_item(conn, conn.execute("SELECT id FROM submissions WHERE assignment_id = ? ORDER BY id",
                                         [week2]).fetchone()[0], actor=me)
    draw.draw(conn, week2, size=3, actor=me)
    saved.save_case(conn, edited, dimension="pedagogy", reason="A good example of a kind comment.", actor=me)
    lesson = b"# Light and colour\n\nLight is made of many colours. A prism splits white light into a rainbow.\n"
    out = lesson_ingest.import_lessons(conn, [("light.md", lesson)], course_name="Science lessons", actor=me)
    lesson_runs.execute(path, lesson_runs.create(conn, course_id=out["course_id"], provider="offline", actor=me),
                        actor=me)
    rows = b"student_id,name,text\ns1,Sam Lee,I learned that light bends in water.\n"
    colon = ingest.import_files(conn, [("colon.csv", rows)], ingest.Target(COLON, "Optics", week=1), actor=me)
    conn.close()
    for role in ("instructor", "ta", "coordinator"):
        user = PEOPLE[role][0]
        for cname in (demo.demo_data()["course"]["name"], "Science lessons", COLON):
            _cli(path, "user", "grant", user, "--course", cname)
    conn = dbmod.connect(path)   # a moderation sample of week 2, second-marked by the course's instructor or TA
    moderation.draw(conn, week2, size=2, actor=users.actor_for(conn, users.find(conn, PEOPLE["coordinator"][0])["id"]))
    conn.close()
    with streamlit_server(path, tmp, display_name=PEOPLE["admin"][1]) as url:
        yield {"url": url, "browser": browser, "course": course, "week2": week2, "edited": edited,
               "lesson": out["lesson_ids"][0], "lesson_course": out["course_id"], "colon_course": colon.course_id}


def _offences(text: str, users_page: bool = False) -> list[str]:
    keys = [k for k in default_rubric().keys if "_" in k]
    found = [f"reason code {c}" for c in labels.REASONS if "_" in c and re.search(rf"\b{c}\b", text)]
    found += [f"criterion key {k}" for k in keys if re.search(rf"\b{k}\b", text)]
    found += [f"snake_case {m}" for m in sorted(set(SNAKE.findall(text)) - SNAKE_OK)]
    found += [f"{what}: {m.group(0)!r}" for what, rx in NEVER for m in rx.finditer(text)]
    found += [f"user name {name} instead of {shown}" for name, shown in PEOPLE.values()  # Settings → Users
              if not users_page and re.search(rf"(?<![\w.]){re.escape(name)}(?![\w.])", text)]  # lists them
    return found


@pytest.mark.parametrize("role", list(PEOPLE))
def test_every_page_as_every_role_reads_as_a_teacher_would(site, role):
    page = new_page(site["browser"])
    sign_in(page, site["url"], user=PEOPLE[role][0])
    problems = {}
    for path in PAGES:
        url = f"{site['url']}/{path.format(**site)}"
        page.goto(url + ("&" if "?" in url else "?") + f"course={site['course']}"
                  if "course=" not in url and "lesson=" not in url else url)
        page.wait_for_selector(MENU, timeout=TIMEOUT_MS)
        # a page the role may not open shows only the refusal (no title)
        page.wait_for_selector(SHOWN, timeout=TIMEOUT_MS)
        idle(page)
        page.wait_for_timeout(300)
        bad = [f"exception box: {e}" for e in page.locator('[data-testid="stException"]').all_inner_texts()]
        bad += _offences(page.evaluate(TEXT_JS), users_page=path == "settings")
        if bad:
            problems[path or "home"] = bad
    page.context.close()
    if problems:
        pytest.fail("\n".join(f"{where}: {bad}" for where, bad in problems.items()), pytrace=False)


def test_text_copied_from_the_page_is_the_name_itself(site):
    """A course name with a colon and shortcode-like text, shown as Markdown (the Lessons page's
    "… has no lessons yet"), copies as exactly that name: its element's text and the browser's
    selection of it hold no invisible word joiner, and nothing in it became an icon or a link."""
    page = new_page(site["browser"])
    sign_in(page, site["url"])
    load(page, f"{site['url']}/lessons?course={site['colon_course']}")
    holder = page.locator('[data-testid="stMarkdownContainer"]').filter(has_text="has no lessons yet").first
    shown = holder.evaluate("e => e.textContent")
    assert f"'{COLON}' has no lessons yet" in shown, shown
    assert holder.locator('span[role="img"], a').count() == 0  # no icon, no link: shown as typed
    selected = holder.evaluate("""e => { const r = document.createRange(); r.selectNodeContents(e);
        const s = getSelection(); s.removeAllRanges(); s.addRange(r); return s.toString(); }""")
    assert COLON in selected and "\u2060" not in selected, repr(selected)
    page.context.close()


def test_a_link_to_an_item_that_does_not_exist_says_an_item(site):
    from playwright.sync_api import expect

    page = new_page(site["browser"])
    sign_in(page, site["url"])
    page.goto(f"{site['url']}/review?item=99999")
    expect(page.get_by_text("The link names an item that does not exist")).to_be_visible()
    page.context.close()
