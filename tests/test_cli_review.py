"""`python -m core review queue|show|approve` and `python -m core release` (issue 22): JSON on
stdout, the page's checks, refusals exit 2 with {"error": ...}."""
from __future__ import annotations

import json

import pytest

import factories as f
from core.cli import main
from db import reviews, submissions

SCORES = {"concept_understanding": 2, "real_world_application": 2, "reflection_depth": 1, "clarity": 3}
ITEM = ["--course", "Course X", "--assignment", "Week 1"]


def run(capsys, *argv) -> tuple[int, dict]:
    code = main(list(argv))
    return code, json.loads(capsys.readouterr().out.strip().splitlines()[-1])


@pytest.fixture
def seeded(conn):
    c = f.course(conn, name="Course X")
    other = f.course(conn, name="Course Y")
    sids = []
    for ext in ("a1", "a2"):
        sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], external_id=ext, name=f"Ann {ext}"))
        f.draft(conn, sid, SCORES)
        sids.append(sid)
    waiting = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], external_id="a3"))
    f.user(conn, "outsider", "instructor", courses=[other["course_id"]])
    f.user(conn, "tina", "ta", courses=[c["course_id"]])
    f.user(conn, "ivy", "instructor", courses=[c["course_id"]])
    return {"course": c, "sids": sids, "waiting": waiting}


def test_the_queue_prints_every_submission_with_its_group_and_bulk_eligibility(conn, capsys, seeded):
    code, out = run(capsys, "review", "queue", *ITEM, "--as", "ivy")
    assert code == 0 and out["assignment_ready"] is False
    items = {i["submission_id"]: i for i in out["items"]}
    assert set(items) == {*seeded["sids"], seeded["waiting"]}
    first = items[seeded["sids"][0]]
    assert set(first) == {"submission_id", "student", "status", "group", "bulk_eligible", "reasons", "judging"}
    assert first["student"] == "Ann a1" and first["status"] == "drafted" and first["group"] == "other"
    assert first["bulk_eligible"] is True and first["reasons"] == []
    assert set(first["judging"]) == {"confident", "split_criteria", "judges"}
    waiting = items[seeded["waiting"]]
    assert waiting["group"] == "not_drafted" and not waiting["bulk_eligible"]
    assert [r["code"] for r in waiting["reasons"]] == ["not_drafted"]


def test_show_opens_the_item_as_the_user_and_approve_checks_the_version(conn, capsys, seeded):
    sid = seeded["sids"][0]
    code, out = run(capsys, "review", "show", str(sid), "--as", "ivy")
    assert code == 0 and out["review_version"] == 1 and out["status"] == "drafted"
    assert out["scores"]["clarity"]["score"] == 3 and out["scores"]["clarity"]["level"]
    assert {"comment", "reasons", "checks", "flags"} <= set(out)
    assert reviews.get_review(conn, sid)["opened_at"] is not None
    code, out = run(capsys, "review", "approve", str(sid), "--version", "0", "--as", "ivy")
    assert code == 2 and out["latest_version"] == 1 and out["error"]
    assert submissions.get_submission(conn, sid)["status"] == "drafted"
    code, out = run(capsys, "review", "approve", str(sid), "--version", "1", "--as", "ivy")
    assert code == 0 and out["status"] == "approved"
    assert submissions.get_submission(conn, sid)["status"] == "approved"


def test_release_calls_the_release_pages_function_and_refuses_through_its_gates(conn, capsys, seeded):
    code, out = run(capsys, "release", *ITEM, "--as", "ivy")
    assert code == 2 and "nothing to release" in out["error"]
    sid = seeded["sids"][0]
    run(capsys, "review", "show", str(sid), "--as", "ivy")
    run(capsys, "review", "approve", str(sid), "--version", "1", "--as", "ivy")
    code, out = run(capsys, "release", *ITEM, "--as", "ivy")
    assert code == 0 and out["released"] == 1 and out["release_id"] and out["refused"] == []
    assert submissions.get_submission(conn, sid)["status"] == "released"


