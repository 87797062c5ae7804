"""Plumbing for the end-to-end tests: `streamlit run app.py` on a free port against a given
database, Debian's chromium driven by Playwright (never a downloaded browser), and waits for
Streamlit's script runs. A missing chromium is a failure, not a skip: CI installs it (the
README's test command)."""
from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from waits import WAIT_MS, WAIT_S

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = WAIT_MS  # every wait for the page (tests/waits.py)


USER, PASSWORD = "e2e.teacher", "e2e teacher's password"
COOKIE = "fairmark_session"


def add_user(db_path, name: str, role: str, env: dict | None = None, password: str = PASSWORD,
             display_name: str = "") -> None:
    """An account made with the command line before the server starts, as an operator would
    (`python -m core user add`); an existing one is kept."""
    env = dict(env or os.environ, FAIRMARK_DB=str(db_path))
    shown = ["--display-name", display_name] if display_name else []
    done = subprocess.run([sys.executable, "-m", "core", "user", "add", name, "--role", role, *shown,
                           "--password-stdin"],
                          input=password + "\n", text=True, capture_output=True, cwd=ROOT, env=env)
    assert done.returncode == 0 or "exists already" in done.stdout, done.stdout + done.stderr


def sign_in(page, url: str, user: str = USER, password: str = PASSWORD,
            labels: tuple[str, str, str] = ("User name", "Password", "Sign in")) -> None:
    """Sign in through the form (every page shows it to a visitor who has not signed in) and
    wait until the browser holds the session cookie (the server's /auth/session route sets it,
    HttpOnly: the page's scripts cannot see it, the browser context can) and the page it sent
    the browser back to has drawn the menu: later addresses open signed in."""
    page.goto(url)          # `labels`: the form's user name, password and button in the page's language
    page.get_by_label(labels[0], exact=True).fill(user)
    page.get_by_label(labels[1], exact=True).fill(password)
    page.get_by_role("button", name=labels[2]).click()
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while session_cookie(page.context) is None:
        assert time.monotonic() < deadline, "the browser never got the session cookie"
        page.wait_for_timeout(100)
    page.wait_for_load_state("load")
    page.wait_for_selector(MENU, timeout=TIMEOUT_MS)
    idle(page)


def session_cookie(context) -> dict | None:
    """The browser's FairMark session cookie (Playwright's view of the context, which sees
    HttpOnly cookies), or None."""
    return next((c for c in context.cookies() if c["name"] == COOKIE), None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(db_path, log_dir: Path, *, secrets: Path | None = None, display_name: str = "",
                     env_extra: dict | None = None):
    """A fresh server process (its first request is a fresh server's first request); `secrets`:
    Streamlit's own secrets file (st.login's [auth]); `display_name`: the name the app shows
    for the signed-in teacher (USER); `env_extra`: settings of the server's own (the LTI key secret)."""
    port = free_port()
    # Never a real key or the developer's settings, even from a module-scoped fixture (set up
    # before conftest's per-test environment isolation).
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "FAIRMARK_", "AZURE_OPENAI"))}
    env.update(FAIRMARK_DB=str(db_path), FAIRMARK_SECRETS=str(Path(log_dir) / "no-secrets.toml"), **(env_extra or {}))
    add_user(db_path, USER, "admin", env, display_name=display_name)
    log_path = Path(log_dir) / f"streamlit-{port}.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
         *(["--secrets.files", str(secrets)] if secrets else [])],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + WAIT_S
        while time.time() < deadline:
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).status == 200:
                    break
            except OSError:
                time.sleep(0.3)
            if proc.poll() is not None:
                pytest.fail(f"streamlit exited early:\n{log_path.read_text()}")
        else:
            pytest.fail(f"streamlit did not become healthy within {WAIT_S} s:\n{log_path.read_text()}")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@contextlib.contextmanager
def chromium():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is required for the end-to-end tests but {CHROMIUM} is missing: "
                    "install Debian's package with `apt-get install -y chromium` (the README's test command does).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


