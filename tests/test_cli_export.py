"""`python -m core export` writes the file and prints a JSON summary."""
from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import factories as f
from core.signoff import actions, release
from core.__main__ import main

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent
SCORES = {"concept_understanding": 2, "real_world_application": 2, "reflection_depth": 1, "clarity": 3}


def seed(conn):
    c = f.course(conn, name="Course X")
    for ext in ("a1", "a2"):
        sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], external_id=ext), text=ext)
        f.draft(conn, sid, SCORES)
        actions.open_item(conn, sid, actor="t")
        actions.approve(conn, sid, version=1, actor="t")
        if ext == "a1":
            release.release(conn, c["assignment_id"], actor="t")
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
