"""Fault injection through the real openai SDK: a fake OpenAI-compatible server on a loopback
port (tests/fake_openai_server.py) serves every request, or a fault (server errors, 429 with
Retry-After, hangs, bodies cut short, bodies that are not JSON, JSON of the wrong shape).

What must hold: no item fails whose Evaluator eventually answered; every failure says what to
do; no traceback reaches stdout or stderr; configuration faults stop the run (exit code 3);
a run killed with kill -9 and resumed, or started twice at once, ends with exactly one draft
per submission and no call paid twice.
"""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import db as dbmod
import factories
from assess_script import RICH_TEXT
from core.cli import main
from core.llm import chat
from fake_openai_server import FAULTS, FakeOpenAI
from core.accounts.access import Actor
from waits import WAIT_S

ROOT = Path(__file__).resolve().parent.parent
# Phrases a message that says what to do contains (core.errors messages end with the action).
ACTIONS = ("retry", "check", "set ", "raise", "lower", "use ", "regenerate", "wait", "resume", "fix")


@pytest.fixture
def fast_retries(monkeypatch):
    """Small timeouts, few retries, tiny backoff: the faults are the point, not the waiting."""
    monkeypatch.setattr(chat, "BACKOFF_BASE_S", 0.001)
    monkeypatch.setenv("FAIRMARK_TIMEOUT", "0.4")
    monkeypatch.setenv("FAIRMARK_MAX_RETRIES", "3")


def course(conn, n: int, name: str = "Faults"):
    c = factories.course(conn, name=name)
    factories.cleared_config(conn)   # these tests are about faults, not the eval gate (issue 16)
    return c, [factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]),
                                    RICH_TEXT + f" Reflection number {i}.") for i in range(n)]


def use_server(monkeypatch, server, model="gpt-4o-mini"):
    monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("FAIRMARK_LLM_MODEL", model)


def assess(capfd, *argv):
    code = main(["assess", *argv])
    out, err = capfd.readouterr()
    return code, json.loads(out.strip().splitlines()[-1]), out, err


def paid_twice(conn) -> list:
    return conn.execute("SELECT cache_key, COUNT(*) FROM llm_calls WHERE status = 'ok' GROUP BY cache_key "
                        "HAVING COUNT(*) > 1").fetchall()


def drafts_per_submission(conn) -> dict:
    return dict(conn.execute("SELECT submission_id, COUNT(*) FROM drafts GROUP BY submission_id").fetchall())


def test_at_a_30_percent_fault_mix_only_items_whose_evaluator_never_answered_fail(conn, monkeypatch, capfd,
                                                                                   fast_retries):
    _, subs = course(conn, 24)
    mix = dict.fromkeys(FAULTS, 0.30 / len(FAULTS))
    with FakeOpenAI(faults=mix, seed=3, hang_s=1.0) as server:
        use_server(monkeypatch, server)
        code, summary, out, err = assess(capfd, "--course", "Faults", "--concurrency", "4")
    # Every kind of fault was served, and retried.
    assert set(server.outcomes) >= set(FAULTS) | {"ok"}, server.outcomes
    assert sum(server.outcomes[f] for f in FAULTS) >= 0.2 * sum(server.outcomes.values())
    assert summary["status"] == "done" and code == 0
    assert summary["drafted"] + summary["needs_attention"] + summary["failed"] == 24
    evaluator_answered = {r[0] for r in conn.execute(
        "SELECT submission_id FROM llm_calls WHERE agent = 'evaluator' AND status = 'ok'")}
    failed = {r[0] for r in conn.execute("SELECT id FROM submissions WHERE status = 'failed'")}
    assert not failed & evaluator_answered
    assert len(evaluator_answered) >= 21
    messages = [r[0] for r in conn.execute("SELECT error FROM drafts WHERE error IS NOT NULL")]
    messages += [reason for (reasons,) in conn.execute("SELECT attention_reasons FROM drafts")
                 for reason in json.loads(reasons) if "failed (" in reason]
    for message in messages:
        assert any(a in message.lower() for a in ACTIONS), message
        assert "internal error" not in message and "JSONDecodeError" not in message.split("(")[0]
    assert "Traceback" not in out + err
    assert paid_twice(conn) == [] and drafts_per_submission(conn) == dict.fromkeys(subs, 1)


@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_alone_is_retried_then_ends_as_an_error_that_says_what_to_do(fault, fast_retries):
    from core.agents.reviewer import Verdict
    from core.errors import LLMError
    from core.llm import CallContext, OpenAICompatibleLLM
    from core.settings import Settings

    with FakeOpenAI(faults={fault: 1.0}, hang_s=1.0) as server:
        llm = OpenAICompatibleLLM(Settings(llm_base_url=server.base_url, timeout_s=0.3, max_retries=2),
                                  sleep=lambda s: None)
        with pytest.raises(LLMError) as caught:
            llm.complete([{"role": "user", "content": "hi"}], Verdict, role="reviewer",
                         ctx=CallContext("reviewer", "p", "h"))
    message = str(caught.value)
    assert any(a in message.lower() for a in ACTIONS) and "JSONDecodeError:" not in message.split("(")[0]
    # Transient faults are retried (3 attempts); a wrong-shaped answer gets its one re-ask.
    assert sum(server.outcomes.values()) == (2 if fault == "schema_invalid" else 3), server.outcomes
    assert not caught.value.config_suspect