class SharedChromium:
    """The session's one Chromium (fixture `browser`, tests/conftest.py), started by the first
    browser test and closed after the last of a row of them (conftest's pytest_runtest_teardown):
    between two calls Playwright's sync API marks its event loop as running in this thread, so a
    test after it that runs asyncio (AppTest, bench.load) must not find it open. Attributes are
    the browser's (`browser.new_context(...)`). Every wait in its pages and every `expect` is
    TIMEOUT_MS while it is open."""

    def __init__(self):
        self._cm = self._browser = None

    def _open(self):
        if self._browser is None:
            from playwright.sync_api import expect

            self._cm = chromium()
            self._browser = self._cm.__enter__()
            expect.set_options(timeout=TIMEOUT_MS)   # a rerun on a busy machine takes longer than 5 s
        return self._browser

    def __getattr__(self, name):
        return getattr(self._open(), name)

    def new_context(self, **kw):
        context = self._open().new_context(**kw)
        context.set_default_timeout(TIMEOUT_MS)
        return context

    def close(self) -> None:
        if self._browser is not None:
            from playwright.sync_api import expect

            cm, self._cm, self._browser = self._cm, None, None
            expect.set_options(timeout=5_000)
            cm.__exit__(None, None, None)


def new_page(browser, width: int = 1440, height: int = 1200, *, signed_in_at: str | None = None, **kw):
    """A page in a new browser context (its own cookies); `signed_in_at`: signed in there first."""
    page = browser.new_context(viewport={"width": width, "height": height}, **kw).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    if signed_in_at:
        sign_in(page, signed_in_at)
    return page


def idle(page) -> None:
    """Wait until Streamlit has finished its current script run: not running at two checks
    0.3 s apart (a run can start a moment after the click that caused it, or rerun itself)."""
    quiet = "() => !document.querySelector('[data-testid^=\"stStatusWidgetRunning\"]')"
    for _ in range(2):
        page.wait_for_timeout(300)
        page.wait_for_function(quiet, timeout=TIMEOUT_MS)


MENU = '[data-testid="stSidebar"] [data-testid="stPageLink"]'  # the app's own page menu (pages/_common.menu)


def nav(page, label: str) -> None:
    """Open a page from the menu, and wait until the browser is on it: a click the app lost
    (a rerun it asked for itself winning over the click) fails here, by name, not later."""
    from urllib.parse import urljoin, urlparse

    link = page.locator(MENU).get_by_text(label, exact=True)
    path = urlparse(urljoin(page.url, link.locator("xpath=ancestor::a[1]").get_attribute("href"))).path
    link.click()
    try:
        page.wait_for_url(lambda url: urlparse(url).path == path, timeout=TIMEOUT_MS)
    except Exception as e:   # Playwright's TimeoutError: say which click was lost
        raise AssertionError(f"the menu's {label!r} did not open {path} (the page stayed at {page.url})") from e
    idle(page)


def choose(page, widget, option_prefix: str) -> None:
    widget.get_by_role("combobox").click()
    page.locator('[role="option"]').filter(has_text=re.compile("^" + re.escape(option_prefix))).first.click()
    idle(page)


def choose_typed(page, widget, option_prefix: str, tries: int = 5) -> None:
    """`choose` by typing the option into the box: in headless Chromium a list opened right after
    the page loads can vanish under the click (tests/test_e2e_appeals.py saw it too); closing it
    and typing again works, so try until an option is clicked."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(tries):
        widget.get_by_role("combobox").fill(option_prefix)
        try:
            page.locator('[role="option"]').filter(
                has_text=re.compile("^" + re.escape(option_prefix))).first.click(timeout=10_000)
        except PlaywrightTimeout:
            if attempt == tries - 1:
                raise
            page.keyboard.press("Escape")
            idle(page)
        else:
            idle(page)
            return


def item_id(page) -> str:
    return re.search(r"[?&]item=(\d+)", page.url).group(1)


def load(page, url: str) -> None:
    """Open an address (or reload when url is None) and wait until the app has rendered it: the
    first run starts up to a second after the page loads, so `idle` alone can return too early."""
    if url is None:
        page.reload()
    else:
        page.goto(url)
    page.wait_for_selector(MENU, timeout=TIMEOUT_MS)
    page.wait_for_selector('[data-testid="stMain"] h1', timeout=TIMEOUT_MS)
    idle(page)
