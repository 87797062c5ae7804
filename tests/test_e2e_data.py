"""Issue 21 in a real browser (Debian's chromium driven by Playwright against `streamlit run`):
data safety and every download.

(a) Settings → Data: delete a student (clicked twice), the form resets, a click without the tick
    says so, and nobody else is deleted; a course whose name holds a shortcode is shown as text,
    and typing that name deletes it.
(b) Every download button on every page: the file arrives and holds what it says (Settings
    backup, Agreement's analysis, Release's CSV, Canvas CSV and ZIP, AI quality's JSONL, the
    Lesson review's MD and DOCX, every dashboard table's and chart's CSV).
(c) Restore through the page: a file that is not SQLite, and a damaged backup, are refused with
    their reason and change nothing; a good backup restores and every session ends.

One server, one Chromium and one database serve the whole file (the demo course assessed
offline, three items released, a saved eval case, an approved lesson, two small courses to
delete). The restore tests come last: a restore replaces the database everyone here shares.
"""
from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
import zipfile

import pytest

import db as dbmod
import factories as f
from core import data_care, demo
from core.runs import reflections as runs
from core.accounts.access import Actor
from core.evals import saved
from core.lessons import ingest as lesson_ingest
from core.lessons import runs as lesson_runs
from core.lessons import signoff as lesson_signoff
from core.signoff import actions, release
from db import courses
from db import lessons as lessons_db
from e2e_support import TIMEOUT_MS, USER, choose, idle, load, new_page, streamlit_server
from lesson_helpers import LESSON

ADMIN = Actor(USER, role="admin")
DRILL = "Deletion drill"
PEOPLE = ["Ana Silva", "Ben Okafor", "Chloé Martin", "Dara Nguyen"]
OLD_COURSE = "Old :material/home: course"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("e2e_data")
    path = tmp / "fairmark.db"
    conn = dbmod.connect(path)
    demo.load_demo(conn, actor=ADMIN)
    cid = courses.list_courses(conn)[0]["id"]
    runs.execute(path, runs.create(conn, course_id=cid, provider="offline", actor=ADMIN), actor=ADMIN)
    aid = courses.list_assignments(conn, cid)[0]["id"]
    released = 0
    first = None
    for sid, status in conn.execute("SELECT id, status FROM submissions WHERE assignment_id = ? ORDER BY id",
                                    [aid]).fetchall():
        review = actions.open_item(conn, sid, actor=ADMIN)
        if status == "needs_attention":  # the release gate: nothing needing attention left undecided
            actions.reject(conn, sid, version=review["version"], note="Not yet.", actor=ADMIN)
        elif released < 3:
            actions.approve(conn, sid, version=review["version"], actor=ADMIN)
            released += 1
            first = first or sid
    release.release(conn, aid, actor=ADMIN)
    saved.save_case(conn, first, dimension="pedagogy", reason="The comment asks no question.", actor=ADMIN)
    lessons = lesson_ingest.import_lessons(conn, [("water.md", LESSON)], course_name="Weather lessons", actor=ADMIN)
    lesson_runs.execute(path, lesson_runs.create(conn, course_id=lessons["course_id"], provider="offline",
                                                 actor=ADMIN), actor=ADMIN)
    lid = lessons["lesson_ids"][0]
    for fix in lessons_db.fixes(conn, lessons_db.get(conn, lid)["current_review_id"]):
        if fix["status"] == "proposed":
            version = lessons_db.get(conn, lid)["version"]
            lesson_signoff.reject_fix(conn, lid, fix["id"], version=version, actor=ADMIN)
    lesson_signoff.approve(conn, lid, version=lessons_db.get(conn, lid)["version"], actor=ADMIN)
    drill = f.course(conn, DRILL)
    for n, name in enumerate(PEOPLE):
        st = f.student(conn, drill["course_id"], external_id=f"d{n}", name=name)
        f.submission(conn, drill["assignment_id"], st, text=f"{name} wrote about fairness in marking.")
    old = f.course(conn, OLD_COURSE)
    f.submission(conn, old["assignment_id"], f.student(conn, old["course_id"], external_id="o1", name="Old One"))
    conn.close()
    with streamlit_server(path, tmp) as url:
        yield {"url": url, "path": path, "tmp": tmp, "course": cid, "assignment": aid, "released": released,
               "lesson": lid, "lesson_course": lessons["course_id"], "drill": drill["course_id"],
               "old": old["course_id"]}


@pytest.fixture
def page(world, browser):
    page = new_page(browser, signed_in_at=world["url"], accept_downloads=True)
    yield page
    page.context.close()


