"""Issue 29: backup and restore of a PostgreSQL database (pg_dump's custom format, pg_restore in one
transaction), with the password never on a command line nor in a message; and `data migrate-to URL`,
a SQLite database copied into an empty PostgreSQL one and read back through db/.

They run on PostgreSQL in every run of the suite: the private server of tests/conftest_postgres.py
(started for them when the session has none; Debian's postgresql, which the README's test command
installs; a machine without it fails them with the command that installs it, never skips them).
The file's tests share one worker, so the session starts one server for them."""
from __future__ import annotations

import itertools
import json
import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

import db
import factories as f
from conftest_postgres import _with_database
from core import data_care
from core.cli import main
from core.errors import ConfigError
from db import courses, location
from db import data_care as care_db
from db.postgres import tools

ROOT = Path(__file__).resolve().parent.parent
SECRET = "pw-s3cr3t:with\\odd"
HIGH = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 3}
_numbers = itertools.count(1)


pytestmark = pytest.mark.xdist_group("postgresql")


@pytest.fixture
def db_path(request, monkeypatch):
    """The test's database: a fresh PostgreSQL one, with or without --postgresql (this file is
    about PostgreSQL), which FAIRMARK_DB names too."""
    url = request.getfixturevalue("postgres_database")
    monkeypatch.setenv("FAIRMARK_DB", url)
    return url


@pytest.fixture
def pg(conn, db_path, tmp_path, monkeypatch):
    """The test's PostgreSQL database (its URL); a kept copy of a restore goes to tmp_path."""
    assert db.on_postgresql(conn)
    monkeypatch.chdir(tmp_path)
    return str(db_path)


@pytest.fixture
def empty_pg(request):
    """A new, empty PostgreSQL database on the session's server: its URL."""
    import psycopg

    admin_url, _ = request.getfixturevalue("postgres_template")
    name = f"fairmark_empty_{os.getpid()}_{next(_numbers)}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    yield _with_database(admin_url, name)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def with_password(url: str) -> str:
    """The URL with a password in it (the test server signs in by trust, so any password works)."""
    scheme, _, rest = url.partition("://")
    user, _, hosts = rest.partition("@")
    return f"{scheme}://{user}:{SECRET.replace(':', '%3A').replace(chr(92), '%5C')}@{hosts}"


def course_with_work(conn) -> dict:
    c = f.course(conn, "Course A", weeks=2)
    for n in range(3):
        st = f.student(conn, c["course_id"], external_id=f"s{n}", name=f"Pupil {n}")
        for aid in c["assignment_ids"]:
            sid = f.submission(conn, aid, st, text=f"Pupil {n} wrote about bias in week {aid}.")
            f.draft(conn, sid, HIGH)
            f.reference(conn, sid, HIGH)
    return c


