"""Courses, rubrics, assignments and students: the catalogue everything else hangs on."""
from __future__ import annotations

import functools

from sqlite_utils import Database

from db import dumps, loads
from db.errors import NotFound
from db.message import Message
from db.rubric_model import Rubric, parse_rubric

STATUSES = ("uploaded", "drafted", "needs_attention", "failed", "approved", "rejected", "released")


# --- rubrics -----------------------------------------------------------------------
def save_rubric(conn: Database, rubric: Rubric) -> int:
    """Store a rubric and return its id.

    Identical content under the same name returns the existing row. Different content
    under a name that exists becomes a new version (max + 1): rows of older versions
    are never changed, so scores given under them keep their meaning.
    """
    rows = list(conn.query(
        "SELECT id, version, content_hash FROM rubrics WHERE name = ? ORDER BY version", [rubric.name]))
    for row in rows:
        if row["content_hash"] == _hash_without_version(rubric):
            return row["id"]
    version = (rows[-1]["version"] + 1) if rows else rubric.version
    stored = rubric.model_copy(update={"version": version})
    cur = conn.execute(
        "INSERT INTO rubrics (name, version, definition, content_hash) VALUES (?, ?, ?, ?)",
        [stored.name, version, stored.to_json(), _hash_without_version(stored)],
    )
    return cur.lastrowid


def _hash_without_version(rubric: Rubric) -> str:
    return rubric.model_copy(update={"version": 1}).content_hash


def get_rubric(conn: Database, rubric_id: int) -> Rubric:
    row = conn.execute("SELECT definition FROM rubrics WHERE id = ?", [rubric_id]).fetchone()
    if row is None:
        raise NotFound(Message("rubric {id} does not exist", id=rubric_id))
    return _stored_rubric(row[0]).model_copy(deep=True)   # callers may change their copy


@functools.lru_cache(maxsize=128)
def _stored_rubric(definition: str) -> Rubric:
    """A stored rubric version, parsed once per process: every page run reads one or more, and
    parsing (YAML, which also reads the stored JSON) cost more than the rest of the read."""
    return parse_rubric(definition)


def list_rubrics(conn: Database) -> list[dict]:
    return list(conn.query("SELECT id, name, version, content_hash, created_at FROM rubrics ORDER BY name, version"))


# --- courses -----------------------------------------------------------------------
def list_courses(conn: Database) -> list[dict]:
    return list(conn.query("SELECT * FROM courses ORDER BY name"))


def get_course(conn: Database, course_id: int) -> dict:
    row = next(conn.query("SELECT * FROM courses WHERE id = ?", [course_id]), None)
    if row is None:
        raise NotFound(Message("course {id} does not exist", id=course_id))
    return row


def find_course(conn: Database, name: str) -> dict | None:
    return next(conn.query("SELECT * FROM courses WHERE name = ?", [name]), None)


def course_by_name(conn: Database, name: str) -> dict:
    row = find_course(conn, name)
    if row is None:
        names = ", ".join(c["name"] for c in list_courses(conn)) or Message("none yet")
        raise NotFound(Message("no course named {name!r} (courses: {names})", name=name, names=names))
    return row


def ensure_course(conn: Database, name: str, description: str = "", is_synthetic: bool = False) -> int:
    name = name.strip()
    if not name:
        raise NotFound(Message("a course needs a name"))
    row = find_course(conn, name)
    if row:
        return row["id"]
    return conn.execute(
        "INSERT INTO courses (name, description, is_synthetic) VALUES (?, ?, ?)",
        [name, description, int(is_synthetic)],
    ).lastrowid


def update_course(conn: Database, course_id: int, *, name: str, description: str) -> None:
    conn.execute("UPDATE courses SET name = ?, description = ? WHERE id = ?", [name.strip(), description, course_id])


def course_language(conn: Database, course_id: int) -> str:
    """The course's language code (m030a; 'en' for every course made before it)."""
    return get_course(conn, course_id)["language"]


def set_course_language(conn: Database, course_id: int, language: str) -> None:
    conn.execute("UPDATE courses SET language = ? WHERE id = ?", [language, course_id])


# --- assignments -------------------------------------------------------------------
def _assignment(row: dict) -> dict:
    row = dict(row)
    row["key_concepts"] = loads(row.get("key_concepts"), [])
    return row


def list_assignments(conn: Database, course_id: int) -> list[dict]:
    return [_assignment(r) for r in conn.query(
        "SELECT * FROM assignments WHERE course_id = ? ORDER BY week, title", [course_id])]


