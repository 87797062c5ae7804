"""The database tests on PostgreSQL: `python -m pytest --databases both` (the README's command: every
database test twice, `[sqlite]` and `[postgresql]`), `--databases postgresql` (alias `--postgresql`:
the database tests on PostgreSQL only) or `--databases sqlite` (the default).

With PostgreSQL the session starts its own PostgreSQL server (Debian's postgresql 15: initdb and
pg_ctl as the `postgres` OS user, which they need when the tests run as root, on a free local port,
in a temporary folder, trust sign-in on 127.0.0.1 only), makes one database at FairMark's head
(db/postgres: the baseline), and gives every test that asks for `db_path` or `conn` a fresh copy of
it (CREATE DATABASE … TEMPLATE, dropped after the test). `--postgresql-url URL` uses a server that
is already running instead (its user may create databases). Tests that use Chromium, the local model
server or SQLite's own backup file (`sqlite_file`), and tests marked `sqlite_only`, stay on SQLite and
are collected once. Without an option the database tests run on SQLite; the tests about PostgreSQL itself
(tests/test_postgres_data.py) still get a fresh database on a server this session starts for them.
"""
from __future__ import annotations

import itertools
import os

import pytest

SQLITE_ONLY = ("browser", "llama_server", "sqlite_file")   # fixtures whose tests stay on SQLite
CHOICES = {"sqlite": ["sqlite"], "postgresql": ["postgresql"], "both": ["sqlite", "postgresql"]}
_numbers = itertools.count(1)


def pytest_addoption(parser):
    group = parser.getgroup("fairmark")
    group.addoption("--databases", choices=sorted(CHOICES), default=None,
                    help="which databases the database tests run on: sqlite (the default), postgresql "
                         "(a server this session starts), or both (each such test twice)")
    group.addoption("--postgresql", action="store_true",
                    help="the same as --databases postgresql")
    group.addoption("--postgresql-url", metavar="URL",
                    help="run the database tests on the PostgreSQL server at URL (a maintenance database)")


def databases(config) -> list[str]:
    """The databases a database test runs on, in order."""
    chosen = config.getoption("--databases")
    if chosen is None:
        chosen = "postgresql" if config.getoption("--postgresql") or config.getoption("--postgresql-url") else "sqlite"
    return CHOICES[chosen]


def stays_on_sqlite(fixturenames, markers) -> bool:
    return any(f in fixturenames for f in SQLITE_ONLY) or "sqlite_only" in markers


def pytest_generate_tests(metafunc):
    """A database test runs once per chosen database: `database` is what db_path builds on."""
    if "database" not in metafunc.fixturenames:
        return
    marks = {m.name for m in metafunc.definition.iter_markers()}
    chosen = ["sqlite"] if stays_on_sqlite(metafunc.fixturenames, marks) else databases(metafunc.config)
    if len(chosen) > 1:
        metafunc.parametrize("database", chosen, indirect=True, scope="function")


@pytest.fixture
def database(request) -> str:
    """'sqlite' or 'postgresql': the database this run of the test uses."""
    if hasattr(request, "param"):
        return request.param
    marks = {m.name for m in request.node.iter_markers()}
    return "sqlite" if stays_on_sqlite(request.fixturenames, marks) else databases(request.config)[0]


def _server():
    """This worker's private server (bench/postgres_server.py: throw-away, in memory when it can)."""
    from bench.postgres_server import NoPostgres, Server

    try:
        return Server(durable=False)
    except NoPostgres as e:
        pytest.fail(f"the PostgreSQL tests: {e}")


def _with_database(url: str, name: str) -> str:
    base, _, _ = url.rpartition("/")
    return f"{base}/{name}"


@pytest.fixture(scope="session")
def postgres_template(request):
    """(maintenance URL, template database name): a database at FairMark's head to copy per test."""
    import psycopg

    import db
    from db.postgres import connection as postgres
    from db.postgres import pool

    server = None if request.config.getoption("--postgresql-url") else _server()
    admin_url = request.config.getoption("--postgresql-url") or server.url
    name = f"fairmark_template_{os.getpid()}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    db.connect(_with_database(admin_url, name)).close()
    pool.let_go_idle()   # copied per test: PostgreSQL copies no database a session is open on
    yield admin_url, name
    postgres._ready.discard(_with_database(admin_url, name))
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    if server is not None:
        server.stop()


@pytest.fixture
def postgres_database(postgres_template):
    """A fresh copy of the template for one test: its URL."""
    import psycopg

    from db.postgres import connection as postgres
    from db.postgres import pool

    admin_url, template = postgres_template
    name = f"fairmark_test_{os.getpid()}_{next(_numbers)}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')
    url = _with_database(admin_url, name)
    postgres._ready.add(url)
    yield url
    postgres._ready.discard(url)
    pool.let_go_idle(url)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
