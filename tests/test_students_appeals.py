"""The student page and the appeals joined (issue 26): the student who appealed keeps their link
and session through the change's release and sees the outcome there; the view carries the
appeal form's data (one core read per page run); grader guidance never reaches the student."""
from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

import factories as f
from core.appeals import deciding, filing
from core.courses import catalogue
from core.rubric import default_rubric
from core.signoff import release
from core.students import links, page, sessions
from core.web import server
from db import appeals
from student_support import approve, classroom

WHY = "My example from my job is concrete; the feedback says it is missing."
NOTE = "You are right: your job example counts. Clarity goes up to 3."


@pytest.fixture
def web():
    with TestClient(Starlette(routes=server.routes()), follow_redirects=False) as c:
        yield c


def _clarity(view: dict, sid: int):
    item = next(i for i in view["items"] if i["submission_id"] == sid)
    return next(c["score"] for c in item["criteria"] if c["title"] == "Clarity"), item


def test_the_student_who_appealed_sees_the_changed_outcome_with_the_same_link_and_session(conn, web):
    c = classroom(conn)
    teacher, sid, url = c["teacher"], c["sam1"], c["links"][c["sam1"]]
    catalogue.edit_assignment(conn, c["week1"], actor=teacher, appeal_deadline="2099-12-31")
    cookie = web.get(url).cookies.get(sessions.COOKIE)
    me = sessions.resume(conn, cookie)
    before, item = _clarity(page.view(conn, actor=me), sid)
    assert before == 2 and item["appeal"]["can_file"]
    filing.file(conn, sid, {"clarity": WHY}, actor=me)
    out = deciding.decide(conn, appeals.open_of(conn, sid)["id"], actor=teacher, outcome="change",
                          scores={"clarity": 3}, reason_code="too_harsh", note=NOTE)
    assert out["released"] and out["status"] == "changed"
    again = sessions.resume(conn, cookie)                     # the same cookie still works ...
    assert again is not None
    after, item = _clarity(page.view(conn, actor=again), sid)
    assert after == 3
    [shown] = item["appeal"]["appeals"]
    assert shown["status"] == "changed" and shown["note"] == NOTE
    assert [(k["criterion"], k["released_score"], k["new_score"]) for k in shown["criteria"]] == [("clarity", 2, 3)]
    r = web.get(url)                                          # ... and so does the same link
    assert r.status_code == 303 and r.cookies.get(sessions.COOKIE)
    assert _clarity(page.view(conn, actor=sessions.resume(conn, r.cookies.get(sessions.COOKIE))), sid)[0] == 3
    # Two live links now (the release's own one for its files and LMS comment); a fresh mint on
    # request replaces both.
    live = "SELECT COUNT(*) FROM student_links WHERE submission_id = ? AND revoked_at IS NULL"
    assert conn.execute(live, [sid]).fetchone()[0] == 2
    links.mint(conn, c["course_id"], c["week1"], actor=teacher)
    assert conn.execute(live, [sid]).fetchone()[0] == 1
    assert sessions.resume(conn, cookie) is None and web.get(url).status_code == 410


def test_a_re_release_keeps_the_items_earlier_links(conn, web):
    c = classroom(conn)
    sam2 = c["sam2"]
    approve(conn, sam2, c["teacher"])
    first = release.release(conn, c["week2"], actor=c["teacher"])["links"][0]["url"]
    cookie = web.get(first).cookies.get(sessions.COOKIE)
    # The item reopened, edited, approved and released again: both links open the newest version.
    approve(conn, sam2, c["teacher"], comment="A second look: better.")
    second = release.release(conn, c["week2"], actor=c["teacher"])["links"][0]["url"]
    assert first != second
    for url in (first, second):
        assert web.get(url).status_code == 303
    view = page.view(conn, actor=sessions.resume(conn, cookie))
    assert [i["comment"] for i in view["items"] if i["submission_id"] == sam2] == ["A second look: better."]


def test_the_view_carries_the_appeal_forms_data_and_no_second_read_is_needed(conn):
    c = classroom(conn)
    me = sessions.resume(conn, links.open_link(conn, c["links"][c["sam1"]].rsplit("/s/", 1)[1], client="t").token)
    [item] = page.view(conn, actor=me)["items"]
    assert item["appeal"] == filing.for_student(conn, c["sam1"], actor=me)
    assert item["appeal"]["can_file"] is False and "appeal" in item["appeal"]["why_not"].lower()   # appeals off


def test_grader_guidance_never_reaches_the_student_page(conn, db_path):
    from streamlit.testing.v1 import AppTest

    secret = "GRADER-ONLY: a job example without numbers is only a 2."
    base = default_rubric()
    rubric = base.model_copy(update={"name": "Guided", "criteria": [
        k.model_copy(update={"guidance": f"{secret} ({k.key})"}) for k in base.criteria]})
    course = f.course(conn, "Guided course", rubric=rubric)
    teacher = f.user(conn, "gil", "instructor", courses=[course["course_id"]])
    stu = f.student(conn, course["course_id"])
    sid = f.submission(conn, course["assignment_id"], stu)
    f.draft(conn, sid, {k.key: 2 for k in base.criteria}, comment="Released words.")
    approve(conn, sid, teacher)
    url = release.release(conn, course["assignment_id"], actor=teacher)["links"][0]["url"]
    me = sessions.resume(conn, links.open_link(conn, url.rsplit("/s/", 1)[1], client="t").token)
    view = page.view(conn, actor=me)
    assert [k["level"] for k in view["items"][0]["criteria"]] == [k.levels[2] for k in base.criteria]
    assert "GRADER-ONLY" not in repr(view)

    def script(path: str, student_id: int, course_id: int, assignment_id: int) -> None:
        import db
        from core.accounts import access
        from pages import _student_view

        _student_view.render(db.connect(path), access.student(student_id, course_id, assignment_id=assignment_id))

    at = AppTest.from_function(script, args=(str(db_path), stu, course["course_id"], course["assignment_id"]),
                               default_timeout=30).run()
    assert not at.exception, at.exception
    shown = "\n".join(str(e.value) for kind in (at.markdown, at.caption, at.info, at.subheader) for e in kind)
    assert "Released words" in shown and base.criteria[0].levels[2][:20] in shown.replace("\\", "")
    assert "GRADER-ONLY" not in shown.replace("\\", "")
