"""The student page (issue 26): a link opens only that student's released work (never a draft,
another student, another assignment of an assignment's link, the AI's reasoning); the
disclosure names the approving teacher truthfully; app.py shows a student cookie only this page."""
from __future__ import annotations

import json

import pytest

import factories as f
from core.accounts import access
from core.errors import Forbidden
from core.signoff import release
from db import now, releases
from core.students import links, page, sessions
from core.text import escape_markdown
from student_support import HIGH, LOW, approve, classroom, token_of


def _open(conn, url: str):
    return sessions.resume(conn, links.open_link(conn, token_of(url), client="test").token)


def test_a_link_opens_only_that_students_released_work_of_its_assignment(conn):
    c = classroom(conn)
    sam = _open(conn, c["links"][c["sam1"]])
    view = page.view(conn, actor=sam)
    assert [i["submission_id"] for i in view["items"]] == [c["sam1"]]
    item = view["items"][0]
    assert item["comment"] == "Good *start*: add an example <b>next</b> time."   # the released version's
    assert item["assignment"] == "Week 1" and item["released"] and item["appeal"]["can_file"] is False   # appeals off
    rubric = f.course(conn, "Another")["rubric"]
    first = rubric.criteria[0]
    assert item["criteria"][0] == {"title": first.title, "score": HIGH[first.key], "max": rubric.scale_max,
                                   "level": first.levels[HIGH[first.key]]}
    assert (item["total"], item["max_total"]) == (10, 12)
    assert item["disclosure"] == "Drafted with AI assistance, checked and approved by Ada Lovelace."
    shown = json.dumps(view)
    for never in ("AI draft words", "An unreleased draft", "Kim", "Reasoning for", "Improve ", "Sam Pupil"):
        assert never not in shown, never
    # Week 2 released later: a week-1 link still shows week 1 only; the Learner launch (the course) both.
    approve(conn, c["sam2"], c["teacher"])
    release.release(conn, c["week2"], actor=c["teacher"])
    assert [i["submission_id"] for i in page.view(conn, actor=sam)["items"]] == [c["sam1"]]
    course_wide = access.student(c["sam"], c["course_id"], via="lti")
    assert [i["submission_id"] for i in page.view(conn, actor=course_wide)["items"]] == [c["sam1"], c["sam2"]]
    kim = _open(conn, c["links"][c["kim1"]])
    assert [i["comment"] for i in page.view(conn, actor=kim)["items"]] == ["Kim's comment, never Sam's."]


def test_an_edit_after_release_stays_unseen_until_it_is_released(conn):
    c = classroom(conn)
    sam = _open(conn, c["links"][c["sam1"]])
    approve(conn, c["sam1"], c["teacher"], comment="A newer version, approved but not released.", scores=LOW)
    assert page.view(conn, actor=sam)["items"][0]["comment"].startswith("Good *start*")


def test_the_disclosure_says_how_the_draft_was_made_and_who_approved_it(conn):
    course = f.course(conn)
    cid, aid = course["course_id"], course["assignment_id"]
    teacher = f.user(conn, "grace", "instructor", courses=[cid])
    conn.execute("UPDATE users SET display_name = 'Grace Hopper' WHERE username = 'grace'")
    offline = f.submission(conn, aid, f.student(conn, cid))
    f.draft(conn, offline, HIGH, is_offline=True)
    approve(conn, offline, teacher)
    minted = release.release(conn, aid, actor=teacher)["links"]
    me = _open(conn, minted[0]["url"])
    assert page.view(conn, actor=me)["items"][0]["disclosure"] == (
        "Drafted by FairMark's automatic scoring (no AI language model), checked and approved by Grace Hopper.")
    assert page.disclosure("Grace Hopper", is_offline=False, in_bulk=True) == (
        "Drafted with AI assistance, approved by Grace Hopper together with similar drafts after checking a sample "
        "of them.")


