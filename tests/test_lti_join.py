"""The launch side and the services side of LTI (issue 25) as one story against one test
platform (tests/lti_platform: launch, token, NRPS and AGS on one 127.0.0.1 server): an
instructor's launch reads the roster, after its own transaction and without ever failing for
it; a learner is found by the roster's LMS id; a released, approved result reaches the LMS
exactly once and a draft never; `lti status`, `lti push` and `lti roster` in the one `lti` group."""
from __future__ import annotations

import json
import logging
import sqlite3

import db
import factories as f
from core.cli import build_parser, main
from core.lti import links
from core.signoff import actions, release
from lti_platform.launch import LEARNER
from lti_support import client, launch, launch_claims, launched, lti_env, member, platform, signed_in  # noqa: F401
from stored import lock_wait

HIGH = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 2}


def _last_json(capsys) -> dict:
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_launch_roster_release_and_each_grade_in_the_lms_exactly_once(conn, platform, client, capsys):
    svc = platform.services
    svc.members = [member("lms-ana", "Ana López", "ana@school.example"), member("lms-ben", "Ben Okafor"),
                   member("lms-cy", "Cy Dee", sis="SIS-3"), member("lms-t", "Ms Teacher", role="Instructor")]
    c = launched(client, platform, context_title="Biology", link_title="Week 1")
    teacher = signed_in(conn, c["response"])
    assert teacher.role == "instructor"
    # the launch read the roster: the two learners, with their LMS ids, and not the teacher
    got = dict(conn.execute("SELECT st.name, r.lms_user_id FROM students st "
                            "JOIN lti_roster r ON r.student_id = st.id WHERE st.course_id = ?",
                            [c["course_id"]]).fetchall())
    assert got == {"Ana López": "lms-ana", "Ben Okafor": "lms-ben", "Cy Dee": "lms-cy"}
    ana, ben, cy = (conn.execute("SELECT id FROM students WHERE name = ?", [n]).fetchone()[0]
                    for n in ("Ana López", "Ben Okafor", "Cy Dee"))
    approved = f.submission(conn, c["assignment_id"], ana, text="What I learned about models this week.")
    drafted = f.submission(conn, c["assignment_id"], ben, text="My reflection, still in review.")
    later = f.submission(conn, c["assignment_id"], cy, text="My reflection, approved next week.")
    for sid in (approved, drafted, later):
        f.draft(conn, sid, HIGH, comment=f"The model's draft comment {sid}.")
    version = actions.open_item(conn, approved, actor=teacher)["version"]
    version = actions.save_edit(conn, approved, version=version, scores=HIGH, comment="Clear; add an example.",
                                reasons=["other"], note="my words", actor=teacher)["version"]
    actions.approve(conn, approved, version=version, actor=teacher)

    out = release.release(conn, c["assignment_id"], actor=teacher)
    assert out["lms"]["posted"] == 1 and out["lms"]["failed"] == []
    assert len(svc.scores) == 1
    score = svc.scores[0]
    assert (score["userId"], score["scoreGiven"], score["scoreMaximum"], score["comment"].split("\n\n")[0]) == (
        "lms-ana", 10, 12, "Clear; add an example.")
    assert (score["activityProgress"], score["gradingProgress"]) == ("Completed", "FullyGraded")
    # a second release (of another approved item) and `lti push` send nothing more of the first;
    # the unapproved draft is never sent
    actions.approve(conn, later, version=actions.open_item(conn, later, actor=teacher)["version"], actor=teacher)
    assert release.release(conn, c["assignment_id"], actor=teacher)["lms"]["posted"] == 1
    assert main(["lti", "push", "--course", "Biology", "--assignment", "Week 1"]) == 0
    assert _last_json(capsys)["posted"] == 0
    assert [s["userId"] for s in svc.scores] == ["lms-ana", "lms-cy"] and svc.lineitem_posts == 1
    assert svc.scores_for("lms-ben") == [] and f"draft comment {drafted}" not in json.dumps(svc.scores)
    assert conn.execute("SELECT COUNT(*) FROM audit_log WHERE action = 'lti_post'").fetchone()[0] == 2
    assert main(["lti", "status"]) == 0 and _last_json(capsys)["pending"] == []


