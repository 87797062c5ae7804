"""python -m core init / demo / import: JSON on stdout, exit codes, nothing written on refusal."""
import json
import subprocess
import sys
from pathlib import Path

import db as dbmod
from core.cli import main
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


ESSAYS = ("essay_id,essay,cohesion,syntax,overall,cohort\n"
          "e1,My essay about my town and the river that runs through it.,3.5,4,3.5,2021\n"
          "e2,Another essay about school and my friends.,2,2.5,2,2022\n")


def test_import_maps_columns_from_the_command_line_and_lists_ignored_ones(capsys, tmp_path, conn):
    """Issue 11 item 15 (a, b): `essay_id`/`essay` were refused with exit 2 (reserved for unreadable
    files), and a score column matching no criterion was dropped without a word."""
    f = tmp_path / "ellipse.csv"
    f.write_text(ESSAYS)
    rubric = str(ROOT / "data" / "rubrics" / "ellipse.yaml")
    code, out = run(capsys, "import", str(f), "--course", "ELL", "--assignment", "Essay 1", "--rubric", rubric)
    assert code == 1 and out["imported"] == 0 and "--map" in out["hint"]
    assert any("who wrote each reflection" in p for p in out["mapping_problems"]) and "essay_id" in out["columns"]
    code, out = run(capsys, "import", str(f), "--course", "ELL", "--assignment", "Essay 1", "--rubric", rubric,
                    "--map", "student_id=essay_id", "--map", "text=essay", "--map", "attribute=cohort")
    assert code == 0 and out["imported"] == 2 and out["rejected"] == []
    assert out["ignored_columns"] == ["overall"]
    assert conn.execute("SELECT COUNT(*) FROM reference_scores").fetchone()[0] == 4
    assert {r[0] for r in conn.execute("SELECT external_id FROM students")} == {"e1", "e2"}
    attributes = conn.execute("SELECT attributes FROM students WHERE external_id = 'e1'").fetchone()[0]
    assert attributes == '{"cohort": "2021"}'


def test_a_wrong_map_says_what_to_write(capsys, tmp_path):
    f = tmp_path / "e.csv"
    f.write_text(ESSAYS)
    code, out = run(capsys, "import", str(f), "--course", "C", "--assignment", "A", "--map", "text=essai")
    assert code == 2 and "no column 'essai'" in out["error"]
    code, out = run(capsys, "import", str(f), "--course", "C", "--assignment", "A", "--map", "words=essay")
    assert code == 2 and "'words' is not a field" in out["error"]


def test_assignment_set_changes_only_what_is_given_and_is_audited(capsys, conn):
    from db import courses

    run(capsys, "demo")
    course = courses.list_courses(conn)[0]
    week1 = courses.list_assignments(conn, course["id"])[0]
    code, out = run(capsys, "assignment", "set", "--course", course["name"], "--assignment", week1["title"],
                    "--prompt", "What surprised you?", "--concepts", "token, temperature ,bias", "--target-grade", "8")
    assert code == 0 and out["changed"] == {"prompt": "What surprised you?", "target_grade": 8.0,
                                            "key_concepts": ["token", "temperature", "bias"]}
    after = courses.get_assignment(conn, week1["id"])
    assert (after["prompt"], after["key_concepts"], after["target_grade"]) == (
        "What surprised you?", ["token", "temperature", "bias"], 8.0)
    assert after["title"] == week1["title"] and after["rubric_id"] == week1["rubric_id"]
    row = conn.execute("SELECT actor, before FROM audit_log WHERE entity = 'assignments' "
                       "AND action = 'edit'").fetchone()
    assert week1["prompt"][:20] in row[1]
    code, out = run(capsys, "assignment", "set", "--course", course["name"], "--assignment", week1["title"],
                    "--target-grade", "8")
    assert code == 0 and out["changed"] == {} and out["unchanged"] == ["target_grade"]
    code, out = run(capsys, "assignment", "set", "--course", course["name"], "--assignment", week1["title"])
    assert code == 2 and "nothing to set" in out["error"]
    code, out = run(capsys, "assignment", "set", "--course", course["name"], "--assignment", "Week 99",
                    "--target-grade", "30")
    assert code == 2 and "no assignment titled 'Week 99'" in out["error"]
