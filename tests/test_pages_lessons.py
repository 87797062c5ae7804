"""The Lessons and Lesson pages and the Agreement page's lesson section (AppTest; the offline
baseline or reviews stored beforehand with a scripted judge: no LLM call in a page)."""
import time

from core.lessons import demo, review, runs
from core.text import escape_markdown
from db import lessons as lessons_db
from db import runs as runs_db
from fake_llm import ScriptedLLM
from lesson_helpers import LESSON, ONE_JUDGE, add_lesson, issue, verdict
from core.accounts.access import Actor
from waits import WAIT_S

HOOK = "The water did not disappear."


def page(app_test, path, course_id=None, lesson=None):
    at = app_test(path)
    if course_id is not None:
        at.session_state["course_id"] = course_id
    if lesson is not None:
        at.query_params["lesson"] = str(lesson)
    return at.run()


def texts(at) -> str:
    return " ".join(str(getattr(e, "value", "")) + " " + str(getattr(e, "label", ""))
                    for kind in ("markdown", "caption", "subheader", "metric", "info", "warning", "success", "error",
                                 "expander", "code") for e in getattr(at, kind))


def wait_done(conn, run_id, timeout=WAIT_S):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if runs_db.get_run(conn, run_id)["status"] in ("done", "failed", "cancelled"):
            return
        time.sleep(0.05)
    raise AssertionError("the lesson run did not finish")


def test_the_demo_button_fills_the_queue_and_a_review_runs_in_the_background(app_test, conn):
    at = page(app_test, "pages/lessons.py")
    assert not at.exception and any("No course yet" in i.value for i in at.info)
    at = next(b for b in at.button if b.label.startswith("Load the demo lessons")).click().run()
    assert not at.exception, at.exception
    cid = lessons_db.queue(conn, 1)[0]["course_id"]
    assert at.session_state["course_id"] == cid and "Loaded 8 demo lessons" in texts(at)
    start = next(b for b in at.button if b.label.startswith("Start review"))
    assert start.label == "Start review (8 lesson(s))"
    at = start.click().run()
    assert not at.exception, at.exception
    run = runs_db.list_runs(conn, cid, kind="lessons")[0]
    wait_done(conn, run["id"])
    at = page(app_test, "pages/lessons.py", cid)
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Needs a full review"] == "8" and metrics["Calls"] == "0"
    links = [link.proto for link in at.get("page_link") if link.proto.query_string]   # not the menu's
    assert len(links) == 8
    assert all("Needs a full review" in link.label and "offline baseline" in link.label for link in links)
    assert {link.query_string for link in links} == {f"lesson={lesson['id']}" for lesson in lessons_db.queue(conn, cid)}


def test_the_lesson_page_highlights_the_judges_quotes_and_offers_each_fix(app_test, conn, db_path):
    lid = add_lesson(conn)
    fake = ScriptedLLM(models=ONE_JUDGE)
    fake.script("lesson_judge", verdict(0.9, 0.9, 0.7, 0.2, [issue("engagement_tone", HOOK, location="The water cycle",
                                                                   fix="Open with a question.")]),
                verdict(0.9, 0.9, 0.8, 0.85))
    fake.script("lesson_fixer", {"text": "Imagine a puddle that vanishes before lunch. Where did it go?",
                                 "summary": "hook"})
    review.review_lesson(db_path, lid, fake)
    cid = lessons_db.get(conn, lid)["course_id"]
    at = page(app_test, "pages/lesson_review.py", cid, lid)
    assert not at.exception, at.exception
    body = texts(at)
    assert ":orange-background[The water did not disappear] **[1]**" in body
    diff = next(c.value for c in at.code)
    assert "+Imagine a puddle that vanishes before lunch." in diff and "-Have you ever seen a puddle" in diff
    at = next(b for b in at.button if b.label == "Accept").click().run()
    assert not at.exception, at.exception
    lesson = lessons_db.get(conn, lid)
    assert "Imagine a puddle" in lesson["text"] and lesson["version"] == 2
    assert "Accepted the fix of round 1." in texts(at)
    at.radio(key=f"verdict_{lid}_2").set_value("revise")
    at = next(b for b in at.button if b.label == "Approve lesson").click().run()
    assert not at.exception, at.exception
    assert lessons_db.get(conn, lid)["status"] == "approved"
    assert [b.label for b in at.get("download_button")] == ["Download MD", "Download DOCX"]


def test_approving_with_an_undecided_fix_shows_what_to_do(app_test, conn, db_path):
    lid = add_lesson(conn)
    fake = ScriptedLLM(models=ONE_JUDGE)
    fake.script("lesson_judge", verdict(0.9, 0.9, 0.7, 0.2, [issue("engagement_tone", HOOK)]),
                verdict(0.9, 0.9, 0.8, 0.85))
    fake.script("lesson_fixer", {"text": "A new hook?", "summary": "hook"})
    review.review_lesson(db_path, lid, fake)
    at = page(app_test, "pages/lesson_review.py", lessons_db.get(conn, lid)["course_id"], lid)
    at = next(b for b in at.button if b.label == "Approve lesson").click().run()
    assert any("Decide every proposed fix first" in e.value for e in at.error)
    assert lessons_db.get(conn, lid)["status"] == "reviewed"