def test_a_bulk_approved_item_says_it_was_approved_with_a_checked_sample(conn):
    c = classroom(conn)
    approve(conn, c["sam2"], c["teacher"])
    conn.execute("UPDATE reviews SET approved_in_bulk = 1 WHERE submission_id = ?", [c["sam2"]])  # as bulk approval marks it
    releases.lock_approved(conn, c["week2"], actor="ada", at=now(), note="")   # the release's write (its gates aside)
    assert conn.execute("SELECT approved_in_bulk FROM release_items WHERE submission_id = ?", [c["sam2"]]).fetchone() == (1,)
    items = page.view(conn, actor=access.student(c["sam"], c["course_id"], via="lti"))["items"]
    assert ["together with similar drafts after checking a sample" in i["disclosure"] for i in items] == [False, True]


def test_the_release_locks_who_approved_each_version(conn):
    c = classroom(conn)
    rows = conn.execute("SELECT submission_id, approved_by, approved_in_bulk FROM release_items").fetchall()
    assert sorted(rows) == sorted([(c["sam1"], "ada", 0), (c["kim1"], "ada", 0)])


def test_only_a_student_may_read_the_student_page(conn):
    c = classroom(conn)
    for who in (c["teacher"], f.actor("admin")):
        with pytest.raises(Forbidden):
            page.view(conn, actor=who)


# --- app.py's router ------------------------------------------------------------------------
def _student_token(db_path, url: str) -> str:
    import db as dbmod

    conn = dbmod.connect(db_path)
    try:
        return links.open_link(conn, token_of(url), client="test").token
    finally:
        conn.close()


def _texts(at) -> str:
    return "\n".join([*(m.value for m in at.markdown), *(m.value for m in at.caption), *(t.value for t in at.title),
                      *(s.value for s in at.subheader)])


def test_a_student_cookie_shows_only_the_student_page(conn, db_path, app_test):
    c = classroom(conn)
    at = app_test(signed_in=False)
    at.session_state["_student_token"] = _student_token(db_path, c["links"][c["sam1"]])
    at.run()
    assert not at.exception, at.exception
    text = _texts(at)
    assert "Your feedback" in text and "checked and approved by Ada Lovelace" in text
    assert escape_markdown("Good *start*: add an example <b>next</b> time.") in text   # escaped: shown as typed
    assert "Kim" not in text and "An unreleased draft" not in text
    assert not at.text_input and not at.sidebar.button and not at.sidebar.selectbox   # no sign-in, no menu
    assert "Sign in" not in [b.label for b in at.button]


def test_a_revoked_link_or_a_staff_session_gets_the_usual_pages(conn, db_path, app_test):
    c = classroom(conn)
    token = _student_token(db_path, c["links"][c["sam1"]])
    links.mint(conn, c["course_id"], c["week1"], actor=c["teacher"])            # revokes it
    at = app_test(signed_in=False)
    at.session_state["_student_token"] = token
    at.run()
    assert "Your feedback" not in _texts(at) and [t.label for t in at.text_input][:1] == ["User name"]
    fresh = _student_token(db_path, links.mint(conn, c["course_id"], c["week1"], actor=c["teacher"])[0]["url"])
    staff = app_test()                                                           # a teacher's own browser
    staff.session_state["_student_token"] = fresh
    staff.run()
    assert "Your feedback" not in _texts(staff) and staff.sidebar.selectbox


def test_the_migration_records_who_approved_the_versions_released_before_it(tmp_path):
    """A database from the release before m026b (tests/data/release_db.sqlite): its released
    items get their approver from the review version they locked, so their disclosure names them."""
    import shutil
    from pathlib import Path

    import db as dbmod

    path = tmp_path / "old.db"
    shutil.copy(Path(__file__).resolve().parent / "data" / "release_db.sqlite", path)
    conn = dbmod.connect(path)
    try:
        rows = conn.execute("SELECT ri.approved_by, r.approved_by FROM release_items ri JOIN reviews r "
                            "ON r.submission_id = ri.submission_id AND r.version = ri.review_version").fetchall()
        assert rows and all(mine == theirs and mine for mine, theirs in rows)
    finally:
        conn.close()
        dbmod.forget_migrated(path)
