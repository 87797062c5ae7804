"""Runs and run items: the persistent state of an assessment run (progress comes from here)."""
from __future__ import annotations

from sqlite_utils import Database

from db import audit, dumps, loads, now
from db.errors import NotFound

ACTIVE = ("queued", "running")
# Submissions a run may take on: never a teacher's approved / rejected / released item.
ELIGIBLE_FIRST_TIME = ("uploaded", "failed")
ELIGIBLE_REDO = ("uploaded", "failed", "drafted", "needs_attention")


def eligible_submissions(conn: Database, *, course_id: int, assignment_id: int | None = None,
                         redo: bool = False, limit: int | None = None) -> list[int]:
    statuses = ELIGIBLE_REDO if redo else ELIGIBLE_FIRST_TIME
    sql = ("SELECT s.id FROM submissions s JOIN assignments a ON a.id = s.assignment_id "
           f"WHERE a.course_id = ? AND s.status IN ({', '.join('?' for _ in statuses)})")
    args: list = [course_id, *statuses]
    if assignment_id is not None:
        sql += " AND s.assignment_id = ?"
        args.append(assignment_id)
    sql += " ORDER BY a.week, a.id, s.id"
    if limit is not None:
        sql += " LIMIT ?"
        args.append(int(limit))
    return [r[0] for r in conn.execute(sql, args).fetchall()]


def submission_status(conn: Database, submission_id: int) -> str | None:
    """The submission's status as a run item is about to start (None when it was deleted)."""
    row = conn.execute("SELECT status FROM submissions WHERE id = ?", [submission_id]).fetchone()
    return None if row is None else row[0]


def word_counts(conn: Database, submission_ids: list[int]) -> list[tuple[int, int | None]]:
    """(assignment_id, word_count) of each submission, for a run's cost estimate."""
    return [tuple(r) for r in conn.execute(
        f"SELECT assignment_id, word_count FROM submissions WHERE id IN ({', '.join('?' for _ in submission_ids)})",
        submission_ids).fetchall()]


def insert_run(conn: Database, *, course_id: int, assignment_id: int | None, provider: str, config: dict,
               prompt_hashes: dict, submission_ids: list[int], created_by: str) -> int:
    with conn.atomic():
        run_id = conn.execute(
            "INSERT INTO runs (course_id, assignment_id, provider, config, prompt_hashes, status, total, created_by) "
            "VALUES (?, ?, ?, ?, ?, 'queued', ?, ?)",
            [course_id, assignment_id, provider, dumps(config), dumps(prompt_hashes), len(submission_ids),
             created_by]).lastrowid
        conn.conn.executemany("INSERT INTO run_items (run_id, submission_id) VALUES (?, ?)",
                            [(run_id, sid) for sid in submission_ids])
        audit(conn, actor=created_by or "unknown", action="start_run", entity="runs", entity_id=run_id,
              after={"provider": provider, "assignment_id": assignment_id, "items": len(submission_ids)})
    return run_id


def get_run(conn: Database, run_id: int) -> dict:
    """The run row plus assignment_title / assignment_week (None for a course-wide run)."""
    row = next(conn.query("SELECT r.*, a.title AS assignment_title, a.week AS assignment_week FROM runs r "
                        "LEFT JOIN assignments a ON a.id = r.assignment_id WHERE r.id = ?", [run_id]), None)
    if row is None:
        raise NotFound(f"run {run_id} does not exist")
    row["config"] = loads(row["config"], {})
    row["prompt_hashes"] = loads(row["prompt_hashes"], {})
    return row


def list_runs(conn: Database, course_id: int, assignment_id: int | None = None, limit: int = 20,
              kind: str = "reflections") -> list[dict]:
    sql, args = "SELECT id FROM runs WHERE course_id = ? AND kind = ?", [course_id, kind]
    if assignment_id is not None:
        sql += " AND (assignment_id = ? OR assignment_id IS NULL)"
        args.append(assignment_id)
    sql += " ORDER BY id DESC LIMIT ?"
    return [get_run(conn, r[0]) for r in conn.execute(sql, [*args, limit]).fetchall()]


def unfinished_runs(conn: Database, course_id: int, kind: str = "reflections") -> list[dict]:
    """Queued or running runs of one workflow (reflections | lessons: their items never overlap)."""
    rows = conn.execute(f"SELECT id FROM runs WHERE course_id = ? AND kind = ? AND status IN "
                        f"({', '.join('?' for _ in ACTIVE)}) ORDER BY id", [course_id, kind, *ACTIVE]).fetchall()
    return [get_run(conn, r[0]) for r in rows]


def pending_items(conn: Database, run_id: int) -> list[int]:
    return [r[0] for r in conn.execute(
        "SELECT submission_id FROM run_items WHERE run_id = ? AND status = 'pending' ORDER BY rowid", [run_id])]


# A working period ends now while the worker is alive (heard from within this many seconds,
# core.runs.STALE_AFTER_S); a period its worker never closed (it died) ends at its last
# heartbeat, so the time a run stood stopped never counts as working time.
SILENT_LIMIT_S = 60.0
# Seconds of the open working period (resumed_at .. end), as SQL with one parameter (now);
# SQLite reads the old row values throughout an UPDATE.
_OPEN_PERIOD = ("CASE WHEN resumed_at IS NULL OR finished_at IS NOT NULL THEN 0 ELSE MAX(0, ("
                "CASE WHEN heartbeat_at IS NULL OR (julianday(:now) - julianday(heartbeat_at)) * 86400 "
                f"<= {SILENT_LIMIT_S} THEN julianday(:now) ELSE julianday(heartbeat_at) END "
                "- julianday(resumed_at)) * 86400) END")


