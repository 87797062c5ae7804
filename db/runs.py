"""Runs and run items: the persistent state of every background run (progress comes from here).

One `runs` table and one `run_items` table for every kind of run: `runs.kind` is the workflow
(reflections | lessons) and each item's `subject` what it is (SUBJECT[kind]: a submission or a
lesson), `subject_id` which one. The item functions work on any kind."""
from __future__ import annotations

from sqlite_utils import Database

from db import audit, dumps, loads, now
from db.errors import NotFound
from db.message import Message

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


def word_counts(conn: Database, submission_ids: list[int]) -> list[tuple[int, int, int | None]]:
    """(submission id, assignment_id, word_count) of each submission, for a run's cost estimate."""
    return [tuple(r) for r in conn.execute(
        f"SELECT id, assignment_id, word_count FROM submissions WHERE id IN ({', '.join('?' for _ in submission_ids)})",
        submission_ids).fetchall()]


SUBJECT = {"reflections": "submission", "lessons": "lesson"}   # runs.kind -> run_items.subject
ITEM_STATES = {"reflections": ("pending", "done", "needs_attention", "failed", "skipped"),
               "lessons": ("pending", "done", "needs_review", "failed", "skipped")}


def insert_run(conn: Database, *, kind: str = "reflections", course_id: int, assignment_id: int | None = None,
               provider: str, config: dict, prompt_hashes: dict, item_ids: list[int], created_by: str) -> int:
    """A queued run and one pending item per submission (reflections) or lesson (lessons)."""
    with conn.atomic():
        run_id = conn.execute(
            "INSERT INTO runs (course_id, kind, assignment_id, provider, config, prompt_hashes, status, total, "
            "created_by) VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?)",
            [course_id, kind, assignment_id, provider, dumps(config), dumps(prompt_hashes), len(item_ids),
             created_by]).lastrowid
        conn.conn.executemany("INSERT INTO run_items (run_id, subject, subject_id) VALUES (?, ?, ?)",
                              [(run_id, SUBJECT[kind], item) for item in item_ids])
        audit(conn, actor=created_by or "unknown", action="start_run" if kind == "reflections" else "start_lesson_run",
              entity="runs", entity_id=run_id,
              after={"provider": provider, "assignment_id": assignment_id, "items": len(item_ids)})
    return run_id


def get_run(conn: Database, run_id: int) -> dict:
    """The run row plus assignment_title / assignment_week (None for a course-wide run)."""
    row = next(conn.query("SELECT r.*, a.title AS assignment_title, a.week AS assignment_week FROM runs r "
                        "LEFT JOIN assignments a ON a.id = r.assignment_id WHERE r.id = ?", [run_id]), None)
    if row is None:
        raise NotFound(Message("run {id} does not exist", id=run_id))
    row["config"] = loads(row["config"], {})
    row["prompt_hashes"] = loads(row["prompt_hashes"], {})
    row["error_said"] = loads(row.get("error_said"))   # why it stopped, its form (m030t); None before
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
    """The ids of the run's submissions (or lessons) still to do, in the order they were queued."""
    return [r[0] for r in conn.execute(
        "SELECT subject_id FROM run_items WHERE run_id = ? AND status = 'pending' ORDER BY rowid", [run_id])]


# A working period ends now while the worker is alive (heard from within this many seconds,
# core.runs.reflections.STALE_AFTER_S); a period its worker never closed (it died) ends at its last
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
    conn.execute(f"UPDATE runs SET status = 'running', cancel_requested = 0, error = NULL, error_said = NULL, heartbeat_at = :now, "
                 f"active_s = active_s + {_OPEN_PERIOD}, resumed_at = :now, started_at = COALESCE(started_at, :now), "
                 "finished_at = NULL, worker = :worker, worker_pid = :pid, worker_host = :host WHERE id = :id",
                 {"now": now(), "worker": worker, "pid": pid, "host": host, "id": run_id})


def heartbeat(conn: Database, run_id: int, worker: str) -> bool:
    """The worker is alive; False when another worker has claimed the run since (stop then)."""
    return conn.execute("UPDATE runs SET heartbeat_at = ? WHERE id = ? AND worker = ?",
                        [now(), run_id, worker]).rowcount == 1