def get_assignment(conn: Database, assignment_id: int) -> dict:
    row = next(conn.query("SELECT * FROM assignments WHERE id = ?", [assignment_id]), None)
    if row is None:
        raise NotFound(Message("assignment {id} does not exist", id=assignment_id))
    return _assignment(row)


def find_assignment(conn: Database, course_id: int, title: str) -> dict | None:
    row = next(conn.query("SELECT * FROM assignments WHERE course_id = ? AND title = ?", [course_id, title]), None)
    return _assignment(row) if row else None


def assignment_by_title(conn: Database, course_id: int, title: str) -> dict:
    row = find_assignment(conn, course_id, title)
    if row is None:
        titles = ", ".join(a["title"] for a in list_assignments(conn, course_id)) or Message("none yet")
        raise NotFound(Message("no assignment titled {title!r} in this course (assignments: {titles})", title=title,
                               titles=titles))
    return row


def ensure_assignment(conn: Database, course_id: int, title: str, *, rubric_id: int, week: int | None = None,
                      prompt: str = "", key_concepts: list[str] | None = None, target_grade: float = 10,
                      answer_key: str | None = None) -> int:
    title = title.strip()
    if not title:
        raise NotFound(Message("an assignment needs a title"))
    row = find_assignment(conn, course_id, title)
    if row:
        return row["id"]
    return conn.execute(
        "INSERT INTO assignments (course_id, title, week, prompt, key_concepts, target_grade, answer_key, rubric_id) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [course_id, title, week, prompt, dumps(key_concepts or []), target_grade, answer_key, rubric_id],
    ).lastrowid


def update_assignment(conn: Database, assignment_id: int, **fields) -> None:
    allowed = {"title", "week", "prompt", "key_concepts", "target_grade", "answer_key", "rubric_id",
               "answer_kind", "answer_tolerance", "source_text", "appeal_deadline"}
    bad = set(fields) - allowed
    if bad:
        raise ValueError(f"cannot update {sorted(bad)}")
    if "key_concepts" in fields:
        fields["key_concepts"] = dumps(list(fields["key_concepts"]))
    if not fields:
        return
    sets = ", ".join(f"{k} = ?" for k in fields)
    conn.execute(f"UPDATE assignments SET {sets} WHERE id = ?", [*fields.values(), assignment_id])


def assignment_rubric(conn: Database, assignment_id: int) -> Rubric:
    return get_rubric(conn, get_assignment(conn, assignment_id)["rubric_id"])


# --- students ----------------------------------------------------------------------
def list_students(conn: Database, course_id: int) -> list[dict]:
    rows = list(conn.query("SELECT * FROM students WHERE course_id = ? ORDER BY name, external_id", [course_id]))
    for r in rows:
        r["attributes"] = loads(r["attributes"], {})
    return rows


# --- status counts (Home page) ------------------------------------------------------
def status_counts(conn: Database, *, course_id: int | None = None, assignment_id: int | None = None) -> dict[str, int]:
    """Submissions per status; every status present as a key (0 when none)."""
    if assignment_id is not None:
        sql = "SELECT status, COUNT(*) FROM submissions WHERE assignment_id = ? GROUP BY status"
        args = [assignment_id]
    elif course_id is not None:
        sql = ("SELECT s.status, COUNT(*) FROM submissions s JOIN assignments a ON a.id = s.assignment_id "
               "WHERE a.course_id = ? GROUP BY s.status")
        args = [course_id]
    else:
        sql, args = "SELECT status, COUNT(*) FROM submissions GROUP BY status", []
    counts = dict.fromkeys(STATUSES, 0)
    for status, n in conn.execute(sql, args).fetchall():
        counts[status] = n
    return counts


def is_empty(conn: Database) -> bool:
    return conn.execute("SELECT NOT EXISTS (SELECT 1 FROM courses)").fetchone()[0] == 1




_LOCATE = {
    "course": "SELECT id, NULL FROM courses WHERE id = ?",
    "assignment": "SELECT course_id, id FROM assignments WHERE id = ?",
    "item": "SELECT a.course_id, s.assignment_id FROM submissions s JOIN assignments a ON a.id = s.assignment_id "
            "WHERE s.id = ?",
    "run": "SELECT course_id, assignment_id FROM runs WHERE id = ?",
    "lesson": "SELECT course_id, NULL FROM lessons WHERE id = ?",
}


def locate(conn: Database, kind: str, id_: int) -> tuple[int, int | None] | None:
    """Where a course, assignment, item (submission), run or lesson of a link lives: (course id,
    assignment id or None); None when it does not exist."""
    row = conn.execute(_LOCATE[kind], [id_]).fetchone()
    return (row[0], row[1]) if row else None
