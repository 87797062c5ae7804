"""Texts FairMark stores in English and shows again, in the reader's language: why a run item failed
or was skipped (the Assess page), the offline baseline's reasoning on a draft (the review item),
a failed connection test (Settings). Real runs through the real pipeline on a temporary database,
the scripted fake LLM where a model would answer. The English the database, the command line and
the logs keep is unchanged; a record from before (English only) is shown as it is."""
from __future__ import annotations

import socket

import db as dbmod
import factories as f
from assess_script import RICH_TEXT, good_llm
from core.accounts.access import Actor
from core.errors import LLMRefusal
from core.language.interface import Interface, Message
from core.agents.evaluator import REASONING_CHARS
from core.offline import reasoning
from core.runs import reflections as runs
from db import drafts as drafts_db
from db import llm_calls
from db import runs as runs_db
from review_helpers import review_item

ADMIN = Actor("test", role="admin")
REFUSED = "I can't help with that request."    # what the provider wrote: it stays as it is


def _in(monkeypatch, code: str) -> None:
    """The browser's language, also for what AppTest formats outside a run (tests/test_i18n_settings.py)."""
    from pages import _i18n

    monkeypatch.setattr(_i18n, "browser_language", lambda: code)


def _refusal() -> Message:
    return Message("Model '{model}' declined to answer ({why}). The submission may contain content the provider "
                   "filters: review it by hand.", model="test-model", why=REFUSED)


def _run_with_a_failure_and_a_skip(conn, db_path) -> tuple[dict, int, list[int]]:
    """Three submissions: the model refuses the second, a teacher approves the third before its turn."""
    c = f.course(conn)
    subs = [f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT + f" Note {i}.")
            for i in range(3)]
    llm = good_llm()

    def evaluate(messages, schema):
        from assess_script import evaluation_for, submission_text

        if "Note 1." in submission_text(messages):
            raise LLMRefusal(_refusal())
        return evaluation_for(schema)

    llm.always("evaluator", evaluate)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=ADMIN)
    conn.execute("UPDATE submissions SET status = 'approved' WHERE id = ?", [subs[2]])   # a teacher, meanwhile
    p = runs.execute(db_path, run_id, llm, actor=ADMIN)
    assert (p["done"], p["failed"], p["skipped"]) == (1, 1, 1)
    return c, run_id, subs


def _assess_page(app_test, c, run_id):
    at = app_test("pages/assess.py")
    at.context = {"locale": "sv-SE"}
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.session_state["assess_run"] = run_id
    at.run()
    assert not at.exception, at.exception
    return at


def _why(at, expander_label: str) -> list[str]:
    """The "why" column of the table in the expander so labelled."""
    box = next(e for e in at.expander if e.label == expander_label)
    return list(box.dataframe[0].value["varför"])


FAILED_SV = Interface("sv").plural(
    "{count} submission(s) failed: they are in the review queue to regenerate or mark by hand",
    "{count} submission(s) failed: they are in the review queue to regenerate or mark by hand", 1)
ENGLISH_FAILURE = ("evaluator: LLMRefusal: Model 'test-model' declined to answer (I can't help with that request.). "
                   "The submission may contain content the provider filters: review it by hand.")


