"""Grade passback (issue 25, Assignment and Grade Services) against the test platform on a real
HTTP server: a release's score and comment reach the LMS exactly once; nothing a teacher did not
approve is sent; a platform failure leaves the release, is recorded, shown and sent later."""
from __future__ import annotations

import json

import pytest

import factories as f
import lti_support
from core.accounts.access import Actor
from core.cli import main
from core.errors import Forbidden
from core.lti import grades, roster, tokens
from core.signoff import actions, release
from lti_support import client, lti_env, platform  # noqa: F401  (fixtures)


HIGH = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 2}
TEACHER = Actor("ann", role="admin")


@pytest.fixture
def lms(conn, platform, client):
    """The course "Biology" and its assignment "Week 1" made by the instructor's launch from the
    test platform, which read the LMS roster of three students; a drafted submission each."""
    svc = platform.services
    svc.members = [lti_support.member(f"lms-{n}", f"Pupil {n}", f"pupil{n}@school.example") for n in range(3)]
    c = lti_support.launched(client, platform, context_title="Biology", link_title="Week 1")
    c["relaunch"] = lambda **claims: lti_support.launched(client, platform, context_title="Biology",
                                                          link_title="Week 1", **claims)
    subs = []
    for st, in conn.execute("SELECT id FROM students WHERE course_id = ? ORDER BY id", [c["course_id"]]).fetchall():
        sid = f.submission(conn, c["assignment_id"], st, text=f"My reflection number {st}.")
        f.draft(conn, sid, HIGH, comment=f"Draft comment {st}.")
        subs.append(sid)
    assert len(subs) == 3                                              # the launch read the roster
    yield svc, c, subs


def said(score: dict) -> str:
    """The teacher's released comment in a posted score (before FairMark's line about the
    student's feedback page, tests/test_students_links.py)."""
    return score["comment"].rsplit("\n\n", 1)[0]


def approve(conn, sid, comment=None):
    review = actions.open_item(conn, sid, actor=TEACHER)
    version = review["version"]
    if comment is not None:
        version = actions.save_edit(conn, sid, version=version, scores=HIGH, comment=comment,
                                    reasons=["other"], note="test edit", actor=TEACHER)["version"]
    actions.approve(conn, sid, version=version, actor=TEACHER)


def test_a_release_posts_each_approved_score_and_comment_once(conn, lms):
    svc, c, subs = lms
    approve(conn, subs[0], comment="Well argued; add one example next time.")
    approve(conn, subs[1])
    out = release.release(conn, c["assignment_id"], actor=TEACHER)
    assert out["lms"]["posted"] == 2 and out["lms"]["failed"] == []
    assert svc.lineitem_posts == 1                                     # the column, created once
    first = svc.scores_for("lms-0")
    assert len(first) == 1 and first[0]["scoreGiven"] == 10 and first[0]["scoreMaximum"] == 12
    assert said(first[0]) == "Well argued; add one example next time."
    assert (first[0]["activityProgress"], first[0]["gradingProgress"]) == ("Completed", "FullyGraded")
    assert first[0]["timestamp"] == out["released_at"]
    assert svc.scores_for("lms-2") == []                               # not approved: never sent
    assert svc.token_requests == 3        # roster, line item, score: one token each, reused for every post
    # a second release of another item, a retry and `lti push`: still once each
    approve(conn, subs[2])
    release.release(conn, c["assignment_id"], actor=TEACHER)
    grades.retry(conn, c["course_id"], c["assignment_id"], actor=TEACHER)
    assert main(["lti", "push", "--course", "Biology", "--assignment", "Week 1"]) == 0
    assert [len(svc.scores_for(f"lms-{n}")) for n in range(3)] == [1, 1, 1] and svc.lineitem_posts == 1
    posts = conn.execute("SELECT COUNT(*) FROM audit_log WHERE action = 'lti_post'").fetchone()[0]
    assert posts == 3