@pytest.mark.parametrize("who", ["outsider", "tina"])
def test_every_command_refuses_a_user_without_the_grant(conn, capsys, seeded, who):
    sid = str(seeded["sids"][1])
    commands = [["release", *ITEM]]
    if who == "outsider":   # the TA may read and review in her course; only the release is not hers
        commands += [["review", "queue", *ITEM], ["review", "show", sid], ["review", "approve", sid, "--version", "1"]]
    for argv in commands:
        code, out = run(capsys, *argv, "--as", who)
        assert code == 2 and set(out) == {"error"} and out["error"], argv
    assert reviews.get_review(conn, int(sid)) is None and submissions.get_submission(conn, int(sid))["status"] == "drafted"


def test_an_item_waiting_for_its_blind_score_shows_no_ai_data_and_cannot_be_shown(conn, capsys, seeded):
    from db import calibration

    sid = seeded["sids"][1]
    calibration.add_items(conn, seeded["course"]["assignment_id"], [(sid, None, "test")], actor="ann", at="2025-01-01")
    code, out = run(capsys, "review", "queue", *ITEM, "--as", "ivy")
    item = next(i for i in out["items"] if i["submission_id"] == sid)
    assert item["group"] == "calibration" and not item["bulk_eligible"]
    assert [r["code"] for r in item["reasons"]] == ["blind_pending"]
    assert item["judging"] == {"confident": None, "split_criteria": [], "judges": []}
    code, out = run(capsys, "review", "show", str(sid), "--as", "ivy")
    assert code == 2 and set(out) == {"error"} and "blind" in out["error"].lower()


def test_show_then_approve_work_as_the_command_line_without_as_and_the_opening_counts(conn, capsys, seeded):
    sid = seeded["sids"][0]
    code, out = run(capsys, "review", "show", str(sid))
    assert code == 0 and out["review_version"] == 1
    opened = [e for e in reviews.history(conn, sid) if e["action"] == "open"]
    assert reviews.get_review(conn, sid)["opened_at"] is not None     # the release gate's sample counts it
    assert len(opened) == 1 and opened[0]["actor"].startswith("command line")
    code, out = run(capsys, "review", "approve", str(sid), "--version", str(out["review_version"]))
    assert code == 0 and out["status"] == "approved"
    assert submissions.get_submission(conn, sid)["status"] == "approved"


@pytest.mark.parametrize("sees_names", [True, False])
def test_a_stale_approve_quotes_the_comment_with_the_name_only_for_an_actor_who_sees_names(
        conn, capsys, seeded, monkeypatch, sees_names):
    """The conflict quotes the comment, which may name the student: it follows core.accounts.access.sees_names
    as `changed_since` and the item do. (A TA sees names today; the rule is what is tested.)"""
    from core.accounts import access
    from core.signoff import actions

    sid = seeded["sids"][0]
    ivy = f.user(conn, "ivy", "instructor")
    actions.open_item(conn, sid, actor=ivy)
    actions.save_edit(conn, sid, version=1, scores=SCORES, comment="Ann a1, your example of rust is vivid.",
                      reasons=["generic"], actor=ivy)
    real = access.sees_names
    monkeypatch.setattr(access, "sees_names", lambda actor, course_id: sees_names and real(actor, course_id))
    code, out = run(capsys, "review", "approve", str(sid), "--version", "1", "--as", "tina")
    assert code == 2 and out["latest_version"] == 2 and "your example of rust is vivid" in out["error"]
    assert ("Ann a1" in out["error"]) is sees_names
    if not sees_names:
        student = reviews.item(conn, sid)["student"]
        assert student["pseudonym"] in out["error"]
    with pytest.raises(actions.VersionConflict) as refused:     # the page meets the same text
        actions.approve(conn, sid, version=1, actor=f.user(conn, "tina", "ta"))
    assert ("Ann a1" in str(refused.value)) is sees_names
    assert submissions.get_submission(conn, sid)["status"] == "drafted"