def count(conn, table: str) -> int:
    return conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def run_cli(capsys, *args) -> tuple[int, dict, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, json.loads(out.out.strip().splitlines()[-1]), out.out + out.err


# --- backup and restore -------------------------------------------------------------------------
def test_a_backup_is_a_pg_dump_and_a_restore_brings_it_back_and_keeps_the_replaced_database(pg, conn, tmp_path):
    c = course_with_work(conn)
    out = data_care.backup(conn, tmp_path / "before.dump", actor=f.actor())
    assert Path(out["path"]).read_bytes()[:5] == b"PGDMP" and out["bytes"] > 0
    assert care_db.check_postgres_backup(out["path"]) == []
    data_care.delete_course(conn, c["course_id"], actor=f.actor())
    assert count(conn, "courses") == 0
    done = data_care.restore(pg, tmp_path / "before.dump", actor=f.actor("anna"))
    assert [r[0] for r in conn.execute("SELECT name FROM courses")] == ["Course A"]
    assert count(conn, "submissions") == 6
    assert conn.execute("SELECT actor FROM audit_log WHERE action = 'restore'").fetchone()[0] == "anna"
    kept = Path(done["previous_kept_at"])
    assert kept.parent == tmp_path and kept.name.startswith("fairmark-before-restore-")
    assert tools.table_rows(kept, "courses") == []                     # the database it replaced
    # New rows after the restore take new ids (the identities came back with the rows).
    again = f.course(conn, "Course B")
    assert again["course_id"] > c["course_id"]


def test_a_backup_taken_while_another_connection_writes_is_consistent(pg, conn, tmp_path):
    import threading

    c = course_with_work(conn)
    stop = threading.Event()

    def writer():
        w = db.connect(pg)
        n = 0
        while not stop.is_set() or n < 20:
            with db.write_transaction(w):
                st = f.student(w, c["course_id"], external_id=f"w{n}")
                f.submission(w, c["assignment_id"], st, text=f"written while backing up {n}")
            n += 1
        w.close()

    t = threading.Thread(target=writer)
    t.start()
    try:
        out = data_care.backup(conn, tmp_path / "copy.dump", actor=f.actor())
    finally:
        stop.set()
        t.join()
    students = [r for r in tools.table_rows(out["path"], "students") if r["external_id"].startswith("w")]
    subs = [r for r in tools.table_rows(out["path"], "submissions") if r["text"].startswith("written while")]
    assert len(students) == len(subs)                    # every writer transaction whole or absent
    with pytest.raises(ConfigError, match="exists already"):
        data_care.backup(conn, tmp_path / "copy.dump", actor=f.actor())


def test_a_restore_ends_every_session_of_the_backup(pg, conn, tmp_path):
    from core.accounts import identity as accounts

    f.user(conn, "tom", "ta")
    _, token = accounts.sign_in(conn, "tom", f.PASSWORD)
    data_care.backup(conn, tmp_path / "b.dump", actor=f.actor())
    done = data_care.restore(pg, tmp_path / "b.dump", actor=f.actor())
    assert done["sessions_ended"] >= 1
    assert accounts.resume(conn, token) is None
    assert count(conn, "sessions WHERE ended_at IS NULL") == 0


def test_the_cli_backs_up_and_restores_a_postgresql_database(pg, conn, tmp_path, capsys):
    course_with_work(conn)
    code, out, _ = run_cli(capsys, "data", "backup", str(tmp_path / "cli.dump"), "--db", pg)
    assert code == 0 and out["command"] == "data backup" and out["bytes"] > 0
    conn.execute("DELETE FROM judge_agreement")
    f.course(conn, "Course B")
    code, out, _ = run_cli(capsys, "data", "restore", str(tmp_path / "cli.dump"), "--db", pg)
    assert code == 0 and out["command"] == "data restore" and out["restored_from"].endswith("cli.dump")
    assert [r[0] for r in conn.execute("SELECT name FROM courses ORDER BY id")] == ["Course A"]


def test_the_password_is_on_no_command_line_and_in_no_message(pg, conn, tmp_path, monkeypatch, capsys):
    url = with_password(pg)
    assert location.split_password(url) == (pg, SECRET)
    seen = []
    real = subprocess.run

    def watched(argv, **kw):
        env = kw.get("env") or {}
        passfile = env.get("PGPASSFILE")
        seen.append((argv, Path(passfile).read_text() if passfile else None,
                     oct(os.stat(passfile).st_mode & 0o777) if passfile else None, passfile, env.get("PGPASSWORD")))
        return real(argv, **kw)

    monkeypatch.setattr(subprocess, "run", watched)
    course_with_work(conn)
    code, out, said = run_cli(capsys, "data", "backup", str(tmp_path / "pw.dump"), "--db", url)
    assert code == 0, out
    code, out, more = run_cli(capsys, "data", "restore", str(tmp_path / "pw.dump"), "--db", url)
    assert code == 0, out
    tools_run = [s for s in seen if "pg_dump" in s[0][0] or "pg_restore" in s[0][0]]
    assert {Path(s[0][0]).name for s in tools_run} >= {"pg_dump", "pg_restore"}
    for argv, passfile, mode, path, env_password in tools_run:
        assert SECRET not in " ".join(argv) and "s3cr3t" not in " ".join(argv)   # what `ps` shows
        if any(a.startswith("--dbname=") for a in argv):
            assert passfile == "*:*:*:*:pw-s3cr3t\\:with\\\\odd\n" and mode == "0o600" and env_password is None
            assert not Path(path).exists()                                    # gone when the tool ended
    assert "s3cr3t" not in said + more
    # A tool's failure is shown without the password either (here: no such database).
    missing = url.rpartition("/")[0] + "/no_such_database"
    with pytest.raises(ConfigError) as e:
        tools.dump(missing, tmp_path / "never.dump")
    assert "s3cr3t" not in str(e.value) and "no_such_database" in str(e.value)
    assert not (tmp_path / "never.dump").exists()


def test_missing_tools_are_refused_plainly_with_how_to_install_them(pg, conn, tmp_path, monkeypatch):
    data_care.backup(conn, tmp_path / "sound.dump", actor=f.actor())
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    monkeypatch.setattr(tools, "SEARCH", str(tmp_path / "nothing-here"))
    with pytest.raises(ConfigError) as e:
        data_care.backup(conn, tmp_path / "b.dump", actor=f.actor())
    assert str(e.value).startswith("pg_dump is not installed on this host")
    assert "apt-get install -y postgresql-client" in str(e.value)
    assert not (tmp_path / "b.dump").exists()
    with pytest.raises(ConfigError, match="^pg_restore is not installed on this host.*apt-get install -y "
                                          "postgresql-client"):
        data_care.restore(pg, tmp_path / "sound.dump", actor=f.actor())
    assert not list(tmp_path.glob("fairmark-before-restore-*"))


def test_a_restore_refuses_what_is_not_this_versions_postgresql_backup(pg, conn, tmp_path):
    course_with_work(conn)
    (tmp_path / "junk.dump").write_bytes(b"not a backup at all" * 100)
    sqlite_file = tmp_path / "old.db"
    db.connect(sqlite_file).close()
    conn.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
                 "VALUES ('fairmark', 'm999_from_the_future', '2030-01-01')")
    data_care.backup(conn, tmp_path / "newer.dump", actor=f.actor())
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm999_from_the_future'")
    last = conn.execute("SELECT name FROM _sqlite_migrations ORDER BY name DESC LIMIT 1").fetchone()[0]
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = ?", [last])
    data_care.backup(conn, tmp_path / "older.dump", actor=f.actor())
    conn.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('fairmark', ?, 'x')",
                 [last])
    for name, said in [("junk.dump", "it is not a PostgreSQL backup"),
                       ("old.db", "it is a backup of a SQLite database"),
                       ("newer.dump", "it was made by a newer version of FairMark"),
                       ("older.dump", "it was made by an older version of FairMark")]:
        with pytest.raises(ConfigError) as e:
            data_care.restore(pg, tmp_path / name, actor=f.actor(), shown_as=name)
        assert str(e.value).startswith(f"{name} cannot be restored: {said}"), str(e.value)
        assert str(e.value).endswith("Nothing was changed.")
    assert "migrate-to" in care_db.check_postgres_backup(sqlite_file)[0]
    assert count(conn, "courses") == 1 and count(conn, "audit_log WHERE action = 'restore'") == 0
    assert not list(tmp_path.glob("fairmark-before-restore-*"))


