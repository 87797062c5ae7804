"""Data care for admins (issue 13): a consistent backup while the app runs, a restore, deleting
one student's or a whole course's data on request, and a retention period for old courses.

Each deletion is one transaction with its audit row, which counts what was deleted per table
and names neither the student nor the texts (the request is the reason to forget them). A
restore first keeps a backup of the database it replaces, beside it.
"""
from __future__ import annotations

import json
import sqlite3
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import db
from core.accounts import access
from core.accounts.access import Actor
from core.errors import ConfigError, NotFound
from core.language.interface import N_, Message
from core.students import links as student_links
from core.privacy import pseudonym
from db import audit, courses, location
from db import comment_bank as bank_db
from db import data_care as care_db
from db import rubric_drafts as drafts_db
from db import users as users_db

RETENTION_KEY = "retention"
# A backup refused: db.data_care's problems with it (English: db/ does not import core) follow.
CANNOT_RESTORE = N_("{file} cannot be restored: {problems}. Nothing was changed.")


def backup(conn, dest: str | Path, *, actor: Actor) -> dict:
    """Copy the whole database to `dest` (SQLite's online backup: consistent while runs and
    teachers keep writing). Returns {path, bytes}."""
    access.require(actor, "data_care")
    dest = Path(dest)
    if dest.exists():
        raise ConfigError(Message("{file} exists already: choose a new file name for the backup.", file=str(dest)))
    dest.parent.mkdir(parents=True, exist_ok=True)
    with conn.atomic():
        audit(conn, actor=actor, action="backup", entity="database", after={"to": str(dest)})
    care_db.backup_to(conn, dest)
    return {"path": str(dest), "bytes": dest.stat().st_size}


def backup_bytes(conn, *, actor: Actor) -> bytes:
    """`backup` as the file's bytes (the page's download); a failure to make it is a ConfigError
    that says why, never a half file."""
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "fairmark-backup.db"
            backup(conn, path, actor=actor)
            return path.read_bytes()
    except (OSError, sqlite3.Error) as e:
        raise ConfigError(Message("The backup could not be made ({error}); nothing was downloaded. Try again, or make "
                                  "it with: python -m core data backup FILE (on the server).", error=str(e))) from e


def restore(db_path: str | Path, source: str | Path, *, actor: Actor, shown_as: str | None = None) -> dict:
    """Replace the database with a backup. Refused unless the file is a sound FairMark database
    no newer than this version (`shown_as`: the file's name in that message, e.g. an upload's).
    The backup is first copied aside and brought up to date there (migrations, every session
    ended, the audit row): the current database is untouched until that has succeeded, then
    kept as `<db>.before-restore-<time>` and replaced in one step. Every session ends (the
    backup's would otherwise revive ones ended after it was taken): everyone signs in again. On
    PostgreSQL (db_path a postgresql:// URL) the backup is a pg_dump archive: `_restore_postgres`."""
    access.require(actor, "data_care")
    source = Path(source)
    shown = shown_as or str(source)
    if not source.is_file():
        raise NotFound(Message("{file}: no such backup file", file=shown))
    if location.is_postgresql(str(db_path)):
        return _restore_postgres(str(db_path), source, actor=actor, shown=shown)
    problems = care_db.check_backup(source)
    if problems:
        raise ConfigError(Message(CANNOT_RESTORE, file=shown, problems="; ".join(problems)))
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    kept = Path(f"{db_path}.before-restore-{stamp}")
    with tempfile.TemporaryDirectory() as tmp:
        stage = Path(tmp) / "restore.db"
        care_db.copy_file(source, stage)
        staged = db.connect(stage)  # a backup from an older version is migrated here, not in place
        try:
            with db.write_transaction(staged):
                ended = users_db.end_all_sessions(staged)
                audit(staged, actor=actor, action="restore", entity="database",
                      after={"from": shown, "previous_kept_at": str(kept), "sessions_ended": ended})
        finally:
            staged.close()
            db.forget_migrated(stage)
        conn = db.connect(db_path)
        try:
            care_db.backup_to(conn, kept)
            care_db.restore_from(conn, stage)
        finally:
            conn.close()
    db.forget_migrated(db_path)
    return {"restored_from": shown, "previous_kept_at": str(kept), "sessions_ended": ended}