def test_an_unapproved_draft_is_never_sent(conn, lms):
    svc, c, subs = lms
    approve(conn, subs[0], comment="The words the teacher approved.")
    release.release(conn, c["assignment_id"], actor=TEACHER)
    grades.post_released(conn, c["assignment_id"], subs, actor=TEACHER)      # even when asked for every id
    elsewhere = f.course(conn, "Elsewhere")
    stranger = f.submission(conn, elsewhere["assignment_id"], f.student(conn, elsewhere["course_id"]))
    f.draft(conn, stranger, HIGH)
    approve(conn, stranger, comment="Another course's words.")
    release.release(conn, elsewhere["assignment_id"], actor=TEACHER)
    grades.post_released(conn, c["assignment_id"], [stranger], actor=TEACHER)   # not this assignment's: ignored
    assert conn.execute("SELECT COUNT(*) FROM lti_passbacks WHERE submission_id = ?", [stranger]).fetchone()[0] == 0
    grades.retry(conn, c["course_id"], c["assignment_id"], actor=TEACHER)
    assert [(s["userId"], said(s)) for s in svc.scores] == [("lms-0", "The words the teacher approved.")]


def test_a_new_version_released_later_is_sent_and_the_old_one_is_not_sent_again(conn, lms):
    svc, c, subs = lms
    approve(conn, subs[0], comment="First released comment.")
    release.release(conn, c["assignment_id"], actor=TEACHER)
    approve(conn, subs[0], comment="Corrected after a student asked.")
    release.release(conn, c["assignment_id"], actor=TEACHER)
    assert [said(s) for s in svc.scores_for("lms-0")] == ["First released comment.",
                                                               "Corrected after a student asked."]


def test_the_launchs_line_item_is_used_and_none_is_created(conn, lms):
    svc, c, subs = lms
    url = svc.add_lineitem("Week 1 in the LMS")
    c["relaunch"](**lti_support.ags(svc.base_url, ("score",), lineitem=url))    # the link now has the LMS's column
    approve(conn, subs[0])
    release.release(conn, c["assignment_id"], actor=TEACHER)
    assert svc.lineitem_posts == 0 and svc.scores_for("lms-0")[0]["lineitem"] == url


@pytest.mark.parametrize("trouble", ["500", "timeout"])
def test_a_platform_failure_keeps_the_release_records_it_and_push_sends_it_later(conn, lms, monkeypatch, capsys,
                                                                                trouble):
    svc, c, subs = lms
    if trouble == "500":
        svc.fail_scores = 1
    else:
        import httpx
        monkeypatch.setattr(tokens, "TIMEOUT", httpx.Timeout(0.3))
        svc.slow_scores = 1.0
    approve(conn, subs[0])
    out = release.release(conn, c["assignment_id"], actor=TEACHER)
    assert out["n_items"] == 1 and conn.execute("SELECT status FROM submissions WHERE id = ?",
                                                [subs[0]]).fetchone()[0] == "released"
    failed = out["lms"]["failed"]
    assert len(failed) == 1 and ("did not answer in time" if trouble == "timeout" else "(500)") in failed[0]["error"]
    row = conn.execute("SELECT status, attempts, next_try, last_error FROM lti_passbacks").fetchone()
    assert row[0] == "failed" and row[1] == 1 and row[2] > out["released_at"] and row[3] == failed[0]["error"]
    view = grades.release_view_of(conn, c["assignment_id"], names=True)
    assert view["waiting"] == 1 and view["problems"][0]["student"] == "Pupil 0"
    assert view["problems"][0]["why"] == failed[0]["error"]
    svc.slow_scores, svc.fail_scores = 0, 0
    monkeypatch.setattr(tokens, "TIMEOUT", grades.tokens.TIMEOUT)
    grades.post_released(conn, c["assignment_id"], [], actor=TEACHER)   # not due yet: the backoff waits
    got = len(svc.scores_for("lms-0"))
    assert main(["lti", "push", "--course", "Biology", "--assignment", "Week 1"]) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert printed["posted"] == 1 and printed["waiting"] == 0
    assert got == 0 and len(svc.scores_for("lms-0")) == 1
    assert grades.release_view_of(conn, c["assignment_id"], names=True)["problems"] == []


