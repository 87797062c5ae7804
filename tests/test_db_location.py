"""FAIRMARK_DB and --db take a file path (SQLite) or a postgresql:// URL; any other address (sqlite:…,
mysql://…, a PostgreSQL scheme without //) or a folder is refused when the app or a command starts,
with a message that says what is supported, and nothing is made. A PostgreSQL URL whose server
cannot be reached stops the app's start and every command the same way, without its password.
Before, `FAIRMARK_DB=postgresql://…` made a folder named `postgresql:` with a SQLite file in it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import db
from core.errors import ConfigError
from core.settings import db_location, load_settings
from db import location

ROOT = Path(__file__).resolve().parent.parent
SECRET = "s3cr3t-pw"
PG_URL = f"postgresql://fairmark:{SECRET}@db.example.org:5432/fairmark"


# A PostgreSQL server that is not there: nothing listens on port 1 (the same in every xdist worker).
UNREACHABLE = f"postgresql://fairmark:{SECRET}@127.0.0.1:1/fairmark"


@pytest.mark.parametrize("value", ["postgresql:fm", "sqlite:///fm.db", "mysql://u@h/fm", "https://example.org/fm.db",
                                   "file:fm.db", f"mysql://fairmark:{SECRET}@db.example.org/fm"])
def test_an_address_is_refused_with_what_is_supported(value):
    with pytest.raises(ConfigError) as e:
        location.check(value, "FAIRMARK_DB")
    message = str(e.value)
    assert message.startswith("FAIRMARK_DB is ")
    assert "Supported: a file path" in message and "or a PostgreSQL URL" in message and "Nothing was created" in message
    assert SECRET not in message and "db.example.org" not in message   # an address may carry a password


@pytest.mark.parametrize("value", [PG_URL, "postgres://localhost/fm", "postgresql:///fm?host=/run/postgresql"])
def test_a_postgresql_url_is_accepted_as_it_is(value):
    assert location.check(value, "--db") == value
    assert location.is_postgresql(value)


def test_a_postgresql_scheme_without_its_slashes_says_so():
    with pytest.raises(ConfigError, match="^--db is a PostgreSQL address without // after postgresql:"):
        location.check("postgresql:fm", "--db")


def test_the_password_is_taken_out_of_what_is_shown():
    assert location.split_password(PG_URL) == ("postgresql://fairmark@db.example.org:5432/fairmark", SECRET)
    assert location.split_password("postgresql://fm@h/db?sslmode=require&password=x%3Ay") == (
        "postgresql://fm@h/db?sslmode=require", "x:y")
    assert location.split_password("postgresql://h/db") == ("postgresql://h/db", None)
    assert location.scrubbed(f"it said {SECRET}", PG_URL) == "it said ***"


def test_a_password_with_a_slash_or_a_plus_is_taken_out_and_the_other_parameters_kept_as_written():
    # An unencoded "/" in the password: the user part ends at the last "@" (it was shown whole).
    assert location.split_password("postgresql://fm:pa/ss@h/db") == ("postgresql://fm@h/db", "pa/ss")
    assert "pa/ss" not in location.shown("postgresql://fm:pa/ss@h/db")
    # "+" in ?password= is a plus for libpq, and the other parameters keep their own encoding.
    assert location.split_password("postgresql://h/db?password=a+b&options=-c%20statement_timeout%3D5") == (
        "postgresql://h/db?options=-c%20statement_timeout%3D5", "a+b")


@pytest.mark.parametrize("value", ["fairmark.db", "/srv/fairmark/fairmark.db", "data/fm.db", "notes:2024.db",
                                   "C:/FairMark/fm.db", ":memory:"])
def test_a_file_path_is_accepted_as_it_is(value):
    assert location.check(value) == value


def test_a_folder_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="is a folder, not a file"):
        location.check(tmp_path, "--db")


def test_connect_refuses_an_address_and_makes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match="is an address"):
        db.connect("mysql://u@h/fm")
    with pytest.raises(ConfigError) as e:
        db.connect(UNREACHABLE)
    assert str(e.value).startswith("The PostgreSQL database postgresql://fairmark@127.0.0.1:")
    assert "cannot be reached" in str(e.value) and SECRET not in str(e.value)
    assert list(tmp_path.iterdir()) == []


def test_settings_refuse_an_address_in_fairmark_db(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FAIRMARK_DB", "mysql://u@h/fm")
    for read in (load_settings, db_location):
        with pytest.raises(ConfigError, match="^FAIRMARK_DB is an address"):
            read()
    monkeypatch.setenv("FAIRMARK_DB", PG_URL)
    assert load_settings().db_path == PG_URL and db_location() == PG_URL
    (tmp_path / "secrets.toml").write_text('FAIRMARK_DB = "sqlite:///fm.db"\n')
    with pytest.raises(ConfigError, match="FAIRMARK_DB is an address"):
        db_location(env={}, secrets_path=tmp_path / "secrets.toml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["secrets.toml"]


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "FAIRMARK_", "AZURE_OPENAI"))}
    env.update(PYTHONPATH=str(ROOT), FAIRMARK_SECRETS="no-secrets.toml", **extra)
    return env


@pytest.mark.parametrize("argv, env, source", [
    (["--db", f"mysql://fairmark:{SECRET}@h/fm", "user", "list"], {}, "--db"),
    (["demo", "--db", "postgresql:fm"], {}, "--db"),
    (["init"], {"FAIRMARK_DB": f"mysql://fairmark:{SECRET}@h/fm"}, "FAIRMARK_DB"),
    (["data", "backup", "copy.db"], {"FAIRMARK_DB": "sqlite:///fm.db"}, "FAIRMARK_DB"),
])
def test_every_command_refuses_an_address_before_it_starts(tmp_path, argv, env, source):
    out = subprocess.run([sys.executable, "-m", "core", *argv], cwd=tmp_path, env=_env(**env),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    assert f"error: {source} is " in out.stderr and "Supported: a file path" in out.stderr
    assert "Supported: a file path" in json.loads(out.stdout.strip().splitlines()[-1])["error"]
    assert SECRET not in out.stdout + out.stderr
    assert list(tmp_path.iterdir()) == []          # no folder named postgresql:, no database


@pytest.mark.parametrize("argv, env", [
    (["--db", UNREACHABLE, "user", "list"], {}),
    (["init"], {"FAIRMARK_DB": UNREACHABLE}),
    (["data", "backup", "copy.dump", "--db", UNREACHABLE], {}),
])
def test_every_command_on_an_unreachable_postgresql_says_so_without_the_password(tmp_path, argv, env):
    out = subprocess.run([sys.executable, "-m", "core", *argv], cwd=tmp_path, env=_env(**env),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    error = json.loads(out.stdout.strip().splitlines()[-1])["error"]
    assert error.startswith("The PostgreSQL database postgresql://fairmark@127.0.0.1:") and "cannot be reached" in error
    assert SECRET not in out.stdout + out.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value, said", [
    ("mysql://fairmark:s3cr3t-pw@db.example.org/fm", "FairMark cannot start: FAIRMARK_DB is an address (mysql:…)"),
    (UNREACHABLE, "FairMark cannot start: The PostgreSQL database postgresql://fairmark@127.0.0.1:"),
])
def test_the_app_does_not_start_on_an_address_it_cannot_use(tmp_path, value, said):
    """`streamlit run app.py` with FAIRMARK_DB=mysql://… or a PostgreSQL server that is not there ends
    at start with the message (an address used to serve, and make ./postgresql:/… at the first visit)."""
    port = __import__("e2e_support").free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=tmp_path, env=_env(FAIRMARK_DB=value), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 120
    while proc.poll() is None and time.time() < deadline:
        time.sleep(0.3)
    if proc.poll() is None:
        proc.kill()
        proc.wait()
        pytest.fail(f"the app started on FAIRMARK_DB={location.shown(value)}: {proc.stdout.read()}")
    log = proc.stdout.read()
    assert proc.returncode == 2, log
    assert said in log and ("Supported: a file path" in log or "cannot be reached" in log)
    assert SECRET not in log
    assert list(tmp_path.iterdir()) == []
