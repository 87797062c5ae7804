"""bench.honest_numbers runs on tiny sizes and prints what docs/benchmarks.md quotes (the figures
themselves come from `python -m bench.honest_numbers`)."""
import json

from bench import honest_numbers


def test_honest_numbers_compare_students_and_pairs_on_the_demo_course(capsys):
    out = honest_numbers.main(["--boot", "60", "--seeds", "2"])
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == out
    by_student, by_pair = out["demo"]["by_student"], out["demo"]["by_pair"]
    assert by_student["n"] == by_pair["n"] == 448 and by_student["students"] == 28 and by_pair["students"] is None
    assert by_student["mae"] == by_pair["mae"] and by_student["qwk"] == by_pair["qwk"]  # only intervals differ
    assert set(by_student["groups"]) == {"ell", "section"}
    assert out["random_labels_demo"]["seeds"] == 2 and out["random_labels_demo"]["students"] == 28