def _query(world, sql: str, args=()) -> list[tuple]:
    con = sqlite3.connect(world["path"])
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def _names(world, course_id: int) -> list[str]:
    return [r[0] for r in _query(world, "SELECT name FROM students WHERE course_id = ? ORDER BY id", [course_id])]


def _data_tab(page, world, course_id: int | None = None) -> None:
    load(page, f"{world['url']}/settings?course={world['course']}")
    page.get_by_role("tab", name="Data").click()
    idle(page)
    if course_id is not None:
        name = _query(world, "SELECT name FROM courses WHERE id = ?", [course_id])[0][0]
        choose(page, page.locator('[class*="st-key-data_course_"]').filter(has=page.get_by_role("combobox")).first, name)


def _download(page, button, dest) -> bytes:
    with page.expect_download(timeout=TIMEOUT_MS) as dl:
        button.click()
    dl.value.save_as(dest)
    return dest.read_bytes()


def _csv(data: bytes) -> list[dict]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))


# --- (a) the delete flow ----------------------------------------------------------------------
def _nobody_chosen(picker) -> None:
    from playwright.sync_api import expect

    box = picker.get_by_role("combobox")
    expect(box).to_have_value("")
    expect(box).to_have_attribute("placeholder", "Choose the student")


def test_deleting_a_student_twice_deletes_only_them_and_the_form_resets(world, page):
    from playwright.sync_api import expect

    _data_tab(page, world, world["drill"])
    student = page.locator(f'[class*="st-key-data_student_{world["drill"]}_"]')
    _nobody_chosen(student)
    ana = _query(world, "SELECT id FROM students WHERE external_id = 'd0'")[0][0]
    choose(page, student, "Ana Silva (d0)")
    page.locator(f".st-key-data_student_reason_{ana} input").fill("her request of 3 May")
    page.locator(f".st-key-data_student_reason_{ana} input").press("Enter")   # does not submit: only the button
    idle(page)
    expect(page.get_by_text("to confirm: nothing was deleted.")).to_have_count(0)
    expect(page.locator(f".st-key-data_student_reason_{ana} input")).to_have_value("her request of 3 May")
    page.locator(f".st-key-data_student_sure_{ana} label").click()
    expect(page.locator(f".st-key-data_student_sure_{ana} input")).to_be_checked()
    idle(page)   # the tick has reached the server (on a busy machine the click below came first: "Tick … to confirm")
    delete = page.get_by_role("button", name="Delete the student's data")
    box = delete.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.click(x, y)
    page.wait_for_timeout(300)
    page.mouse.click(x, y)                                      # a second click on the same spot
    idle(page)
    done = page.get_by_text("Deleted Ana Silva's data: 1 reflection.")
    untouched = page.get_by_text('Tick "Delete everything about Ana Silva" to confirm: nothing was deleted.')
    expect(done.or_(untouched)).to_be_visible()
    if untouched.is_visible():
        # On a busy server the second click's run replaced the first's before it had deleted anything,
        # with the form already cleared by the first: the refusal is the truth, nobody is gone.
        assert _names(world, world["drill"]) == PEOPLE
        page.locator(f".st-key-data_student_sure_{ana} label").click()
        page.get_by_role("button", name="Delete the student's data").click()
        idle(page)
    expect(done).to_be_visible()
    assert _names(world, world["drill"]) == PEOPLE[1:]
    # The form reset: no student chosen, so no tick and no Delete button left to click.
    _nobody_chosen(student)
    expect(page.get_by_role("button", name="Delete the student's data")).to_have_count(0)
    assert page.locator('[class*="st-key-data_student_sure_"]').count() == 0
    # The next student, confirmed by nobody: Delete says what is missing and deletes nothing.
    choose(page, student, "Ben Okafor (d1)")
    expect(page.locator('[class*="st-key-data_student_sure_"] input')).not_to_be_checked()
    page.get_by_role("button", name="Delete the student's data").click()
    idle(page)
    refused = 'Tick "Delete everything about Ben Okafor" to confirm: nothing was deleted.'
    expect(page.get_by_text(refused)).to_be_visible()
    assert _names(world, world["drill"]) == PEOPLE[1:]          # the others are all still there
    assert _query(world, "SELECT COUNT(*) FROM audit_log WHERE action = 'delete_student'")[0][0] == 1


