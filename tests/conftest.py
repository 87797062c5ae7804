"""Shared fixtures: a real temporary SQLite file, an isolated environment, AppTest helper."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import db as dbmod  # noqa: E402
import e2e_support  # noqa: E402
from conftest_llama import llama_server  # noqa: E402,F401  (one real server per test session)
from conftest_postgres import (database, postgres_database, postgres_template, pytest_addoption,  # noqa: E402,F401
                               pytest_generate_tests)
from waits import WAIT_S  # noqa: E402

# A test that uses one of these fixtures is slow, and runs in that fixture's group: with
# `--dist loadgroup` (the README's command) a group's tests all run on one worker, so the session
# holds one Chromium and one local model server (docs/testing.md, "Running the tests").
GROUPS = {"browser": "browser", "llama_server": "llama"}
_CHROMIUM = e2e_support.SharedChromium()   # started by the first test that uses it


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, shared by every browser test (e2e_support.SharedChromium)."""
    yield _CHROMIUM
    _CHROMIUM.close()


@pytest.hookimpl(tryfirst=True)   # before -m "not slow" deselects, and before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        for fixture, group in GROUPS.items():
            if fixture in item.fixturenames:
                item.add_marker(pytest.mark.slow)
                item.add_marker(pytest.mark.xdist_group(group))
    if hasattr(config, "workerinput"):
        # On an xdist worker: the groups first, the other slow tests next, the fast ones last, so
        # the two workers start on the two longest groups and the short tests fill in at the end.
        def rank(item):
            group = item.get_closest_marker("xdist_group")
            return 0 if group else 1 if item.get_closest_marker("slow") else 2
        items.sort(key=rank)   # stable: each file's own order stays


@pytest.hookimpl(trylast=True)    # after the test's own fixtures (its pages, its server) are gone
def pytest_runtest_teardown(item, nextitem):
    """Close the shared Chromium when the next test does not use it (see SharedChromium)."""
    if "browser" in item.fixturenames and (nextitem is None or "browser" not in nextitem.fixturenames):
        _CHROMIUM.close()


_KEYS = ("OPENAI_", "FAIRMARK_", "AZURE_OPENAI")


@pytest.fixture(scope="session", autouse=True)
def isolated_session_env(tmp_path_factory):
    """The same for what runs before a test's own fixtures: a module's world, a session's
    server. Without it a module fixture's run read the settings of ./fairmark.db (and made one)."""
    mp = pytest.MonkeyPatch()
    for key in [k for k in os.environ if k.startswith(_KEYS)]:
        mp.delenv(key)
    tmp = tmp_path_factory.mktemp("session-env")
    mp.setenv("FAIRMARK_SECRETS", str(tmp / "no-secrets.toml"))
    mp.setenv("FAIRMARK_DB", str(tmp / "fairmark-session.db"))
    yield
    mp.undo()


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch, tmp_path):
    """No test ever sees a real API key or the developer's database or secrets."""
    for key in list(os.environ):
        if key.startswith(_KEYS):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("FAIRMARK_SECRETS", str(tmp_path / "no-secrets.toml"))
    monkeypatch.setenv("FAIRMARK_DB", str(tmp_path / "fairmark-test.db"))
    yield


@pytest.fixture
def db_path(tmp_path, request, monkeypatch, database) -> Path:
    """The test's database: a temporary SQLite file, or on PostgreSQL (--databases) a fresh
    database's address (tests/conftest_postgres.py), which FAIRMARK_DB then names too."""
    if database == "postgresql":
        url = request.getfixturevalue("postgres_database")
        monkeypatch.setenv("FAIRMARK_DB", url)
        return url
    path = Path(os.environ["FAIRMARK_DB"])
    # A copy of a file migrated once per worker, as PostgreSQL's tests copy a template: the same
    # schema at the head, without running 40 migrations again for each of some 2,000 tests (0.15 s
    # each). The tests of the migrations themselves open files of their own.
    shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
    return path


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory) -> Path:
    """A SQLite file at FairMark's head, made once per worker, for db_path to copy."""
    path = tmp_path_factory.mktemp("sqlite-template") / "head.db"
    dbmod.connect(path).close()   # the last connection closed: the WAL is folded into the file
    dbmod.forget_migrated(path)
    assert not Path(f"{path}-wal").exists(), "the template's WAL was not folded into its file"
    return path


@pytest.fixture
def sqlite_file(conn):
    """For a test about SQLite's backup file itself: it runs on SQLite only, whatever --databases
    says (tests/conftest_postgres.py), as tests/test_postgres_data.py tests PostgreSQL's backups
    (pg_dump) in every run."""
    assert not dbmod.on_postgresql(conn), "a test of SQLite's backup file ran on PostgreSQL"


@pytest.fixture
def conn(db_path):
    """A migrated database on a temporary file (the same one the app under test uses)."""
    conn = dbmod.connect(db_path)
    yield conn
    conn.close()
    dbmod.forget_migrated(db_path)


@pytest.fixture(autouse=True)
def _cheap_password_hashing(monkeypatch):
    """Argon2id at the product's cost takes ~0.1 s a hash; tests sign in hundreds of times, so they
    hash with the same algorithm at the lowest cost (the product's parameters are untouched)."""
    from argon2 import PasswordHasher

    from core.accounts import identity as accounts

    monkeypatch.setattr(accounts, "_hasher", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))


@pytest.fixture
def app_test(db_path):
    """Build an AppTest for app.py (absolute path) switched to a given page, signed in as a real
    user of the test database (an admin unless `role` says otherwise; `courses` are granted;
    `signed_in=False`: a visitor who has not signed in)."""
    from streamlit.testing.v1 import AppTest

    import factories

    def make(page: str | None = None, timeout: float = WAIT_S, *, role: str = "admin", user: str | None = None,
             courses=(), names: bool = False, signed_in: bool = True):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
        if page:
            at.switch_page(page)
        if signed_in:
            at.session_state["_session_token"] = factories.session(db_path, user or f"test-{role}", role=role,
                                                                   courses=courses, names=names)
        return at

    return make


@pytest.fixture(autouse=True)
def _apptest_uses_navigation(monkeypatch):
    """AppTest quirk: it resets PagesManager.uses_pages_directory before every run, and with a
    `pages/` folder beside app.py the *second* run of an AppTest then executes the page file
    directly (the legacy multipage mode), skipping app.py and its sidebar. A real server sets
    the flag once and st.navigation turns it off. Keep it off in tests, as on a real server."""
    from streamlit.runtime.pages_manager import PagesManager

    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)