def test_a_restore_that_fails_part_way_changes_nothing(pg, conn, tmp_path):
    c = course_with_work(conn)
    st = f.student(conn, c["course_id"], external_id="long")
    f.submission(conn, c["assignment_id"], st, text=os.urandom(300_000).hex())   # most of the backup's bytes
    data_care.backup(conn, tmp_path / "sound.dump", actor=f.actor())
    data = bytearray((tmp_path / "sound.dump").read_bytes())
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(64)          # inside that text's compressed rows: its table of contents reads
    (tmp_path / "damaged.dump").write_bytes(bytes(data))
    assert care_db.check_postgres_backup(tmp_path / "damaged.dump") == []
    f.course(conn, "Course B")
    with pytest.raises(ConfigError, match="^The restore (\\(pg_restore\\) )?failed.*Nothing was changed"):
        data_care.restore(pg, tmp_path / "damaged.dump", actor=f.actor())
    assert [r[0] for r in conn.execute("SELECT name FROM courses ORDER BY id")] == ["Course A", "Course B"]
    assert count(conn, "submissions") == 7 and count(conn, "audit_log WHERE action = 'restore'") == 0
    # A fault after the rows are back (here: ending the sessions) undoes them too: one transaction.
    from db import users as users_db

    def broken(_conn):
        raise ConfigError("the disk is full")

    monkey = pytest.MonkeyPatch()
    monkey.setattr(users_db, "end_all_sessions", broken)
    try:
        with pytest.raises(ConfigError, match="the disk is full"):
            data_care.restore(pg, tmp_path / "sound.dump", actor=f.actor())
    finally:
        monkey.undo()
    assert [r[0] for r in conn.execute("SELECT name FROM courses ORDER BY id")] == ["Course A", "Course B"]
    assert count(conn, "audit_log WHERE action = 'restore'") == 0


