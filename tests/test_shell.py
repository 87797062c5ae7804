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


def test_loading_the_demo_fills_the_sidebar_and_home_counts(app_test):
    at = app_test().run()
    next(b for b in at.button if b.label == "Load demo course").click().run()
    assert not at.exception
    assert [s.label for s in at.sidebar.selectbox] == ["Course", "Assignment", "Language"]
    assert at.session_state["course_id"] is not None
    uploaded = [m for m in at.metric if m.label == "Uploaded"]
    assert uploaded and int(uploaded[-1].value) >= 96  # the whole demo course is uploaded


def test_home_after_the_demo_links_the_next_steps_to_their_pages(app_test):
    """Issue 21 item 16: Home only named the next steps ("Upload → Assess → Review → Release")."""
    at = app_test().run()
    next(b for b in at.button if b.label == "Load demo course").click().run()
    assert not at.exception
    links = {x.proto.label: x.proto.page for x in at.main.get("page_link")}
    assert links == {"Upload": "upload", "Assess": "assess", "Review": "review", "Release": "release",
                     "Agreement (coordinators)": "agreement", "Fairness (coordinators)": "fairness"}
    ta = app_test(role="ta", courses=(at.session_state["course_id"],)).run()   # only the pages a TA may open
    assert [x.proto.label for x in ta.main.get("page_link")] == ["Review"]
