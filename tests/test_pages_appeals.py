"""The Review page with a student's appeal (AppTest, issue 26): first in the queue under
"Appeals", the student's words on the item, a blind re-mark that hides the released score until
committed, and the decision form (keep or change, a reason for a change, a required note)."""
from __future__ import annotations

import factories as f
from appeal_items import appealable, released
from core.appeals import filing
from db import appeals, submissions
from shown import plain
from signoff_items import make_item

WHY = "My example from my job is a real-world application <b>really</b>."


def _page(app_test, c, **kw):
    at = app_test("pages/review.py", **kw)
    at.session_state["course_id"] = c["course_id"]
    at.session_state["assignment_id"] = c["assignment_id"]
    return at.run()


def _appealed(conn, *, attention: bool = False):
    c = appealable(conn)
    sid, me = released(conn, c)
    if attention:  # an item that needs attention: the appeal still comes first
        make_item(conn, c, status="needs_attention")
    filing.file(conn, sid, {"real_world_application": WHY}, actor=me)
    return c, sid


def _open(at, sid):
    at.button(key=f"open_{sid}").click().run()
    assert not at.exception, at.exception
    return at


def _markdown(at) -> str:
    return "\n".join(plain(m.value) for m in at.markdown)


def test_the_appeal_is_first_in_the_queue_and_its_item_shows_the_students_words(app_test, conn):
    c, sid = _appealed(conn, attention=True)
    at = _page(app_test, c)
    assert not at.exception, at.exception
    assert "Appeals" in [m.label for m in at.metric]
    keys = [b.key for b in at.button if b.key and b.key.startswith("open_")]
    assert keys[0] == f"open_{sid}"
    _open(at, sid)
    assert WHY in [t.value for t in at.text]                     # the student's words, as plain text
    assert "released score 2" in _markdown(at)


def test_keeping_needs_a_note_and_a_change_is_decided_and_released(app_test, conn):
    c, sid = _appealed(conn)
    at = _open(_page(app_test, c), sid)
    at.button(key=f"FormSubmitter:ap_decide_{appeals.open_of(conn, sid)['id']}-Decide the appeal").click().run()
    assert any("Write a note to the student" in e.value for e in at.error)
    assert appeals.open_of(conn, sid) is not None                # nothing decided
    appeal_id = appeals.open_of(conn, sid)["id"]
    at.radio(key=f"ap_outcome_{sid}").set_value("change")
    at.selectbox(key=f"ap_score_{sid}_real_world_application").set_value(3)
    at.selectbox(key=f"ap_reason_{sid}").set_value("too_harsh")
    at.text_area(key=f"ap_note_{sid}").input("You are right: it counts.")
    at.button(key=f"FormSubmitter:ap_decide_{appeal_id}-Decide the appeal").click().run()
    assert not at.exception, at.exception
    assert any("changed and released" in s.value for s in at.success)
    assert appeals.get(conn, appeal_id)["status"] == "changed"
    assert submissions.get_submission(conn, sid)["status"] == "released"


def test_a_blind_re_mark_hides_the_released_score_until_committed(app_test, conn):
    c, sid = _appealed(conn)
    at = _open(_page(app_test, c), sid)
    at.button(key=f"ap_blind_start_{sid}").click().run()
    assert not at.exception, at.exception
    page = _markdown(at) + "\n".join(t.value for t in at.text)
    assert "released score" not in page and "You explain temperature clearly" not in page   # no score, no draft
    assert WHY in [t.value for t in at.text]
    at.selectbox(key=f"ap_blind_{sid}_real_world_application").set_value(3).run()
    at.button(key=f"ap_blind_commit_{sid}").click().run()
    assert not at.exception, at.exception
    assert appeals.open_of(conn, sid)["blind_scores"] == {"real_world_application": 3}
    assert "released score 2 · your blind re-mark 3" in _markdown(at)


def test_a_coordinator_sees_the_appeal_but_no_decision_form(app_test, conn):
    c, sid = _appealed(conn)
    at = _open(_page(app_test, c, role="coordinator", courses=[c["course_id"]], names=True), sid)
    assert WHY in [t.value for t in at.text]
    assert not [b for b in at.button if b.key and b.key.startswith(("ap_blind_start", "FormSubmitter:ap_decide"))]
    assert f


def test_the_settings_page_sets_and_clears_an_assignments_appeal_deadline(app_test, conn):
    import datetime

    from db import courses

    c = f.course(conn)
    aid = c["assignment_id"]
    at = app_test("pages/settings.py").run()
    assert not at.exception, at.exception
    day = next(d for d in at.date_input if d.label.startswith("Students may appeal until"))
    assert day.value is None                                             # appeals off by default
    day.set_value(datetime.date(2026, 12, 20))
    next(b for b in at.button if b.label == "Save assignment").click().run()
    assert not at.exception, at.exception
    assert courses.get_assignment(conn, aid)["appeal_deadline"] == "2026-12-20T23:59:59Z"
    conn.execute("UPDATE assignments SET appeal_deadline = '2026-12-20T17:00:00Z' WHERE id = ?", [aid])
    at = app_test("pages/settings.py").run()
    next(b for b in at.button if b.label == "Save assignment").click().run()   # the same day: the time stays
    assert courses.get_assignment(conn, aid)["appeal_deadline"] == "2026-12-20T17:00:00Z"
    next(d for d in at.date_input if d.label.startswith("Students may appeal until")).set_value(None)
    next(b for b in at.button if b.label == "Save assignment").click().run()
    assert courses.get_assignment(conn, aid)["appeal_deadline"] is None


def test_the_agreement_and_fairness_pages_show_the_appeal_rates_with_what_they_count(app_test, conn):
    c, sid = _appealed(conn)
    for page in ("pages/agreement.py", "pages/fairness.py"):
        at = app_test(page)
        at.session_state["course_id"] = c["course_id"]
        at.session_state["assignment_id"] = c["assignment_id"]
        at.session_state["scope"] = "course"
        at.run()
        assert not at.exception, (page, at.exception)
        assert "Students' appeals" in [h.value for h in at.subheader]
        cells = "\n".join(str(v) for df in at.dataframe for v in df.value.to_numpy().ravel())
        assert "1 of 1 student appealed (100.0 %, 95 % interval 20.7–100.0 %)" in cells, page
        assert "no appeal decided yet" in cells


def test_the_appeal_rates_speak_the_teachers_language(app_test, conn, db_path):
    """A Swedish-speaking admin reads the section, its band rows and its explanation in Swedish
    (the rates' own figures are core's English, as docs/development.md says)."""
    from db import users as users_db

    c, sid = _appealed(conn)
    at = app_test("pages/fairness.py", user="test-admin")   # the fixture makes the user; then the choice
    admin = users_db.find(conn, "test-admin")
    users_db.set_language(conn, admin["id"], "sv", actor="test-admin")
    at.session_state["course_id"] = c["course_id"]
    at.session_state["assignment_id"] = c["assignment_id"]
    at.session_state["scope"] = "course"
    at.run()
    assert not at.exception, at.exception
    assert "Elevernas överklaganden" in [h.value for h in at.subheader]
    assert "Students' appeals" not in [h.value for h in at.subheader]
    rows = "\n".join(str(v) for df in at.dataframe for v in df.value.to_numpy().ravel())
    assert "Låg nivå (släppt poäng)" in rows and "Hög nivå" in rows
    assert any("Överklagade" in df.value.columns for df in at.dataframe)
