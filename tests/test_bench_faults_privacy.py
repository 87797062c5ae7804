"""The issue-10 benchmarks run on tiny sizes and print the figures docs/benchmarks.md quotes (no timing
assertions: the machine is shared; the figures come from `python -m bench.*`)."""
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


def test_responsiveness_benchmark_measures_page_answers_during_a_run(capsys):
    assert responsiveness.main(["--content", "@@@", "--limit", "120"]) == 0
    out = capsys.readouterr().out
    assert "@@@" in out and out.strip().endswith("done")
