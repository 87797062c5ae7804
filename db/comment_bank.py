"""The comment bank's rows (m027b): a course bank (owner NULL) and each teacher's own bank in a
course (owner: their username). Callers check the actor first (core.courses.comment_bank)."""
from __future__ import annotations

from sqlite_utils import Database

from db.errors import NotFound
from db.message import Message

_COLUMNS = "id, course_id, owner, text, criterion, level, uses, created_by, created_at"


def insert(conn: Database, *, course_id: int, owner: str | None, text: str, criterion: str | None,
           level: int | None, created_by: str) -> int:
    return conn.execute("INSERT INTO bank_comments (course_id, owner, text, criterion, level, created_by) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        [course_id, owner, text, criterion, level, str(created_by)]).lastrowid


def get(conn: Database, bank_comment_id: int) -> dict:
    row = next(conn.query(f"SELECT {_COLUMNS} FROM bank_comments WHERE id = ?", [bank_comment_id]), None)
    if row is None:
        raise NotFound(Message("bank comment {id} does not exist", id=bank_comment_id))
    return row


def update(conn: Database, bank_comment_id: int, *, text: str, criterion: str | None, level: int | None) -> None:
    conn.execute("UPDATE bank_comments SET text = ?, criterion = ?, level = ? WHERE id = ?",
                 [text, criterion, level, bank_comment_id])


def delete(conn: Database, bank_comment_id: int) -> None:
    conn.execute("DELETE FROM bank_comments WHERE id = ?", [bank_comment_id])


def count_use(conn: Database, bank_comment_id: int) -> None:
    conn.execute("UPDATE bank_comments SET uses = uses + 1 WHERE id = ?", [bank_comment_id])


def of_bank(conn: Database, course_id: int, owner: str | None, query: str = "") -> list[dict]:
    """One bank's comments (owner None: the course bank), most used first; `query` a
    case-insensitive substring of the text (SQLite's LIKE folds ASCII; instr on lower() too)."""
    sql = (f"SELECT {_COLUMNS} FROM bank_comments WHERE course_id = ? AND owner IS ? "
           "AND instr(lower(text), lower(?)) > 0 ORDER BY uses DESC, id")
    return list(conn.query(sql, [course_id, owner, query or ""]))


def of_course(conn: Database, course_id: int) -> list[dict]:
    """Every bank comment in the course (the course bank and each teacher's own): {id, text}."""
    return list(conn.query("SELECT id, text FROM bank_comments WHERE course_id = ? ORDER BY id", [course_id]))


def has_text(conn: Database, course_id: int, owner: str | None, text: str) -> bool:
    return conn.execute("SELECT 1 FROM bank_comments WHERE course_id = ? AND owner IS ? AND text = ?",
                        [course_id, owner, text]).fetchone() is not None


def candidates(conn: Database, course_id: int, owner: str | None, limit: int) -> list[dict]:
    """Comments of the course bank and of `owner`'s bank that are tied to a criterion and level,
    the owner's and the most used first (the Aggregator picks its style examples among them)."""
    return list(conn.query(
        f"SELECT {_COLUMNS} FROM bank_comments WHERE course_id = ? AND (owner IS NULL OR owner IS ?) "
        "AND criterion IS NOT NULL AND level IS NOT NULL ORDER BY (owner IS ?) DESC, uses DESC, id LIMIT ?",
        [course_id, owner, owner, limit]))


def run_starter(conn: Database, submission_id: int) -> str | None:
    """Who started the latest reflections run that holds this submission (None: none did)."""
    row = conn.execute("SELECT r.created_by FROM run_items i JOIN runs r ON r.id = i.run_id "
                       "WHERE i.subject = 'submission' AND i.subject_id = ? ORDER BY r.id DESC LIMIT 1",
                       [submission_id]).fetchone()
    return row[0] if row and row[0] else None
