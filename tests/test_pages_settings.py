"""Settings page (AppTest): courses, assignments and rubrics tabs change the database."""
from core import demo
from db import courses
from core.accounts.access import Actor


def _button(at, label):
    return next(b for b in at.button if b.label == label)


def test_settings_renders_on_an_empty_database_and_creates_a_course(app_test, conn):
    at = app_test("pages/settings.py").run()
    assert not at.exception
    at.text_input[0].set_value("Ethics of AI")
    _button(at, "Create course").click().run()
    assert not at.exception
    assert [c["name"] for c in courses.list_courses(conn)] == ["Ethics of AI"]
    assert "Created the course" in at.success[0].value


def test_creating_a_course_twice_is_refused(app_test, conn):
    courses.ensure_course(conn, "Ethics of AI")
    at = app_test("pages/settings.py").run()
    at.selectbox(key="set_course").set_value(-1).run()
    at.text_input[0].set_value("Ethics of AI")
    _button(at, "Create course").click().run()
    assert "already exists" in at.error[0].value
    assert len(courses.list_courses(conn)) == 1


def test_editing_an_assignment_saves_and_audits(app_test, conn):
    summary = demo.load_demo(conn, actor=Actor("test", role="admin"))
    at = app_test("pages/settings.py").run()
    assert not at.exception
    first = courses.list_assignments(conn, summary["course_id"])[0]
    prompt = next(t for t in at.text_area if t.label == "Prompt the students answered")
    assert prompt.value == first["prompt"]
    prompt.set_value("A new prompt.")
    next(t for t in at.text_area if t.label.startswith("Key concepts")).set_value("token\ntemperature\n")
    _button(at, "Save assignment").click().run()
    assert not at.exception
    after = courses.get_assignment(conn, first["id"])
    assert after["prompt"] == "A new prompt." and after["key_concepts"] == ["token", "temperature"]
    row = conn.execute("SELECT before, after FROM audit_log WHERE entity = 'assignments' AND action = 'edit'").fetchone()
    assert "A new prompt." in row[1] and first["prompt"][:20] in row[0]


def test_empty_assignment_title_is_refused(app_test, conn):
    summary = demo.load_demo(conn, actor=Actor("test", role="admin"))
    at = app_test("pages/settings.py").run()
    next(t for t in at.text_input if t.label == "Title").set_value("  ")
    _button(at, "Save assignment").click().run()
    assert at.error[0].value == "An assignment needs a title"  # a sentence, with its capital
    assert all(a["title"].strip() for a in courses.list_assignments(conn, summary["course_id"]))


def test_rubrics_tab_adds_bundled_rubrics_once(app_test, conn):
    at = app_test("pages/settings.py").run()
    _button(at, "Add the bundled rubrics").click().run()
    assert not at.exception
    names = sorted(r["name"] for r in courses.list_rubrics(conn))
    assert names == ["Bedömningsmatris för reflektioner (seed 000)", "ELLIPSE analytic rubric",
                     "Reflection rubric (seed 000)", "Критерии оценивания рефлексии (seed 000)"]   # and in sv, ru
    _button(at, "Add the bundled rubrics").click().run()
    assert len(courses.list_rubrics(conn)) == 4
    _button(at, "Save as a new version").click().run()  # unchanged table: no new version
    assert "Nothing changed" in at.success[0].value
    assert len(courses.list_rubrics(conn)) == 4


def test_creating_an_assignment_on_a_chosen_rubric(app_test, conn):
    from core.rubric import RUBRIC_DIR, load_rubric_file

    cid = courses.ensure_course(conn, "ELL writing")
    rid = courses.save_rubric(conn, load_rubric_file(RUBRIC_DIR / "ellipse.yaml"))
    at = app_test("pages/settings.py").run()
    assert at.selectbox(key=f"set_assignment_{cid}").value == -1  # no assignments yet: the form creates one
    next(t for t in at.text_input if t.label == "Title").set_value("Essay 1")
    next(n for n in at.number_input if n.label == "Week").set_value(3)
    next(s for s in at.selectbox if s.label == "Rubric version").set_value(rid)
    _button(at, "Create assignment").click().run()
    assert not at.exception
    [a] = courses.list_assignments(conn, cid)
    assert (a["title"], a["week"], a["rubric_id"]) == ("Essay 1", 3, rid)


def test_bundled_rubric_is_shown_by_its_study_not_the_internal_seed_tag(app_test, conn):
    at = app_test("pages/settings.py").run()
    _button(at, "Add the bundled rubrics").click().run()
    shown = at.selectbox(key="set_rubric").options
    assert any("Reflection rubric (Zhang & Luo 2025)" in o for o in shown) and not any("seed" in o for o in shown)
    assert {r["name"] for r in courses.list_rubrics(conn)} >= {"Reflection rubric (seed 000)"}  # stored name kept


def test_rubric_table_has_readable_headers_and_no_none(app_test, conn):
    """Issue 11 item 13: the rubric editor showed raw keys as headers and "None" for no weight/veto."""
    import json

    at = app_test("pages/settings.py").run()
    _button(at, "Add the bundled rubrics").click().run()
    table = at.dataframe[0]
    headers = {k: v.get("label") for k, v in json.loads(table.proto.columns).items() if k in table.value.columns}
    assert headers["veto_below"] == "Fails below (optional)" and headers["level_3"] == "Level 3"
    assert all("_" not in label for label in headers.values())
    frame = table.value
    assert str(frame["weight"].dtype).startswith("float") and frame["weight"].isna().all()
    assert "None" not in frame.astype(str).to_string()


def test_users_tab_says_the_last_sign_in_as_the_other_pages_say_a_time(app_test):
    """Not the stored ISO string ("2026-12-01T19:25:41.428335Z"): core.text.format_timestamp."""
    import re

    at = app_test("pages/settings.py").run()   # the signed-in admin has just signed in
    assert not at.exception
    users = next(d.value for d in at.dataframe if "last sign-in" in d.value.columns)
    shown = users.loc[users["user"] == "test-admin", "last sign-in"].item()
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", shown), shown
