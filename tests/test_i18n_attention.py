"""The last stored texts a teacher read in English, in the reader's language: a draft's attention
reasons (the review item) and why a run stopped (Assess). Real runs through the real pipeline on a
temporary database, the scripted fake LLM where a model would answer. The English the database, the
command line and the logs keep is unchanged; a record from before (English only) is shown as it is,
or translated by its template where it is one of FairMark's fixed sentences."""
from __future__ import annotations

import re

import pytest

import factories as f
from assess_script import good_llm
from core import checks
from core.accounts.access import Actor
from core.language.interface import Interface, Message
from core.runs import reflections as runs
from core.runs import stored as stored_texts
from core.signoff import attention
from db import drafts as drafts_db
from db import runs as runs_db
from factories import unreachable
from review_helpers import review_item

ADMIN = Actor("test", role="admin")
SHORT = "I learned a lot this week about planning my time at work."   # under MIN_SUBMISSION_WORDS
SHORT_EN = ("Short submission (under 100 words): the AI tends to mistake brevity for clarity.")
SHORT_SAID = {"sv": "Kort inlämning (under 100 ord): AI:n tar lätt korthet för tydlighet.",
              "ru": "Короткая работа (меньше 100 слов): ИИ склонен принимать краткость за ясность."}


def _in(monkeypatch, code: str) -> None:
    from pages import _i18n

    monkeypatch.setattr(_i18n, "browser_language", lambda: code)


def _short_draft(conn, db_path):
    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), SHORT)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=ADMIN)
    runs.execute(db_path, run_id, good_llm(), actor=ADMIN)
    draft_id = conn.execute("SELECT current_draft_id FROM submissions WHERE id = ?", [sid]).fetchone()[0]
    return c, sid, draft_id


def _plain(text: str) -> str:
    """Markdown's escapes and the word joiner a link gets (pages._common.md) taken out."""
    return re.sub(r"\\(.)", r"\1", text).replace("\u2060", "")


def _shown(at) -> str:
    """The page's warnings and Markdown, their escapes (pages._common.md) taken out."""
    return re.sub(r"\\(.)", r"\1", "\n".join(str(x.value) for x in [*at.warning, *at.info, *at.markdown]))


@pytest.mark.parametrize("code", ["sv", "ru"])
def test_a_short_submissions_attention_reason_on_thereview_item(app_test, conn, db_path, monkeypatch, code):
    c, sid, draft_id = _short_draft(conn, db_path)
    draft = drafts_db.get_draft(conn, draft_id)
    # The English, as the command line and the logs read it: unchanged; its form beside it.
    assert SHORT_EN in draft["attention_reasons"]
    assert draft["attention_said"][draft["attention_reasons"].index(SHORT_EN)]["plural"] is not None
    _in(monkeypatch, code)
    shown = _shown(review_item(app_test, c, sid, f"{code}-{code.upper()}"))
    assert SHORT_SAID[code] in shown and SHORT_EN not in shown


def test_an_older_drafts_reasons_by_their_template_or_as_they_are(app_test, conn, db_path, monkeypatch):
    c, sid, draft_id = _short_draft(conn, db_path)
    model = "The pedagogy judge rated the comment low on: warmth (2/5)."   # no template: as it is
    conn.execute("UPDATE drafts SET attention_said = NULL, attention_reasons = ? WHERE id = ?",
                 [f'["{SHORT_EN}", "{model}"]', draft_id])    # as migration m030t found it: the English only
    _in(monkeypatch, "sv")
    shown = _shown(review_item(app_test, c, sid, "sv-SE"))
    assert SHORT_SAID["sv"] in shown and model in shown


def test_a_failed_assessment_keeps_the_providers_words_inside_fairmarks_sentence():
    english = "The AI assessment failed (evaluator: LLMError: upstream said no). Regenerate it or mark it by hand."
    said = Interface("ru").said(attention.reason_of(english))
    assert said == "Оценка ИИ не удалась (evaluator: LLMError: upstream said no). Создайте её заново или оцените вручную."
    assert attention.reason_of("Something a judge wrote.") == "Something a judge wrote."
    assert str(checks.ATTENTION_TEXT["short_text"]) == SHORT_EN


def _stopped_run(conn, db_path):
    c = f.course(conn)
    for i in range(4):
        f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), SHORT + f" Note {i}.")
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", concurrency=1, actor=ADMIN)
    llm = good_llm()
    llm.always("evaluator", lambda m, s: (_ for _ in ()).throw(unreachable()))
    with pytest.raises(runs.RunStopped):
        runs.execute(db_path, run_id, llm, actor=ADMIN)
    return c, run_id


def _assess_page(app_test, c, run_id):
    at = app_test("pages/assess.py")
    at.context = {"locale": "sv-SE"}
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.session_state["assess_run"] = run_id
    at.run()
    assert not at.exception, at.exception
    return at


def test_why_a_run_stopped_on_the_assess_page_in_swedish(app_test, conn, db_path, monkeypatch):
    c, run_id = _stopped_run(conn, db_path)
    english = runs_db.get_run(conn, run_id)["error"]
    provider = str(unreachable())
    assert english == (f"stopped: {provider} The same fault hit 3 submissions in a row, so it is a setting, not the "
                       "submissions. Fix the setting, then resume the run.")
    assert runs.progress(conn, run_id, actor=ADMIN)["error"] == english      # the command line's JSON
    _in(monkeypatch, "sv")
    errors = [_plain(e.value) for e in _assess_page(app_test, c, run_id).error]
    assert any(e.startswith("Körningen stoppades: stoppad: ") and "Samma fel drabbade 3 inlämningar i rad" in e
               and provider in e for e in errors), errors     # FairMark's words in Swedish, the provider's as they are

    # A run stopped before the form was kept: its English as it is.
    conn.execute("UPDATE runs SET error_said = NULL WHERE id = ?", [run_id])
    errors = [_plain(e.value) for e in _assess_page(app_test, c, run_id).error]
    assert any(english in e for e in errors), errors


def test_an_older_runs_items_left_by_its_template():
    old = {"error": "3 item(s) were not processed; resume the run", "error_said": None}
    assert Interface("ru").said(stored_texts.stop_of(old)) == "3 элемента не обработаны; возобновите запуск"
    assert isinstance(stored_texts.stop_of(old), Message)
