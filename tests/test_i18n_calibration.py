"""The Moderation, Calibrate and Settings' calibration pages in Swedish and Russian (AppTest): a
teacher whose browser speaks the language reads the titles, labels and table headers in it (what
core names, the strata, readiness and the bar's sentence, is translated too: tests/test_i18n_readiness.py)."""
from __future__ import annotations

import factories as f
from core.moderation import marking
from test_pages_moderation import HIGH, _seeded


def _moderation(app_test, conn, locale):
    m = _seeded(conn)
    tina = f.user(conn, "tina", "ta")
    for sid in m["sids"]:
        marking.mark(conn, sid, HIGH, actor=tina)
    at = app_test("pages/moderation.py", role="coordinator", user="cora", courses=[m["c"]["course_id"]])
    at.context = {"locale": locale}
    at.session_state["course_id"] = m["c"]["course_id"]
    at.session_state["assignment_id"] = m["c"]["assignment_id"]
    return m, at.run()


def _reads(monkeypatch, code):
    """AppTest formats a widget's value with its format_func in the test, outside the page's run,
    where t() does not know the browser's language: the test reads the page's language too."""
    monkeypatch.setattr("pages._i18n.language", lambda: code)


def test_the_moderation_page_speaks_swedish_and_settles(app_test, conn, monkeypatch):
    m, at = _moderation(app_test, conn, "sv-SE")
    assert not at.exception, at.exception
    assert [x.value for x in at.title] == ["Sambedömning"]
    assert [x.label for x in at.metric] == ["Dragna", "Bedömda en andra gång", "Skiljer sig åt", "Fastställda"]
    assert "Bedömningar som skiljer sig med mer än en nivå" in [h.value for h in at.subheader]
    assert "Stickprovet" in [h.value for h in at.subheader]
    columns = [c for df in at.dataframe for c in df.value.columns]
    assert "Andra bedömaren" in columns and "Fastställda" in columns and "Second marker" not in columns
    assert at.text_input(key=f"mod_note_{m['sids'][0]}").label == "Anteckning (varför dessa poäng)"
    sid = m["sids"][0]
    _reads(monkeypatch, "sv")
    for c in m["c"]["rubric"].criteria:
        at.selectbox(key=f"mod_final_{sid}_{c.key}").set_value(2)
    at.text_input(key=f"mod_note_{sid}").input("båda halvrätt")
    at.button(key=f"FormSubmitter:mod_settle_{sid}-Fastställ").click().run()
    assert not at.exception, at.exception
    assert [x.value for x in at.metric] == ["2", "2", "2", "1"]
    assert "Fastställt: båda halvrätt" in [c.value for c in at.caption]


def test_the_moderation_page_speaks_russian(app_test, conn):
    _, at = _moderation(app_test, conn, "ru-RU")
    assert not at.exception, at.exception
    assert [x.value for x in at.title] == ["Модерация"]
    assert "Распределить проверяющих" in [e.label for e in at.expander]
    columns = [c for df in at.dataframe for c in df.value.columns]
    assert "Второй проверяющий" in columns and "Статус повторной проверки" in columns
    radios = {r.label: r.options for r in at.radio}
    assert radios["Распределить"] == ["случайно", "по учебным группам"]
    assert radios["Размер выборки"] == ["доля", "количество"]


def _calibrate(app_test, conn, locale, monkeypatch):
    from test_pages_calibrate import seeded

    c, sids = seeded(conn, 4)
    at = app_test("pages/calibrate.py", user="ann")
    at.context = {"locale": locale}
    at.session_state["course_id"] = c["course_id"]
    at.session_state["assignment_id"] = c["assignment_id"]
    at.run()
    assert not at.exception, at.exception
    _reads(monkeypatch, locale[:2])
    return c, sids, at


