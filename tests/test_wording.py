"""Issue 21, sub-item 15: the wording helpers every page shares (core.text, core.checks), and
the Markdown escaping that must not add invisible characters where backslashes suffice."""
from __future__ import annotations

import pytest

from core import checks
from core.offline import heuristics
from core.text import JOINER, article, count, escape_markdown, shows_exactly
from shown import plain


@pytest.mark.parametrize("name", ["Physics: :material/science: and :red[light]", "Week 1: intro", "10:30 (a\\b)",
                                  "Dr. O'Neil :violet-badge[x] $5 **bold** <b>x</b> [l](y) #1 a_b"])
def test_a_name_with_colons_and_shortcode_like_text_gets_backslashes_only(name):
    out = escape_markdown(name)
    assert JOINER not in out                      # nothing invisible travels with copied text
    assert ":material/" not in out               # Streamlit rewrites this in the source, escaped or not
    assert plain(out) == name and shows_exactly(name)


@pytest.mark.parametrize("text", [":skull:", ":material_home:", ":streamlit:", "see www.evil.example",
                                  "https://evil.example/x", "mail me: a@b.co", "a -> b", "x >= 3"])
def test_what_streamlit_matches_after_escapes_still_gets_a_joiner(text):
    """Emoji and icon shortcodes, autolinks and arrows are matched on the text itself: there a
    backslash cannot stop them, so the joiner stays, and shows_exactly says so."""
    out = escape_markdown(text)
    assert JOINER in out and plain(out) == text and not shows_exactly(text)


def test_counts_and_articles():
    assert [count(n, "word") for n in (0, 1, 2)] == ["0 words", "1 word", "2 words"]
    assert count(1, "reply", "replies") == "1 reply" and count(3, "reply", "replies") == "3 replies"
    assert [article(w) for w in ("item", "assignment", "run", "course", "LLM call")] == \
        ["an item", "an assignment", "a run", "a course", "an LLM call"]


def test_a_one_word_comment_and_reflection_say_1_word():
    assert checks.check_word_count("Great!")["detail"] == "1 word"
    _, reason = heuristics.quality("length", heuristics.features("Hello", []), {})
    assert reason == "1 word."


@pytest.mark.parametrize("text", ["x" * 20_000, "a" + "b" * 300 + " " + "c" * 300, "Yes. No. Ok. Go."],
                         ids=["20000 characters", "two long words", "four short sentences"])
def test_readability_never_shows_a_grade_outside_school_grades(text):
    """Flesch-Kincaid runs to 93.6 for a text without full stops and below zero for "Yes. No.":
    the check says the sentences are very long or very short, not the number."""
    grade = checks.fk_grade(text)
    assert not 1 <= grade <= 18                   # the formula's own value is out of range here
    detail = checks.check_readability(text, 8)["detail"]
    assert f"grade {grade}" not in detail and f"grade {grade:g}" not in detail
    assert ("above grade 18" if grade > 18 else "below grade 1") in detail


def test_dashboard_tables_show_criterion_titles_and_reason_labels():
    import pandas as pd

    from pages import _dashboard

    frame = pd.DataFrame({"criterion": ["concept_understanding"], "title": ["Concept understanding"], "mae": [0.5]})
    shown = _dashboard.readable(frame)
    assert list(shown.columns) == ["Criterion", "MAE"] and shown.iloc[0, 0] == "Concept understanding"
    edits = _dashboard.readable(pd.DataFrame({"criterion": ["real_world_application"], "code": ["too_harsh"]}))
    assert edits.values.tolist() == [["Real world application", "Too harsh"]]


def test_a_configuration_is_named_by_its_models_not_its_hash(conn):
    from core.evals import config as ai_config
    from core.evals import gate
    from core.settings import Settings
    from db import evals as evals_db

    defn = ai_config.definition("openai", Settings(llm_api_key="k"))
    h = ai_config.config_hash(defn)
    evals_db.record_config(conn, h, defn, variant="questions")
    name = gate.config_name(conn, h)
    assert h not in name and "prompts of the variant “questions”" in name and "first used" in name
    s = gate.status(conn, h)
    assert s["name"] == name and h not in s["message"]


def test_a_stored_date_reads_as_a_date_in_words():
    from core.text import format_date

    assert format_date("2019-06-01T23:30:00.000Z") == "1 June 2019"
    assert format_date("2026-11-29T21:27:43.687677+01:00") == "29 November 2026"   # in UTC
    assert format_date("2025-01-01") == "1 January 2025"
    assert format_date(None) == "" and format_date("") == "" and format_date("soon") == "soon"


def test_the_reviewers_verdict_reads_as_words_not_its_code():
    from core.signoff import labels

    assert labels.verdict_label("CONFIDENT") == "Reviewer: confident"
    assert labels.verdict_label("REVISE") == "Reviewer: asked for changes"
    assert labels.verdict_label(None) == "Reviewer: no verdict"
