"""How many permission checks one render of a page makes (issue: one read per page).

A page asks core for what it shows in one call, and that call checks the signed-in actor once.
`PermissionCount` wraps the checks in core.accounts.access and counts only the calls made while the
page's own script runs (a frame of pages/<page>.py or of a pages/_*.py part it uses is on the
stack) — the app shell around every page (sign-in, the sidebar's course list, the menu) is not the
page's read and is left out.
"""
from __future__ import annotations

import sys
from pathlib import Path

from core.accounts import access

PAGES_DIR = str(Path(__file__).resolve().parent.parent / "pages")
CHECKS = ("require", "check", "check_path", "check_all", "scope_for", "may")
SHELL = {"_common.py", "_signin.py", "_i18n.py"}   # drawn around every page (the shell picks the language)


def _from_page() -> bool:
    frame = sys._getframe(2)
    while frame is not None:
        path = frame.f_code.co_filename
        if path.startswith(PAGES_DIR) and Path(path).name not in SHELL:
            return True
        frame = frame.f_back
    return False


class PermissionCount:
    """Install with `PermissionCount(monkeypatch)`; `.calls` lists (check, action) made by the page.
    A check made inside another check (check -> require) counts once: the outermost."""

    def __init__(self, monkeypatch):
        self.calls: list[tuple[str, str]] = []
        self._depth = 0
        for name in CHECKS:
            monkeypatch.setattr(access, name, self._wrap(name, getattr(access, name)))

    def _wrap(self, name, fn):
        def counted(*args, **kwargs):
            outermost = self._depth == 0
            if outermost and _from_page():
                action = next((a for a in args if isinstance(a, str) and not isinstance(a, access.Actor)),
                              kwargs.get("action", ""))
                self.calls.append((name, action))
            self._depth += 1
            try:
                return fn(*args, **kwargs)
            finally:
                self._depth -= 1
        return counted

    def reset(self) -> None:
        self.calls.clear()