def _restore_postgres(url: str, source: Path, *, actor: Actor, shown: str) -> dict:
    """`restore` on PostgreSQL: the archive checked (pg_dump's format, FairMark's, this version's),
    the current database kept first as `fairmark-before-restore-<time>.dump` in the working folder
    (pg_dump), then in one transaction, under the write lock every host takes: the archive's
    objects and rows (pg_restore), every session ended, the audit row. A failure changes nothing."""
    problems = care_db.check_postgres_backup(source)
    if problems:
        raise ConfigError(Message(CANNOT_RESTORE, file=shown, problems="; ".join(problems)))
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    kept = Path.cwd() / f"fairmark-before-restore-{stamp}.dump"
    conn = db.connect(url)
    try:
        care_db.backup_to(conn, kept)
    finally:
        conn.close()
    conn = db.connect(url)
    try:
        with db.write_transaction(conn, lock="everything"):   # the kept counts' refreshes wait too
            care_db.restore_postgres(conn, source)
            ended = users_db.end_all_sessions(conn)
            audit(conn, actor=actor, action="restore", entity="database",
                  after={"from": shown, "previous_kept_at": str(kept), "sessions_ended": ended})
    finally:
        conn.close(keep=False)   # the restore script's SET commands last for its session: not kept for reuse
    return {"restored_from": shown, "previous_kept_at": str(kept), "sessions_ended": ended}


def migrate_to(conn, url: str, *, actor: Actor) -> dict[str, int]:
    """Copy this SQLite database into the empty PostgreSQL database at url, in one transaction there,
    and check every table's row count: {table: rows}. Refused (nothing copied) when url is not a
    PostgreSQL address, cannot be reached or is not empty, or this database is PostgreSQL already.
    The audit row (in the SQLite database, copied with the rest) names the target without its password."""
    access.require(actor, "data_care")
    if not location.is_postgresql(url):
        raise ConfigError(Message("migrate-to copies into a PostgreSQL database: give its address, "
                                  "postgresql://USER@HOST:PORT/DATABASE (the password in the address or in ~/.pgpass). "
                                  "Nothing was copied."))
    if db.on_postgresql(conn):
        raise ConfigError(Message("The database to copy is PostgreSQL already: migrate-to copies a SQLite database "
                                  "into PostgreSQL (name the SQLite file with --db FILE). Nothing was copied."))

    started = []

    def audited():
        with db.write_transaction(conn):
            audit(conn, actor=actor, action="migrate_to", entity="database", after={"to": location.shown(url)})
        started.append(True)

    try:
        return care_db.copy_to_postgres(conn, url, before=audited)
    except Exception as e:
        if started:   # the audit row above says a copy began: this one says it did not happen
            with db.write_transaction(conn):
                audit(conn, actor=actor, action="migrate_to_failed", entity="database",
                      after={"to": location.shown(url), "error": type(e).__name__})
        raise


def backup_format(conn) -> dict:
    """What a backup of this database is, for the page: {suffix, mime, made_with, versions}."""
    if db.on_postgresql(conn):
        return {"suffix": ".dump", "mime": "application/octet-stream", "made_with": N_("PostgreSQL's pg_dump"),
                "versions": N_("from this version")}   # a dump restores at exactly this version
    return {"suffix": ".db", "mime": "application/vnd.sqlite3", "made_with": N_("SQLite's online backup"),
            "versions": N_("from this version or an older one")}   # an older SQLite file is migrated


def delete_student(conn, student_id: int, *, actor: Actor, reason: str = "") -> dict:
    """Delete everything about one student (submissions, drafts, reviews, scores, releases, calls,
    audit rows about their work) in one transaction; returns {table: rows deleted}."""
    course_id = access.check(conn, actor, "data_care", student=student_id)
    with db.write_transaction(conn):
        counts = care_db.delete_student(conn, student_id, **_naming(conn, course_id, student_id))
        audit(conn, actor=actor, action="delete_student", entity="students", entity_id=student_id,
              after={"course_id": course_id, "deleted": counts}, reason=reason or "deletion on request")
    return counts


