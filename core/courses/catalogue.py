"""Editing the catalogue (courses, assignments, rubric versions) with an audit trail.

The Settings page calls these; each change is one transaction with its audit row.
A rubric edit always becomes a new version (db.courses.save_rubric): drafts and reviews
keep the rubric_id they were scored under, so scores already given never change meaning.
"""
from __future__ import annotations

from core.accounts import access
from core.accounts.access import Actor
from core.appeals import deadline
from core.errors import NotFound, RubricError
from core.language import course as course_language
from core.language.interface import Message
from core.rubric import Rubric, parse_rubric
from db import audit, courses
from db import users as users_db

LEVEL_PREFIX = "level_"


def check_course_name(conn, actor: Actor, name: str) -> int | None:
    """Before writing into the course named `name` (an upload, the demo): an existing course
    needs the upload grant, a new one the right to create courses. Returns the existing id."""
    found = courses.find_course(conn, (name or "").strip())
    if found is None:
        access.require(actor, "create_course")
        return None
    access.check(conn, actor, "upload", course=found["id"])
    return found["id"]


def grant_creator(conn, actor: Actor, course_id: int) -> None:
    """Whoever creates a course without access to every course is granted it (call in the
    creating transaction)."""
    if actor.user_id is not None and not actor.all_courses:
        users_db.grant(conn, actor.user_id, course_id=course_id, actor=actor)


def create_course(conn, name: str, description: str = "", *, actor: Actor) -> int:
    access.require(actor, "create_course")
    name = (name or "").strip()
    if not name:
        raise NotFound(Message("Type a name for the new course"))
    if courses.find_course(conn, name):
        raise NotFound(Message("A course named {name!r} already exists; choose it instead", name=name))
    with conn.atomic():
        cid = courses.ensure_course(conn, name, description)
        audit(conn, actor=actor, action="create", entity="courses", entity_id=cid, after={"name": name})
        grant_creator(conn, actor, cid)
    return cid


def edit_course(conn, course_id: int, *, name: str, description: str, language: str | None = None,
                actor: Actor) -> None:
    """The course's name, description and (given) language (core.language code), in one audited
    change; a bad value changes nothing."""
    access.check(conn, actor, "upload", course=course_id)
    before = courses.get_course(conn, course_id)
    name = (name or "").strip()
    if not name:
        raise NotFound(Message("A course needs a name"))
    other = courses.find_course(conn, name)
    if other and other["id"] != course_id:
        raise NotFound(Message("Another course is already named {name!r}", name=name))
    old_language = course_language.stored(before.get("language"))
    new_language = old_language if language is None else course_language.parse(language)
    with conn.atomic():
        courses.update_course(conn, course_id, name=name, description=description)
        if new_language != old_language:
            courses.set_course_language(conn, course_id, new_language)
        audit(conn, actor=actor, action="edit", entity="courses", entity_id=course_id,
              before={"name": before["name"], "description": before["description"], "language": old_language},
              after={"name": name, "description": description, "language": new_language})


def set_language(conn, course_id: int, language: str, *, actor: Actor) -> dict:
    """The course's language (its reflections' and its feedback's): {} when it already was, else
    {"language": <code>}. An unsupported code is a ConfigError naming the supported ones, nothing
    changed. Drafts already written keep their language; the next run drafts in the new one."""
    access.check(conn, actor, "upload", course=course_id)
    new = course_language.parse(language)
    before = course_language.stored(courses.get_course(conn, course_id).get("language"))
    if new == before:
        return {}
    with conn.atomic():
        courses.set_course_language(conn, course_id, new)
        audit(conn, actor=actor, action="edit", entity="courses", entity_id=course_id,
              before={"language": before}, after={"language": new})
    return {"language": new}


