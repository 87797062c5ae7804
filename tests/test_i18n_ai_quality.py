"""The AI quality page and its widgets in Swedish and Russian: the page's tabs, eval runs and
blind comparisons (pages/ai_quality.py), the configuration's box and the review item's "save as
eval case" (pages/_evals_widgets.py), and the offline scorer's panel on Assess
(pages/_offline_scorer.py). What core names is translated where core marks it (the gate's state,
dimensions, the cases' statuses: tests/test_i18n_refusals_evals.py; a check's detail:
tests/test_i18n_eval_checks.py); each criterion's scorer stays English, as docs/development.md says."""
from __future__ import annotations

import factories as f
from assess_script import RICH_TEXT
from core import prompts
from core.accounts.access import Actor
from core.cli import main
from core.evals import config as ai_config
from core.evals import pairwise, saved
from db import comparisons as cmp_db


def _texts(elements) -> list[str]:
    return [e.value for e in elements]


def test_the_ai_quality_page_in_swedish(conn, app_test, capsys):
    assert main(["evals", "run", "--provider", "offline"]) == 0
    capsys.readouterr()
    at = app_test("pages/ai_quality.py")
    at.context = {"locale": "sv-SE"}
    at.run()
    assert not at.exception, at.exception
    assert at.title[0].value == "AI-kvalitet"
    assert [tab.label for tab in at.tabs] == ["Konfiguration och testkörningar", "Sparade testfall",
                                              "Blinda jämförelser"]
    assert "Testkörningar" in _texts(at.subheader)
    assert any(i.value.replace("\\", "").startswith("AI-konfiguration (") for i in at.info)
    assert "Vad konfigurationen består av (prompt, modell och temperatur per roll)" in [e.label for e in at.expander]
    columns = [list(d.value.columns) for d in at.dataframe]
    assert ["roll", "modell", "temperatur", "prompt"] in columns, columns
    assert any({"körning", "testsvitens version", "blockerande misslyckades"} <= set(c) for c in columns), columns
    cases = next(d.value for d in at.dataframe if "fall" in d.value.columns and "blockerande" in d.value.columns)
    assert len(cases) >= 24 and set(cases["status"]) >= {"godkänd", "kördes inte"}   # core's N_ labels, translated
    assert at.selectbox(key="q_eval_run").label == "Visa fallen i testkörning"
    assert "AI quality" not in [t.value for t in at.title]


def test_a_blind_comparison_in_russian(conn, app_test, tmp_path, monkeypatch):
    root = tmp_path / "variants"
    (root / "plainer").mkdir(parents=True)
    (root / "plainer" / "coach.md").write_text((prompts.PROMPT_DIR / "coach.md").read_text() + "\nBe brief.")
    monkeypatch.setattr(ai_config, "VARIANTS_DIR", root)
    c = f.course(conn)
    for i in range(4):
        f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT + str(i))
    cid = pairwise.create(conn, course_id=c["course_id"], variant_b="plainer", sample_size=4, provider="openai",
                          actor=Actor("C", role="admin"))
    for pair, (a, b) in zip(cmp_db.pairs(conn, cid), [("Well done.", "Try again.")]):
        cmp_db.save_drafts(conn, pair["id"], draft_a={"comment": a}, draft_b={"comment": b}, judge_a=None,
                           judge_b=None, judge_choice=None)
    at = app_test("pages/ai_quality.py")
    at.context = {"locale": "ru-RU"}
    at.run()                                   # no language model: the form is there, its button disabled
    assert not at.exception, at.exception
    assert {"Начать сравнение", "Сравнения", "Когда педагогическому проверяющему доверяют"} <= set(
        _texts(at.subheader)), _texts(at.subheader)
    assert next(b for b in at.button if b.label == "Подготовить черновики пар").disabled
    scope = next(r for r in at.radio if r.label == "Выборка из")
    assert scope.options == ["Это задание", "Весь курс"]
    assert any(n.label == "Пары (стратифицированы по уровню оценки)" for n in at.number_input)
    assert [p.proto.text for p in at.get("progress")] == [f"Сравнение {cid}: готовятся черновики, готово пар: 1 из 4"]
    table = next(d.value for d in at.dataframe if "сравнение" in d.value.columns)
    assert list(table.columns) == ["сравнение", "B (вариант)", "статус", "пар с черновиками",
                                   "пропущено (тот же комментарий)", "начат", "кто"]
    assert list(table["пар с черновиками"]) == ["1 из 4"]