def test_the_settings_page_offers_a_dump_on_postgresql(pg, conn):
    assert data_care.backup_format(conn) == {"suffix": ".dump", "mime": "application/octet-stream",
                                             "made_with": "PostgreSQL's pg_dump", "versions": "from this version"}
    data = data_care.backup_bytes(conn, actor=f.actor())
    assert data[:5] == b"PGDMP"


# --- migrate-to ---------------------------------------------------------------------------------
def sqlite_world(path: Path) -> tuple[dict, str]:
    """A SQLite database with a course's work, users, a signed-in session and LMS keys: (course, token)."""
    from core.accounts import identity as accounts
    from core.signoff import actions

    conn = db.connect(path)
    try:
        c = course_with_work(conn)
        first = conn.execute("SELECT id FROM submissions ORDER BY id").fetchone()[0]
        review = actions.open_item(conn, first, actor=f.actor())
        actions.approve(conn, first, version=review["version"], actor=f.actor())
        f.user(conn, "tom", "ta", courses=[c["course_id"]])
        _, token = accounts.sign_in(conn, "tom", f.PASSWORD)
        return c, token
    finally:
        conn.close()
        db.forget_migrated(path)


def test_migrate_to_copies_a_sqlite_database_that_then_works_on_postgresql(empty_pg, tmp_path, capsys):
    from core.accounts import identity as accounts
    from core.signoff import review_view

    source = tmp_path / "source.db"
    c, token = sqlite_world(source)
    code, out, said = run_cli(capsys, "data", "migrate-to", empty_pg, "--db", str(source))
    assert code == 0, out
    assert set(out) == {"command", "tables", "checked"} and out["command"] == "data migrate-to" and out["checked"]
    lite = db.connect(source)
    try:
        tables = [r[0] for r in lite.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                             "AND name NOT LIKE 'sqlite_%'")]
        assert set(out["tables"]) == set(tables)
        assert {t: count(lite, t) for t in tables} == out["tables"]
        assert lite.execute("SELECT after FROM audit_log WHERE action = 'migrate_to'").fetchone()[0] \
            == json.dumps({"to": empty_pg})
    finally:
        lite.close()
    assert out["tables"]["submissions"] == 6 and out["tables"]["users"] >= 1
    conn = db.connect(empty_pg)                                  # the normal way in: no baseline made again
    try:
        assert {t: count(conn, t) for t in out["tables"]} == out["tables"]
        course = courses.course_by_name(conn, "Course A")
        assert course["id"] == c["course_id"]
        assert {s["external_id"] for s in courses.list_students(conn, course["id"])} == {"s0", "s1", "s2"}
        assert accounts.resume(conn, token) is not None          # a session signed in on SQLite goes on
        on_postgresql = review_view.review_queue(conn, c["assignment_id"], actor=f.actor())
        lite = db.connect(source)
        try:
            assert on_postgresql == review_view.review_queue(lite, c["assignment_id"], actor=f.actor())
        finally:
            lite.close()
        assert len(on_postgresql["items"]) == 3
        # New rows take new ids, and the kept-count triggers count them (they were made after the copy).
        other = f.course(conn, "Course B")
        assert other["course_id"] > c["course_id"]
        sid = f.submission(conn, other["assignment_id"], f.student(conn, other["course_id"]))
        assert sid > max(r[0] for r in conn.execute("SELECT id FROM submissions WHERE id <> ?", [sid]))
        # The copied kept counts equal SQLite's, and the triggers (made after the copy) count the new
        # submission once: the queue's counts per assignment still equal a count of the rows.
        kept = {(r[0], r[1]): r[2] for r in conn.execute("SELECT assignment_id, priority, n FROM queue_counts")
                if r[2]}
        assert kept == {(r[0], r[1]): r[2] for r in conn.execute(
            "SELECT assignment_id, priority, COUNT(*) FROM submissions GROUP BY assignment_id, priority")}
        assert sum(n for (aid, _), n in kept.items() if aid == other["assignment_id"]) == 1
    finally:
        conn.close()


