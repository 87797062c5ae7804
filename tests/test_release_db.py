"""A database written by the previous release migrates on to the current head.

tests/data/release_db.sqlite was made by the release before db/migrations/ (commit 0b68a57)
through its own command line (tests/data/make_release_db.py says how): users, the demo course,
an offline run, drafts, approvals, a release. The database records each applied migration by
name, so a renamed or dropped migration shows here as one applied twice or a recorded name this
code does not know, and an edited released one as a schema unlike a fresh database's.
"""
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

import db as dbmod
import factories
from db.migrations import ORDER, migrations

RELEASE_DB = Path(__file__).resolve().parent / "data" / "release_db.sqlite"
COURSE = "AI Literacy for Professionals (synthetic demo)"


def _read(path: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def _schema(path: Path) -> list[tuple]:
    """sqlite_master, the SQL's whitespace collapsed: what it says counts, not its layout."""
    return sorted((kind, name, table, re.sub(r"\s+", " ", sql or "").strip())
                  for kind, name, table, sql in _read(path, "SELECT type, name, tbl_name, sql FROM sqlite_master"))


def _columns(path: Path) -> dict[str, list[str]]:
    conn = sqlite3.connect(path)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: [c[1] for c in conn.execute(f'PRAGMA table_info("{t}")')] for t in tables}
    finally:
        conn.close()


def _rows(path: Path, columns: dict[str, list[str]]) -> dict[str, list[tuple]]:
    """Every row of these tables, these columns only (a later migration may add columns), sorted."""
    conn = sqlite3.connect(path)
    try:
        listed = {t: ", ".join(f'"{c}"' for c in cols) for t, cols in columns.items()}
        return {t: sorted(conn.execute(f'SELECT {cols} FROM "{t}"').fetchall(), key=repr) for t, cols in listed.items()}
    finally:
        conn.close()


def _applied(path: Path) -> list[tuple]:
    return _read(path, "SELECT id, migration_set, name, applied_at FROM _sqlite_migrations ORDER BY id")


@pytest.fixture
def release_copy(tmp_path) -> Path:
    """A copy of the committed file (never migrate the file itself)."""
    path = tmp_path / "release.db"
    shutil.copyfile(RELEASE_DB, path)
    yield path
    dbmod.forget_migrated(path)


def test_the_release_database_is_small_and_every_migration_it_records_is_known(release_copy):
    assert RELEASE_DB.stat().st_size < 1_000_000
    names = [name for _, _, name, _ in _applied(release_copy)]
    assert names and set(names) <= set(ORDER)     # every name it records is one this code registers


def test_a_release_database_migrates_to_head_keeping_every_row_and_every_record(release_copy):
    release_columns = {t: cols for t, cols in _columns(release_copy).items() if t != "_sqlite_migrations"}
    before_applied, before_rows = _applied(release_copy), _rows(release_copy, release_columns)
    conn = dbmod.connect(release_copy)          # migrates to head, as the app does on start
    try:
        after = _applied(release_copy)
        # The release's records stay as they were (nothing re-applied); what it lacked follows, in ORDER.
        assert after[:len(before_applied)] == before_applied
        old = [name for _, _, name, _ in before_applied]
        assert [name for _, _, name, _ in after] == old + [n for n in ORDER if n not in old]
        assert sorted(name for _, _, name, _ in after) == sorted(ORDER)
        assert migrations.pending(conn) == []
        # Nothing lost: every table of the release still holds every row it held.
        after_rows = _rows(release_copy, release_columns)
        assert [t for t, rows in before_rows.items() if after_rows[t] != rows] == []

        # ... and the data reads through the product's own functions.
        from core.accounts import identity as accounts
        from core.export import released as export
        from core.runs import reflections as runs
        from core.signoff import review_view
        from db import courses, drafts, users

        course = courses.course_by_name(conn, COURSE)
        assert [a["week"] for a in courses.list_assignments(conn, course["id"])] == [1, 2, 3, 4]
        assert len(courses.list_students(conn, course["id"])) == 28
        counts = courses.status_counts(conn, course_id=course["id"])
        assert {k: n for k, n in counts.items() if n} == {"uploaded": 106, "drafted": 4, "released": 2}
        tom = users.actor_for(conn, users.find(conn, "tom")["id"])
        assert tom.role == "instructor" and tom.display_name == "Tom Teacher" and course["id"] in tom.courses
        admin, _token = accounts.sign_in(conn, "ada", factories.PASSWORD)   # the release's password hash
        assert admin.role == "admin"
        run = runs.progress(conn, 1, str(release_copy), actor=tom)
        assert run["status"] == "done" and run["total"] == 6
        item = review_view.review_show(conn, 3, actor=tom, opening=False)
        assert item["status"] == "drafted" and item["comment"] == drafts.get_draft(
            conn, drafts.latest_draft_id(conn, 3))["comment"]
        released = export.export_items(conn, course["id"], actor=tom)
        assert sorted(r["submission_id"] for r in released) == [1, 2]
    finally:
        conn.close()


def test_a_migrated_release_database_has_the_schema_of_a_fresh_one(release_copy, tmp_path):
    fresh = tmp_path / "fresh.db"
    for path in (release_copy, fresh):
        dbmod.connect(path).close()
    try:
        assert _schema(release_copy) == _schema(fresh)
    finally:
        dbmod.forget_migrated(fresh)


def test_migrating_a_release_database_twice_changes_nothing(release_copy):
    dbmod.connect(release_copy).close()
    columns = _columns(release_copy)
    once = (_applied(release_copy), _rows(release_copy, columns), _schema(release_copy))
    dbmod.forget_migrated(release_copy)          # as a new process would: migrate again
    dbmod.connect(release_copy).close()
    assert (_applied(release_copy), _rows(release_copy, columns), _schema(release_copy)) == once