def test_the_roster_is_read_after_the_launchs_transaction(conn, db_path, platform, client):
    seen = []

    def while_the_lms_answers():
        other = db.connect(db_path)
        lock_wait(other, 0)
        try:
            seen.append(other.execute("SELECT COUNT(*) FROM lti_nonces").fetchone()[0])   # the launch committed
            with db.write_transaction(other):                                             # and holds no write lock
                pass
            seen.append("free")
        except sqlite3.OperationalError as e:
            seen.append(str(e))
        finally:
            other.close()

    platform.services.on_memberships = while_the_lms_answers
    platform.services.members = [member("u1", "Ana López")]
    launched(client, platform)
    assert seen == [1, "free"]


def test_a_roster_the_lms_refuses_never_breaks_the_launch(conn, platform, client, caplog):
    platform.services.refuse_tokens = True
    platform.services.members = [member("u1", "Ana López")]
    with caplog.at_level(logging.WARNING, logger="core.lti.web"):
        c = launched(client, platform, context_title="Biology")
    assert signed_in(conn, c["response"]).role == "instructor"
    assert conn.execute("SELECT COUNT(*) FROM lti_contexts WHERE course_id = ?", [c["course_id"]]).fetchone()[0] == 1
    assert conn.execute("SELECT COUNT(*) FROM students").fetchone()[0] == 0
    assert any("roster" in r.getMessage() and "refused FairMark's key" in r.getMessage() for r in caplog.records)


def test_a_learner_is_found_by_the_rosters_lms_id_then_by_an_unlinked_sis_id(conn, platform, client):
    platform.services.members = [member("stu-1", "Sam Student", "sam@school.example"),
                                 member("u9", "Someone Else", sis="sis-stu-3")]
    c = launched(client, platform)
    sam = conn.execute("SELECT id FROM students WHERE name = 'Sam Student'").fetchone()[0]
    by_sis = f.student(conn, c["course_id"], external_id="sis-stu-2", name="Uploaded Student")
    for sub in ("stu-1", "stu-2", "stu-3"):     # each sends the SIS id sis-<sub>
        platform.launches[sub] = launch_claims(platform, sub=sub, roles=[LEARNER], name=f"Learner {sub}")
        r, _ = launch(client, platform, sub)
        # matched: the student page (303 with the student cookie); not matched: nothing for them yet
        assert (r.status_code, "has not released anything" in r.text) == ((200, True) if sub == "stu-3" else (303, False))
    linked = dict(conn.execute("SELECT sub, student_id FROM lti_users WHERE role = 'student'").fetchall())
    # stu-1: the roster's LMS id (its SIS id matches nobody); stu-2: the SIS id of an unrostered
    # student; stu-3: that SIS id belongs to a student the roster linked to another LMS user
    assert linked == {"stu-1": sam, "stu-2": by_sis, "stu-3": None}


def test_the_course_link_gives_the_services_the_launchs_roster_url(conn, platform, client):
    c = launched(client, platform)
    got = links.for_course(conn, c["course_id"])
    assert got["nrps_url"] == f"{platform.url}/nrps/ctx-1" and got["platform"]["token_url"] == f"{platform.url}/token"
    assert links.for_assignment(conn, c["assignment_id"])["lineitems_url"] == f"{platform.url}/ags/ctx-1/lineitems"


def test_lti_status_lists_the_grades_the_lms_has_not_accepted(conn, platform, client, capsys):
    platform.services.members = [member("u1", "Ana López")]
    c = launched(client, platform, context_title="Biology", link_title="Week 1")
    teacher = signed_in(conn, c["response"])
    sid = f.submission(conn, c["assignment_id"], conn.execute("SELECT id FROM students").fetchone()[0])
    f.draft(conn, sid, HIGH)
    actions.approve(conn, sid, version=actions.open_item(conn, sid, actor=teacher)["version"], actor=teacher)
    platform.services.fail_scores = 1
    release.release(conn, c["assignment_id"], actor=teacher)
    assert main(["lti", "status"]) == 0
    pending = _last_json(capsys)["pending"]
    assert len(pending) == 1 and pending[0]["submission_id"] == sid and pending[0]["status"] == "failed"
    assert (pending[0]["course"], pending[0]["assignment"], pending[0]["tries"]) == ("Biology", "Week 1", 1)
    assert "(500)" in pending[0]["why"]
    assert main(["lti", "push", "--course", "Biology", "--assignment", "Week 1"]) == 0
    capsys.readouterr()
    assert main(["lti", "status"]) == 0 and _last_json(capsys)["pending"] == []


def test_one_lti_group_holds_every_lti_command():
    lti = build_parser()._subparsers._group_actions[0].choices["lti"]
    assert set(lti._subparsers._group_actions[0].choices) == {"platform", "status", "keys", "push", "roster"}