def test_migrate_to_refuses_a_database_that_is_not_empty(pg, tmp_path, capsys):
    source = tmp_path / "source.db"
    sqlite_world(source)
    code, out, said = run_cli(capsys, "data", "migrate-to", with_password(pg), "--db", str(source))
    assert code == 2 and "is not empty" in out["error"] and "Nothing was copied" in out["error"]
    assert "s3cr3t" not in said


def test_migrate_to_refuses_what_is_not_postgresql_or_cannot_be_reached(tmp_path, capsys):
    source = tmp_path / "source.db"
    db.connect(source).close()
    for target in ("mysql://u:s3cr3t@h/fm", str(tmp_path / "other.db")):
        code, out, said = run_cli(capsys, "data", "migrate-to", target, "--db", str(source))
        assert code == 2 and out["error"].startswith("migrate-to copies into a PostgreSQL database")
        assert "s3cr3t" not in said
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]                               # nothing listens there
    code, out, said = run_cli(capsys, "data", "migrate-to", f"postgresql://fm:{SECRET}@127.0.0.1:{port}/fm",
                              "--db", str(source))
    assert code == 2 and "cannot be reached" in out["error"] and "Nothing was copied" in out["error"]
    assert "postgresql://fm@127.0.0.1" in out["error"] and "s3cr3t" not in said


def test_migrate_to_is_one_transaction_a_failure_leaves_the_target_empty(empty_pg, tmp_path, capsys):
    source = tmp_path / "source.db"
    sqlite_world(source)
    lite = db.connect(source)
    lite.execute("UPDATE submissions SET text = ? WHERE id = (SELECT MAX(id) FROM submissions)",
                 ["a NUL \x00 PostgreSQL text cannot hold"])
    lite.close()
    code, out, _ = run_cli(capsys, "data", "migrate-to", empty_pg, "--db", str(source))
    assert code == 2 and "failed at table submissions" in out["error"], out
    import psycopg

    with psycopg.connect(empty_pg) as check:
        assert check.execute("SELECT COUNT(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                             "WHERE n.nspname = 'public'").fetchone()[0] == 0
    # Once the text is mended, the same empty database takes the copy.
    lite = db.connect(source)
    # The SQLite audit log says the copy began and that it did not happen.
    assert [r[0] for r in lite.execute("SELECT action FROM audit_log WHERE action LIKE 'migrate_to%' ORDER BY id")] \
        == ["migrate_to", "migrate_to_failed"]
    lite.execute("UPDATE submissions SET text = 'mended' WHERE text LIKE 'a NUL%'")
    lite.close()
    code, out, _ = run_cli(capsys, "data", "migrate-to", empty_pg, "--db", str(source))
    assert code == 0 and out["checked"] is True


# --- a postgresql:// FAIRMARK_DB / --db is accepted by the command line and the app ---------------
def test_the_command_line_and_the_app_run_on_a_postgresql_url(pg, conn, tmp_path):
    import sys
    import urllib.request

    import e2e_support

    f.user(conn, "tom", "ta")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "FAIRMARK_", "AZURE_OPENAI"))}
    env.update(PYTHONPATH=str(ROOT), FAIRMARK_SECRETS=str(tmp_path / "no-secrets.toml"))
    for argv, extra in ((["--db", with_password(pg), "user", "list"], {}), (["user", "list"], {"FAIRMARK_DB": pg})):
        out = subprocess.run([sys.executable, "-m", "core", *argv], cwd=tmp_path, env={**env, **extra},
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert "tom" in [u["username"] for u in json.loads(out.stdout.strip().splitlines()[-1])["users"]]
        assert "s3cr3t" not in out.stdout + out.stderr
    with e2e_support.streamlit_server(pg, tmp_path) as url:      # starts, and is healthy, on PostgreSQL
        assert urllib.request.urlopen(f"{url}/_stcore/health", timeout=10).status == 200
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".db"]   # no SQLite file was made instead


