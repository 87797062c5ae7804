"""Batches submitted to the endpoint's batch engine (m017b), and the answers they returned."""
from __future__ import annotations

from sqlite_utils import Database

from db import dumps, loads, now, write_transaction

FINAL = ("completed", "failed", "expired", "cancelled")


def record(conn: Database, *, run_id: int | None, batch_id: str, input_file_id: str, status: str,
           requests: list[tuple[str, str]]) -> int:
    """A submitted batch and its requests [(custom_id, request_hash)], in one transaction."""
    with write_transaction(conn):
        row = conn.execute("INSERT INTO llm_batches (run_id, batch_id, input_file_id, status, requests, created_at) "
                           "VALUES (?,?,?,?,?,?)", [run_id, batch_id, input_file_id, status, len(requests),
                                                    now()]).lastrowid
        conn.conn.executemany("INSERT INTO llm_batch_requests (batch, custom_id, request_hash) VALUES (?,?,?)",
                              [(row, cid, h) for cid, h in requests])
    return row


def open_batches(conn: Database) -> list[dict]:
    """Batches not finished yet: {batch_id, run_id, requests: {custom_id: request_hash}}."""
    out = []
    for row in conn.query("SELECT id, batch_id, run_id FROM llm_batches WHERE status NOT IN "
                          f"({', '.join('?' * len(FINAL))}) ORDER BY id", list(FINAL)):
        reqs = dict(conn.execute("SELECT custom_id, request_hash FROM llm_batch_requests WHERE batch = ?",
                                 [row["id"]]).fetchall())
        out.append({"batch_id": row["batch_id"], "run_id": row["run_id"], "requests": reqs})
    return out


def finish(conn: Database, batch_id: str, status: str, *, answers: dict[str, dict] | None = None,
           output_file_id: str | None = None, error_file_id: str | None = None, error: str | None = None) -> None:
    """A batch's final status and its answer lines {custom_id: line}, in one transaction."""
    with write_transaction(conn):
        row = conn.execute("SELECT id FROM llm_batches WHERE batch_id = ?", [batch_id]).fetchone()[0]
        conn.execute("UPDATE llm_batches SET status = ?, output_file_id = ?, error_file_id = ?, error = ?, "
                     "finished_at = ? WHERE id = ?", [status, output_file_id, error_file_id, error, now(), row])
        conn.conn.executemany(
            "UPDATE llm_batch_requests SET status_code = ?, response = ? WHERE batch = ? AND custom_id = ?",
            [(int((line.get("response") or {}).get("status_code") or 0), dumps(line), row, cid)
             for cid, line in (answers or {}).items()])


def set_status(conn: Database, batch_id: str, status: str) -> None:
    conn.execute("UPDATE llm_batches SET status = ? WHERE batch_id = ?", [status, batch_id])


def answered(conn: Database, request_hash: str) -> dict | None:
    """The answer line a completed batch gave this request (successful answers only: a failed
    one is asked again)."""
    row = conn.execute("SELECT response FROM llm_batch_requests WHERE request_hash = ? AND status_code = 200 "
                       "ORDER BY batch DESC LIMIT 1", [request_hash]).fetchone()
    return loads(row[0]) if row else None


def of_run(conn: Database, run_id: int) -> list[dict]:
    """The batches of a run, oldest first (the Assess page and the command line show them)."""
    return list(conn.query("SELECT batch_id, status, requests, created_at, finished_at, error FROM llm_batches "
                           "WHERE run_id = ? ORDER BY id", [run_id]))