def test_push_is_refused_without_the_grant(conn, lms, capsys):
    svc, c, subs = lms
    f.user(conn, "tom", "ta", courses=[c["course_id"]])
    f.user(conn, "ines", "instructor", courses=[f.course(conn, "Other")["course_id"]])
    for who in ("tom", "ines"):
        assert main(["--as", who, "lti", "push", "--course", "Biology", "--assignment", "Week 1"]) == 2
        assert "may not release feedback" in capsys.readouterr().out or who == "ines"
    with pytest.raises(Forbidden):
        grades.retry(conn, c["course_id"], c["assignment_id"], actor=Actor("x", role="instructor", courses={}))


def test_a_student_the_lms_roster_lacks_is_held_with_the_reason(conn, lms):
    svc, c, subs = lms
    outsider = f.student(conn, c["course_id"], external_id="walk-in", name="Walk In")
    sid = f.submission(conn, c["assignment_id"], outsider, text="Late reflection.")
    f.draft(conn, sid, HIGH)
    approve(conn, sid)
    out = release.release(conn, c["assignment_id"], actor=TEACHER)
    assert "not on the LMS course's roster" in out["lms"]["failed"][0]["error"] and svc.scores == []


def test_the_release_page_shows_which_grades_did_not_reach_the_lms_and_sends_them(app_test, conn, lms):
    svc, c, subs = lms
    svc.fail_scores = 1
    approve(conn, subs[0])
    approve(conn, subs[1])
    hostile = "<img src=x onerror=alert(1)> **Bold**"
    svc.members[0]["name"] = hostile
    roster.sync(conn, c["course_id"], actor=TEACHER)
    release.release(conn, c["assignment_id"], actor=TEACHER)
    at = app_test("pages/release.py", role="instructor", courses=[c["course_id"]])
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.run()
    assert not at.exception, at.exception
    # the LMS failed the first grade: the second was not sent into the same trouble (nor waited for)
    assert "0 grade(s) and comment(s) reached the LMS; 2 wait to be sent" in " ".join(x.value for x in at.caption)
    assert any("2 grade(s) could not be sent" in w.value for w in at.warning)
    assert all("onerror" not in m.value for m in at.markdown)             # the name only in the table, as text
    table = at.dataframe[0].value
    assert list(table["Student"]) == [hostile, "Pupil 1"] and table["Next try"][0].endswith("UTC")
    assert "(500)" in table["Why"][0] and table["Why"][1].startswith("not sent, because the LMS failed the grade")
    at.button(key="release_lms_push").click().run()
    assert any("Sent 2 grade(s) to the LMS." in s.value for s in at.success)
    assert [len(svc.scores_for(f"lms-{n}")) for n in range(2)] == [1, 1] and svc.lineitem_posts == 1
    assert not [b for b in at.button if b.key == "release_lms_push"]       # nothing waits any more


def test_the_view_names_a_student_by_pseudonym_for_whoever_may_not_see_names(conn, lms):
    svc, c, subs = lms
    svc.fail_scores = 1
    approve(conn, subs[0])
    release.release(conn, c["assignment_id"], actor=TEACHER)
    pseudonym = conn.execute("SELECT pseudonym FROM students WHERE name = 'Pupil 0'").fetchone()[0]
    assert grades.release_view_of(conn, c["assignment_id"], names=False)["problems"][0]["student"] == pseudonym
    coordinator = Actor("cora", role="coordinator", courses={c["course_id"]: False})
    assert release.release_page(conn, c["assignment_id"], actor=coordinator)["lms"]["problems"][0]["student"] == pseudonym


def test_a_newer_version_supersedes_an_older_one_that_never_reached_the_lms(conn, lms):
    svc, c, subs = lms
    svc.fail_scores = 1
    approve(conn, subs[0], comment="Old words.")
    release.release(conn, c["assignment_id"], actor=TEACHER)
    approve(conn, subs[0], comment="New words.")
    release.release(conn, c["assignment_id"], actor=TEACHER)
    grades.retry(conn, c["course_id"], c["assignment_id"], actor=TEACHER)
    assert [said(s) for s in svc.scores_for("lms-0")] == ["New words."]
    assert [r[0] for r in conn.execute("SELECT status FROM lti_passbacks ORDER BY review_version")] == [
        "superseded", "posted"]


