"""The student's appeal form (pages/_student_appeal.py, issue 26) in AppTest, on the student page
itself: a tiny script calls pages/_student_view.render with a student actor on a real temporary
database; the form takes the view's "appeal" data (one core read per run)."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from appeal_items import ADMIN, appealable, released
from core.appeals import deciding
from core.text import escape_markdown
from db import appeals
from shown import plain

WHY = "My example from my job shows it <script>alert(1)</script> **bold**."


def _script(db_path: str, student_id: int, course_id: int, assignment_id: int, submission_id: int) -> None:
    import db
    from core.accounts import access
    from pages import _student_view

    conn = db.connect(db_path)
    me = access.student(student_id, course_id, assignment_id=assignment_id)
    _student_view.render(conn, me)


def _app(db_path, me, sid) -> AppTest:
    return AppTest.from_function(_script, args=(str(db_path), me.student_id, next(iter(me.courses)),
                                                me.assignment_id, sid), default_timeout=30).run()


def test_a_student_files_an_appeal_and_sees_its_outcome(conn, db_path):
    course = appealable(conn)
    sid, me = released(conn, course)
    at = _app(db_path, me, sid)
    assert not at.exception, at.exception
    assert at.button(key=f"sa_send_{sid}").disabled                       # nothing chosen yet
    at.multiselect(key=f"sa_criteria_{sid}").select("clarity").run()
    area = at.text_area(key=f"sa_reason_{sid}_clarity")
    assert area.max_chars == 1000 and "0 of 1,000 characters" in [c.value for c in at.caption]
    area.input(WHY).run()
    assert f"{len(WHY)} of 1,000 characters" in [c.value for c in at.caption]
    at.button(key=f"sa_send_{sid}").click().run()
    assert not at.exception, at.exception
    assert any("Sent." in plain(s.value) for s in at.success)
    appeal = appeals.open_of(conn, sid)
    assert [(c["criterion"], c["reason"]) for c in appeal["criteria"]] == [("clarity", WHY)]
    assert escape_markdown(WHY) in [m.value for m in at.markdown]          # escaped: shown as typed
    assert "Waiting for your teacher" in "\n".join(plain(m.value) for m in at.markdown)
    assert not [b for b in at.button if b.key == f"sa_send_{sid}"]        # one open appeal: no form
    deciding.decide(conn, appeal["id"], actor=ADMIN, outcome="keep", note="It stays at 3: see the rubric.")
    at = _app(db_path, me, sid)
    assert "Your teacher kept the score" in "\n".join(plain(m.value) for m in at.markdown)
    assert escape_markdown("It stays at 3: see the rubric.") in [m.value for m in at.markdown]
    assert at.button(key=f"sa_send_{sid}")                                 # decided: may ask again


def test_the_form_says_why_it_is_closed_and_refusals_are_shown(conn, db_path):
    from core.courses import catalogue

    course = appealable(conn, deadline="2020-01-01")
    sid, me = released(conn, course)
    at = _app(db_path, me, sid)
    assert any("deadline for appeals" in plain(i.value) for i in at.info)
    assert not [b for b in at.button if b.key == f"sa_send_{sid}"]
    catalogue.edit_assignment(conn, course["assignment_id"], actor=ADMIN, appeal_deadline="2099-01-01")
    at = _app(db_path, me, sid)
    at.multiselect(key=f"sa_criteria_{sid}").select("clarity").run()
    at.button(key=f"sa_send_{sid}").click().run()                          # an empty reason
    assert any("the reason is empty" in plain(e.value) for e in at.error)
    assert appeals.open_of(conn, sid) is None



def _app_script(db_path: str, student_id: int, course_id: int, assignment_id: int) -> None:
    """app.py's student path on a real temporary database."""
    import app
    import db
    from core.accounts import access

    app.student_page(db.connect(db_path), access.student(student_id, course_id, assignment_id=assignment_id))


def test_the_student_page_asks_core_once_per_render(conn, db_path, monkeypatch):
    from core.students import page

    reads, depth = [], [0]
    for name in ("view", "language_of"):
        def counted(*a, _fn=getattr(page, name), _name=name, **k):
            if depth[0] == 0:                        # a read of the page's, not one inside another
                reads.append(_name)
            depth[0] += 1
            try:
                return _fn(*a, **k)
            finally:
                depth[0] -= 1
        monkeypatch.setattr(page, name, counted)    # AppTest runs the script in this process
    course = appealable(conn)
    sid, me = released(conn, course)
    at = AppTest.from_function(_app_script, args=(str(db_path), me.student_id, next(iter(me.courses)),
                                                  me.assignment_id), default_timeout=30).run()
    assert not at.exception, at.exception
    assert reads == ["view"]                      # the language is chosen inside that one read
    assert "Your feedback" in [t.value for t in at.title]
