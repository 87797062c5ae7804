"""One read per page (coordinator, lesson and settings pages): a render asks core once and the
actor is checked once (tests/page_reads.py counts the checks the page's own script makes; the
shell's sign-in, menu and course picker are left out)."""
from __future__ import annotations

import pytest

import dashboard_data as dd
import factories as f
from core.lessons import demo
from core.accounts.access import Actor
from page_reads import PermissionCount

ADMIN = Actor("test", role="admin")


def _dashboards(conn) -> dict:
    """A course with expert, blind and teacher scores, student groups and logged LLM calls."""
    c, _ = dd.mixed_course(conn)
    sid, _ = dd.item(conn, c, 2, blind=1, teacher=1)
    dd.call(conn, sid, "evaluator", 0.0004)
    return c


def _render(app_test, monkeypatch, page, c, *, role="admin", scope="course", **state):
    counter = PermissionCount(monkeypatch)
    courses = (c["course_id"],) if c and role != "admin" else ()
    at = app_test(page, role=role, courses=courses)
    if c:
        at.session_state["course_id"] = c["course_id"]
        at.session_state["assignment_id"] = c["assignment_id"]
    at.session_state["scope"] = scope
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    assert not at.exception, at.exception
    return at, counter


def _once(at, counter):
    assert len(counter.calls) == 1, counter.calls
    counter.reset()
    at.run()                                  # a rerun reads once again, no more
    assert not at.exception, at.exception
    assert len(counter.calls) == 1, counter.calls


@pytest.mark.parametrize("page", ["pages/agreement.py", "pages/fairness.py", "pages/costs.py"])
@pytest.mark.parametrize("scope", ["assignment", "course", "all"])
@pytest.mark.parametrize("role", ["admin", "coordinator"])
def test_a_dashboard_checks_the_actor_once(conn, app_test, monkeypatch, page, scope, role):
    c = _dashboards(conn)
    at, counter = _render(app_test, monkeypatch, page, c, role=role, scope=scope)
    assert at.get("plotly_chart"), "the page shows its figures"
    _once(at, counter)


def test_the_agreement_page_with_another_reference_still_reads_once(conn, app_test, monkeypatch):
    c = _dashboards(conn)
    at, counter = _render(app_test, monkeypatch, "pages/agreement.py", c, agreement_reference="rater:expert")
    assert any("expert rater expert only" in cap.value for cap in at.caption)
    _once(at, counter)


def test_the_fairness_page_with_a_criterion_chosen_reads_once(conn, app_test, monkeypatch):
    c = _dashboards(conn)
    at, counter = _render(app_test, monkeypatch, "pages/fairness.py", c, fairness_criterion="clarity")
    assert next(s for s in at.selectbox if s.label == "Criterion").value == "clarity"
    _once(at, counter)


@pytest.mark.parametrize("page", ["pages/agreement.py", "pages/fairness.py", "pages/costs.py"])
def test_an_empty_dashboard_checks_the_actor_once(conn, app_test, monkeypatch, page):
    at, counter = _render(app_test, monkeypatch, page, f.course(conn))
    assert at.info, "it says what to do"
    _once(at, counter)


def test_the_learning_page_checks_the_actor_once(conn, app_test, monkeypatch):
    from test_learning import _course       # two students released over three weeks

    c, _, _ = _course(conn)
    at, counter = _render(app_test, monkeypatch, "pages/learning.py", c, role="coordinator")
    assert at.get("plotly_chart") and at.dataframe
    _once(at, counter)


def _comparison(conn, tmp_path, monkeypatch) -> tuple[dict, int]:
    """A course with a blind comparison of the offline baseline and a variant, its pairs drafted."""
    from core import prompts
    from core.evals import config as ai_config
    from db import comparisons as cmp_db

    (tmp_path / "variants" / "plainer").mkdir(parents=True)
    (tmp_path / "variants" / "plainer" / "coach.md").write_text((prompts.PROMPT_DIR / "coach.md").read_text() + "\nBe brief.")
    monkeypatch.setattr(ai_config, "VARIANTS_DIR", tmp_path / "variants")
    c = f.course(conn)
    sids = [f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), f"Text {i}.") for i in range(2)]
    cid = f.offline_comparison(conn, c, sids, "plainer")
    for pair in cmp_db.pairs(conn, cid):
        cmp_db.save_drafts(conn, pair["id"], draft_a={"comment": "A wrote this."}, draft_b={"comment": "B wrote."},
                           judge_a=None, judge_b=None, judge_choice=None)
    return c, cid