def _naming(conn, course_id: int, student_id: int) -> dict[str, list[int]]:
    """The rubric drafts and bank comments of the course whose free text names the student (their
    name, a part of it, their e-mail, or their pseudonym, which the model read instead): a
    description or a bank comment typed with a name, a draft's descriptors quoting an example.
    {"drafts": ids, "bank_comments": ids}."""
    person = next(p for p in drafts_db.course_people(conn, course_id) if p["id"] == student_id)
    masker = pseudonym.roster([person])

    def names(text: str) -> bool:
        return person["pseudonym"] in text or any(s.person is not None for s in masker.mask(text).spans)

    drafts = [d["id"] for d in drafts_db.of_course(conn, course_id, unsaved_only=False)
              if names("\n".join([d["description"], d["note"], json.dumps(d["definition"], ensure_ascii=False)]))]
    return {"drafts": drafts, "bank_comments": [b["id"] for b in bank_db.of_course(conn, course_id) if names(b["text"])]}


def delete_course(conn, course_id: int, *, actor: Actor, reason: str = "") -> dict:
    """Delete a whole course and everything in it, in one transaction; returns {table: rows}."""
    access.check(conn, actor, "data_care", course=course_id)
    name = courses.get_course(conn, course_id)["name"]
    with db.write_transaction(conn):
        counts = care_db.delete_course(conn, course_id)
        audit(conn, actor=actor, action="delete_course", entity="courses", entity_id=course_id,
              after={"course": name, "deleted": counts}, reason=reason or "deletion on request")
    return counts


def plural(singular: str, many: str) -> tuple[str, str]:
    """Marks a message's two English forms (tests/i18n_scan.py reads them); Message.plural picks one."""
    return singular, many


# What a deletion counts, in a teacher's words (singular, plural), in the order a message lists them.
_DELETED_WORDS = {
    "courses": plural("{count} course", "{count} courses"),
    "assignments": plural("{count} assignment", "{count} assignments"),
    "students": plural("{count} student", "{count} students"),
    "submissions": plural("{count} reflection", "{count} reflections"),
    "drafts": plural("{count} AI draft", "{count} AI drafts"),
    "reviews": plural("{count} review", "{count} reviews"),
    "reference_scores": plural("{count} reference score", "{count} reference scores"),
    "releases": plural("{count} release", "{count} releases"),
    "release_items": plural("{count} released result", "{count} released results"),
    "calibration_items": plural("{count} calibration item", "{count} calibration items"),
    "calibration_scores": plural("{count} blind calibration score", "{count} blind calibration scores"),
    "review_samples": plural("{count} spot-check sample", "{count} spot-check samples"),
    "moderation_items": plural("{count} moderation sample item", "{count} moderation sample items"),
    "moderation_marks": plural("{count} blind second mark", "{count} blind second marks"),
    "moderation_settlements": plural("{count} moderator's settled score", "{count} moderator's settled scores"),
    "marker_assignments": plural("{count} marker assignment", "{count} marker assignments"),
    "next_step_marks": plural("{count} next-step check", "{count} next-step checks"),
    "saved_eval_cases": plural("{count} saved AI quality case", "{count} saved AI quality cases"),
    "appeals": plural("{count} appeal", "{count} appeals"),
    "appeal_criteria": plural("{count} appealed criterion", "{count} appealed criteria"),
    "comparisons": plural("{count} blind comparison", "{count} blind comparisons"),
    "comparison_pairs": plural("{count} blind comparison pair", "{count} blind comparison pairs"),
    "pair_choices": plural("{count} blind comparison choice", "{count} blind comparison choices"),
    "lessons": plural("{count} lesson", "{count} lessons"),
    "lesson_reviews": plural("{count} lesson review", "{count} lesson reviews"),
    "lesson_fixes": plural("{count} proposed lesson fix", "{count} proposed lesson fixes"),
    "rubric_drafts": plural("{count} rubric draft", "{count} rubric drafts"),
    "rubric_draft_examples": plural("{count} scored example of a rubric draft",
                                    "{count} scored examples of rubric drafts"),
    "bank_comments": plural("{count} comment bank comment", "{count} comment bank comments"),
    "anchored_notes": plural("{count} note on a student's text", "{count} notes on students' texts"),
    "released_notes": plural("{count} released note on a student's text", "{count} released notes on students' texts"),
    "lesson_references": plural("{count} lesson reference", "{count} lesson references"),
    "runs": plural("{count} assessment run", "{count} assessment runs"),
    "run_items": plural("{count} run entry", "{count} run entries"),
    "judge_votes": plural("{count} judge's vote", "{count} judges' votes"),
    "judge_agreement": plural("{count} judge agreement figure", "{count} judge agreement figures"),
    "llm_calls": plural("{count} language model call", "{count} language model calls"),
    "grants": plural("{count} course access grant", "{count} course access grants"),
    "lti_users": plural("{count} LMS person link", "{count} LMS person links"),
    "lti_links": plural("{count} LMS assignment link", "{count} LMS assignment links"),
    "lti_contexts": plural("{count} LMS course link", "{count} LMS course links"),
    "lti_passbacks": plural("{count} grade record for the LMS", "{count} grade records for the LMS"),
    "lti_roster": plural("{count} LMS roster entry", "{count} LMS roster entries"),
    "lti_line_items": plural("{count} LMS gradebook column record", "{count} LMS gradebook column records"),
    "student_links": plural("{count} private link to a student's feedback",
                            "{count} private links to students' feedback"),
    "student_sessions": plural("{count} student page visit", "{count} student page visits"),
    "audit_log": plural("{count} audit log entry", "{count} audit log entries"),
}


