"""Configuration faults stop a run; one passing fault does not; one worker per run; cancel."""
import os
import subprocess
import sys
import threading

import pytest

import factories
from factories import not_found, unreachable
from assess_script import RICH_TEXT, evaluation_for, good_llm
from core.runs import engine as run_engine
from core.runs import worker as run_worker
from core.runs import reflections as runs
from core.errors import ConflictError, LLMNotFound
from core.runs.guard import ConfigFaultGuard
from db import runs as runs_db
from core.accounts.access import Actor


def course_with(conn, n):
    c = factories.course(conn)
    subs = [factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]),
                                 RICH_TEXT + f" Note {i}.") for i in range(n)]
    return c, subs



@pytest.mark.parametrize("fault,what", [(not_found, "model name"), (unreachable, "FAIRMARK_LLM_BASE_URL")])
def test_a_fault_hitting_the_first_items_in_a_row_stops_the_run_and_leaves_everything_pending(conn, db_path,
                                                                                               fault, what):
    c, subs = course_with(conn, 6)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", concurrency=1, actor=Actor("test", role="admin"))
    llm = good_llm()
    llm.always("evaluator", lambda m, s: (_ for _ in ()).throw(fault()))
    with pytest.raises(runs.RunStopped, match=what):
        runs.execute(db_path, run_id, llm, actor=Actor("test", role="admin"))
    p = runs.progress(conn, run_id, db_path, actor=Actor("test", role="admin"))
    assert p["status"] == "failed" and p["error"].startswith("stopped: ") and what in p["error"]
    # The two items failed before the third proved it a setting wait for the resume too.
    assert p["pending"] == 6 and p["failed"] == 0 and p["resumable"]
    assert len(llm.calls) == 3
    p = runs.resume(db_path, run_id, good_llm(), background=False, actor=Actor("test", role="admin"))   # the admin fixed the setting
    assert p["status"] == "done" and p["done"] == 6 and p["failed"] == 0
    assert {r[0] for r in conn.execute("SELECT status FROM submissions")} == {"drafted"}


def test_a_single_passing_connection_fault_fails_one_item_and_the_run_goes_on(conn, db_path):
    c, subs = course_with(conn, 5)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", concurrency=1, actor=Actor("test", role="admin"))
    llm = good_llm()
    llm.script("evaluator", lambda m, s: evaluation_for(s), unreachable())
    p = runs.execute(db_path, run_id, llm, actor=Actor("test", role="admin"))
    assert p["status"] == "done" and p["failed"] == 1 and p["done"] == 4
    assert "FAIRMARK_LLM_BASE_URL" in p["failures"][0]["error"]


def test_the_limit_is_a_setting(conn, db_path, monkeypatch):
    monkeypatch.setenv("FAIRMARK_STOP_AFTER_FAULTS", "5")
    c, subs = course_with(conn, 6)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", concurrency=1, actor=Actor("test", role="admin"))
    llm = good_llm()
    llm.always("evaluator", lambda m, s: (_ for _ in ()).throw(not_found()))
    with pytest.raises(runs.RunStopped):
        runs.execute(db_path, run_id, llm, actor=Actor("test", role="admin"))
    assert len(llm.calls) == 5


def test_a_wrong_model_for_a_later_role_stops_the_run_although_the_evaluator_answers(conn, db_path):
    c, subs = course_with(conn, 5)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", concurrency=1, actor=Actor("test", role="admin"))
    llm = good_llm()
    llm.always("coach", lambda m, s: (_ for _ in ()).throw(not_found()))
    with pytest.raises(runs.RunStopped):
        runs.execute(db_path, run_id, llm, actor=Actor("test", role="admin"))
    p = runs.progress(conn, run_id, db_path, actor=Actor("test", role="admin"))
    # The first two were drafted without the Coach's questions (sent to a teacher with the
    # reason); the third showed it is the setting: it and the rest wait.
    assert p["pending"] == 3 and p["needs_attention"] == 2 and "stopped: " in p["error"]


def test_in_flight_items_that_hit_the_fault_after_the_stop_wait_for_the_resume(conn, db_path):
    c, subs = course_with(conn, 8)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", concurrency=4, actor=Actor("test", role="admin"))
    barrier = threading.Barrier(4, timeout=10)

    def fail(messages, schema):
        try:
            barrier.wait()          # four items in flight at once, all hitting the fault
        except threading.BrokenBarrierError:
            pass
        raise not_found()

    llm = good_llm()
    llm.always("evaluator", fail)
    with pytest.raises(runs.RunStopped):
        runs.execute(db_path, run_id, llm, actor=Actor("test", role="admin"))
    p = runs.progress(conn, run_id, db_path, actor=Actor("test", role="admin"))
    assert p["failed"] == 0 and p["pending"] == 8