def claim(conn: Database, run_id: int, *, worker: str, pid: int, host: str) -> None:
    """Record the worker that now processes the run, from now on a new working period (an
    unclosed earlier one is closed first). Call inside db.write_transaction, after checking that
    no live worker holds it."""
    conn.execute(f"UPDATE runs SET status = 'running', cancel_requested = 0, error = NULL, heartbeat_at = :now, "
                 f"active_s = active_s + {_OPEN_PERIOD}, resumed_at = :now, started_at = COALESCE(started_at, :now), "
                 "finished_at = NULL, worker = :worker, worker_pid = :pid, worker_host = :host WHERE id = :id",
                 {"now": now(), "worker": worker, "pid": pid, "host": host, "id": run_id})


def heartbeat(conn: Database, run_id: int, worker: str) -> bool:
    """The worker is alive; False when another worker has claimed the run since (stop then)."""
    return conn.execute("UPDATE runs SET heartbeat_at = ? WHERE id = ? AND worker = ?",
                        [now(), run_id, worker]).rowcount == 1


def finish(conn: Database, run_id: int, status: str, error: str | None = None, *, worker: str | None = None) -> bool:
    """Done, failed or cancelled: the working period ends (its seconds go to active_s). With
    `worker`, only while that worker still holds the run. Returns whether it did."""
    sql = (f"UPDATE runs SET status = :status, error = :error, active_s = active_s + {_OPEN_PERIOD}, "
           "finished_at = :now, heartbeat_at = :now WHERE id = :id")
    args = {"status": status, "error": error, "now": now(), "id": run_id}
    if worker is not None:
        sql += " AND worker = :worker"
        args["worker"] = worker
    return conn.execute(sql, args).rowcount == 1


def request_cancel(conn: Database, run_id: int, actor: str = "") -> None:
    with conn.atomic():
        conn.execute("UPDATE runs SET cancel_requested = 1 WHERE id = ?", [run_id])
        audit(conn, actor=actor or "unknown", action="cancel_run", entity="runs", entity_id=run_id)


def cancel_requested(conn: Database, run_id: int) -> bool:
    row = conn.execute("SELECT cancel_requested FROM runs WHERE id = ?", [run_id]).fetchone()
    return bool(row and row[0])


def skip_item(conn: Database, run_id: int, submission_id: int, reason: str) -> None:
    conn.execute("UPDATE run_items SET status = 'skipped', error = ?, finished_at = ? "
               "WHERE run_id = ? AND submission_id = ? AND status = 'pending'", [reason, now(), run_id, submission_id])


def reopen_items(conn: Database, run_id: int, submission_ids: list[int]) -> int:
    """Failed items go back to pending (a run stopped by a configuration fault: the items it
    failed before the fault was recognised are retried by the resume)."""
    if not submission_ids:
        return 0
    return conn.execute(
        "UPDATE run_items SET status = 'pending', error = NULL, finished_at = NULL WHERE run_id = ? AND status = "
        f"'failed' AND submission_id IN ({', '.join('?' for _ in submission_ids)})", [run_id, *submission_ids]).rowcount


def supersede_pending(conn: Database, course_id: int, new_run_id: int) -> int:
    """Pending items of the course's earlier, stopped runs are skipped: the new run takes their
    submissions, and a later resume of an old run must not draft them a second time."""
    return conn.execute(
        "UPDATE run_items SET status = 'skipped', error = ?, finished_at = ? WHERE status = 'pending' AND run_id IN "
        f"(SELECT id FROM runs WHERE course_id = ? AND id != ? AND status NOT IN ({', '.join('?' for _ in ACTIVE)}))",
        [f"superseded by run {new_run_id}", now(), course_id, new_run_id, *ACTIVE]).rowcount


def fail_item(conn: Database, run_id: int, submission_id: int, error: str) -> None:
    conn.execute("UPDATE run_items SET status = 'failed', error = ?, finished_at = ? "
               "WHERE run_id = ? AND submission_id = ? AND status = 'pending'", [error, now(), run_id, submission_id])


def item_counts(conn: Database, run_id: int) -> dict[str, int]:
    counts = dict.fromkeys(("pending", "done", "needs_attention", "failed", "skipped"), 0)
    for status, n in conn.execute("SELECT status, COUNT(*) FROM run_items WHERE run_id = ? GROUP BY status", [run_id]):
        counts[status] = n
    return counts


def failed_items(conn: Database, run_id: int, limit: int = 50) -> list[dict]:
    return list(conn.query("SELECT submission_id, error FROM run_items WHERE run_id = ? AND status = 'failed' "
                         "ORDER BY rowid LIMIT ?", [run_id, limit]))


def call_totals(conn: Database, run_id: int) -> dict:
    row = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(cache_hit), 0), COALESCE(SUM(tokens_in), 0), COALESCE(SUM(tokens_out), 0), "
        "COALESCE(SUM(cost_usd), 0), COALESCE(SUM(status = 'error'), 0) FROM llm_calls WHERE run_id = ?",
        [run_id]).fetchone()
    return {"calls": row[0], "cache_hits": row[1], "tokens_in": row[2], "tokens_out": row[3],
            "cost_usd": round(row[4], 6), "call_errors": row[5]}

