"""Shared fixtures: a real temporary SQLite file, an isolated environment, AppTest helper."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import db as dbmod  # noqa: E402
from conftest_llama import llama_server  # noqa: E402,F401  (one real server per test session)


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch, tmp_path):
    """No test ever sees a real API key or the developer's database or secrets."""
    for key in list(os.environ):
        if key.startswith(("OPENAI_", "FAIRMARK_", "AZURE_OPENAI")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("FAIRMARK_SECRETS", str(tmp_path / "no-secrets.toml"))
    monkeypatch.setenv("FAIRMARK_DB", str(tmp_path / "fairmark-test.db"))
    yield


@pytest.fixture
def db_path(tmp_path) -> Path:
    return Path(os.environ["FAIRMARK_DB"])


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

    def make(page: str | None = None, timeout: float = 30, *, role: str = "admin", user: str | None = None,
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


def pytest_configure(config):
    # A test that starts the app and a browser, or otherwise takes minutes: `-m "not slow"` leaves it out.
    config.addinivalue_line("markers", "slow: takes minutes (a browser, a real server); -m 'not slow' skips it")
