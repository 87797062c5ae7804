"""The Rubric builder's drafts (m027a) and the versions of a rubric (rubrics rows of one name).

A draft belongs to the course it was built for and stays a draft until an instructor or admin
saves it; its scored examples are student text, kept only while it is a draft."""
from __future__ import annotations

from sqlite_utils import Database

import db as dbmod
from db.errors import NotFound
from db.message import Message


def insert(conn: Database, *, course_id: int, description: str, source: str, definition: dict,
           created_by: str, examples: list[dict], note: str = "", based_on: int | None = None) -> int:
    """A new draft with its examples ({text, score, student_id}); returns its id. Call in a transaction."""
    draft_id = conn.execute(
        "INSERT INTO rubric_drafts (course_id, description, source, note, definition, based_on, created_by) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [course_id, description, source, note, dbmod.dumps(definition), based_on, str(created_by)]).lastrowid
    for ex in examples:
        conn.execute("INSERT INTO rubric_draft_examples (draft_id, student_id, score, text) VALUES (?, ?, ?, ?)",
                     [draft_id, ex.get("student_id"), int(ex["score"]), ex["text"]])
    return draft_id


def set_result(conn: Database, draft_id: int, *, source: str, definition: dict, note: str) -> None:
    conn.execute("UPDATE rubric_drafts SET source = ?, definition = ?, note = ? WHERE id = ?",
                 [source, dbmod.dumps(definition), note, draft_id])


def update_definition(conn: Database, draft_id: int, definition: dict) -> None:
    conn.execute("UPDATE rubric_drafts SET definition = ? WHERE id = ? AND saved_rubric_id IS NULL",
                 [dbmod.dumps(definition), draft_id])


def _decode(row: dict) -> dict:
    row = dict(row)
    row["definition"] = dbmod.loads(row["definition"], {})
    return row


def get(conn: Database, draft_id: int) -> dict:
    row = next(conn.query("SELECT * FROM rubric_drafts WHERE id = ?", [draft_id]), None)
    if row is None:
        raise NotFound(Message("rubric draft {id} does not exist", id=draft_id))
    return _decode(row)


def of_course(conn: Database, course_id: int, *, unsaved_only: bool = True) -> list[dict]:
    sql = "SELECT * FROM rubric_drafts WHERE course_id = ?" + (" AND saved_rubric_id IS NULL" if unsaved_only else "")
    return [_decode(r) for r in conn.query(sql + " ORDER BY id DESC", [course_id])]


def examples(conn: Database, draft_id: int) -> list[dict]:
    """The draft's scored examples still kept (none once it is saved: see mark_saved)."""
    return list(conn.query("SELECT id, student_id, score, text FROM rubric_draft_examples WHERE draft_id = ? "
                           "AND text != '' ORDER BY id", [draft_id]))


def mark_saved(conn: Database, draft_id: int, *, rubric_id: int, saved_by: str) -> int:
    """The draft is now a rubric version: its examples (student text) are no longer kept, but
    which students they were by stays (an empty text): the draft and its calls to the model may
    quote them, and go when such a student is deleted. Returns 1, or 0 when another save came
    first. Call in a transaction."""
    n = conn.execute("UPDATE rubric_drafts SET saved_rubric_id = ?, saved_by = ?, saved_at = ? "
                     "WHERE id = ? AND saved_rubric_id IS NULL", [rubric_id, str(saved_by), dbmod.now(), draft_id]
                     ).rowcount
    if n:
        conn.execute("DELETE FROM rubric_draft_examples WHERE draft_id = ? AND student_id IS NULL", [draft_id])
        conn.execute("UPDATE rubric_draft_examples SET text = '' WHERE draft_id = ?", [draft_id])
    return n


# --- versions: the rubrics rows of one name -------------------------------------------------
def versions(conn: Database, name: str) -> list[dict]:
    return list(conn.query("SELECT id, name, version, content_hash, created_at, restores FROM rubrics "
                           "WHERE name = ? ORDER BY version", [name]))


def add_version(conn: Database, definition_json: str, *, name: str, version: int, content_hash: str,
                restores: int | None) -> int:
    """A new row even when its content equals an older version's (a rollback). Call in a transaction."""
    return conn.execute("INSERT INTO rubrics (name, version, definition, content_hash, restores) "
                        "VALUES (?, ?, ?, ?, ?)", [name, version, definition_json, content_hash, restores]).lastrowid


def in_use(conn: Database, rubric_id: int) -> dict:
    """How many assignments use this version and how many AI drafts were scored under it."""
    row = conn.execute("SELECT (SELECT COUNT(*) FROM assignments WHERE rubric_id = ?), "
                       "(SELECT COUNT(*) FROM drafts WHERE rubric_id = ?)", [rubric_id, rubric_id]).fetchone()
    return {"assignments": row[0], "drafts": row[1]}


# --- whose text an example is (so it is deleted with that student) ---------------------------
def course_people(conn: Database, course_id: int) -> list[dict]:
    """[{id, name, email, pseudonym}] of the course's students, in id order (masking needs them)."""
    return list(conn.query("SELECT id, name, email, pseudonym FROM students WHERE course_id = ? ORDER BY id",
                           [course_id]))


def author_of(conn: Database, course_id: int, text: str) -> int | None:
    """The student of this course who submitted exactly this text (trimmed), if any."""
    row = conn.execute("SELECT s.student_id FROM submissions s JOIN assignments a ON a.id = s.assignment_id "
                       "WHERE a.course_id = ? AND trim(s.text) = ? ORDER BY s.id LIMIT 1",
                       [course_id, text.strip()]).fetchone()
    return row[0] if row else None


def delete(conn: Database, draft_id: int) -> dict[str, int]:
    """A draft, its examples and its calls to the model. Call in a transaction."""
    return {"llm_calls": conn.execute("DELETE FROM llm_calls WHERE rubric_draft_id = ?", [draft_id]).rowcount,
            "rubric_draft_examples": conn.execute("DELETE FROM rubric_draft_examples WHERE draft_id = ?",
                                                  [draft_id]).rowcount,
            "rubric_drafts": conn.execute("DELETE FROM rubric_drafts WHERE id = ?", [draft_id]).rowcount}