def test_a_connection_let_go_without_close_ends_its_server_process_at_once(pg, conn):
    """Code written for sqlite3 lets a connection go with its last reference. On PostgreSQL a
    reference cycle kept each one open until the cyclic collector ran: a run's threads held over
    100 server processes ("too many clients already" in `python -m bench.load --databases postgresql`)."""
    import gc

    def others() -> int:
        return conn.execute("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() "
                            "AND pid <> pg_backend_pid()").fetchone()[0]

    before = others()
    gc.disable()
    try:
        for _ in range(30):
            db.connect(pg).execute("SELECT 1")
        deadline = time.monotonic() + 5   # a server process ends a moment after its client has gone
        while others() != before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert others() == before
    finally:
        gc.enable()


@pytest.fixture
def bound(monkeypatch):
    """A fresh per-process bound of FAIRMARK_DB_CONNECTIONS (it is read once per process)."""
    from db.postgres import pool as connection

    def set_to(n: int, wait_s: float = 10.0):
        connection.let_go_idle()   # a kept connection holds a place under the bound it was opened in
        monkeypatch.setenv("FAIRMARK_DB_CONNECTIONS", str(n))
        monkeypatch.setattr(connection, "_slots", None)
        monkeypatch.setattr(connection, "_over", 0)
        monkeypatch.setattr(connection, "SLOT_WAIT_S", wait_s)
    yield set_to
    connection.let_go_idle()
    monkeypatch.setattr(connection, "_slots", None)   # the next test reads the variable again


def test_a_burst_of_threads_holds_no_more_connections_than_the_bound(pg, conn, bound):
    """A batch wave's answers arrive together and each submission's thread stores its work: 40
    threads at once held 40 server connections; under FAIRMARK_DB_CONNECTIONS=5 they hold 5 at
    most and every write lands."""
    import threading

    conn.execute("CREATE TABLE burst (n INTEGER)")
    bound(5)
    most, seen = [0], threading.Lock()
    go = threading.Barrier(40)

    held = [0]

    def one(i: int):
        go.wait()
        c = db.connect(pg)
        try:
            with seen:
                held[0] += 1
                most[0] = max(most[0], held[0])
            c.execute("INSERT INTO burst (n) VALUES (?)", [i])
            time.sleep(0.02)
        finally:
            with seen:
                held[0] -= 1
            c.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert conn.execute("SELECT COUNT(*) FROM burst").fetchone()[0] == 40
    assert 2 <= most[0] <= 5   # connections open in these threads at once (the server's own list lags)
    assert not any(t.is_alive() for t in threads)


def test_a_connection_past_the_bound_waits_for_one_to_close_and_never_for_ever(pg, bound, caplog):
    import threading

    bound(1, wait_s=30)
    first = db.connect(pg)
    opened = threading.Event()

    def second():
        db.connect(pg).close()
        opened.set()

    threading.Thread(target=second, daemon=True).start()
    assert not opened.wait(0.5)    # the bound is full: it waits
    first.close()
    assert opened.wait(10)         # and opens as soon as a place comes free

    bound(1, wait_s=0.2)           # a thread that holds one and opens another goes past the bound
    held = db.connect(pg)
    with caplog.at_level("WARNING", logger="db.postgres.connection"):
        other = db.connect(pg)
    assert other.execute("SELECT 1").fetchone()[0] == 1
    assert "past the bound" in caplog.text
    other.close()
    held.close()

    bound(1, wait_s=5)
    gone = db.connect(pg)          # let go without close: its place comes back with it
    gone.execute("SELECT 1")
    del gone
    start = time.monotonic()
    db.connect(pg).close()
    assert time.monotonic() - start < 2.5   # it did not wait the 5 s for a place


@pytest.mark.parametrize("value", ["0", "many", "-3", "20000"])
def test_a_bad_connection_bound_is_refused_with_the_setting_named(pg, bound, value):
    bound(1)
    os.environ["FAIRMARK_DB_CONNECTIONS"] = value   # the fixture's monkeypatch restores it
    with pytest.raises(ConfigError, match="FAIRMARK_DB_CONNECTIONS must be a whole number from 1 to 10000"):
        db.connect(pg)