def deleted_words(counts: dict[str, int], *, leave_out: tuple[str, ...] = ()) -> str:
    """What `delete_student` / `delete_course` counted, as a teacher reads it: "2 reflections,
    1 review, 5 language model calls" (every table with rows, none left out but `leave_out`).

    >>> deleted_words({"reviews": 1, "submissions": 2, "llm_calls": 5, "students": 1}, leave_out=("students",))
    '2 reflections, 1 review, 5 language model calls'
    """
    order = list(_DELETED_WORDS) + sorted(set(counts) - set(_DELETED_WORDS))
    parts = []
    for table in order:
        n = counts.get(table, 0)
        if n and table not in leave_out:
            one, many = _DELETED_WORDS.get(table) or ("{count} " + table.replace("_", " "),) * 2
            parts.append(Message.plural(one, many, n))
    return Message.joined(", ", parts) if parts else Message("nothing else")   # a page shows it with said()


def retention_days(conn) -> int | None:
    """Courses without any work for this many days are deleted by `apply_retention` (None: kept)."""
    value = db.get_setting(conn, RETENTION_KEY, {}) or {}
    return value.get("days")


def set_retention(conn, days: int | None, *, actor: Actor) -> None:
    access.require(actor, "data_care")
    if days is not None and not 30 <= int(days) <= 3650:
        raise ConfigError(Message("Keep old courses between 30 and 3650 days (or clear the setting to keep them)."))
    with conn.atomic():
        before = retention_days(conn)
        db.set_setting(conn, RETENTION_KEY, {"days": None if days is None else int(days)})
        audit(conn, actor=actor, action="set_retention", entity="app_settings",
              before={"days": before}, after={"days": days})


def data_view(conn, course_id: int | None = None, *, actor: Actor) -> dict:
    """The Settings page's "Data" tab in one read (one check): {"courses", "course" (the one asked
    for, else the first), "students" of it, "retention_days", "expired" (expired_courses),
    "link_days" (how long students' private links last without an appeal deadline)}."""
    access.require(actor, "data_care")
    rows = courses.list_courses(conn)
    ids = [c["id"] for c in rows]
    course_id = course_id if course_id in ids else (ids[0] if ids else None)
    return {"courses": rows, "course": course_id,
            "students": courses.list_students(conn, course_id) if course_id is not None else [],
            "retention_days": retention_days(conn), "expired": _expired(conn), "link_days": student_links.link_days(conn)}


def expired_courses(conn, *, actor: Actor, now: datetime | None = None) -> list[dict]:
    """The courses the retention period has run out for: [{id, name, last_activity}]."""
    access.require(actor, "data_care")
    return _expired(conn, now)


def _expired(conn, now: datetime | None = None) -> list[dict]:
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
