"""`python -m core export` writes the file and prints a JSON summary."""
from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import factories as f
from core.signoff import actions, release
from core.cli import main
from core.accounts.access import Actor

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent
SCORES = {"concept_understanding": 2, "real_world_application": 2, "reflection_depth": 1, "clarity": 3}


def seed(conn):
    c = f.course(conn, name="Course X")
    for ext in ("a1", "a2"):
        sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], external_id=ext), text=ext)
        f.draft(conn, sid, SCORES)
        actions.open_item(conn, sid, actor=Actor("t", role="admin"))
        actions.approve(conn, sid, version=1, actor=Actor("t", role="admin"))
        if ext == "a1":
            release.release(conn, c["assignment_id"], actor=Actor("t", role="admin"))
    return c


def test_export_released_csv(conn, tmp_path, capsys):
    seed(conn)
    out = tmp_path / "out" / "grades.csv"
    rc = main(["export", "--course", "Course X", "--assignment", "Week 1", "--format", "csv", "--out", str(out)])
    summary = json.loads(capsys.readouterr().out)
    assert rc == 0 and summary["items"] == 1 and summary["out"] == str(out)
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8-sig"))))
    assert [r["student_id"] for r in rows] == ["a1"] and rows[0]["total"] == "8"


def test_export_approved_flag_and_errors(conn, tmp_path, capsys):
    seed(conn)
    out = tmp_path / "all.zip"
    assert main(["export", "--course", "Course X", "--format", "zip", "--out", str(out), "--approved"]) == 0
    assert json.loads(capsys.readouterr().out)["items"] == 2 and out.stat().st_size > 0
    rc = main(["export", "--course", "Nope", "--format", "csv", "--out", str(tmp_path / "x.csv")])
    err = capsys.readouterr()
    assert rc == 2 and "no course named 'Nope'" in json.loads(err.out)["error"]
    assert not (tmp_path / "x.csv").exists()


def test_export_as_a_real_process(conn, db_path, tmp_path):
    seed(conn)
    out = tmp_path / "canvas.csv"
    proc = subprocess.run([sys.executable, "-m", "core", "--db", str(db_path), "export", "--course", "Course X",
                           "--format", "canvas", "--out", str(out)], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["format"] == "canvas"
    assert out.read_text().splitlines()[2].split(",")[2] == "a1"


def test_export_for_analysis_has_every_submission_with_ai_teacher_and_reference_scores(conn, tmp_path, capsys):
    """Issue 11 item 15 (d): AI scores could not be exported for analysis."""
    from db import reviews

    c = f.course(conn, name="Course Y")
    aid, ids = c["assignment_id"], {}
    for ext, attrs in (("edited", {"section": "A"}), ("as_drafted", {"section": "B"}), ("waiting", {}),
                       ("not_drafted", {"ell": "yes"})):
        sid = f.submission(conn, aid, f.student(conn, c["course_id"], external_id=ext, attributes=attrs), text=ext)
        ids[ext] = sid
        if ext != "not_drafted":
            f.draft(conn, sid, SCORES, flags=["short_text"] if ext == "waiting" else [])
    f.reference(conn, ids["edited"], {"clarity": 2}, rater="r1")
    f.reference(conn, ids["edited"], {"clarity": 3}, rater="r2")
    for ext in ("edited", "as_drafted"):
        actions.open_item(conn, ids[ext], actor=Actor("t", role="admin"))
    r = actions.save_edit(conn, ids["edited"], version=1, scores=dict(SCORES, clarity=1),
                          comment=reviews.get_review(conn, ids["edited"])["comment"], reasons=["too_lenient"],
                          actor=Actor("t", role="admin"))
    actions.approve(conn, ids["edited"], version=r["version"], actor=Actor("t", role="admin"))
    actions.approve(conn, ids["as_drafted"], version=1, actor=Actor("t", role="admin"))
    out = tmp_path / "analysis.csv"
    rc = main(["export", "--course", "Course Y", "--format", "analysis", "--out", str(out)])
    summary = json.loads(capsys.readouterr().out)
    assert rc == 0 and summary["items"] == 4 and summary["teacher_scored"] == 2
    rows = {r["student_id"]: r for r in csv.DictReader(io.StringIO(out.read_text(encoding="utf-8-sig")))}
    header = list(next(iter(rows.values())))
    assert header[:6] == ["marker", "student_id", "assignment", "week", "submission_id", "draft_id"]
    assert header[6:9] == [f"concept_understanding_{part}" for part in ("ai", "teacher", "reference")]
    assert header[-5:] == ["teacher_kind", "status", "flags", "ell", "section"]
    assert all(r["marker"] == "analysis only — not for students" for r in rows.values())
    e = rows["edited"]
    assert (e["clarity_ai"], e["clarity_teacher"], e["clarity_reference"]) == ("3", "1", "2.5")
    assert e["teacher_kind"] == "edited"
    assert e["section"] == "A" and e["status"] == "approved" and e["draft_id"]
    assert (rows["as_drafted"]["teacher_kind"], rows["as_drafted"]["clarity_teacher"]) == ("approved", "3")
    w = rows["waiting"]
    assert (w["teacher_kind"], w["clarity_teacher"], w["flags"], w["status"]) == ("", "", "short_text", "drafted")
    n = rows["not_drafted"]
    assert (n["draft_id"], n["clarity_ai"], n["status"], n["ell"]) == ("", "", "uploaded", "yes")


def test_analysis_download_on_the_agreement_page(conn, app_test):
    from core.export import analysis as export_analysis

    c = f.course(conn, name="Course Z")
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), text="x")
    f.draft(conn, sid, SCORES)
    at = app_test("pages/agreement.py")
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.run()
    assert not at.exception, at.exception
    [button] = [b for b in at.get("download_button") if "analysis" in b.proto.label]
    assert "not for students" in button.proto.label
    data = export_analysis.export(conn, c["course_id"], c["assignment_id"], actor=Actor("test", role="admin"))
    assert data.file_name == "Course_Z-Week_1-analysis-NOT-for-students.csv"


def test_a_coordinator_without_a_names_grant_gets_pseudonyms_in_the_analysis_export(conn):
    from core.export import analysis as export_analysis

    c = f.course(conn, name="Course N")
    sid = f.student(conn, c["course_id"], external_id="stu-4711", name="Karin Lind")
    f.submission(conn, c["assignment_id"], sid, text="reflection")
    pseudonym = conn.execute("SELECT pseudonym FROM students WHERE id = ?", [sid]).fetchone()[0]
    masked = f.user(conn, "cora", "coordinator", courses=[c["course_id"]])
    named = f.user(conn, "nils", "coordinator", courses=[c["course_id"]], names=True)
    data = export_analysis.export(conn, c["course_id"], actor=masked).data.decode("utf-8-sig")
    assert "stu-4711" not in data and "Karin" not in data and "stu-4711@" not in data
    [row] = csv.DictReader(io.StringIO(data))
    assert row["student_id"] == pseudonym
    [row] = csv.DictReader(io.StringIO(export_analysis.export(conn, c["course_id"], actor=named).data.decode("utf-8-sig")))
    assert row["student_id"] == "stu-4711"