def test_a_line_item_a_crashed_creation_left_is_found_not_made_twice(conn, lms):
    svc, c, subs = lms
    # the LMS made the column, then the process died before storing its URL
    svc.lineitems["1"] = {"id": svc.lineitems_url() + "/1", "label": "Week 1", "scoreMaximum": 12,
                          "resourceId": f"fairmark-assignment-{c['assignment_id']}"}
    conn.execute("INSERT INTO lti_line_items (assignment_id, platform_id, claimed_at, created_at) "
                 "VALUES (?, ?, '2020-01-01T00:00:00.000000Z', '2020-01-01T00:00:00.000000Z')",
                 [c["assignment_id"], c["platform_id"]])
    approve(conn, subs[0])
    release.release(conn, c["assignment_id"], actor=TEACHER)
    assert svc.lineitem_posts == 0 and svc.scores_for("lms-0")[0]["lineitem"] == svc.lineitems_url() + "/1"


def test_a_creation_another_process_is_making_waits_for_it(conn, lms):
    svc, c, subs = lms
    from db import now
    conn.execute("INSERT INTO lti_line_items (assignment_id, platform_id, claimed_at, created_at) VALUES (?, ?, ?, ?)",
                 [c["assignment_id"], c["platform_id"], now(), now()])
    approve(conn, subs[0])
    out = release.release(conn, c["assignment_id"], actor=TEACHER)
    assert "another FairMark process is creating" in out["lms"]["failed"][0]["error"] and svc.lineitem_posts == 0


