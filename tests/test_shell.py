"""The app shell: every page registered in the navigation renders without an exception."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(re.findall(r'st\.Page\("(pages/[a-z_]+\.py)"', (ROOT / "app.py").read_text()))


def test_navigation_lists_every_page_file():
    files = sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py") if not p.name.startswith("_"))
    assert PAGES == files


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_on_empty_database(app_test, page):
    at = app_test(page).run()
    assert not at.exception, at.exception


def test_home_offers_demo_on_empty_database(app_test):
    at = app_test().run()
    assert any(b.label == "Load demo course" for b in at.button)
