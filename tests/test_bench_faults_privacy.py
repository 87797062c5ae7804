"""The issue-10 benchmarks run on tiny sizes and print the figures docs/benchmarks.md quotes (no timing
assertions: the machine is shared; the figures come from `python -m bench.*`)."""
import subprocess

import pytest

from bench import faults, masking, privacy, responsiveness


def test_faults_benchmark_reports_failures_and_double_payments(capsys):
    assert faults.main(["--n", "6", "--rate", "0.3", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "6 submissions" in out and "failed although the Evaluator answered: 0" in out
    assert "calls paid twice: 0" in out


def test_privacy_benchmark_finds_nothing_in_the_requests(capsys):
    assert privacy.main() == 0
    assert "found in the requests: 0" in capsys.readouterr().out


def test_masking_benchmark_times_every_content(capsys):
    assert masking.main([]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in masking.contents(masking.make_roster())) and "worst now" in out


def _commit(repo, files: dict[str, str | None], message: str) -> str:
    for path, text in files.items():
        if text is None:
            (repo / path).unlink()
        else:
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(text)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", str(repo)]
    subprocess.run([*git, "add", "-A"], check=True, capture_output=True)
    subprocess.run([*git, "commit", "-q", "-m", message], check=True, capture_output=True)
    return subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()


def test_masking_before_reads_the_module_where_it_lived_at_that_revision(tmp_path):
    """`--before REV` of a revision before the house's packages: the module was core/pseudonym.py."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    old = _commit(tmp_path, {"core/pseudonym.py": "OLD = 1\n"}, "flat")
    new = _commit(tmp_path, {"core/pseudonym.py": None, "core/privacy/pseudonym.py": "NEW = 1\n"}, "packages")
    assert masking.source_at(old, tmp_path) == "OLD = 1\n"
    assert masking.source_at(new, tmp_path) == "NEW = 1\n"
    with pytest.raises(SystemExit, match="revision nope has no core/privacy/pseudonym.py or core/pseudonym.py"):
        masking.source_at("nope", tmp_path)


def test_responsiveness_benchmark_measures_page_answers_during_a_run(capsys):
    assert responsiveness.main(["--content", "@@@", "--limit", "120"]) == 0
    out = capsys.readouterr().out
    assert "@@@" in out and out.strip().endswith("done")