def finish(conn: Database, run_id: int, status: str, error: str | None = None, *, worker: str | None = None,
           said: dict | None = None) -> bool:
    """Done, failed or cancelled: the working period ends (its seconds go to active_s). With
    `worker`, only while that worker still holds the run. Returns whether it did. `said`: why it
    stopped, in its Message form beside the English (runs.error_said, m030t; JSON)."""
    sql = (f"UPDATE runs SET status = :status, error = :error, error_said = :said, "
           f"active_s = active_s + {_OPEN_PERIOD}, finished_at = :now, heartbeat_at = :now WHERE id = :id")
    args = {"status": status, "error": error, "said": dumps(said) if said else None, "now": now(), "id": run_id}
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


def finish_item(conn: Database, run_id: int, item_id: int, status: str, error: str | None = None,
                said: dict | None = None) -> bool:
    """A pending item ends (done, needs attention / review, failed, skipped); False when it was
    no longer pending (another worker finished it). `said`: the error's form beside its English
    (core.language.interface.stored), kept as JSON in error_said so a page can translate it."""
    return conn.execute("UPDATE run_items SET status = ?, error = ?, error_said = ?, finished_at = ? "
                        "WHERE run_id = ? AND subject_id = ? AND status = 'pending'",
                        [status, error, dumps(said) if said else None, now(), run_id, item_id]).rowcount == 1


def skip_item(conn: Database, run_id: int, item_id: int, reason: str) -> None:
    finish_item(conn, run_id, item_id, "skipped", reason)


def fail_item(conn: Database, run_id: int, item_id: int, error: str, said: dict | None = None) -> None:
    finish_item(conn, run_id, item_id, "failed", error, said)


def reopen_items(conn: Database, run_id: int, item_ids: list[int]) -> int:
    """Failed items go back to pending (a run stopped by a configuration fault: the items it
    failed before the fault was recognised are retried by the resume)."""
    if not item_ids:
        return 0
    return conn.execute(
        "UPDATE run_items SET status = 'pending', error = NULL, error_said = NULL, finished_at = NULL WHERE run_id = ? "
        "AND status = "
        f"'failed' AND subject_id IN ({', '.join('?' for _ in item_ids)})", [run_id, *item_ids]).rowcount


def supersede_pending(conn: Database, course_id: int, new_run_id: int) -> int:
    """Pending items of the course's earlier, stopped runs of the same kind are skipped: the new
    run takes them, and a later resume of an old run must not do them a second time."""
    return conn.execute(
        "UPDATE run_items SET status = 'skipped', error = ?, finished_at = ? WHERE status = 'pending' AND run_id IN "
        "(SELECT id FROM runs WHERE course_id = ? AND id != ? AND kind = (SELECT kind FROM runs WHERE id = ?) "
        f"AND status NOT IN ({', '.join('?' for _ in ACTIVE)}))",
        [f"superseded by run {new_run_id}", now(), course_id, new_run_id, new_run_id, *ACTIVE]).rowcount


def item_counts(conn: Database, run_id: int) -> dict[str, int]:
    """Items per state; every state of the run's kind is present (0 when none)."""
    row = conn.execute("SELECT kind FROM runs WHERE id = ?", [run_id]).fetchone()
    counts = dict.fromkeys(ITEM_STATES[row[0] if row else "reflections"], 0)
    for status, n in conn.execute("SELECT status, COUNT(*) FROM run_items WHERE run_id = ? GROUP BY status", [run_id]):
        counts[status] = n
    return counts


def failed_items(conn: Database, run_id: int, limit: int = 50) -> list[dict]:
    return list(conn.query("SELECT subject_id AS submission_id, error FROM run_items WHERE run_id = ? AND "
                           "status = 'failed' ORDER BY rowid LIMIT ?", [run_id, limit]))


def ended_items(conn: Database, run_id: int, status: str, limit: int = 50) -> list[dict]:
    """The run's failed or skipped items with why: {submission_id, error (the English), error_said
    (its form, decoded; None for an item from before the form was kept, or one FairMark gave none)}."""
    rows = list(conn.query("SELECT subject_id AS submission_id, error, error_said FROM run_items WHERE run_id = ? "
                           "AND status = ? ORDER BY rowid LIMIT ?", [run_id, status, limit]))
    for row in rows:
        row["error_said"] = loads(row["error_said"])
    return rows


def call_totals(conn: Database, run_id: int) -> dict:
    row = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(cache_hit), 0), COALESCE(SUM(tokens_in), 0), COALESCE(SUM(tokens_out), 0), "
        "COALESCE(SUM(cost_usd), 0), COALESCE(SUM(status = 'error'), 0) FROM llm_calls WHERE run_id = ?",
        [run_id]).fetchone()
    return {"calls": row[0], "cache_hits": row[1], "tokens_in": row[2], "tokens_out": row[3],
            "cost_usd": round(row[4], 6), "call_errors": row[5]}