def test_a_refresh_of_the_counts_never_waits_for_a_writer_and_what_it_marks_stays_dirty(pg, conn):
    """On PostgreSQL the kept counts' refresh holds its own lock, not the writers': with 4 hosts and a
    run writing, a page's refresh waiting behind the run's drafts was 80 % of the review page's time
    (`python -m bench.load --servers 4 --databases postgresql`). A submission a writer is marking
    again meanwhile is skipped, not waited for, and recounted by the next refresh."""
    import threading

    from db import aggregates

    c = f.course(conn, "Counts")
    aid = c["assignment_ids"][0]
    sids = [f.submission(conn, aid, f.student(conn, c["course_id"]), text=f"word {i} " * 50) for i in range(3)]
    for sid in sids:
        f.draft(conn, sid, HIGH)
    aggregates.refresh(conn)
    assert aggregates.dirty_count(conn) == 0
    f.draft(conn, sids[0], HIGH)                  # both dirty (committed): sids[0] is re-marked below
    f.draft(conn, sids[1], HIGH)

    writer = db.connect(pg)                       # a run's write transaction, held open
    writer.conn.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE submissions SET word_count = word_count + 1 WHERE id = ?", [sids[0]])
    done = threading.Event()
    threading.Thread(target=lambda: (aggregates.refresh(conn), done.set()), daemon=True).start()
    try:
        assert done.wait(10), "the refresh waited for the writer's transaction"
    finally:
        writer.conn.execute("COMMIT")
        writer.close()
    dirty = {r[0] for r in conn.execute("SELECT submission_id FROM agg_dirty").fetchall()}
    assert dirty == {sids[0]}   # the row the writer held was skipped and stays dirty; sids[1] was recounted
    aggregates.refresh(conn)
    assert aggregates.dirty_count(conn) == 0


def test_a_refresh_while_another_host_refreshes_returns_at_once_and_the_next_one_counts(pg, conn):
    """Four hosts' pages each refreshing the same dirty rows queued behind one another; now a page
    whose refresh finds another one running reads the counts as they stand, and a later one counts."""
    from db import aggregates

    c = f.course(conn, "Counts")
    sid = f.submission(conn, c["assignment_ids"][0], f.student(conn, c["course_id"]), text="word " * 50)
    f.draft(conn, sid, HIGH)
    other = db.connect(pg)                        # another host's refresh, in the middle of its write
    with db.write_transaction(other, lock="aggregates"):
        start = time.monotonic()
        assert aggregates.refresh(conn) == 0
        assert time.monotonic() - start < 5
        assert aggregates.dirty_count(conn) == 1
    other.close()
    assert aggregates.refresh(conn) == 1 and aggregates.dirty_count(conn) == 0


def test_a_refresh_inside_a_writers_transaction_still_takes_the_refreshes_lock(pg, conn):
    """A bulk approval's readiness refreshes the counts inside its write transaction: that refresh
    too must not count while another host's refresh does (both would subtract the same cells)."""
    from db import aggregates

    c = f.course(conn, "Counts")
    sid = f.submission(conn, c["assignment_ids"][0], f.student(conn, c["course_id"]), text="word " * 50)
    f.draft(conn, sid, HIGH)
    other = db.connect(pg)
    with db.write_transaction(other, lock="aggregates"):     # another host's refresh, counting
        with db.write_transaction(conn):                     # the bulk approval's transaction
            assert aggregates.refresh(conn) == 0
            conn.execute("UPDATE courses SET name = ? WHERE id = ?", ["Counts (renamed)", c["course_id"]])
    other.close()
    assert conn.execute("SELECT name FROM courses WHERE id = ?", [c["course_id"]]).fetchone()[0] == "Counts (renamed)"
    assert aggregates.refresh(conn) == 1 and aggregates.dirty_count(conn) == 0


def test_a_connection_let_go_in_a_reference_cycle_gives_its_place_back_when_the_bound_is_full(pg, bound):
    """A page's st.rerun() or st.stop() is an exception whose traceback holds the frames, and their
    connections, in a cycle: with the bound full the next connection runs the collector instead of
    waiting the whole wait for a place (a test worker waited 10 s per connection, 161 s in one test)."""
    import gc

    bound(1, wait_s=5)
    gc.disable()
    try:
        held = db.connect(pg)
        cycle = [held]
        cycle.append(cycle)
        del held, cycle
        start = time.monotonic()
        db.connect(pg).close()
        assert time.monotonic() - start < 2.5
    finally:
        gc.enable()
