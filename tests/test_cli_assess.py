"""python -m core assess: progress on stderr, one JSON summary on stdout."""
import json
import subprocess
import sys
from pathlib import Path

import db
import factories
from assess_script import RICH_TEXT
from core.cli import main
from core.accounts.access import Actor
from waits import WAIT_S

ROOT = Path(__file__).resolve().parent.parent
KEYS = {"drafted", "needs_attention", "failed", "calls", "cache_hits", "tokens_in", "tokens_out", "cost_usd",
        "seconds"}


def make_course(conn, n=3):
    c = factories.course(conn, name="Demo", weeks=2)
    for aid in c["assignment_ids"]:
        for i in range(n):
            factories.submission(conn, aid, factories.student(conn, c["course_id"]), RICH_TEXT + f" {aid}-{i}")
    return c


def run_cli(capsys, *argv):
    code = main(["assess", *argv])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def test_assess_offline_prints_progress_and_summary(conn, capsys):
    make_course(conn)
    code, summary, err = run_cli(capsys, "--course", "Demo", "--provider", "offline")
    assert code == 0 and KEYS <= set(summary)
    assert summary["drafted"] + summary["needs_attention"] == 6 and summary["failed"] == 0
    assert summary["provider"] == "offline" and summary["cost_usd"] == 0 and summary["calls"] >= 30
    assert "offline baseline — no LLM" in err and "6/6" in err
    # Nothing left to do: a second call drafts nothing and costs nothing.
    code, again, _ = run_cli(capsys, "--course", "Demo")
    assert code == 0 and again["drafted"] == 0 and again["calls"] == 0


def test_assignment_and_limit_narrow_the_run(conn, capsys):
    make_course(conn)
    code, summary, _ = run_cli(capsys, "--course", "Demo", "--assignment", "Week 2", "--limit", "2",
                               "--concurrency", "2")
    assert code == 0 and summary["drafted"] + summary["needs_attention"] == 2
    week2 = conn.execute("SELECT COUNT(*) FROM submissions s JOIN assignments a ON a.id = s.assignment_id "
                       "WHERE a.title = 'Week 2' AND s.status != 'uploaded'").fetchone()[0]
    assert week2 == 2


def test_unknown_course_and_unconfigured_llm_are_clear_errors(conn, capsys):
    make_course(conn)
    assert main(["assess", "--course", "Nope"]) == 2
    out, err = capsys.readouterr()
    assert "no course named 'Nope'" in json.loads(out)["error"]
    assert main(["assess", "--course", "Demo", "--provider", "openai"]) == 2
    out, _ = capsys.readouterr()
    assert "No language model is configured" in json.loads(out)["error"]


def test_module_entry_point_runs_as_a_process(conn, db_path):
    make_course(conn, n=1)
    proc = subprocess.run([sys.executable, "-m", "core", "assess", "--course", "Demo", "--db", str(db_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=WAIT_S)
    assert proc.returncode == 0, proc.stderr
    assert KEYS <= set(json.loads(proc.stdout))


def test_resume_continues_an_interrupted_run(conn, db_path, capsys):
    from core.runs import reflections as runs

    c = make_course(conn, n=2)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    runs.cancel(db_path, run_id, actor=Actor("test", role="admin"))  # no worker: cancelled at once, all items still waiting
    code, summary, err = run_cli(capsys, "--resume", str(run_id))
    assert code == 0 and summary["run_id"] == run_id and summary["status"] == "done"
    assert summary["drafted"] + summary["needs_attention"] == 4 and "4/4" in err
    assert main(["assess"]) == 2
    assert "--course" in json.loads(capsys.readouterr().out)["error"]


def test_a_run_on_another_database_reads_that_databases_settings_and_leaves_the_default_alone(
        tmp_path, monkeypatch, capsys):
    """`--db` is the whole process's database: the admin's model overrides come from it, and no
    ./fairmark.db appears beside the command (it did: the run read the overrides from there)."""
    from db import llm_calls

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FAIRMARK_DB")
    other = tmp_path / "elsewhere" / "course.db"
    assert main(["--db", str(other), "demo"]) == 0
    conn = db.connect(other)
    llm_calls.save_llm_overrides(conn, {"max_retries": 1}, actor="test")   # the default is 3
    capsys.readouterr()
    assert main(["--db", str(other), "assess", "--course", conn.execute("SELECT name FROM courses").fetchone()[0],
                 "--provider", "offline", "--limit", "1"]) == 0
    assert not (tmp_path / "fairmark.db").exists()
    run = json.loads(conn.execute("SELECT config FROM runs ORDER BY id DESC LIMIT 1").fetchone()[0])
    assert run["max_retries"] == 1      # the run used that database's setting