def test_a_failed_and_a_skipped_item_on_the_assess_page_in_swedish(app_test, conn, db_path, monkeypatch):
    c, run_id, subs = _run_with_a_failure_and_a_skip(conn, db_path)
    # The English, as the command line, the logs and older code read it: unchanged.
    items = {r["subject_id"]: (r["status"], r["error"]) for r in conn.query(
        "SELECT subject_id, status, error FROM run_items WHERE run_id = ?", [run_id])}
    assert items[subs[1]] == ("failed", ENGLISH_FAILURE) and items[subs[2]] == ("skipped", "a teacher has approved it")
    assert runs_db.failed_items(conn, run_id) == [{"submission_id": subs[1], "error": ENGLISH_FAILURE}]
    assert runs.progress(conn, run_id, actor=ADMIN)["failures"] == [{"submission_id": subs[1], "error": ENGLISH_FAILURE}]

    _in(monkeypatch, "sv")
    at = _assess_page(app_test, c, run_id)
    failed = _why(at, FAILED_SV)
    sentence = Interface("sv").said(_refusal())
    assert sentence != str(_refusal()) and REFUSED in sentence        # FairMark's words translated, the model's not
    assert failed == [f"evaluator: LLMRefusal: {sentence}"]
    assert _why(at, "1 inlämning hoppades över") == ["en lärare har godkänt den"]
    assert list(next(e for e in at.expander if e.label == "1 inlämning hoppades över").dataframe[0].value.columns) == \
        ["inlämning", "varför"]


def test_an_item_from_before_keeps_its_english_and_a_skip_from_before_reads_translated(app_test, conn, db_path,
                                                                                      monkeypatch):
    c, run_id, subs = _run_with_a_failure_and_a_skip(conn, db_path)
    # As migration m030s found them: the English only.
    conn.execute("UPDATE run_items SET error_said = NULL WHERE run_id = ?", [run_id])
    conn.execute("UPDATE run_items SET error = 'superseded by run 7' WHERE run_id = ? AND status = 'skipped'",
                 [run_id])
    _in(monkeypatch, "sv")
    at = _assess_page(app_test, c, run_id)
    assert _why(at, FAILED_SV) == [ENGLISH_FAILURE]                               # shown as it is
    assert _why(at, "1 inlämning hoppades över") == ["ersatt av körning 7"]      # FairMark's fixed sentence


def test_a_drafts_offline_reasoning_in_russian_on_thereview_item(app_test, conn, db_path, monkeypatch):
    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=ADMIN)
    assert runs.execute(db_path, run_id, actor=ADMIN)["done"] + runs.progress(conn, run_id, actor=ADMIN)[
        "needs_attention"] == 1
    draft = drafts_db.get_draft(conn, conn.execute("SELECT current_draft_id FROM submissions WHERE id = ?",
                                                   [sid]).fetchone()[0])
    stored = {k: draft["outputs"]["evaluator"][k]["reasoning"] for k in c["rubric"].keys}
    # The English kept in the draft: FairMark's template, the rubric's level quoted.
    level = c["rubric"].criteria[0].levels[draft["scores"][c["rubric"].criteria[0].key]]
    first = stored[c["rubric"].criteria[0].key]
    assert first.endswith(f"Offline baseline: text features, not a reading of the meaning; level "
                          f"{draft['scores'][c['rubric'].criteria[0].key]} means \"{level}\"")
    _in(monkeypatch, "ru")
    at = review_item(app_test, c, sid, "ru-RU")
    texts = [t.value for t in at.text]
    russian = [Interface("ru").said(reasoning.text_of(r)) for r in stored.values()]
    assert all(r in texts for r in russian)
    assert all("Офлайн-модель: признаки текста, а не прочтение его смысла" in r and "Offline" not in r for r in russian)
    assert f"«{level}»" in russian[0]                       # the rubric's own words quoted as they are
    assert not any(r in texts for r in stored.values())      # no English reasoning on the Russian page


