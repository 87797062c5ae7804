"""The teacher's version of each item (`reviews`, one row per submission) and what the item
view reads: the review, its drafts, its audit history and its releases.

Writes to `reviews` are conditional on the version the teacher loaded (`update_review`), the
optimistic lock core.signoff builds its conflict messages on.
"""
from __future__ import annotations

from sqlite_utils import Database

from db import drafts, dumps, loads, now
from db.submissions import get_submission

# Columns a sign-off action may change (the rest are set by insert_review / update_review).
_EDITABLE = frozenset({"draft_id", "scores", "comment", "edited", "reason_codes", "note", "status",
                       "approved_by", "approved_at", "approved_in_bulk"})
_JSON = ("scores", "reason_codes")


def _review(row: dict | None) -> dict | None:
    if row is None:
        return None
    row = dict(row)
    row["scores"] = loads(row["scores"], {})
    row["reason_codes"] = loads(row["reason_codes"], [])
    return row


def get_review(conn: Database, submission_id: int) -> dict | None:
    return _review(next(conn.query("SELECT * FROM reviews WHERE submission_id = ?", [submission_id]), None))


def insert_review(conn: Database, submission_id: int, *, draft_id: int | None, scores: dict, comment: str,
                  actor: str, at: str) -> int:
    """The teacher's review, created in review (version 1) and opened now; returns its id."""
    return conn.execute(
        "INSERT INTO reviews (submission_id, draft_id, version, scores, comment, status, opened_at, "
        "updated_by, updated_at) VALUES (?, ?, 1, ?, ?, 'in_review', ?, ?, ?)",
        [submission_id, draft_id, dumps(scores), comment, at, actor, at]).lastrowid


def mark_opened(conn: Database, review_id: int, at: str) -> None:
    conn.execute("UPDATE reviews SET opened_at = ? WHERE id = ?", [at, review_id])


def update_review(conn: Database, review_id: int, loaded_version: int, fields: dict, *, actor: str) -> int:
    """Write `fields` and move to version loaded_version + 1, only while the row is still at
    `loaded_version`. Returns the rowcount: 0 means someone saved first and nothing was written."""
    unknown = set(fields) - _EDITABLE
    if unknown:
        raise ValueError(f"not an editable review column: {sorted(unknown)}")
    stored = {k: dumps(v) if k in _JSON else v for k, v in fields.items()}
    stored.update(version=loaded_version + 1, updated_by=actor, updated_at=now())
    sets = ", ".join(f"{k} = ?" for k in stored)
    return conn.execute(f"UPDATE reviews SET {sets} WHERE id = ? AND version = ?",
                        [*stored.values(), review_id, loaded_version]).rowcount


# --- one item ---------------------------------------------------------------------------
def item(conn: Database, submission_id: int) -> dict:
    """Everything the item view shows: submission, student, assignment, drafts, review, releases."""
    sub = get_submission(conn, submission_id)
    student = next(conn.query("SELECT id, external_id, name, pseudonym FROM students WHERE id = ?",
                              [sub["student_id"]]))
    assignment = next(conn.query("SELECT id, course_id, title, week, rubric_id, target_grade, prompt, answer_key, "
                                 "answer_kind, answer_tolerance FROM assignments WHERE id = ?", [sub["assignment_id"]]))
    review = get_review(conn, submission_id)
    current = drafts.get_draft(conn, sub["current_draft_id"]) if sub["current_draft_id"] else None
    base = current
    if review and review["draft_id"] and (current is None or review["draft_id"] != current["id"]):
        base = drafts.get_draft(conn, review["draft_id"])
    latest = drafts.latest_draft_id(conn, submission_id)
    releases = list(conn.query(
        "SELECT ri.release_id, ri.review_version, rel.released_by, rel.released_at "
        "FROM release_items ri JOIN releases rel ON rel.id = ri.release_id "
        "WHERE ri.submission_id = ? ORDER BY ri.release_id", [submission_id]))
    return {"submission": sub, "student": student, "assignment": assignment, "review": review,
            "draft": base, "current_draft": current, "latest_draft_id": latest, "releases": releases}


# --- audit trail ------------------------------------------------------------------------
def history(conn: Database, submission_id: int) -> list[dict]:
    """The item's audit trail, oldest first (who, when, what, before, after, why)."""
    rows = list(conn.query(
        "SELECT id, at, actor, action, entity, entity_id, before, after, reason FROM audit_log "
        "WHERE submission_id = ? ORDER BY id", [submission_id]))
    for r in rows:
        r["before"] = loads(r["before"], None)
        r["after"] = loads(r["after"], None)
    return rows


def review_at_version(conn: Database, submission_id: int, version: int) -> dict | None:
    """The review as it was at `version`, reconstructed from the audit log."""
    row = conn.execute(
        "SELECT after FROM audit_log WHERE submission_id = ? AND entity = 'reviews' "
        "AND json_extract(after, '$.version') = ? ORDER BY id DESC LIMIT 1",
        [submission_id, version]).fetchone()
    return loads(row[0], None) if row else None


def last_change(conn: Database, submission_id: int) -> dict | None:
    return next(conn.query(
        "SELECT actor, at, action FROM audit_log WHERE submission_id = ? AND entity = 'reviews' "
        "ORDER BY id DESC LIMIT 1", [submission_id]), None)
