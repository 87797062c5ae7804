"""Notes anchored to a passage of a submission (m027c) and the copies a release locks. Every
statement about anchored_notes and released_notes is here; callers check the actor first
(core.signoff.anchored_notes)."""
from __future__ import annotations

from sqlite_utils import Database

from db import dumps
from db.errors import NotFound
from db.message import Message

_COLUMNS = ("id, submission_id, start_char, end_char, quote, criterion, note, origin, draft_id, state, "
            "created_by, created_at, updated_by, updated_at")


def insert(conn: Database, *, submission_id: int, start: int, end: int, quote: str, criterion: str | None,
           note: str, origin: str, draft_id: int | None, state: str, created_by: str, at: str) -> int:
    return conn.execute(
        "INSERT INTO anchored_notes (submission_id, start_char, end_char, quote, criterion, note, origin, draft_id, "
        "state, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [submission_id, start, end, quote, criterion, note, origin, draft_id, state, created_by, at]).lastrowid


def get(conn: Database, note_id: int) -> dict:
    row = next(conn.query(f"SELECT {_COLUMNS} FROM anchored_notes WHERE id = ?", [int(note_id)]), None)
    if row is None:
        raise NotFound(Message("note {id} does not exist", id=note_id))
    return row


def update(conn: Database, note_id: int, *, note: str, criterion: str | None, state: str, by: str, at: str) -> None:
    conn.execute("UPDATE anchored_notes SET note = ?, criterion = ?, state = ?, updated_by = ?, updated_at = ? "
                 "WHERE id = ?", [note, criterion, state, by, at, int(note_id)])


def delete(conn: Database, note_id: int) -> None:
    conn.execute("DELETE FROM anchored_notes WHERE id = ?", [int(note_id)])


def of_submission(conn: Database, submission_id: int) -> list[dict]:
    """Every note of the item (kept and dropped), in the order of the text."""
    return list(conn.query(f"SELECT {_COLUMNS} FROM anchored_notes WHERE submission_id = ? "
                           "ORDER BY start_char, id", [int(submission_id)]))


def kept_of(conn: Database, submission_ids) -> dict[int, list[dict]]:
    """{submission id: its kept notes now, in text order} (an approved item not released yet)."""
    ids = [int(i) for i in submission_ids]
    out: dict[int, list[dict]] = {i: [] for i in ids}
    if ids:
        for r in conn.query("SELECT submission_id, start_char, end_char, quote, criterion, note FROM anchored_notes "
                            "WHERE state = 'kept' AND submission_id IN (SELECT value FROM json_each(?)) "
                            "ORDER BY submission_id, start_char, id", [_json(ids)]):
            out[r["submission_id"]].append(r)
    return out


def lock(conn: Database, release_id: int, submission_ids) -> int:
    """Copy each released item's kept notes into its release (call in the release's transaction)."""
    return conn.execute(
        "INSERT INTO released_notes (release_id, submission_id, start_char, end_char, quote, criterion, note) "
        "SELECT ?, submission_id, start_char, end_char, quote, criterion, note FROM anchored_notes "
        "WHERE state = 'kept' AND submission_id IN (SELECT value FROM json_each(?)) ORDER BY submission_id, "
        "start_char, id", [int(release_id), _json(submission_ids)]).rowcount


def released_of(conn: Database, submission_ids, release_id: int | None = None) -> dict[int, list[dict]]:
    """{submission id: the notes of its latest release (of `release_id` when given), in text order}."""
    ids = [int(i) for i in submission_ids]
    out: dict[int, list[dict]] = {i: [] for i in ids}
    if ids:
        for r in conn.query(
                "SELECT n.submission_id, n.start_char, n.end_char, n.quote, n.criterion, n.note FROM released_notes n "
                "WHERE n.submission_id IN (SELECT value FROM json_each(?)) AND n.release_id = COALESCE(?, "
                "(SELECT MAX(release_id) FROM release_items WHERE submission_id = n.submission_id)) "
                "ORDER BY n.submission_id, n.start_char, n.id", [_json(ids), release_id]):
            out[r["submission_id"]].append(r)
    return out


def _json(ids) -> str:
    return dumps([int(i) for i in ids])