def test_cache_hits_do_not_reset_the_streak():
    class Inner:
        provider = "fake"

        def __init__(self):
            self.n = 0

        def model_for(self, role):
            return "m"

        def complete(self, messages, schema, *, role, ctx, temperature=None):
            self.n += 1
            if self.n % 2:
                raise not_found()
            return type("R", (), {"cache_hit": True})()

    from core.llm import CallContext

    guard = ConfigFaultGuard(Inner(), limit=2)
    with pytest.raises(LLMNotFound):
        guard.complete([], None, role="evaluator", ctx=CallContext("evaluator", "p", "h", submission_id=1))
    guard.complete([], None, role="evaluator", ctx=CallContext("evaluator", "p", "h", submission_id=2))
    from core.errors import LLMConfigFault

    with pytest.raises(LLMConfigFault):
        guard.complete([], None, role="evaluator", ctx=CallContext("evaluator", "p", "h", submission_id=3))
    assert guard.held_items() == [1, 3]


def test_a_run_can_be_claimed_by_one_worker_only(conn, db_path):
    c, subs = course_with(conn, 2)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    token = run_worker.claim(conn, run_id)
    try:
        with pytest.raises(ConflictError, match="still being processed"):
            run_worker.claim(conn, run_id)
        with pytest.raises(ConflictError):
            runs.execute(db_path, run_id, good_llm(), actor=Actor("test", role="admin"))
    finally:
        run_worker.release(token)
    # Its execution ended in this process without finishing the run: gone at once, resumable.
    assert runs.is_resumable(conn, db_path, runs_db.get_run(conn, run_id))
    assert runs.resume(db_path, run_id, good_llm(), background=False, actor=Actor("test", role="admin"))["status"] == "done"


def test_a_worker_whose_process_died_is_taken_over_at_once(conn, db_path):
    c, subs = course_with(conn, 2)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    conn.execute("UPDATE runs SET status = 'running', heartbeat_at = strftime('%Y-%m-%dT%H:%M:%fZ','now'), "
                 "worker = 'gone', worker_pid = ?, worker_host = ? WHERE id = ?",
                 [int(dead), run_worker.HOST, run_id])
    assert runs.is_resumable(conn, db_path, runs_db.get_run(conn, run_id))
    # A live process on this host (this one, with an execution running) is not taken over.
    conn.execute("UPDATE runs SET worker_pid = ? WHERE id = ?", [os.getppid(), run_id])
    assert not runs.is_resumable(conn, db_path, runs_db.get_run(conn, run_id))


def test_a_worker_that_lost_its_claim_stops_and_leaves_the_run_to_the_new_one(conn, db_path, monkeypatch):
    monkeypatch.setattr(run_engine, "HEARTBEAT_S", 0.05)
    c, subs = course_with(conn, 4)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", concurrency=1, actor=Actor("test", role="admin"))
    llm = good_llm()
    taken = threading.Event()

    def evaluate(messages, schema):
        if not taken.is_set():    # another worker declares this one dead and takes the run
            conn.execute("UPDATE runs SET worker = 'someone-else' WHERE id = ?", [run_id])
            taken.set()
        threading.Event().wait(0.2)
        return evaluation_for(schema)

    llm.always("evaluator", evaluate)
    p = runs.execute(db_path, run_id, llm, actor=Actor("test", role="admin"))
    assert p["status"] == "running" and p["pending"] >= 1   # not finished by the worker that lost it
    assert runs_db.get_run(conn, run_id)["worker"] == "someone-else"


def test_creating_runs_at_once_from_many_threads_makes_one_run(conn, db_path):
    import db as dbmod

    c, subs = course_with(conn, 3)
    results, start = [], threading.Barrier(6)

    def create():
        own = dbmod.connect(db_path)
        try:
            start.wait()
            results.append(runs.create(own, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin")))
        except ConflictError as e:
            results.append(e)
        finally:
            own.close()

    threads = [threading.Thread(target=create) for _ in range(6)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert sum(isinstance(r, int) for r in results) == 1
    assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1


def test_a_new_run_supersedes_the_waiting_items_of_a_stopped_one(conn, db_path):
    c, subs = course_with(conn, 3)
    old = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    runs.cancel(db_path, old, actor=Actor("test", role="admin"))
    new = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    assert runs.execute(db_path, new, good_llm(), actor=Actor("test", role="admin"))["done"] == 3
    with pytest.raises(ConflictError, match="nothing left"):
        runs.resume(db_path, old, good_llm(), background=False, actor=Actor("test", role="admin"))
    assert conn.execute("SELECT COUNT(*) FROM drafts").fetchone()[0] == 3


def test_cancel_returns_the_status(conn, db_path):
    c, subs = course_with(conn, 2)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    assert runs.cancel(db_path, run_id, actor=Actor("test", role="admin")) == "cancelled"
    assert runs.cancel(db_path, run_id, actor=Actor("test", role="admin")) == "cancelled"


@pytest.mark.slow   # four spawned processes
def test_creating_runs_at_once_from_several_processes_makes_one_run(conn, db_path):
    import at_once

    c, _ = course_with(conn, 3)
    results = at_once.run(at_once.create_run, [(db_path, c["course_id"]) for _ in range(4)])
    assert sum(isinstance(r, int) for r in results) == 1, results
    assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
