"""Work started at the same moment in several processes, each with its own connection: what several
app hosts (or `streamlit run` processes) do to one database. Threads share one interpreter and can
hide a lock that only holds within a process; processes cannot.

`run(task, args)` starts one spawned process per argument tuple, releases them together at a
barrier and returns what each returned, in order; a failure in any process fails the test with
that process's traceback. The tasks are functions of this module (a spawned process imports them).
"""
from __future__ import annotations

import multiprocessing
import queue
import time
import traceback

from waits import WAIT_S


def run(task, args: list[tuple], *, timeout: float = WAIT_S) -> list:
    ctx = multiprocessing.get_context("spawn")   # no state inherited from the test's process
    start, results = ctx.Barrier(len(args)), ctx.Queue()
    processes = [ctx.Process(target=_child, args=(task, n, a, start, results), daemon=True)
                 for n, a in enumerate(args)]
    for p in processes:
        p.start()
    answers, deadline = {}, time.monotonic() + timeout
    try:
        while len(answers) < len(processes):
            try:
                n, ok, value = results.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"{len(processes) - len(answers)} of {len(processes)} processes did not "
                                     f"finish within {timeout:.0f} s") from None
            if not ok:
                raise AssertionError(f"process {n} failed:\n{value}")
            answers[n] = value
    finally:
        for p in processes:
            p.join(5)
            if p.is_alive():
                p.kill()
    return [answers[n] for n in range(len(processes))]


def _child(task, n, args, start, results):
    try:
        prepared = task(*args, ready=start.wait)
        results.put((n, True, prepared))
    except BaseException:   # everything reaches the test, which fails with it
        results.put((n, False, traceback.format_exc()))


# --- tasks --------------------------------------------------------------------------------------

def tick(db_path, who: str, times: int, *, ready):
    """Read the count of ticks, then write the next one, `times` times, each in a write transaction."""
    import db

    own = db.connect(db_path)
    ready()
    numbers = []
    for _ in range(times):
        with db.write_transaction(own):
            n = own.execute("SELECT COUNT(*) FROM audit_log WHERE action = 'tick'").fetchone()[0]
            db.audit(own, actor=who, action="tick", entity="runs", entity_id=n + 1)
            numbers.append(n + 1)
    own.close()
    return numbers


def sign_in(db_path, username: str, password: str, check_s: float, *, ready):
    """One sign-in attempt whose password check takes `check_s` (Argon2 on a host with free cores):
    the message it was refused with, or 'signed in'."""
    import db
    from core.accounts import identity as accounts
    from core.errors import NotSignedIn

    real = accounts._hasher

    class Slow:
        def __getattr__(self, name):
            return getattr(real, name)

        def verify(self, hashed, password):
            time.sleep(check_s)
            return real.verify(hashed, password)

    accounts._hasher = Slow()
    own = db.connect(db_path)
    ready()
    try:
        accounts.sign_in(own, username, password)
        return "signed in"
    except NotSignedIn as e:
        return str(e)
    finally:
        own.close()


def create_run(db_path, course_id: int, *, ready):
    """Start an offline run of the course: its id, or the refusal's text."""
    import db
    from core.runs import reflections as runs
    from core.accounts.access import Actor
    from core.errors import ConflictError

    own = db.connect(db_path)
    ready()
    try:
        return runs.create(own, course_id=course_id, provider="offline", actor=Actor("test", role="admin"))
    except ConflictError as e:
        return str(e)
    finally:
        own.close()
