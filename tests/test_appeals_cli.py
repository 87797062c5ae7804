"""`python -m core appeals list` and `assignment set --appeal-deadline` (issue 26): JSON on stdout,
refusals exit 2 with {"error": ...}; the `appeals` command takes other modules' verbs; an appeal's
change reaches the LMS through grade passback when the assignment is linked."""
from __future__ import annotations

import argparse
import json

import factories as f
from appeal_items import ADMIN, appealable, released
from core.appeals import deciding, filing
from core.cli import common, main
from db import courses
from lti_support import client, lti_env, platform  # noqa: F401  (fixtures)

WHY = "My example is from my job."


def run(capsys, *argv) -> tuple[int, dict]:
    code = main(list(argv))
    return code, json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_appeals_list_prints_each_appeal_with_its_criteria_and_outcome(conn, capsys):
    course = appealable(conn, weeks=2)
    w1, w2 = course["assignment_ids"]
    first, me = released(conn, course, assignment_id=w1)
    second, other = released(conn, course, assignment_id=w2)
    kept = filing.file(conn, first, {"clarity": WHY, "reflection_depth": WHY}, actor=me)["appeal_id"]
    deciding.decide(conn, kept, actor=ADMIN, outcome="keep", note="It stays.")
    opened = filing.file(conn, second, {"clarity": WHY}, actor=other)["appeal_id"]
    code, out = run(capsys, "appeals", "list", "--course", "Test course")
    assert code == 0
    assert [a["appeal_id"] for a in out["appeals"]] == [opened, kept]            # open ones first
    row = out["appeals"][1]
    assert set(row) == {"appeal_id", "submission_id", "criteria", "status", "opened", "decided"}
    assert (row["submission_id"], row["criteria"], row["status"]) == (first, ["clarity", "reflection_depth"], "kept")
    assert row["decided"] and out["appeals"][0]["decided"] is None
    code, out = run(capsys, "appeals", "list", "--course", "Test course", "--assignment", "Week 2")
    assert code == 0 and [a["appeal_id"] for a in out["appeals"]] == [opened]


def test_appeals_list_refusals_exit_2_with_the_error(conn, capsys):
    course = appealable(conn)
    f.user(conn, "otto", "instructor", courses=[f.course(conn, "Other")["course_id"]])
    code, out = run(capsys, "appeals", "list", "--course", "Nope")
    assert code == 2 and "no course named 'Nope'" in out["error"]
    code, out = run(capsys, "appeals", "list", "--course", "Test course", "--as", "otto")
    assert code == 2 and "no access to course" in out["error"]
    code, out = run(capsys, "appeals", "list", "--course", "Test course", "--assignment", "Week 9")
    assert code == 2 and "no assignment titled 'Week 9'" in out["error"]
    assert course


def test_assignment_set_appeal_deadline_takes_a_date_a_datetime_or_none(conn, capsys):
    course = f.course(conn)
    aid = course["assignment_id"]
    base = ["assignment", "set", "--course", "Test course", "--assignment", "Week 1", "--appeal-deadline"]
    code, out = run(capsys, *base, "2026-12-20")
    assert code == 0 and out["changed"] == {"appeal_deadline": "2026-12-20T23:59:59Z"}
    code, out = run(capsys, *base, "2026-12-21T09:30+02:00")
    assert code == 0 and courses.get_assignment(conn, aid)["appeal_deadline"] == "2026-12-21T07:30:00Z"
    code, out = run(capsys, *base, "soon")
    assert code == 2 and "give a date such as 2026-12-20" in out["error"]
    assert courses.get_assignment(conn, aid)["appeal_deadline"] == "2026-12-21T07:30:00Z"   # unchanged
    f.user(conn, "tom", "ta", courses=[course["course_id"]])
    code, out = run(capsys, *base, "none", "--as", "tom")
    assert code == 2 and "may not upload or edit course material" in out["error"]
    code, out = run(capsys, *base, "none")
    assert code == 0 and out["changed"] == {"appeal_deadline": None}
    assert courses.get_assignment(conn, aid)["appeal_deadline"] is None
    assert conn.execute("SELECT COUNT(*) FROM audit_log WHERE entity = 'assignments' AND "
                        "json_extract(after, '$.appeal_deadline') IS NOT NULL").fetchone()[0] == 2


def test_another_module_adds_its_verb_to_the_same_appeals_command():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    from core.cli import appeals as appeals_cli

    appeals_cli.register(sub)
    links = common.command_group(sub, "appeals", "ignored: the command exists").add_parser("links")
    links.set_defaults(func="links")
    assert parser.parse_args(["appeals", "links"]).func == "links"
    assert parser.parse_args(["appeals", "list", "--course", "C"]).func is appeals_cli.run_list


def test_a_changed_score_goes_to_the_lms_as_a_new_grade(conn, platform, client):
    import lti_support
    from core.signoff import actions, release

    svc = platform.services
    svc.members = [lti_support.member("lms-0", "Pupil 0", "pupil0@school.example")]
    c = lti_support.launched(client, platform, context_title="Biology", link_title="Week 1")
    stu = conn.execute("SELECT id FROM students WHERE course_id = ?", [c["course_id"]]).fetchone()[0]
    sid = f.submission(conn, c["assignment_id"], stu, text="My reflection.")
    f.draft(conn, sid, {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3,
                        "clarity": 2}, comment="Good work.")
    actions.open_item(conn, sid, actor=ADMIN)
    actions.approve(conn, sid, version=1, actor=ADMIN)
    release.release(conn, c["assignment_id"], actor=ADMIN)
    assert [s["scoreGiven"] for s in svc.scores_for("lms-0")] == [10]
    from core.accounts import access
    from core.courses import catalogue

    catalogue.edit_assignment(conn, c["assignment_id"], actor=ADMIN, appeal_deadline="2099-01-01")
    me = access.student(stu, c["course_id"], via="lti")
    appeal = filing.file(conn, sid, {"clarity": WHY}, actor=me)["appeal_id"]
    out = deciding.decide(conn, appeal, actor=ADMIN, outcome="change", scores={"clarity": 3},
                          reason_code="too_harsh", note="Upheld.")
    assert out["released"] and out["lms"]["posted"] == 1
    assert [s["scoreGiven"] for s in svc.scores_for("lms-0")] == [10, 11]