def test_a_course_name_with_a_shortcode_is_text_and_typing_it_deletes_the_course(world, page):
    from playwright.sync_api import expect

    drill = _names(world, world["drill"])
    _data_tab(page, world, world["old"])
    shown = page.locator('[data-testid="stCode"]').filter(has_text="Old :material/home: course")
    expect(shown).to_have_count(1)                               # the code as text, not a house icon
    page.get_by_role("button", name="Delete the course").click()
    idle(page)
    expect(page.get_by_text("the box was empty")).to_be_visible()
    page.locator(f".st-key-data_course_name_{world['old']} input").fill(shown.inner_text().strip())
    page.get_by_role("button", name="Delete the course").click()
    idle(page)
    # The name in the message is escaped (an invisible word joiner after each colon stops the icon).
    done = re.compile("^Deleted the course Old :\u2060?material/home:\u2060? course and everything in it: "
                      "1 assignment, 1 student, 1 reflection")
    expect(page.get_by_text(done)).to_be_visible()
    assert _query(world, "SELECT COUNT(*) FROM courses WHERE id = ?", [world["old"]])[0][0] == 0
    assert _names(world, world["drill"]) == drill                 # only that course


# --- (b) every download ----------------------------------------------------------------------
def test_settings_backup_downloads_a_database_with_the_courses(world, page, tmp_path):
    _data_tab(page, world)
    page.get_by_role("button", name="Prepare a backup").click()
    idle(page)
    data = _download(page, page.get_by_role("button", name=re.compile(r"^Download the backup \(")),
                     tmp_path / "backup.db")
    assert data.startswith(b"SQLite format 3\x00")
    con = sqlite3.connect(tmp_path / "backup.db")
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    names = {r[0] for r in con.execute("SELECT name FROM courses")}
    assert {r[0] for r in _query(world, "SELECT name FROM courses")} == names and DRILL in names
    con.close()


def _dashboard_csvs(page, tmp_path, prefix: str) -> dict[str, list[dict]]:
    """Every "Download data: ..." button of the page, downloaded and parsed."""
    buttons = page.get_by_role("button", name=re.compile("^Download data: "))
    files = {}
    for i in range(buttons.count()):
        button = buttons.nth(i)
        button.scroll_into_view_if_needed()
        name = button.inner_text().strip()
        files[name] = _csv(_download(page, button, tmp_path / f"{prefix}-{i}.csv"))
    return files


def test_agreement_analysis_and_its_tables_download(world, page, tmp_path):
    load(page, f"{world['url']}/agreement?course={world['course']}&assignment={world['assignment']}")
    page.wait_for_selector("text=Data for your own analysis")
    analysis = page.get_by_role("button", name="Download data: AI and teacher scores for analysis (not for students)")
    rows = _csv(_download(page, analysis, tmp_path / "analysis.csv"))
    subs = _query(world, "SELECT COUNT(*) FROM submissions WHERE assignment_id = ?", [world["assignment"]])[0][0]
    assert len(rows) == subs and all(r["marker"] == "analysis only — not for students" for r in rows)
    assert {"student_id", "concept_understanding_ai", "concept_understanding_teacher"} <= set(rows[0])
    assert sum(r["teacher_kind"] == "approved" for r in rows) == world["released"]
    tables = _dashboard_csvs(page, tmp_path, "agreement")
    assert len(tables) >= 5, list(tables)
    for name, table in tables.items():
        assert table and list(table[0]), name                 # a header and at least one row


def test_every_fairness_table_downloads_as_csv(world, page, tmp_path):
    """(Costs has no table for offline runs: they make no language model calls.)"""
    path = "fairness"
    load(page, f"{world['url']}/{path}?course={world['course']}&assignment={world['assignment']}")
    page.wait_for_timeout(1000)
    idle(page)
    tables = _dashboard_csvs(page, tmp_path, path)
    assert tables, f"no download on {path}"
    for name, table in tables.items():
        assert table and list(table[0]), name


def test_release_downloads_csv_canvas_and_a_zip_per_student(world, page, tmp_path):
    load(page, f"{world['url']}/release?course={world['course']}&assignment={world['assignment']}")
    rows = _csv(_download(page, page.get_by_role("button", name="Download CSV"), tmp_path / "release.csv"))
    assert len(rows) == world["released"] and {r["status"] for r in rows} == {"released"}
    canvas = _csv(_download(page, page.get_by_role("button", name="Download Canvas gradebook CSV"),
                            tmp_path / "canvas.csv"))
    students = [r for r in canvas if r["Student"] != "Points Possible"]
    assert {r["SIS User ID"] for r in students} == {r["student_id"] for r in rows}
    _download(page, page.get_by_role("button", name="Download feedback ZIP (Markdown per student)"),
              tmp_path / "feedback.zip")
    with zipfile.ZipFile(tmp_path / "feedback.zip") as z:
        names = [n for n in z.namelist() if n.endswith(".md")]
        assert len(names) == world["released"]                  # one file per released student
        assert all(z.read(n).strip() for n in names)
    assert all(sum(n.startswith(r["student_id"] + "-") for n in names) == 1 for r in rows)


