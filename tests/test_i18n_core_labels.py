"""The labels core gives the pages, in the reader's language: the agents' names and duties
(core/agents/registry.py) on Settings' model fields, the review item's tabs and the offline
draft's "not run" note. The command line and exports keep the English."""
from __future__ import annotations

import factories as f
from core.agents import registry
from shown import plain

SCORES = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 3}


def _page(app_test, page, locale, **state):
    at = app_test(page)
    at.context = {"locale": locale}
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def _review(app_test, conn, locale, **draft):
    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], name="Elev Ett"),
                       text="Jag lärde mig att temperaturen styr hur slumpmässiga svaren blir.")
    f.draft(conn, sid, SCORES, **draft)
    return _page(app_test, "pages/review.py", locale, course_id=c["course_id"], assignment_id=c["assignment_id"],
                 review_item=sid)


def test_the_agents_on_settings_model_fields_in_swedish_and_russian(app_test):
    at = _page(app_test, "pages/settings.py", "sv-SE")
    assert at.text_input(key="llm_model_evaluator").label == "Bedömare (bedömer varje kriterium)"
    assert at.text_input(key="llm_model_rubric_builder").label.startswith("Skapa bedömningsmatris (gör ett utkast")
    at = _page(app_test, "pages/settings.py", "ru-RU")
    assert at.text_input(key="llm_model_equity").label == "Контролёр непредвзятости (ищет в заметках предвзятые формулировки)"
    assert at.text_input(key="llm_model_reviewer").label == "Рецензент (сверяет комментарий с баллами)"
    # The English stays the registry's own text (the command line, the call log, exports).
    assert registry.get("evaluator").label == "Evaluator" and registry.get("evaluator").duty == "scores each criterion"
    assert registry.labels()["reviewer"] == "Reflexion Reviewer"


def test_the_review_items_tabs_and_the_judges_not_run_in_swedish(app_test, conn):
    at = _review(app_test, conn, "sv-SE", is_offline=True)
    tabs = [tab.label for tab in at.tabs]
    assert "Bedömare" in tabs and "Kommentarsgranskare" in tabs and "Evaluator" not in tabs, tabs
    captions = [plain(x.value) for x in at.caption]
    assert any("Förankringsgranskare, Pedagogikgranskare" in x for x in captions), captions


def test_the_review_items_tabs_in_russian(app_test, conn):
    at = _review(app_test, conn, "ru-RU")
    tabs = [tab.label for tab in at.tabs]
    assert "Оценщик" in tabs and "Рецензент" in tabs, tabs