def test_a_model_s_reasoning_stays_as_it_is_and_a_cut_one_keeps_its_cut_sentence():
    model = "The student links the idea to their job."
    assert reasoning.text_of(model, cut_at=len(model)) == model and not isinstance(reasoning.text_of(model), Message)
    cut = "12 words. Offline baseline: text features, not a reading of the"   # cut by the Evaluator's schema
    assert Interface("sv").said(reasoning.text_of(cut)) == "12 ord. Offline baseline: text features, not a reading of the"


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_last_test_failed_on_settings_in_swedish(app_test, conn, monkeypatch):
    base_url = f"http://127.0.0.1:{_closed_port()}/v1"
    monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", base_url)
    _in(monkeypatch, "sv")
    at = app_test("pages/settings.py")
    at.context = {"locale": "sv-SE"}
    at.run()
    at.button(key="llm_test_connection").click().run()
    assert not at.exception, at.exception
    last = llm_calls.get_last_connection_test(conn)
    assert last["ok"] is False and last["error"].startswith(f"Cannot reach the language model at {base_url} (")
    at.run()
    caption = next(c.value for c in at.caption if c.value.startswith("Senaste test"))
    assert "misslyckades — Det går inte att nå språkmodellen på" in caption and "Cannot reach" not in caption

    # A test stored before the form was kept: its English as it is.
    llm_calls.save_last_connection_test(conn, {"at": last["at"], "ok": False, "error": last["error"]})
    at.run()
    caption = next(c.value for c in at.caption if c.value.startswith("Senaste test"))
    assert "misslyckades — Cannot reach the language model at" in caption
    assert dbmod.get_setting(conn, llm_calls.LAST_TEST_KEY)["error"] == last["error"]


def test_the_learned_scorers_reasoning_on_a_review_item_in_russian(app_test, conn, db_path, monkeypatch):
    """24 teacher scores: the assignment's scorer learns, and its sentence (what it learned from, which
    features pushed the score, which scorer and why) reads in Russian; the numbers as they are."""
    from test_offline_scorer import essays_course, sample, whole

    c, subs = essays_course(conn, 40)
    for sid, r in zip(subs[:24], sample()[:24]):
        f.blind(conn, sid, whole(r["scores"]))
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", limit=1, actor=ADMIN)
    runs.execute(db_path, run_id, actor=ADMIN)
    sid = runs_db.ended_items(conn, run_id, "done", 1)[0]["submission_id"] if runs.progress(
        conn, run_id, actor=ADMIN)["done"] else runs_db.ended_items(conn, run_id, "needs_attention", 1)[0]["submission_id"]
    draft = drafts_db.get_draft(conn, conn.execute("SELECT current_draft_id FROM submissions WHERE id = ?",
                                                   [sid]).fetchone()[0])
    english = {k: draft["outputs"]["evaluator"][k]["reasoning"] for k in c["rubric"].keys}
    russian = {k: Interface("ru").said(reasoning.text_of(e, cut_at=REASONING_CHARS)) for k, e in english.items()}
    # With the scorer's sentences the reasoning runs past what the Evaluator's schema keeps, so the
    # draft holds it cut: its whole sentences read in Russian, the cut one as it is.
    assert all(len(e) == REASONING_CHARS for e in english.values())
    assert any("Learned from 24 teacher scores" in e for e in english.values())
    for k, e in english.items():
        assert "Scored by" not in russian[k] and "Learned from" not in russian[k], russian[k]
        assert "Оценивает " in russian[k] and russian[k].endswith(e[-12:])
    assert any("Обучена на 24 оценках преподавателя (офлайн-оценщик v1): повышают: " in r for r in russian.values())
    _in(monkeypatch, "ru")
    shown = [t.value for t in review_item(app_test, c, sid, "ru-RU").text]
    assert {r.strip() for r in russian.values()} <= {t.strip() for t in shown}   # st.text drops an end space


def test_a_long_error_keeps_no_form_so_no_reader_sees_more_than_the_english():
    """An item keeps 2,000 characters of its error; a longer one keeps no form (its values would
    be whole), so a Swedish reader sees the same cut English as an English one."""
    from core.language.interface import Message
    from core.runs import stored as stored_texts
    long = Message("{step}: {error_type}: {error}", step="evaluator", error_type="RuntimeError", error="x" * 50_000)
    english, form = stored_texts.failed(long)
    assert len(english) == 2000 and form is None
    short, form = stored_texts.failed(Message("{step}: {error_type}: {error}", step="evaluator",
                                              error_type="RuntimeError", error="boom"))
    assert short == "evaluator: RuntimeError: boom" and form["msgid"] == "{step}: {error_type}: {error}"