def test_ai_quality_saved_cases_download_as_jsonl(world, page, tmp_path):
    load(page, f"{world['url']}/ai_quality?course={world['course']}")
    page.get_by_role("tab", name="Saved eval cases").click()
    idle(page)
    data = _download(page, page.get_by_role("button", name=re.compile("^Download as JSONL")), tmp_path / "saved.jsonl")
    cases = [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]
    assert len(cases) == 1 and "The comment asks no question." in json.dumps(cases[0])


def test_an_approved_lesson_downloads_as_markdown_and_docx(world, page, tmp_path):
    load(page, f"{world['url']}/lesson_review?course={world['lesson_course']}&lesson={world['lesson']}")
    md = _download(page, page.get_by_role("button", name="Download MD"), tmp_path / "lesson.md").decode("utf-8")
    assert "The water cycle" in md and "Evaporation" in md
    _download(page, page.get_by_role("button", name="Download DOCX"), tmp_path / "lesson.docx")
    with zipfile.ZipFile(tmp_path / "lesson.docx") as z:
        assert "The water cycle" in z.read("word/document.xml").decode("utf-8")


# --- (c) restore through the page (last: it replaces the shared database) ----------------------
def _restore(page, file, *, tick: bool = True) -> None:
    page.locator('.st-key-data_restore_file input[type="file"]').set_input_files(str(file))
    page.wait_for_timeout(500)
    if tick:
        page.locator(".st-key-data_restore_sure label").click()
    page.get_by_role("button", name="Restore", exact=True).click()
    idle(page)


def _state(world) -> list[tuple]:
    return _query(world, "SELECT c.name, COUNT(s.id) FROM courses c LEFT JOIN students s ON s.course_id = c.id "
                         "GROUP BY c.id ORDER BY c.id")


def test_a_bad_upload_is_refused_with_its_reason_and_changes_nothing(world, page, tmp_path):
    from playwright.sync_api import expect

    before = _state(world)
    _data_tab(page, world)
    bad = tmp_path / "grades.csv"
    bad.write_text("name,score\nAna,3\n")
    _restore(page, bad)
    # (an error message's colons carry an invisible word joiner: pages/_common.md)
    expect(page.get_by_text(re.compile("^grades\\.csv cannot be restored:\u2060? it is not an SQLite database file"))
           ).to_be_visible()
    from test_data_care import _damaged
    good = tmp_path / "good.db"
    data_care.backup(dbmod.connect(world["path"]), good, actor=ADMIN)  # what "Prepare a backup" writes
    damaged = _damaged(good, tmp_path / "damaged.db")
    _restore(page, damaged)
    expect(page.get_by_text(re.compile("^damaged\\.db cannot be restored:\u2060? it is damaged \\(SQLite"))
           ).to_be_visible()
    assert _state(world) == before
    assert _query(world, "SELECT COUNT(*) FROM audit_log WHERE action = 'restore'")[0][0] == 0
    assert not list(world["path"].parent.glob("*before-restore*"))
    expect(page.get_by_role("button", name="Prepare a backup")).to_be_visible()   # still signed in


def test_a_good_backup_restores_through_the_page_and_every_session_ends(world, page, tmp_path):
    from playwright.sync_api import expect

    _data_tab(page, world)
    page.get_by_role("button", name="Prepare a backup").click()
    idle(page)
    backup = tmp_path / "fairmark-backup.db"
    _download(page, page.get_by_role("button", name=re.compile(r"^Download the backup \(")), backup)
    before = _state(world)
    conn = dbmod.connect(world["path"])
    ben = conn.execute("SELECT id FROM students WHERE external_id = 'd1'").fetchone()[0]
    data_care.delete_student(conn, ben, actor=ADMIN)               # a change after the backup
    conn.close()
    assert _state(world) != before
    _restore(page, backup)
    expect(page.get_by_text("Restored fairmark-backup.db. Every session has ended: sign in again.")).to_be_visible()
    assert _state(world) == before                                 # Ben is back
    assert _query(world, "SELECT COUNT(*) FROM sessions WHERE ended_at IS NULL")[0][0] == 0
    kept = list(world["path"].parent.glob("fairmark.db.before-restore-*"))
    assert len(kept) == 1
    page.get_by_role("button", name="Sign in again").click()
    idle(page)
    expect(page.get_by_label("User name", exact=True)).to_be_visible()
