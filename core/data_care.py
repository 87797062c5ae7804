"""Data care for admins (issue 13): a consistent backup while the app runs, a restore, deleting
one student's or a whole course's data on request, and a retention period for old courses.

Each deletion is one transaction with its audit row, which counts what was deleted per table
and names neither the student nor the texts (the request is the reason to forget them). A
restore first keeps a backup of the database it replaces, beside it.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import db
from core import access
from core.access import Actor
from core.errors import ConfigError, NotFound
from db import audit, courses
from db import data_care as care_db
from db import users as users_db

RETENTION_KEY = "retention"


def backup(conn, dest: str | Path, *, actor: Actor) -> dict:
    """Copy the whole database to `dest` (SQLite's online backup: consistent while runs and
    teachers keep writing). Returns {path, bytes}."""
    access.require(actor, "data_care")
    dest = Path(dest)
    if dest.exists():
        raise ConfigError(f"{dest} exists already: choose a new file name for the backup.")
    dest.parent.mkdir(parents=True, exist_ok=True)
    with conn.atomic():
        audit(conn, actor=actor, action="backup", entity="database", after={"to": str(dest)})
    care_db.backup_to(conn, dest)
    return {"path": str(dest), "bytes": dest.stat().st_size}


def restore(db_path: str | Path, source: str | Path, *, actor: Actor) -> dict:
    """Replace the database with a backup. Refused unless the file is a sound FairMark database;
    the database it replaces is kept first as `<db>.before-restore-<time>`. Every session ends
    (the backup's would otherwise revive ones ended after it was taken): everyone signs in again."""
    access.require(actor, "data_care")
    source = Path(source)
    if not source.is_file():
        raise NotFound(f"{source}: no such backup file")
    problems = care_db.check_backup(source)
    if problems:
        raise ConfigError(f"{source} cannot be restored: " + "; ".join(problems) + ".")
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    conn = db.connect(db_path)
    try:
        kept = Path(f"{db_path}.before-restore-{stamp}")
        care_db.backup_to(conn, kept)
        care_db.restore_from(conn, source)
    finally:
        conn.close()
    db.forget_migrated(db_path)
    conn = db.connect(db_path)  # a backup from an older version is migrated now
    try:
        with db.write_transaction(conn):
            ended = users_db.end_all_sessions(conn)
            audit(conn, actor=actor, action="restore", entity="database",
                  after={"from": str(source), "previous_kept_at": str(kept), "sessions_ended": ended})
    finally:
        conn.close()
    return {"restored_from": str(source), "previous_kept_at": str(kept)}


def delete_student(conn, student_id: int, *, actor: Actor, reason: str = "") -> dict:
    """Delete everything about one student (submissions, drafts, reviews, scores, releases, calls,
    audit rows about their work) in one transaction; returns {table: rows deleted}."""
    course_id = access.check(conn, actor, "data_care", student=student_id)
    with db.write_transaction(conn):
        counts = care_db.delete_student(conn, student_id)
        audit(conn, actor=actor, action="delete_student", entity="students", entity_id=student_id,
              after={"course_id": course_id, "deleted": counts}, reason=reason or "deletion on request")
    return counts


def delete_course(conn, course_id: int, *, actor: Actor, reason: str = "") -> dict:
    """Delete a whole course and everything in it, in one transaction; returns {table: rows}."""
    access.check(conn, actor, "data_care", course=course_id)
    name = courses.get_course(conn, course_id)["name"]
    with db.write_transaction(conn):
        counts = care_db.delete_course(conn, course_id)
        audit(conn, actor=actor, action="delete_course", entity="courses", entity_id=course_id,
              after={"course": name, "deleted": counts}, reason=reason or "deletion on request")
    return counts


def retention_days(conn) -> int | None:
    """Courses without any work for this many days are deleted by `apply_retention` (None: kept)."""
    value = db.get_setting(conn, RETENTION_KEY, {}) or {}
    return value.get("days")


def set_retention(conn, days: int | None, *, actor: Actor) -> None:
    access.require(actor, "data_care")
    if days is not None and not 30 <= int(days) <= 3650:
        raise ConfigError("Keep old courses between 30 and 3650 days (or clear the setting to keep them).")
    with conn.atomic():
        before = retention_days(conn)
        db.set_setting(conn, RETENTION_KEY, {"days": None if days is None else int(days)})
        audit(conn, actor=actor, action="set_retention", entity="app_settings",
              before={"days": before}, after={"days": days})


def expired_courses(conn, *, actor: Actor, now: datetime | None = None) -> list[dict]:
    """The courses the retention period has run out for: [{id, name, last_activity}]."""
    access.require(actor, "data_care")
    days = retention_days(conn)
    if days is None:
        return []
    cut = ((now or datetime.now(timezone.utc)) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%S")
    return [c for c in care_db.last_activity(conn) if c["last_activity"] < cut]


def apply_retention(conn, *, actor: Actor, dry_run: bool = False, now: datetime | None = None) -> list[dict]:
    """Delete every expired course (each in its own audited transaction); `dry_run` only lists
    them. Returns [{id, name, last_activity, deleted}]."""
    out = []
    for course in expired_courses(conn, actor=actor, now=now):
        deleted = None if dry_run else delete_course(
            conn, course["id"], actor=actor, reason=f"retention: no work for {retention_days(conn)} days")
        out.append({**course, "deleted": deleted})
    return out