def _assess_in_swedish(app_test, c):
    """A new browser session on Assess, in Swedish, with the course and assignment chosen."""
    at = app_test("pages/assess.py")
    at.context = {"locale": "sv-SE"}
    at.session_state["course_id"] = c["course_id"]
    at.session_state["assignment_id"] = c["assignment_id"]
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_offline_scorer_on_assess_in_swedish(conn, app_test):
    import factories
    from core.offline import scorer
    from test_offline_scorer import essays_course, sample, whole

    c, subs = essays_course(conn, 30)
    for sid, r in zip(subs[:22], sample()[:22]):
        factories.blind(conn, sid, whole(r["scores"]))
    at = _assess_in_swedish(app_test, c)
    assert "Offline-poängsättaren: inte tränad ännu" in [e.label for e in at.expander]
    assert any(n.label == "Poäng som behövs per kriterium" for n in at.number_input)
    assert any(b.label == "Spara och träna nu" for b in at.button)
    # Trained through core, then a new browser session: AppTest formats the widgets of a run it
    # repeats (the provider's radio, its options translated by a format_func) outside the script's
    # run, in English, and then finds no such option.
    assert scorer.train_now(conn, c["assignment_id"], actor=Actor("test-admin", role="admin")).version == 1
    at = _assess_in_swedish(app_test, c)
    assert "Offline-poängsättaren: v1, aktuell" in [e.label for e in at.expander]
    shown = next(d.value for d in at.dataframe if "Kriterium" in d.value.columns)
    assert list(shown.columns) == ["Kriterium", "Bedöms av", "Dina poäng", "QWK (95 % KI)", "Enbart ordantal: QWK",
                                   "MAE", "Ordantal: MAE", "Snedvridning (poängsättaren − du)", "Slår ordantal",
                                   "Bedömer med"]
    assert set(shown["Dina poäng"]) == {22} and set(shown["Slår ordantal"]) <= {"ja", "nej", "—"}
    assert set(shown["Bedömer med"]) <= {"den inlärda modellen", "modellen blandad med ordantal", "ordantal"}
    assert any(" till " in v for v in shown["QWK (95 % KI)"])


def test_save_as_eval_case_on_the_review_item_in_russian(conn, app_test, monkeypatch):
    from pages import _i18n
    from test_saved_cases import _item

    # AppTest formats the chosen option with its format_func outside the script's run when the form
    # is sent, where no browser's language is known: the browser's language is Russian there too.
    monkeypatch.setattr(_i18n, "browser_language", lambda: "ru")
    sid = _item(conn)
    at = app_test("pages/review.py")
    at.context = {"locale": "ru-RU"}
    at.session_state["review_item"] = sid
    at.run()
    assert not at.exception, at.exception
    assert "Сохранить как тестовый пример" in [e.label for e in at.expander]
    what = next(s for s in at.selectbox if s.label == "Что пошло не так")
    assert what.options == ["Он выдал ответ", "Он утверждал то, чего нет в тексте или источнике",
                            "Язык или глубина не подходили студенту",
                            "Он не направлял: ни вопроса, ни следующего шага, сделал работу за студента"]
    what.set_value("grounding")
    next(t for t in at.text_area if t.label == "Что должен делать комментарий вместо этого? (требование примера)").input(
        "Say only what the student wrote.")
    next(b for b in at.button if b.label == "Сохранить как тестовый пример").click().run()
    assert not at.exception, at.exception
    rows = saved.cases_for_export(conn, actor=Actor("test", role="admin"))
    assert len(rows) == 1 and rows[0]["dimension"] == "grounding"
    assert "Сохранить как тестовый пример · сохранено: 1" in [e.label for e in at.expander]
    kept = saved.saved_cases(conn, actor=Actor("test", role="admin"))
    assert [r["reason"] for r in kept] == ["Say only what the student wrote."]   # the teacher's words, as written
