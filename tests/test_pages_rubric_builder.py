"""Settings → Rubrics (AppTest): the Rubric builder drafts (offline: a template said plainly),
shows the draft editable and saves it; versions with a diff and rollback behind a confirmation;
hostile rubric text renders as text."""
from __future__ import annotations

import factories as f
from core.accounts.access import Actor
from core.courses import catalogue
from core.courses import rubric_builder as builder
from core.rubric import parse_rubric
from db import courses, rubric_drafts

ADMIN = Actor("ann", role="admin")
HOSTILE = "<img src=x onerror=alert(1)> **boom** :red[x]"


def _button(at, label):
    return next(b for b in at.button if b.label == label)


def _open(app_test, **kw):
    at = app_test("pages/settings.py", **kw).run()
    assert not at.exception
    return at


def test_an_instructor_drafts_offline_edits_nothing_and_saves(app_test, conn):
    c = f.course(conn)
    at = _open(app_test, role="instructor", courses=[c["course_id"]])
    at.text_input(key="rb_description").set_value("An essay, 4 criteria, scored 1 to 6")
    _button(at, "Draft a rubric").click().run()
    assert not at.exception
    assert "Drafted" in at.success[0].value
    assert any("This is a template, not written by a language model" in i.value for i in at.info)
    (draft,) = rubric_drafts.of_course(conn, c["course_id"])
    assert draft["source"] == "template"
    name = at.text_input(key=f"rb_name_{draft['id']}")
    assert name.value == "Essay rubric (template)"
    name.set_value("Essay rubric").run()
    _button(at, "Save as rubric").click().run()
    assert not at.exception
    assert "Saved Essay rubric as version 1" in at.success[0].value
    saved = [r for r in courses.list_rubrics(conn) if r["name"] == "Essay rubric"]
    assert len(saved) == 1 and courses.get_rubric(conn, saved[0]["id"]).scale_max == 6
    assert rubric_drafts.of_course(conn, c["course_id"]) == []


def test_bad_examples_say_what_to_fix_on_the_page(app_test, conn):
    c = f.course(conn)
    at = _open(app_test)
    at.text_input(key="rb_description").set_value("reflection, 3 criteria, 0-3")
    at.text_area(key="rb_examples").set_value("Score: 2\nOnly one example.")
    _button(at, "Draft a rubric").click().run()
    assert "Give 5 to 20 scored examples \\(you gave 1\\)" in at.error[0].value
    assert rubric_drafts.of_course(conn, c["course_id"]) == []


def test_versions_diff_and_rollback_after_confirming(app_test, conn):
    c = f.course(conn)
    data = c["rubric"].model_dump(mode="json")
    data["criteria"][0]["levels"]["3"] = HOSTILE
    v2, _ = catalogue.save_rubric_version(conn, parse_rubric(data), actor=ADMIN)
    at = _open(app_test)
    at.selectbox(key="set_rubric").set_value(v2).run()
    assert not at.exception
    shown = [m.value for m in at.markdown if "level 3" in m.value]
    assert len(shown) == 1
    assert "\\<img src\\=x" in shown[0] and "\\*\\*boom\\*\\*" in shown[0] and "\\:red\\[x\\]" in shown[0]
    go = _button(at, "Roll back")
    assert go.disabled                                       # nothing happens before the confirmation
    at.checkbox(key=f"rv_sure_{v2}").check().run()
    _button(at, "Roll back").click().run()
    assert not at.exception
    assert "Rolled back\\: version 3 restores version 1" in at.success[0].value
    newest = max(courses.list_rubrics(conn), key=lambda r: r["version"])
    assert newest["version"] == 3 and courses.get_rubric(conn, newest["id"]).criteria[0].levels[3] != HOSTILE


def test_a_hostile_draft_renders_as_text(app_test, conn):
    c = f.course(conn)
    draft_id = builder.draft(conn, c["course_id"], HOSTILE + " reflection", actor=ADMIN)
    at = _open(app_test)
    labels = [e.label for e in at.expander if "Draft of" in e.label]
    assert len(labels) == 1 and "\\<img src\\=x" in labels[0] and "\\*\\*boom\\*\\*" in labels[0]
    assert rubric_drafts.get(conn, draft_id)["description"].startswith("<img")


def test_markers_read_the_notes_for_graders_on_the_review_item(app_test, conn):
    data = f.course(conn)["rubric"].model_dump(mode="json")
    data["name"] = "Guided"
    data["criteria"][1]["guidance"] = "Concrete = a named situation. " + HOSTILE
    rubric = parse_rubric(data)
    c = f.course(conn, "Guided course", rubric=rubric)
    sub = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]))
    f.draft(conn, sub, {k: 2 for k in rubric.keys}, rubric=rubric)
    at = app_test("pages/review.py", role="ta", courses=[c["course_id"]])
    at.query_params["item"] = str(sub)
    at.run()
    assert not at.exception, at.exception
    (notes,) = [e for e in at.expander if e.label.startswith("Notes for graders")]
    assert [t.value for t in notes.text] == ["Concrete = a named situation. " + HOSTILE]   # plain text, not Markdown
