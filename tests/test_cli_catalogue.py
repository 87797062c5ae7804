"""python -m core init / demo / import: JSON on stdout, exit codes, nothing written on refusal."""
import json
import subprocess
import sys
from pathlib import Path

import db as dbmod
from core.__main__ import main
from db import submissions

ROOT = Path(__file__).resolve().parent.parent


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr().out.strip().splitlines()
    return code, json.loads(out[-1])


def test_init_creates_the_database(capsys, tmp_path):
    path = tmp_path / "new.db"
    code, out = run(capsys, "--db", str(path), "init")
    assert code == 0 and Path(out["db"]) == path and out["tables"] >= 14
    assert path.exists()
    dbmod.forget_migrated(path)


def test_demo_twice(capsys, db_path):
    code, first = run(capsys, "demo")
    assert code == 0 and first["created"] is True and first["submissions"] == 112
    code, second = run(capsys, "demo")
    assert code == 0 and second["created"] is False
    dbmod.forget_migrated(db_path)


def test_import_reports_imported_duplicates_and_rejected(capsys, tmp_path, conn):
    f = tmp_path / "week1.csv"
    f.write_text("student_id,text,clarity\ns1,A reflection on temperature.,2\ns2,,1\ns3,Another one.,7\n")
    code, out = run(capsys, "import", str(f), "--course", "CLI course", "--assignment", "Week 1")
    assert code == 1
    assert out["imported"] == 0 and out["refused"] is True
    assert [(r["row"], r["field"]) for r in out["rejected"]] == [(3, "text"), (4, "clarity")]
    assert submissions.table_counts(conn)["courses"] == 0  # nothing written, not even the course

    code, out = run(capsys, "import", str(f), "--course", "CLI course", "--assignment", "Week 1", "--skip-rejected")
    assert code == 0 and out["imported"] == 1 and len(out["rejected"]) == 2

    code, out = run(capsys, "import", str(f), "--course", "CLI course", "--assignment", "Week 1", "--skip-rejected")
    assert out["imported"] == 0 and out["duplicates"] == 1
    assert code == 1  # nothing imported and rows were rejected


def test_import_with_a_rubric_file_creates_the_assignment_on_it(capsys, tmp_path, conn):
    f = tmp_path / "e.csv"
    f.write_text("text_id,full_text,Cohesion,Syntax\nt1,Some essay text.,3.5,4\n")
    code, out = run(capsys, "import", str(f), "--course", "ELL", "--assignment", "Essay 1",
                    "--rubric", str(ROOT / "data" / "rubrics" / "ellipse.yaml"))
    assert code == 0 and out["imported"] == 1
    assert conn.execute("SELECT COUNT(*) FROM reference_scores").fetchone()[0] == 2


def test_import_of_an_unreadable_file_exits_non_zero(capsys, tmp_path):
    f = tmp_path / "bad.csv"
    f.write_bytes(b'student_id,text\ns1,"never closed\n')
    code = main(["import", str(f), "--course", "C", "--assignment", "A"])
    captured = capsys.readouterr()
    assert code == 2 and "not a well-formed CSV" in json.loads(captured.out)["error"]


def test_help_lists_the_commands():
    out = subprocess.run([sys.executable, "-m", "core", "import", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and "--skip-rejected" in out.stdout and "--rubric" in out.stdout