def test_two_processes_sending_at_once_post_each_grade_once(conn, db_path, lms):
    import threading

    import db
    svc, c, subs = lms
    for sid in subs:
        approve(conn, sid)
    svc.fail_scores = 1                    # the LMS fails the release's first post: three wait
    release.release(conn, c["assignment_id"], actor=TEACHER)
    assert svc.fail_scores == 0 and svc.scores == []
    results, go = [], threading.Barrier(3)

    def push():
        mine = db.connect(db_path)
        go.wait()
        results.append(grades.retry(mine, c["course_id"], c["assignment_id"], actor=TEACHER)["posted"])
        mine.close()

    threads = [threading.Thread(target=push) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sum(results) == 3 and [len(svc.scores_for(f"lms-{n}")) for n in range(3)] == [1, 1, 1]


def test_a_refused_key_or_a_missing_grade_service_is_recorded_in_words(conn, lms):
    svc, c, subs = lms
    svc.refuse_tokens = True
    tokens.forget()
    approve(conn, subs[0])
    out = release.release(conn, c["assignment_id"], actor=TEACHER)
    assert "refused FairMark's key" in out["lms"]["failed"][0]["error"]
    svc.refuse_tokens = False
    c["relaunch"](**lti_support.ags(svc.base_url, ()))            # the LMS stopped offering the grade service
    out = grades.retry(conn, c["course_id"], c["assignment_id"], actor=TEACHER)
    assert "did not give FairMark the grade service" in out["failed"][0]["error"] and svc.scores == []
    assert conn.execute("SELECT COUNT(*) FROM audit_log WHERE action = 'lti_post' AND after LIKE '%failed%'"
                        ).fetchone()[0] == 2


def test_an_assignment_without_an_lms_link_sends_nothing(conn, lms):
    svc, c, subs = lms
    other = f.course(conn, "Unlinked")
    sid = f.submission(conn, other["assignment_id"], f.student(conn, other["course_id"]))
    f.draft(conn, sid, HIGH)
    approve(conn, sid)
    out = release.release(conn, other["assignment_id"], actor=TEACHER)
    assert out["lms"] == {"linked": False} and svc.scores == []
    assert conn.execute("SELECT COUNT(*) FROM lti_passbacks").fetchone()[0] == 0
    assert release.release_page(conn, other["assignment_id"], actor=TEACHER)["lms"] is None


def test_push_exits_1_while_a_grade_still_cannot_be_sent(conn, lms, capsys):
    svc, c, subs = lms
    svc.fail_scores = 2
    approve(conn, subs[0])
    release.release(conn, c["assignment_id"], actor=TEACHER)
    assert main(["lti", "push", "--course", "Biology", "--assignment", "Week 1"]) == 1
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert printed["posted"] == 0 and printed["failed"][0]["submission_id"] == subs[0] and printed["waiting"] == 1
    assert conn.execute("SELECT attempts FROM lti_passbacks").fetchone()[0] == 2


def test_a_failed_line_item_creation_is_tried_again_and_makes_one_column(conn, lms):
    svc, c, subs = lms
    svc.fail_lineitems = 1
    approve(conn, subs[0])
    out = release.release(conn, c["assignment_id"], actor=TEACHER)
    assert "the new gradebook column (503)" in out["lms"]["failed"][0]["error"] and svc.lineitems == {}
    out = grades.retry(conn, c["course_id"], c["assignment_id"], actor=TEACHER)     # within minutes: not "another process"
    assert out["posted"] == 1 and svc.lineitem_posts == 1 and len(svc.lineitems) == 1
    assert len(svc.scores_for("lms-0")) == 1


def test_releasing_on_the_page_says_how_many_grades_reached_the_lms(app_test, conn, lms):
    svc, c, subs = lms
    approve(conn, subs[0])
    at = app_test("pages/release.py", role="instructor", courses=[c["course_id"]])
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.run()
    at.button(key="release_go").click().run()
    assert not at.exception, at.exception
    assert any("Released 1 item(s)." in s.value and "1 grade(s) reached the LMS." in s.value for s in at.success)
    assert "1 grade(s) and comment(s) reached the LMS; 0 wait to be sent" in " ".join(x.value for x in at.caption)
    assert len(svc.scores_for("lms-0")) == 1


def test_the_posted_comment_carries_the_students_link_only_when_the_release_sends_it(conn, lms, monkeypatch):
    """The release's own post has the link it minted (its plaintext exists only then); a grade
    sent later, by a retry, says how to reach the feedback page from the LMS instead."""
    from core.students import sessions
    from core.students.links import open_link

    monkeypatch.setenv("FAIRMARK_PUBLIC_URL", "https://fairmark.school.example")
    svc, c, subs = lms
    approve(conn, subs[0], comment="Sent at once.")
    out = release.release(conn, c["assignment_id"], actor=TEACHER)
    url = next(m["url"] for m in out["links"] if m["submission_id"] == subs[0])
    assert svc.scores_for("lms-0")[0]["comment"] == f"Sent at once.\n\nYour feedback page in FairMark: {url}"
    assert sessions.resume(conn, open_link(conn, url.rsplit("/", 1)[1], client="x").token).student_id is not None
    svc.fail_scores = 1
    approve(conn, subs[1], comment="Sent by the retry.")
    release.release(conn, c["assignment_id"], actor=TEACHER)
    grades.retry(conn, c["course_id"], c["assignment_id"], actor=TEACHER)
    assert svc.scores_for("lms-1")[-1]["comment"] == f"Sent by the retry.\n\n{grades.FROM_LMS}"


def test_the_lms_comment_lists_the_released_notes_on_the_text_only(conn, lms):
    from core.signoff import anchored_notes
    svc, c, subs = lms
    sid = subs[0]
    anchored_notes.add(conn, sid, "Which number?", actor=TEACHER, quote="reflection number")
    did = conn.execute("SELECT current_draft_id FROM submissions WHERE id = ?", [sid]).fetchone()[0]
    import anchor_support
    anchor_support.with_quotes(conn, did, {"clarity": ("My reflection", "Short and plain.")})   # left undecided
    approve(conn, sid, comment="Well argued.")
    release.release(conn, c["assignment_id"], actor=TEACHER)
    comment = svc.scores_for("lms-0")[0]["comment"]
    assert comment.startswith("Well argued.\n\nNotes on your text:\n1. “reflection number”: Which number?\n\n")
    assert "Short and plain" not in comment
