"""Students page (AppTest): released scores across weeks and released comments only."""
from __future__ import annotations

import factories as f
from core.signoff import actions, release
from core.accounts.access import Actor


def test_student_sees_released_weeks_only(app_test, conn):
    c = f.course(conn, weeks=3)
    st_id = f.student(conn, c["course_id"], external_id="s9", name="Kim <i>Lee</i>")
    for week, aid in enumerate(c["assignment_ids"], start=1):
        sid = f.submission(conn, aid, st_id, text=f"week {week}")
        f.draft(conn, sid, dict.fromkeys(c["rubric"].keys, week), comment=f"Comment for week {week}.")
        if week < 3:
            actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
            actions.approve(conn, sid, version=1, actor=Actor("ann", role="admin"))
            release.release(conn, aid, actor=Actor("ann", role="admin"))
    at = app_test("pages/student.py")
    at.session_state["course_id"] = c["course_id"]
    at.run()
    assert not at.exception, at.exception
    texts = [t.value for t in at.text]
    assert "Comment for week 1." in texts and "Comment for week 2." in texts
    assert "Comment for week 3." not in texts  # drafted but never released
    assert [s.value for s in at.subheader] == ["Week 1: Week 1", "Week 2: Week 2"]
    assert at.get("plotly_chart")
    table = at.dataframe[0].value
    assert list(table["Week"]) == [1, 2] and "Real-world application" in table.columns
    assert any(t.value.startswith("Concept understanding: 1, Real-world application: 1") for t in at.text)
    assert all("_" not in t.value for t in at.text if ":" in t.value and "Comment" not in t.value)
    assert any(" UTC" in cap.value for cap in at.caption)


def test_student_without_releases(app_test, conn):
    c = f.course(conn)
    f.student(conn, c["course_id"])
    at = app_test("pages/student.py")
    at.session_state["course_id"] = c["course_id"]
    at.run()
    assert any("Nothing released" in i.value for i in at.info)


def test_defaults_to_a_student_with_released_work(app_test, conn):
    """Alphabetically first has nothing released: the page opens on someone who has."""
    c = f.course(conn)
    f.student(conn, c["course_id"], external_id="a1", name="Aaron Nothing")
    st_id = f.student(conn, c["course_id"], external_id="h1", name="Hiroshi Done")
    sid = f.submission(conn, c["assignment_id"], st_id, text="one week only")
    f.draft(conn, sid, dict.fromkeys(c["rubric"].keys, 2), comment="Released comment.")
    actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    actions.approve(conn, sid, version=1, actor=Actor("ann", role="admin"))
    release.release(conn, c["assignment_id"], actor=Actor("ann", role="admin"))
    at = app_test("pages/student.py")
    at.session_state["course_id"] = c["course_id"]
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="student_pick").value == st_id
    assert "Released comment." in [t.value for t in at.text]
    assert at.get("plotly_chart")  # one released week still gets a chart
    others = [o for o in at.selectbox(key="student_pick").options if "Aaron" in o]
    assert others and "nothing released yet" in others[0]
    at.selectbox(key="student_pick").select_index(0).run()
    assert any("Nothing released for Aaron Nothing yet" in i.value for i in at.info)