def test_the_calibrate_page_speaks_swedish_from_the_set_to_the_saved_scores(app_test, conn, monkeypatch):
    c, sids, at = _calibrate(app_test, conn, "sv-SE", monkeypatch)
    assert [x.value for x in at.title] == ["Kalibrering"]
    assert [x.label for x in at.metric] == ["I uppsättningen", "Blint bedömda", "Väntar (utkastet dolt)",
                                            "Dubbelbedömda"]
    assert "Kalibreringsuppsättning" in [h.value for h in at.subheader]
    assert "AI:n mot dina blinda bedömningar, per kriterium" in [e.label for e in at.expander]
    readiness = next(d.value for d in at.dataframe if "Vad som saknas" in d.value.columns)
    assert {"Kriterium", "Mänskligt tak (QWK)", "Redo"} <= set(readiness.columns)
    assert at.selectbox(key="cal_group").options == ["— ingen grupp —"]
    at.button(key="FormSubmitter:cal_draw-Dra kalibreringsuppsättningen").click().run()
    assert not at.exception, at.exception
    assert "Uppsättningen har 4 arbeten." in [s.value for s in at.success]
    sid = sids[0]
    assert at.button(key=f"cal_open_{sid}").label == "Bedöm blint"
    at.button(key=f"cal_open_{sid}").click().run()
    assert "Dina blinda bedömningar" in [h.value for h in at.subheader]
    assert at.button(key=f"cal_save_{sid}").label == "Spara blinda bedömningar"
    for box in at.selectbox:
        if box.key and box.key.startswith(f"cal_score_{sid}_"):
            box.set_value(2)
    at.run()
    at.button(key=f"cal_save_{sid}").click().run()
    assert not at.exception, at.exception
    assert "Sparat. Så här bedömde AI:n det." in [s.value for s in at.success]
    assert "Dina blinda bedömningar och AI:n" in [h.value for h in at.subheader]
    assert list(at.dataframe[0].value.columns) == ["Kriterium", "Du (blint)", "AI"]


def test_the_calibrate_page_speaks_russian(app_test, conn, monkeypatch):
    c, sids, at = _calibrate(app_test, conn, "ru-RU", monkeypatch)
    assert [x.value for x in at.title] == ["Калибровка"]
    assert "Калибровочный набор" in [h.value for h in at.subheader]
    assert at.number_input(key="cal_size").label == "Размер набора"
    at.button(key="FormSubmitter:cal_draw-Сформировать калибровочный набор").click().run()
    assert not at.exception, at.exception
    assert "В наборе 4 работы." in [s.value for s in at.success]
    assert [b.label for b in at.button if b.key == f"cal_skip_{sids[0]}"] == ["Исключить"]


def _settings(app_test, locale):
    at = app_test("pages/settings.py", user="admin")
    at.context = {"locale": locale}
    return at.run()


def test_the_calibration_bar_in_settings_speaks_swedish_and_saves(app_test, conn, monkeypatch):
    from core.calibration import readiness
    from core.language.interface import Interface

    at = _settings(app_test, "sv-SE")
    assert not at.exception, at.exception
    assert at.number_input(key="bar_students").label == "Blint bedömda studenter, minst"
    assert at.number_input(key="bar_bias").label == "|Systematisk avvikelse| högst (poäng)"
    assert any(c.value.startswith("Per uppgift och kriterium jämförs AI:n") and
               "”AI:n är ännu inte kalibrerad för den här uppgiften”" in c.value for c in at.caption)
    _reads(monkeypatch, "sv")
    at.number_input(key="bar_students").set_value(20)
    at.button(key="FormSubmitter:cal_bar-Spara ribban").click().run()
    assert not at.exception, at.exception
    assert readiness.get_bar(conn).min_students == 20
    assert [s.value for s in at.success if s.value.startswith("Sparat: ")] == [
        "Sparat: " + Interface("sv").said(readiness.get_bar(conn).text()) + "."]


def test_the_calibration_bar_in_settings_speaks_russian(app_test, conn):
    at = _settings(app_test, "ru-RU")
    assert not at.exception, at.exception
    assert at.number_input(key="bar_qwk").label == "QWK не ниже"
    assert [b.label for b in at.button if b.key == "FormSubmitter:cal_bar-Сохранить порог"] == ["Сохранить порог"]
    assert any(c.value.startswith("По умолчанию: ") for c in at.caption)
