"""The Moderation, Calibrate and Settings' calibration pages in Swedish and Russian (AppTest): a
teacher whose browser speaks the language reads the titles, labels and table headers in it (what
core names, the strata, readiness and the bar's sentence, is still English)."""
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
