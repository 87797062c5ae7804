"""Batch mode (issue 18) through the real openai SDK against a local batch engine
(tests/fake_batch_server.py): the same drafts as the synchronous path, half its cost in the
call log, waves instead of one batch per call, and a run killed mid-batch that resumes
without paying for a request twice."""
import json
import os
import shutil
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
from core.llm import chat, openai_client
from fake_batch_server import FakeBatchOpenAI
from waits import WAIT_S

ROOT = Path(__file__).resolve().parent.parent
N = 200


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setattr(chat, "BACKOFF_BASE_S", 0.001)
    # Waves form when no request arrived for this long; the engine is polled this often.
    monkeypatch.setenv("FAIRMARK_BATCH_QUIET_S", "0.3")
    monkeypatch.setenv("FAIRMARK_BATCH_POLL_S", "0.2")


def course(conn, n: int):
    """The same course whenever it is made: the students' ids and names do not depend on what ran before."""
    c = factories.course(conn, name="Cohort")
    factories.cleared_config(conn)
    return c, [factories.submission(conn, c["assignment_id"],
                                    factories.student(conn, c["course_id"], f"b{i:04d}", f"Batch Student {i}"),
                                    RICH_TEXT + f" Reflection number {i}.") for i in range(n)]


def drafts(path) -> dict:
    conn = dbmod.connect(path)
    try:
        rows = conn.execute("SELECT s.student_id, d.scores, d.comment, d.outputs, d.status, d.verdict FROM drafts d "
                            "JOIN submissions s ON s.id = d.submission_id ORDER BY s.student_id").fetchall()
        return {r[0]: (json.loads(r[1]), r[2], json.loads(r[3]), r[4], r[5]) for r in rows}
    finally:
        conn.close()


def cost(path) -> tuple[float, int]:
    conn = dbmod.connect(path)
    try:
        return tuple(conn.execute("SELECT SUM(cost_usd), COUNT(*) FROM llm_calls WHERE status = 'ok'").fetchone())
    finally:
        conn.close()


@pytest.mark.slow   # over 15 s on a busy machine (docs/testing.md)
def test_a_200_submission_batch_run_drafts_what_the_synchronous_run_drafts_at_half_the_cost(
        conn, db_path, monkeypatch, capfd, tmp_path):
    _, subs = course(conn, N)
    copy = tmp_path / "sync.db"   # the same course in a second database (a SQLite file), for the synchronous run
    other = dbmod.connect(copy)
    try:
        course(other, N)
    finally:
        other.close()
    with FakeBatchOpenAI() as server:
        monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", server.base_url)
        assert main(["assess", "--course", "Cohort", "--db", str(copy), "--concurrency", "16"]) == 0
        sync = json.loads(capfd.readouterr().out)
        chat_requests = sum(server.outcomes.values())
        assert main(["assess", "--course", "Cohort", "--batch"]) == 0
        batch = json.loads(capfd.readouterr().out)
    assert sync["status"] == batch["status"] == "done" and batch["drafted"] + batch["needs_attention"] == N
    # The batch run sent no synchronous chat request: files, batches, polls and output only.
    assert server.outcomes["ok"] == chat_requests
    # Every request of the synchronous run went into a batch file once (self-consistency samples
    # each on their own line), in waves: not one batch per call.
    assert server.batch_requests == chat_requests and 3 <= batch["batches"] <= 20, batch
    assert drafts(db_path) == drafts(copy)
    (sync_cost, sync_calls), (batch_cost, batch_calls) = cost(copy), cost(db_path)
    assert batch_calls == sync_calls and sync_cost > 0
    assert batch_cost == pytest.approx(sync_cost / 2, rel=1e-9)
    note = conn.execute("SELECT note FROM llm_calls WHERE status = 'ok' LIMIT 1").fetchone()[0]
    assert "batch rate" in note


def test_failed_lines_are_retried_in_the_next_wave(conn, monkeypatch, capfd):
    _, subs = course(conn, 12)
    with FakeBatchOpenAI(line_faults={"500": 0.2, "429": 0.1}, seed=2) as server:
        monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("FAIRMARK_MAX_RETRIES", "6")
        assert main(["assess", "--course", "Cohort", "--batch"]) == 0
        out = json.loads(capfd.readouterr().out)
    assert out["failed"] == 0 and out["drafted"] + out["needs_attention"] == 12
    assert sum(b["errors"] for b in server.batches.values()) > 0


def _cli(db_path, server, *argv) -> subprocess.Popen:
    env = {**os.environ, "FAIRMARK_LLM_BASE_URL": server.base_url}
    return subprocess.Popen([sys.executable, "-m", "core", "assess", *argv, "--db", str(db_path)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow   # over 15 s on a busy machine (docs/testing.md)
def test_a_batch_run_killed_mid_batch_resumes_and_pays_nothing_twice(conn, db_path):
    _, subs = course(conn, 20)
    with FakeBatchOpenAI() as server:
        server.hold = True                        # the first wave stays in progress
        proc = _cli(db_path, server, "--course", "Cohort", "--batch")
        deadline = time.monotonic() + 120
        while not server.batches and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.batches, "no batch was submitted"
        first = next(iter(server.batches))
        # Killed once the batch's id is stored (the engine holds the batch in progress meanwhile):
        # 0.5 s after the submission was too soon on a busy machine, with nothing stored yet.
        while not conn.execute("SELECT 1 FROM llm_batches").fetchall() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        os.kill(proc.pid, signal.SIGKILL)       # a restart mid-batch
        proc.wait()
        assert conn.execute("SELECT batch_id FROM llm_batches").fetchall() == [(first,)]   # its id is stored
        server.hold = False                       # the engine finishes the batch meanwhile
        run_id = conn.execute("SELECT MAX(id) FROM runs").fetchone()[0]
        proc = _cli(db_path, server, "--resume", str(run_id))
        out, err = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 0, err
    summary = json.loads(out)
    assert summary["status"] == "done" and summary["drafted"] + summary["needs_attention"] == 20
    # The first wave was not sent again: every request went into exactly one batch file.
    assert server.batch_requests == conn.execute("SELECT COUNT(*) FROM llm_batch_requests").fetchone()[0]
    assert conn.execute("SELECT COUNT(DISTINCT request_hash) = COUNT(*) FROM llm_batch_requests").fetchone()[0] == 1
    assert conn.execute("SELECT status FROM llm_batches WHERE batch_id = ?", [first]).fetchone()[0] == "completed"
    assert sum(server.outcomes.values()) == sum(server.outcomes[k] for k in ("file", "batch", "poll", "content"))
    assert conn.execute("SELECT cache_key, COUNT(*) FROM llm_calls WHERE status = 'ok' GROUP BY cache_key "
                        "HAVING COUNT(*) > 1").fetchall() == []


def test_a_fault_in_the_batch_loop_is_logged_and_the_loop_goes_on(conn, db_path, monkeypatch, caplog):
    """Were the batcher's thread to end on a fault (the database briefly out of reach), every call
    waiting on it would wait for ever: it logs the fault and goes on."""
    from core.llm import batch

    cycles = []

    def cycle(self):
        cycles.append(1)
        if len(cycles) == 1:
            raise RuntimeError("the database is out of reach for a moment")

    monkeypatch.setattr(batch.Batcher, "_cycle", cycle)
    batcher = batch.Batcher(endpoint=None, db_path=db_path, poll_s=0.01)
    batcher._thread.join(WAIT_S)
    assert not batcher._thread.is_alive() and len(cycles) == 2
    assert "the batch loop failed" in caplog.text