@pytest.mark.parametrize("role", ["admin", "coordinator"])
def test_the_ai_quality_page_checks_the_actor_once(conn, app_test, monkeypatch, tmp_path, role):
    c, _ = _comparison(conn, tmp_path, monkeypatch)
    at, counter = _render(app_test, monkeypatch, "pages/ai_quality.py", c, role=role)
    assert any(s.label == "Results of" for s in at.selectbox)
    _once(at, counter)


def test_the_compare_page_checks_the_actor_once(conn, app_test, monkeypatch, tmp_path):
    c, _ = _comparison(conn, tmp_path, monkeypatch)
    at, counter = _render(app_test, monkeypatch, "pages/compare.py", c, role="instructor")
    assert at.get("progress") and "B wrote." in [t.value for t in at.text]
    _once(at, counter)


def _lessons(conn) -> dict:
    out = demo.load_demo(conn, actor=ADMIN)
    return {"course_id": out["course_id"], "assignment_id": None}


@pytest.mark.parametrize("role", ["admin", "coordinator"])
def test_the_lessons_page_checks_the_actor_once(conn, app_test, monkeypatch, role):
    c = _lessons(conn)
    at, counter = _render(app_test, monkeypatch, "pages/lessons.py", c, role=role)
    assert any(m.label == "Calls" for m in at.metric)
    _once(at, counter)


@pytest.mark.parametrize("role", ["admin", "coordinator"])
def test_the_lesson_page_checks_the_actor_once(conn, app_test, monkeypatch, role):
    c = _lessons(conn)
    at, counter = _render(app_test, monkeypatch, "pages/lesson_review.py", c, role=role)
    assert any(s.value == "Lesson text" for s in at.subheader)
    _once(at, counter)


def test_an_approved_lesson_with_its_downloads_checks_once(conn, app_test, monkeypatch, db_path):
    """The MD and DOCX downloads are built on the click (an export checks itself), not on every render."""
    from core.lessons import review, signoff
    from db import lessons as lessons_db
    from fake_llm import ScriptedLLM
    from lesson_helpers import ONE_JUDGE, add_lesson, verdict

    lid = add_lesson(conn)
    fake = ScriptedLLM(models=ONE_JUDGE)
    fake.script("lesson_judge", verdict(0.9, 0.9, 0.8, 0.85))
    review.review_lesson(db_path, lid, fake)
    signoff.approve(conn, lid, version=lessons_db.get(conn, lid)["version"], actor=ADMIN, verdict="publish")
    c = {"course_id": lessons_db.get(conn, lid)["course_id"], "assignment_id": None}
    at, counter = _render(app_test, monkeypatch, "pages/lesson_review.py", c)
    assert [b.label for b in at.get("download_button")] == ["Download MD", "Download DOCX"]
    _once(at, counter)


def _per_tab(at, counter, expected):
    assert counter.calls == expected
    counter.reset()
    at.run()
    assert not at.exception, at.exception
    assert counter.calls == expected


def test_the_settings_page_checks_the_actor_once_per_tab(conn, app_test, monkeypatch):
    """Streamlit draws every tab on a render: each tab reads what it shows in one call with one
    check; the calibration bar (the installation's setting, no course data) needs none."""
    c = f.course(conn)
    at, counter = _render(app_test, monkeypatch, "pages/settings.py", c)
    assert len(at.tabs) == 9
    _per_tab(at, counter, [("require", "read"),          # Courses & assignments (and whether the admin's tabs show)
                           ("require", "read"),          # Rubrics
                           ("require", "settings"),      # Language model & prices
                           ("require", "settings"),      # Judges & confidence
                           ("require", "settings"),      # AI configuration
                           ("require", "users"),         # Users
                           ("require", "data_care"),     # Data
                           ("require", "lti")])          # LMS platforms


def test_the_settings_page_of_an_instructor_checks_once_per_tab(conn, app_test, monkeypatch):
    c = f.course(conn)
    at, counter = _render(app_test, monkeypatch, "pages/settings.py", c, role="instructor")
    assert len(at.tabs) == 2
    _per_tab(at, counter, [("require", "read"), ("require", "read")])