def test_user_text_is_escaped_on_the_lesson_page(app_test, conn, db_path):
    lid = add_lesson(conn, LESSON.replace(b"Remember your puddle", b"Remember :red[$x$] **bold** your puddle"))
    review.review_lesson(db_path, lid, None)
    at = page(app_test, "pages/lesson_review.py", lessons_db.get(conn, lid)["course_id"], lid)
    assert not at.exception
    md = " ".join(m.value for m in at.markdown)
    assert escape_markdown(":red[$x$] **bold**") in md and ":red[$x$]" not in md


def test_the_agreement_page_shows_judge_expert_agreement_on_lessons(app_test, conn, db_path):
    cid = demo.load_demo(conn, actor=Actor("test", role="admin"))["course_id"]
    runs.execute(db_path, runs.create(conn, course_id=cid, provider="offline", actor=Actor("test", role="admin")), actor=Actor("test", role="admin"))
    at = app_test("pages/agreement.py")
    at.session_state["course_id"] = cid
    at.session_state["scope"] = "course"
    at = at.run()
    assert not at.exception, at.exception
    assert "Lessons: judge and human verdicts" in texts(at)
    metric = next(m for m in at.metric if m.label == "Agreement with the expert")
    assert metric.value.endswith("%")
    ci = next(c.value for c in at.caption if "n = 8 lessons" in c.value)
    assert "95 % CI" in ci or "CI unavailable" in ci


def test_a_deep_link_to_a_lesson_of_another_course_switches_the_course(app_test, conn, db_path):
    first = add_lesson(conn, course="Science")
    other = add_lesson(conn, course="History", name="h.md")
    at = page(app_test, "pages/lesson_review.py", lessons_db.get(conn, first)["course_id"], other)
    assert not at.exception, at.exception
    assert at.session_state["course_id"] == lessons_db.get(conn, other)["course_id"]
    assert at.selectbox(key="lesson_pick").value == other


def _param(at, key):
    value = at.query_params.get(key)
    return value[0] if isinstance(value, list) else value


def test_a_refresh_keeps_the_lesson_on_screen(app_test, conn):
    """Review finding 4: the shell rewrote the address without ?lesson=, so a refresh (a new
    session from the address) showed the first lesson of the queue instead."""
    first = add_lesson(conn, course="Science")
    second = add_lesson(conn, LESSON.replace(b"The water cycle", b"Clouds"), course="Science", name="c.md")
    at = page(app_test, "pages/lesson_review.py", lesson=second)
    assert not at.exception, at.exception
    assert at.selectbox(key="lesson_pick").value == second and _param(at, "lesson") == str(second)
    at.selectbox(key="lesson_pick").select(first).run()
    assert _param(at, "lesson") == str(first)          # the address follows the pick
    refreshed = app_test("pages/lesson_review.py")     # F5: a new session with only the address
    for key, value in at.query_params.items():
        refreshed.query_params[key] = value[0] if isinstance(value, list) else value
    refreshed.run()
    assert not refreshed.exception, refreshed.exception
    assert refreshed.selectbox(key="lesson_pick").value == first
    assert refreshed.session_state["course_id"] == lessons_db.get(conn, first)["course_id"]


def test_a_link_to_a_lesson_that_does_not_exist_shows_the_queue_with_a_message(app_test, conn):
    lid = add_lesson(conn, course="Science")
    at = page(app_test, "pages/lesson_review.py", lesson=lid + 100)
    assert not at.exception, at.exception
    assert any("lesson that does not exist" in t.value for t in at.toast)
    assert _param(at, "lesson") != str(lid + 100)


def test_no_fixes_after_an_offline_review_says_fixes_need_a_language_model(app_test, conn, db_path):
    """Issue 21 item 16: "No fixes were proposed" did not say the offline baseline writes none."""
    lid = add_lesson(conn)
    review.review_lesson(db_path, lid, None)                  # the offline baseline
    at = page(app_test, "pages/lesson_review.py", lessons_db.get(conn, lid)["course_id"], lid)
    assert not at.exception, at.exception
    note = next(c.value for c in at.caption if c.value.startswith("No fixes were proposed"))
    assert "fixes are written by a language model" in note and "Set up a language model" in note
    other = add_lesson(conn, name="other.md")                 # judged by a model that proposed no fix
    fake = ScriptedLLM(models=ONE_JUDGE)
    fake.script("lesson_judge", verdict(0.9, 0.9, 0.8, 0.85), verdict(0.9, 0.9, 0.8, 0.85))
    review.review_lesson(db_path, other, fake)
    at = page(app_test, "pages/lesson_review.py", lessons_db.get(conn, other)["course_id"], other)
    assert "No fixes were proposed for this lesson." in [c.value for c in at.caption]