def create_assignment(conn, course_id: int, title: str, *, rubric_id: int, actor: Actor, week: int | None = None,
                      prompt: str = "", key_concepts: list[str] | None = None, target_grade: float = 10,
                      answer_key: str | None = None) -> int:
    access.check(conn, actor, "upload", course=course_id)
    title = (title or "").strip()
    if not title:
        raise NotFound(Message("Type a title for the new assignment"))
    if courses.find_assignment(conn, course_id, title):
        raise NotFound(Message("This course already has an assignment titled {title!r}", title=title))
    courses.get_rubric(conn, rubric_id)
    with conn.atomic():
        aid = courses.ensure_assignment(conn, course_id, title, rubric_id=rubric_id, week=week, prompt=prompt,
                                        key_concepts=key_concepts, target_grade=target_grade,
                                        answer_key=answer_key)
        audit(conn, actor=actor, action="create", entity="assignments", entity_id=aid,
              after={"title": title, "rubric_id": rubric_id, "week": week})
    return aid


def edit_assignment(conn, assignment_id: int, *, actor: Actor, **fields) -> dict:
    """Update title/week/prompt/key_concepts/target_grade/answer_key/rubric_id/appeal_deadline; returns what
    changed."""
    access.check(conn, actor, "upload", assignment=assignment_id)
    before = courses.get_assignment(conn, assignment_id)
    if "title" in fields:
        fields["title"] = (fields["title"] or "").strip()
        if not fields["title"]:
            raise NotFound(Message("An assignment needs a title"))
        other = courses.find_assignment(conn, before["course_id"], fields["title"])
        if other and other["id"] != assignment_id:
            raise NotFound(Message("This course already has an assignment titled {title!r}", title=fields["title"]))
    if "rubric_id" in fields:
        courses.get_rubric(conn, fields["rubric_id"])
    if "target_grade" in fields and not 1 <= float(fields["target_grade"]) <= 18:
        raise NotFound(Message("Target reading level must be a school grade between 1 and 18"))
    if "answer_key" in fields and not (fields["answer_key"] or "").strip():
        fields["answer_key"] = None
    if "appeal_deadline" in fields:  # a date, a date and time, or none (appeals off)
        fields["appeal_deadline"] = deadline.parse(fields["appeal_deadline"])
    changed = {k: v for k, v in fields.items() if before.get(k) != v}
    if not changed:
        return {}
    with conn.atomic():
        courses.update_assignment(conn, assignment_id, **changed)
        audit(conn, actor=actor, action="edit", entity="assignments", entity_id=assignment_id,
              before={k: before.get(k) for k in changed}, after=changed)
    return changed


def save_rubric_version(conn, rubric: Rubric | dict | str | bytes, *, actor: Actor) -> tuple[int, int]:
    """Validate and store a rubric; a changed definition under an existing name is a new version.

    Returns (rubric_id, version). Identical content returns the existing row.
    """
    access.require(actor, "upload")
    rubric = rubric if isinstance(rubric, Rubric) else parse_rubric(rubric)
    with conn.atomic():
        known = {r["id"] for r in courses.list_rubrics(conn)}
        rid = courses.save_rubric(conn, rubric)
        stored = next(r for r in courses.list_rubrics(conn) if r["id"] == rid)
        if rid not in known:
            audit(conn, actor=actor, action="create", entity="rubrics", entity_id=rid,
                  after={"name": stored["name"], "version": stored["version"]})
    return rid, stored["version"]


# --- a rubric as an editable table (one row per criterion, one column per level) -----------
def rubric_to_rows(rubric: Rubric) -> list[dict]:
    rows = []
    for c in rubric.criteria:
        row = {"key": c.key, "title": c.title, "description": c.description,
               "weight": c.weight, "veto_below": c.veto_below, "improvement_hint": c.improvement_hint,
               "signal": c.signal, "guidance": c.guidance}
        for lvl in sorted(rubric.levels, reverse=True):
            row[f"{LEVEL_PREFIX}{lvl}"] = c.levels.get(lvl, "")
        rows.append(row)
    return rows


