"""`python -m core metrics`: any CSV of scores in, one JSON object out."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from core.cli import main
from waits import WAIT_S

ROOT = Path(__file__).resolve().parent.parent


def run(capsys, *argv):
    code = main(["metrics", *map(str, argv)])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


@pytest.fixture
def csv(tmp_path):
    def write(text: str) -> Path:
        p = tmp_path / "scores.csv"
        p.write_text(text)
        return p
    return write


def test_asap_reference_example_and_output_shape(capsys, csv):
    p = csv("a,b\n1,1\n2,2\n3,3\n1,1\n2,2\n2,3\n3,2\n")
    code, out, _ = run(capsys, p, "--ai", "a", "--reference", "b", "--min", 1, "--max", 3, "--bootstrap", 200)
    assert code == 0
    assert out["qwk"] == 0.75 and out["n"] == 7 and out["skipped"] == 0
    for key in ("mae", "exact", "adjacent", "bands", "delta_mae", "delta_mae_ci", "ci", "warnings", "notes"):
        assert key in out
    assert set(out["bands"]) == {"low", "high"}
    assert {"n", "mae", "bias"} <= set(out["bands"]["low"])
    assert out["bands"]["low"]["n"] == 2 and out["bands"]["high"]["n"] == 5  # 1-3: low band is 1 (cut 1.5)


def test_missing_rows_are_skipped_and_counted_and_groups_reported(capsys, csv):
    rows = ["ai,ref,section"] + [f"{a},{r},{g}" for a, r, g in [(0, 0, "A"), (1, 2, "A"), (3, 3, "B"), (2, 1, "B")] * 6]
    rows += ["1,,A", ",2,B", "NA,1,A"]
    code, out, _ = run(capsys, csv("\n".join(rows) + "\n"), "--ai", "ai", "--reference", "ref", "--min", 0,
                       "--max", 3, "--group", "section", "--bootstrap", 100, "--seed", 3)
    assert code == 0 and out["n"] == 24 and out["skipped"] == 3
    assert set(out["by_group"]) == {"A", "B"}
    assert out["by_group"]["A"]["n"] == 12 and out["by_group"]["A"]["mae"] == 0.5
    assert out["group_difference"]["groups"] == ["A", "B"]
    assert out["bootstrap"] == {"resamples": 100, "seed": 3, "unit": "items"}
    assert {(t["group"], t["vs"], t["metric"]) for t in out["group_tests"]} == {
        (g, "rest", m) for g in "AB" for m in ("mae", "bias")}
    assert all({"group", "vs", "metric", "diff", "ci", "p_value"} == set(t) for t in out["group_tests"])


def test_cluster_resamples_students_and_counts_them(capsys, csv):
    """Four rows per student (criteria): --cluster makes the students the unit, so the
    interval is wider than the row bootstrap's and the warnings count students."""
    rows = ["student,ai,ref,section"]
    for s in range(12):
        shift = (s % 3) - 1
        rows += [f"s{s},{min(3, max(0, r + shift))},{r},{'AB'[s % 2]}" for r in (0, 1, 2, 3)]
    p = csv("\n".join(rows) + "\n")
    common = (p, "--ai", "ai", "--reference", "ref", "--min", 0, "--max", 3, "--group", "section",
              "--bootstrap", 500, "--permutations", 200)
    _, by_row, _ = run(capsys, *common)
    code, by_student, _ = run(capsys, *common, "--cluster", "student")
    assert code == 0 and by_student["cluster"] == "student" and by_student["students"] == 12
    assert by_student["bootstrap"]["unit"] == "students" and by_row["students"] is None
    width = lambda out: out["ci"]["mae"][1] - out["ci"]["mae"][0]  # noqa: E731
    assert width(by_student) > width(by_row)
    assert by_student["by_group"]["A"]["students"] == 6
    assert any("6 students (fewer than 10)" in w for w in by_student["warnings"])
    assert by_student["mae"] == by_row["mae"]  # the point estimates do not change
    code, out, _ = run(capsys, *common[:-6], "--cluster", "nope")
    assert code == 2 and "--cluster: column 'nope'" in out["error"]


def test_same_seed_same_output(capsys, csv):
    p = csv("a,b\n" + "".join(f"{i % 4},{(i * 7) % 4}\n" for i in range(60)))
    args = (p, "--ai", "a", "--reference", "b", "--min", 0, "--max", 3, "--bootstrap", 300, "--seed", 5)
    assert run(capsys, *args)[1] == run(capsys, *args)[1]


def test_qwk_matches_sklearn_with_full_labels_and_reports_observed_labels(capsys, csv):
    ai, ref = [0, 1, 3, 3, 1, 0], [0, 3, 1, 3, 1, 1]
    p = csv("a,b\n" + "".join(f"{x},{y}\n" for x, y in zip(ai, ref)))
    _, out, _ = run(capsys, p, "--ai", "a", "--reference", "b", "--min", 0, "--max", 3, "--bootstrap", 50)
    assert out["qwk"] == round(cohen_kappa_score(ai, ref, weights="quadratic", labels=[0, 1, 2, 3]), 4)
    assert out["qwk_observed_labels"] == round(cohen_kappa_score(ai, ref, weights="quadratic"), 4)


def test_undefined_figures_are_null_with_a_note_and_output_is_strict_json(capsys, csv):
    p = csv("a,b\n2,2\n2,2\n")
    code, out, _ = run(capsys, p, "--ai", "a", "--reference", "b", "--min", 0, "--max", 3, "--bootstrap", 50)
    assert code == 0 and out["qwk"] is None and out["delta_mae"] is None
    assert any("QWK undefined" in n for n in out["notes"])
    assert any("no items" in w for w in out["warnings"])


def test_bad_column_names_the_column_and_the_available_ones(capsys, csv):
    p = csv("human,model\n1,2\n")
    code, out, err = run(capsys, p, "--ai", "ai_score", "--reference", "human", "--min", 0, "--max", 3)
    assert code == 2
    assert "'ai_score'" in out["error"] and "'human', 'model'" in out["error"] and "--ai" in err


def test_non_number_and_out_of_range_name_the_row(capsys, csv):
    code, out, _ = run(capsys, csv("a,b\n1,1\nthree,2\n"), "--ai", "a", "--reference", "b", "--min", 0, "--max", 3)
    assert code == 2 and "row 3" in out["error"] and "'three'" in out["error"]
    code, out, _ = run(capsys, csv("a,b\n1,1\n2,7\n"), "--ai", "a", "--reference", "b", "--min", 0, "--max", 3)
    assert code == 2 and "row 3" in out["error"] and "outside the scale 0-3" in out["error"]


def test_missing_file_is_a_clear_error(capsys, tmp_path):
    code, out, _ = run(capsys, tmp_path / "nope.csv", "--ai", "a", "--reference", "b", "--min", 0, "--max", 3)
    assert code == 2 and "no such file" in out["error"]


def test_runs_as_a_module(csv):
    p = csv("a,b\n1,1\n2,2\n1,2\n")
    proc = subprocess.run([sys.executable, "-m", "core", "metrics", str(p), "--ai", "a", "--reference", "b",
                           "--min", "1", "--max", "2", "--bootstrap", "50"], cwd=ROOT, capture_output=True,
                          text=True, timeout=WAIT_S)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["qwk"] == 0.4
