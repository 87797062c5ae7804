"""Who processes a run: one worker at a time, and whether that worker is still alive.

A worker claims a run inside one write transaction (BEGIN IMMEDIATE): it reads the run, checks
that no live worker holds it, and writes its identity (a token for this execution, the
process id and the host), so two processes resuming at the same instant cannot both win. Every
heartbeat is conditional on the token: a worker whose run was claimed by someone else (after
it was declared dead) notices at its next heartbeat and stops.

A worker is dead when its heartbeat is older than STALE_AFTER_S, or at once when it ran on this
host and its process no longer exists (kill -9, a crash, a closed terminal), or when it ran in
this process and its execution has ended.
"""
from __future__ import annotations

import os
import socket
import threading
import uuid
from datetime import datetime, timezone

import db
from core.errors import ConflictError
from core.language.interface import Message, N_
from db import runs as runs_db

STALE_AFTER_S = 60.0
HOST = socket.gethostname()

_active: set[str] = set()       # tokens of executions running in this process
_lock = threading.Lock()


def age_s(stamp: str | None) -> float | None:
    if not stamp:
        return None
    t = datetime.strptime(stamp.rstrip("Z")[:26], "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=timezone.utc)
    return (datetime.now(timezone.utc) - t).total_seconds()


def _pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:      # exists, owned by someone else
        return True
    return True


def worker_gone(run: dict, stale_after_s: float | None = None) -> bool:
    """A queued or running run whose worker is not alive any more (or never started)."""
    if run["status"] not in runs_db.ACTIVE:
        return False
    age = age_s(run.get("heartbeat_at") or run.get("created_at"))
    if age is None or age > (STALE_AFTER_S if stale_after_s is None else stale_after_s):
        return True
    token, pid, host = run.get("worker"), run.get("worker_pid"), run.get("worker_host")
    if not token or host != HOST or pid is None:
        return False              # another machine, or no worker recorded: only the heartbeat tells
    if pid == os.getpid():
        with _lock:
            return token not in _active
    return not _pid_exists(int(pid))


def claim(conn, run_id: int, *, allow: tuple[str, ...] = ("queued", "running", "failed", "cancelled"),
          stale_after_s: float | None = None) -> str:
    """Make this execution the run's only worker; returns its token. Refused (ConflictError)
    while a live worker holds the run, or when the run's status is not in `allow`."""
    token = uuid.uuid4().hex
    with db.write_transaction(conn):
        run = runs_db.get_run(conn, run_id)
        if run["status"] not in allow:
            raise ConflictError(Message("Run {run} is {status}: there is nothing to resume.", run=run_id,
                                        status=status_word(run["status"])))
        if run["status"] == "running" and not worker_gone(run, stale_after_s):
            raise ConflictError(describe_holder(run))
        runs_db.claim(conn, run_id, worker=token, pid=os.getpid(), host=HOST)
    with _lock:
        _active.add(token)
    return token


def release(token: str) -> None:
    """This execution has ended (its run row says how)."""
    with _lock:
        _active.discard(token)


def describe_holder(run: dict) -> str:
    """Who holds a run, as a Message: "Run 3 is still being processed by process 12 on host (…)"."""
    where = (Message("process {pid} on {host}", pid=run.get("worker_pid"), host=run.get("worker_host"))
             if run.get("worker_pid") else Message("a worker"))
    heard = age_s(run.get("heartbeat_at"))
    return Message("Run {run} is still being processed by {where} (heard from {seconds:.0f} s ago): wait for it, or "
                   "cancel it first.", run=run["id"], where=where, seconds=heard or 0)


# A run's status as a refusal names it (the Assess page's words for the same statuses)
STATUS = {"queued": N_("queued"), "running": N_("running"), "done": N_("done"), "cancelled": N_("cancelled"),
          "failed": N_("failed")}


def status_word(status: str) -> str:
    """A run's status as a Message (said in the reader's language); an unknown one as it is."""
    return Message(STATUS[status]) if status in STATUS else status