def _blank(v) -> bool:
    return v is None or (isinstance(v, float) and v != v) or (isinstance(v, str) and not v.strip())


def rows_to_rubric(base: Rubric, rows: list[dict]) -> Rubric:
    """Rebuild a rubric from an edited table; RubricError names the row and column at fault."""
    criteria = []
    for i, row in enumerate(rows, start=1):
        if all(_blank(v) for v in row.values()):
            continue  # an empty row added by mistake in the table editor
        levels = {}
        for col, text in row.items():
            if col.startswith(LEVEL_PREFIX):
                try:
                    lvl = int(col[len(LEVEL_PREFIX):])
                except ValueError as e:
                    raise RubricError(Message("Column {column!r}: level columns are named level_<number>", column=col)) from e
                levels[lvl] = "" if _blank(text) else str(text)
        crit = {"key": "" if _blank(row.get("key")) else str(row["key"]).strip(),
                "title": "" if _blank(row.get("title")) else str(row["title"]),
                "description": "" if _blank(row.get("description")) else str(row["description"]),
                "improvement_hint": "" if _blank(row.get("improvement_hint")) else str(row["improvement_hint"]),
                "guidance": "" if _blank(row.get("guidance")) else str(row["guidance"]),
                "levels": levels}
        if not _blank(row.get("signal")):
            crit["signal"] = str(row["signal"]).strip()
        for num in ("weight", "veto_below"):
            if not _blank(row.get(num)):
                try:
                    crit[num] = float(row[num]) if num == "weight" else int(float(row[num]))
                except (TypeError, ValueError) as e:
                    raise RubricError(Message("Row {row}: {column} must be a number, got {value!r}", row=i, column=num,
                                              value=row[num])) from e
        if not crit["key"]:
            raise RubricError(Message("Row {row}: the criterion key is empty; give it a short key such as 'clarity'",
                                      row=i))
        criteria.append(crit)
    data = base.model_dump(mode="json")
    data["criteria"] = criteria
    return parse_rubric(data)


NEW = -1  # the pickers' "+ New course" / "+ New assignment"


def editor_view(conn, pick: int | None = None, *, actor: Actor) -> dict:
    """The Settings page's "Courses & assignments" tab in one read (one check): {"courses" the
    actor may edit, "may" {"create_course", "settings"}, "course_id", "course", "assignments" of
    it, "rubrics" (every version, to pick from)}. `pick`, the course picker's choice, is only a
    preference among the courses offered: one not offered (not the actor's to edit, or deleted
    meanwhile) is not read and gives the first course (or NEW), as the picker itself does."""
    access.require(actor, "read")
    mine = [c for c in courses.list_courses(conn) if "upload" in access.allowed(actor, c["id"])]
    may = {a: a in access.allowed(actor) for a in ("create_course", "settings")}
    ids = [c["id"] for c in mine] + ([NEW] if may["create_course"] else [])
    course_id = pick if pick in ids else (ids[0] if ids else None)
    chosen = course_id is not None and course_id != NEW
    return {"courses": mine, "may": may, "course_id": course_id,
            "course": courses.get_course(conn, course_id) if chosen else None,
            "assignments": courses.list_assignments(conn, course_id) if chosen else [],
            "rubrics": courses.list_rubrics(conn) if chosen else []}


def rubrics_view(conn, rubric_id: int | None = None, *, actor: Actor) -> dict:
    """The Settings page's "Rubrics" tab in one read: {"rubrics" (every version), "rubric_id"
    (the one asked for, else the newest), "rubric"}."""
    access.require(actor, "read")
    rows = courses.list_rubrics(conn)
    ids = [r["id"] for r in rows]
    rubric_id = rubric_id if rubric_id in ids else (ids[-1] if ids else None)
    return {"rubrics": rows, "rubric_id": rubric_id,
            "rubric": courses.get_rubric(conn, rubric_id) if rubric_id is not None else None}
