"""Data care (issue 13): a consistent backup while the database is written, a restore that keeps
the database it replaces, deleting a student's or a course's data (audited, counted, one
transaction, nothing left behind) and the retention period; and the command line's `user`,
`data` and `--as`."""
from __future__ import annotations

import json
import sqlite3
import threading
from datetime import datetime, timedelta, timezone

import pytest

import db
import factories as f
from stored import broken_foreign_keys
from core import data_care
from core.cli import main
from core.errors import ConfigError, Forbidden
from db import users as users_db

HIGH = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 3}


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path, monkeypatch):
    """A restore on PostgreSQL keeps the database it replaces in the working folder."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def course_with_work(conn):
    c = f.course(conn, "Course A", weeks=2)
    people = []
    for n in range(3):
        st = f.student(conn, c["course_id"], external_id=f"s{n}", name=f"Pupil {n}")
        for aid in c["assignment_ids"]:
            sid = f.submission(conn, aid, st, text=f"Pupil {n} wrote about bias in week {aid}.")
            f.draft(conn, sid, HIGH)
            f.reference(conn, sid, HIGH)
        people.append(st)
    from core.signoff import actions
    first = conn.execute("SELECT id FROM submissions WHERE student_id = ? ORDER BY id", [people[0]]).fetchone()[0]
    review = actions.open_item(conn, first, actor=f.actor())
    actions.approve(conn, first, version=review["version"], actor=f.actor())
    return c, people


def rows_about(conn, student_id: int) -> int:
    subs = [r[0] for r in conn.execute("SELECT id FROM submissions WHERE student_id = ?", [student_id])]
    total = len(subs) + conn.execute("SELECT COUNT(*) FROM students WHERE id = ?", [student_id]).fetchone()[0]
    for table in ("drafts", "reviews", "reference_scores", "audit_log"):
        total += sum(conn.execute(f"SELECT COUNT(*) FROM {table} WHERE submission_id = ?", [s]).fetchone()[0]
                     for s in subs)
    return total


def test_deleting_a_student_removes_every_row_about_them_and_counts_it(conn, course_with_work):
    c, people = course_with_work
    assert rows_about(conn, people[0]) > 0
    counts = data_care.delete_student(conn, people[0], actor=f.actor("anna"), reason="request of 3 May")
    assert counts["submissions"] == 2 and counts["students"] == 1 and counts["reviews"] == 1
    assert counts["reference_scores"] == 8 and counts["drafts"] == 2
    assert rows_about(conn, people[0]) == 0
    assert rows_about(conn, people[1]) > 0                       # the others stay
    row = conn.execute("SELECT actor, after, reason FROM audit_log WHERE action = 'delete_student'").fetchone()
    assert row[0] == "anna" and json.loads(row[1])["deleted"] == counts and row[2] == "request of 3 May"
    assert "Pupil 0" not in row[1]


def test_deleting_a_course_leaves_nothing_of_it(conn, course_with_work):
    c, _ = course_with_work
    other = f.course(conn, "Course B")
    f.submission(conn, other["assignment_id"], f.student(conn, other["course_id"]))
    counts = data_care.delete_course(conn, c["course_id"], actor=f.actor())
    assert counts["courses"] == 1 and counts["assignments"] == 2 and counts["submissions"] == 6
    assert [r[0] for r in conn.execute("SELECT name FROM courses")] == ["Course B"]
    assert conn.execute("SELECT COUNT(*) FROM submissions").fetchone()[0] == 1
    assert broken_foreign_keys(conn) == []


def test_only_an_admin_deletes_and_a_failure_deletes_nothing(conn, course_with_work, monkeypatch):
    c, people = course_with_work
    ines = f.user(conn, "ines", "instructor", courses=[c["course_id"]])
    with pytest.raises(Forbidden, match=r"Your role \(instructor\) may not back up, restore or delete data"):
        data_care.delete_course(conn, c["course_id"], actor=ines)
    before = rows_about(conn, people[0])
    from db import data_care as care_db
    boom = care_db._SUBMISSION_DATA + (("explode", "DELETE FROM no_such_table"),)
    monkeypatch.setattr(care_db, "_SUBMISSION_DATA", boom)
    with pytest.raises(sqlite3.OperationalError):
        data_care.delete_student(conn, people[0], actor=f.actor())
    assert rows_about(conn, people[0]) == before               # one transaction: nothing was deleted


def test_a_backup_taken_while_another_connection_writes_is_consistent(conn, sqlite_file, db_path, tmp_path, course_with_work):
    c, people = course_with_work
    stop = threading.Event()

    def writer():
        w = db.connect(db_path)
        n = 0
        while not stop.is_set():
            with db.write_transaction(w):
                st = f.student(w, c["course_id"], external_id=f"w{n}")
                f.submission(w, c["assignment_id"], st, text=f"written while backing up {n}")
            n += 1
        w.close()

    t = threading.Thread(target=writer)
    t.start()
    try:
        out = data_care.backup(conn, tmp_path / "copy.db", actor=f.actor())
    finally:
        stop.set()
        t.join()
    copy = sqlite3.connect(out["path"])
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    students, subs = copy.execute("SELECT (SELECT COUNT(*) FROM students WHERE external_id LIKE 'w%'), "
                                  "(SELECT COUNT(*) FROM submissions WHERE text LIKE 'written while%')").fetchone()
    assert students == subs                                  # every writer transaction whole or absent
    with pytest.raises(ConfigError, match="exists already"):
        data_care.backup(conn, tmp_path / "copy.db", actor=f.actor())


def test_restore_brings_the_backup_back_and_keeps_the_replaced_database(conn, sqlite_file, db_path, tmp_path, course_with_work):
    c, people = course_with_work
    data_care.backup(conn, tmp_path / "before.db", actor=f.actor())
    data_care.delete_course(conn, c["course_id"], actor=f.actor())
    conn.close()
    out = data_care.restore(db_path, tmp_path / "before.db", actor=f.actor("anna"))
    conn = db.connect(db_path)
    assert [r[0] for r in conn.execute("SELECT name FROM courses")] == ["Course A"]
    kept = sqlite3.connect(out["previous_kept_at"])
    assert kept.execute("SELECT COUNT(*) FROM courses").fetchone()[0] == 0
    assert conn.execute("SELECT actor FROM audit_log WHERE action = 'restore'").fetchone()[0] == "anna"
    (tmp_path / "junk.db").write_bytes(b"not a database at all" * 100)
    with pytest.raises(ConfigError, match="cannot be restored"):
        data_care.restore(db_path, tmp_path / "junk.db", actor=f.actor())
    conn.close()


def test_retention_deletes_only_courses_without_work_for_the_set_time(conn, course_with_work):
    c, _ = course_with_work
    old = f.course(conn, "Course 2019")
    f.submission(conn, old["assignment_id"], f.student(conn, old["course_id"]))
    conn.execute("UPDATE courses SET created_at = '2019-01-01T00:00:00.000Z' WHERE id = ?", [old["course_id"]])
    conn.execute("UPDATE submissions SET created_at = '2019-06-01T00:00:00.000Z' WHERE assignment_id = ?",
                 [old["assignment_id"]])
    assert data_care.expired_courses(conn, actor=f.actor()) == []          # no retention set: kept
    data_care.set_retention(conn, 365, actor=f.actor())
    listed = data_care.apply_retention(conn, actor=f.actor(), dry_run=True)
    assert [x["name"] for x in listed] == ["Course 2019"] and listed[0]["deleted"] is None
    assert conn.execute("SELECT COUNT(*) FROM courses").fetchone()[0] == 2
    done = data_care.apply_retention(conn, actor=f.actor())
    assert done[0]["deleted"]["courses"] == 1
    assert [r[0] for r in conn.execute("SELECT name FROM courses")] == ["Course A"]
    later = datetime.now(timezone.utc) + timedelta(days=400)
    assert [x["name"] for x in data_care.expired_courses(conn, actor=f.actor(), now=later)] == ["Course A"]
    with pytest.raises(ConfigError):
        data_care.set_retention(conn, 5, actor=f.actor())


# --- the command line --------------------------------------------------------------------
def run_cli(capsys, *args, stdin: str | None = None, monkeypatch=None) -> tuple[int, dict, str]:
    if stdin is not None:
        import io
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(list(args))
    out = capsys.readouterr()
    return code, json.loads(out.out.strip().splitlines()[-1]), out.err


def test_cli_first_admin_users_grants_and_acting_as_a_user(conn, tmp_path, capsys, monkeypatch):
    code, out, _ = run_cli(capsys, "user", "add", "boss", "--role", "admin", "--password-stdin",
                           stdin="a long secret pw\n", monkeypatch=monkeypatch)
    assert code == 0 and out["first_admin"] is True
    f.course(conn, "Course A")
    code, out, err = run_cli(capsys, "user", "add", "tom", "--role", "ta", "--password-stdin",
                             stdin="another secret\n", monkeypatch=monkeypatch)
    assert code == 0 and out["by"].startswith("command line (") and "acting as command line (" in err
    assert run_cli(capsys, "user", "grant", "tom", "--course", "Course A")[0] == 0
    code, out, err = run_cli(capsys, "--as", "tom", "export", "--course", "Course A", "--format", "csv",
                             "--out", str(tmp_path / "x.csv"))
    assert code == 2 and "acting as tom (teaching assistant)" in err
    assert out["error"] == "Your role (teaching assistant) may not release feedback in this course; ask the course's instructor."
    code, out, _ = run_cli(capsys, "user", "list")
    tom = next(u for u in out["users"] if u["username"] == "tom")
    assert tom["role"] == "ta" and [g["course_name"] for g in tom["grants"]] == ["Course A"]
    assert "password_hash" not in tom and "another secret" not in json.dumps(out)
    assert users_db.find(conn, "tom")["password_hash"].startswith("$argon2id$")
    row = conn.execute("SELECT actor, role FROM audit_log WHERE action = 'grant'").fetchone()
    assert row[0].startswith("command line (") and row[1] == "admin"


def test_cli_data_backup_delete_and_retention(conn, db_path, tmp_path, capsys, course_with_work):
    code, out, _ = run_cli(capsys, "data", "backup", str(tmp_path / "b.db"))
    assert code == 0 and out["bytes"] > 0
    code, out, _ = run_cli(capsys, "data", "delete-student", "--course", "Course A", "--student", "s1")
    assert code == 0 and out["deleted"]["submissions"] == 2
    code, out, _ = run_cli(capsys, "data", "delete-course", "--course", "Course A", "--confirm", "course a")
    assert code == 2 and "nothing was deleted" in out["error"]
    code, out, _ = run_cli(capsys, "data", "retention", "--days", "400")
    assert code == 0 and out["days"] == 400 and out["expired"] == []
    code, out, _ = run_cli(capsys, "data", "apply-retention", "--dry-run")
    assert code == 0 and out["courses"] == []


def test_a_restore_ends_every_session_even_those_the_backup_still_has_open(conn, db_path, tmp_path):
    from core.accounts import identity as accounts

    f.user(conn, "tom", "ta")
    _, signed_out_later = accounts.sign_in(conn, "tom", f.PASSWORD)
    data_care.backup(conn, tmp_path / "before.db", actor=f.actor())
    accounts.sign_out(conn, signed_out_later)                    # ended after the backup was taken
    _, after_backup = accounts.sign_in(conn, "tom", f.PASSWORD)  # opened after it
    conn.close()
    data_care.restore(db_path, tmp_path / "before.db", actor=f.actor("anna"))
    conn = db.connect(db_path)
    assert accounts.resume(conn, signed_out_later) is None
    assert accounts.resume(conn, after_backup) is None
    assert conn.execute("SELECT COUNT(*) FROM sessions WHERE ended_at IS NULL").fetchone()[0] == 0
    conn.close()


def test_a_restore_leaves_no_sign_in_code_of_the_backup_usable(conn, db_path, tmp_path):
    """Issue 25: the one-time codes (signin_codes) in a backup open nothing once it is restored,
    and the restored database keeps none of them; codes older than a day are deleted."""
    from core.accounts import handoff
    from core.accounts import identity as accounts
    from core.errors import NotSignedIn

    f.user(conn, "tom", "ta")
    _, token = accounts.sign_in(conn, "tom", f.PASSWORD)
    code = handoff.issue(conn, token)                            # in the backup, not yet used
    data_care.backup(conn, tmp_path / "before.db", actor=f.actor())
    conn.close()
    data_care.restore(db_path, tmp_path / "before.db", actor=f.actor("anna"))
    conn = db.connect(db_path)
    assert conn.execute("SELECT COUNT(*) FROM signin_codes").fetchone()[0] == 0
    with pytest.raises(NotSignedIn):
        handoff.redeem(conn, code)
    _, token = accounts.sign_in(conn, "tom", f.PASSWORD)
    handoff.issue(conn, token)
    with db.write_transaction(conn):
        conn.execute("UPDATE signin_codes SET created_at = '2000-01-01T00:00:00.000000Z'")
    handoff.issue(conn, token)                                   # the day-old code is gone
    assert conn.execute("SELECT COUNT(*) FROM signin_codes").fetchone()[0] == 1
    conn.close()


# --- issue 21: a restore checks the file first and changes nothing unless it is sound ----------
def _sound_backup(conn, tmp_path):
    data_care.backup(conn, tmp_path / "sound.db", actor=f.actor())
    return tmp_path / "sound.db"


def _damaged(backup, dest):
    """The backup with the courses' name index page overwritten: SQLite still opens the file,
    but its integrity check fails."""
    con = sqlite3.connect(backup)
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_courses_1'").fetchone()[0]
    size = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    data = bytearray(backup.read_bytes())
    data[(root - 1) * size:root * size] = b"\x0d" + bytes(size - 1)
    dest.write_bytes(bytes(data))
    return dest


def _courses(db_path):
    con = sqlite3.connect(db_path)
    try:
        return [r[0] for r in con.execute("SELECT name FROM courses ORDER BY id")]
    finally:
        con.close()


def _refused(db_path, bad, match, shown_as=None):
    before = _courses(db_path)
    with pytest.raises(ConfigError, match=match) as refused:
        data_care.restore(db_path, bad, actor=f.actor(), shown_as=shown_as)
    assert "Nothing was changed" in str(refused.value)
    assert _courses(db_path) == before                                    # the current data is untouched
    assert not list(db_path.parent.glob("*before-restore*"))             # nor replaced
    return str(refused.value)


def test_a_restore_refuses_a_file_that_is_not_sqlite(conn, sqlite_file, db_path, tmp_path, course_with_work):
    bad = tmp_path / "notes.db"
    bad.write_bytes(b"name,score\nAna,3\n" * 50)
    message = _refused(db_path, bad, "it is not an SQLite database file", shown_as="notes.db")
    assert message.startswith("notes.db cannot be restored")              # the upload's name, not a temp path
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")                                                 # SQLite would open it as a new database
    _refused(db_path, empty, "it is not an SQLite database file")


def test_a_restore_refuses_a_damaged_backup(conn, sqlite_file, db_path, tmp_path, course_with_work):
    bad = _damaged(_sound_backup(conn, tmp_path), tmp_path / "damaged.db")
    message = _refused(db_path, bad, r"it is damaged \(SQLite")
    assert "***" not in message and "\n" not in message


def test_a_restore_refuses_a_backup_from_a_newer_version(conn, sqlite_file, db_path, tmp_path, course_with_work):
    newer = _sound_backup(conn, tmp_path)
    con = sqlite3.connect(newer)
    con.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
                "VALUES ('fairmark', 'm099_from_the_future', '2030-01-01')")
    con.commit()
    con.close()
    _refused(db_path, newer, r"made by a newer version of FairMark .*m099_from_the_future.*update FairMark")
    from db import data_care as care_db
    assert care_db.check_backup(_sound_backup(conn, tmp_path / "again")) == []  # this version's own is sound


def test_a_restore_that_fails_part_way_leaves_the_current_database(conn, db_path, tmp_path, course_with_work,
                                                                   monkeypatch):
    """The backup is brought up to date on a copy first: a failure there (here: ending the
    sessions) leaves the current database as it was, with no restore recorded."""
    backup = _sound_backup(conn, tmp_path)
    data_care.delete_student(conn, course_with_work[1][0], actor=f.actor())
    students = conn.execute("SELECT COUNT(*) FROM students").fetchone()[0]

    def broken(_conn):
        raise sqlite3.OperationalError("disk I/O error")
    monkeypatch.setattr(users_db, "end_all_sessions", broken)
    with pytest.raises(sqlite3.OperationalError):
        data_care.restore(db_path, backup, actor=f.actor())
    assert conn.execute("SELECT COUNT(*) FROM students").fetchone()[0] == students
    assert conn.execute("SELECT COUNT(*) FROM audit_log WHERE action = 'restore'").fetchone()[0] == 0


def test_deleted_counts_read_in_a_teachers_words():
    words = data_care.deleted_words({"llm_calls": 5, "run_items": 1, "reviews": 1, "submissions": 1,
                                     "audit_log": 3, "students": 1}, leave_out=("students",))
    assert words == "1 reflection, 1 review, 1 run entry, 5 language model calls, 3 audit log entries"
    assert "_" not in data_care.deleted_words({t: 2 for t in data_care._DELETED_WORDS})