def test_an_unreachable_endpoint_stops_the_run_with_exit_code_3(conn, monkeypatch, capfd, fast_retries):
    _, subs = course(conn, 6)
    monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", "http://127.0.0.1:9/v1")   # nothing listens on port 9
    code, summary, out, err = assess(capfd, "--course", "Faults", "--concurrency", "2")
    assert code == 3 and summary["status"] == "failed"
    assert summary["error"].startswith("stopped: Cannot reach the language model")
    assert "FAIRMARK_LLM_BASE_URL" in summary["error"] and "--resume" in err
    run = dbmod.runs.get_run(conn, summary["run_id"])
    assert dbmod.runs.item_counts(conn, run["id"])["pending"] == 6
    assert "Traceback" not in out + err


def test_an_unknown_model_stops_the_run_and_the_resume_retries_every_item(conn, monkeypatch, capfd, fast_retries):
    _, subs = course(conn, 6)
    with FakeOpenAI(models={"good-model"}) as server:
        use_server(monkeypatch, server, model="no-such-model")
        factories.cleared_config(conn)
        code, summary, out, err = assess(capfd, "--course", "Faults", "--concurrency", "1")
        assert code == 3 and "does not know model 'no-such-model'" in summary["error"]
        assert server.outcomes == {"404": 3}          # not retried, and no fourth item tried
        monkeypatch.setenv("FAIRMARK_LLM_MODEL", "good-model")
        factories.cleared_config(conn)     # another model is another configuration: the resume asks the gate
        code, summary, out, err = assess(capfd, "--resume", str(summary["run_id"]))
    assert code == 0 and summary["status"] == "done" and summary["failed"] == 0
    assert summary["drafted"] + summary["needs_attention"] == 6


def test_cancel_prints_the_run_and_its_status(conn, capfd):
    c, _ = course(conn, 2)
    from core.runs import reflections as runs

    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    assert main(["assess", "--cancel", str(run_id)]) == 0
    assert json.loads(capfd.readouterr().out) == {"run_id": run_id, "status": "cancelled"}


# --- processes ---------------------------------------------------------------------------------
def cli(db_path, server, *argv, **kw) -> subprocess.Popen:
    env = {**os.environ, "FAIRMARK_LLM_BASE_URL": server.base_url, "FAIRMARK_TIMEOUT": "5"}
    return subprocess.Popen([sys.executable, "-m", "core", "assess", *argv, "--db", str(db_path)], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def finished_items(db_path) -> int:
    own = dbmod.connect(db_path)
    try:
        return own.execute("SELECT COUNT(*) FROM run_items WHERE status != 'pending'").fetchone()[0]
    finally:
        own.close()


@pytest.mark.slow   # over 15 s on a busy machine (docs/testing.md)
def test_killed_with_kill_9_twice_and_resumed_at_once_every_submission_has_one_draft(conn, db_path):
    _, subs = course(conn, 10)
    with FakeOpenAI(latency=0.05) as server:
        proc = cli(db_path, server, "--course", "Faults", "--concurrency", "2")
        run_id = None
        for kill_after in (2, 5):
            deadline = time.monotonic() + 60
            while finished_items(db_path) < kill_after and time.monotonic() < deadline:
                time.sleep(0.05)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            run_id = run_id or conn.execute("SELECT MAX(id) FROM runs").fetchone()[0]
            assert finished_items(db_path) < 10, "the run finished before it could be killed"
            # Resumable at once: the worker's process is gone (no 60-second wait).
            proc = cli(db_path, server, "--resume", str(run_id), "--concurrency", "2")
        out, err = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 0, err
    assert json.loads(out)["status"] == "done" and "Traceback" not in err
    assert drafts_per_submission(conn) == dict.fromkeys(subs, 1)
    assert paid_twice(conn) == []


@pytest.mark.slow   # over 15 s on a busy machine (docs/testing.md)
def test_two_processes_started_at_once_make_one_run_and_one_draft_per_submission(conn, db_path):
    _, subs = course(conn, 6)
    # Each call takes a second, so the first run is still going while the slower of the two
    # processes starts (Python's start-up alone varies by a second on a loaded machine).
    with FakeOpenAI(latency=1.0) as server:
        procs = [cli(db_path, server, "--course", "Faults") for _ in range(2)]
        results = [(p.wait(timeout=WAIT_S), *p.communicate()) for p in procs]
    codes = sorted(code for code, _, _ in results)
    assert codes == [0, 2], results
    loser = next(out for code, out, _ in results if code == 2)
    assert "of this course is still running" in json.loads(loser)["error"]
    assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
    assert drafts_per_submission(conn) == dict.fromkeys(subs, 1) and paid_twice(conn) == []


def test_two_resumes_at_once_one_worker_processes_the_run(conn, db_path, monkeypatch):
    c, subs = course(conn, 6)
    from core.runs import reflections as runs

    with FakeOpenAI(latency=0.02) as server:
        use_server(monkeypatch, server)
        run_id = runs.create(conn, course_id=c["course_id"], provider="openai", actor=Actor("test", role="admin"))
        runs.cancel(db_path, run_id, actor=Actor("test", role="admin"))
        procs = [cli(db_path, server, "--resume", str(run_id)) for _ in range(2)]
        results = [(p.wait(timeout=WAIT_S), *p.communicate()) for p in procs]
    assert sorted(code for code, _, _ in results) == [0, 2], results
    assert drafts_per_submission(conn) == dict.fromkeys(subs, 1) and paid_twice(conn) == []
