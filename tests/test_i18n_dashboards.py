"""The dashboards in Swedish and Russian: the Agreement and Fairness pages, with the tables, downloads
and captions they share (pages/_dashboard.py). What core words (the reference's label, its notes and
warnings, the charts' axes) stays English, as docs/development.md says."""
from __future__ import annotations

from shown import plain
from test_pages_dashboards import _fill


def _page(app_test, conn, page, locale):
    c = _fill(conn)
    at = app_test(page)
    at.context = {"locale": locale}
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.session_state["scope"] = "course"
    return at.run()


def test_the_agreement_page_in_swedish(app_test, conn):
    at = _page(app_test, conn, "pages/agreement.py", "sv-SE")
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Samstämmighet"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Bedömda par (n)"] == "96" and metrics["Studenter"] == "24"
    assert {"MAE", "QWK", "Exakt överensstämmelse", "Inom ±1", "Godkända utan ändring"} <= set(metrics)
    assert {"Per kriterium", "Där de inte stämmer överens", "Efter att ha sett AI-utkastet",
            "Vad lärarna ändrade"} <= {s.value for s in at.subheader}
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "Visar den här kursen (byt i sidofältet)." in captions
    assert "48 blinda kriteriepoäng för 12 studenter; 48 expertbedömda kriteriepoäng för 12 studenter" in captions
    assert "Siffrorna bygger på 24 studenter" in captions
    assert "95 % KI [" in captions and "] för 24 studenter" in captions
    headline = at.dataframe[0].value
    assert {"Kriterium", "MAE 95 % KI", "QWK 95 % KI", "Exakt överensstämmelse (%)"} <= set(headline.columns)
    assert headline["Kriterium"].iloc[-1] == "Alla kriterier"
    assert at.selectbox(key="agreement_criterion").label == "Kriterium"
    assert at.selectbox(key="agreement_reference").label == "Referenspoäng"
    labels = [b.proto.label for b in at.get("download_button")]
    assert all(label.startswith("Ladda ner data: ") for label in labels), labels
    assert "Ladda ner data: förväxlingsmatris" in labels and len(set(labels)) == len(labels)


def test_the_fairness_page_in_russian(app_test, conn):
    at = _page(app_test, conn, "pages/fairness.py", "ru-RU")
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Справедливость"]
    assert "ΔMAE = MAE(низкий уровень) − MAE(высокий уровень)" in [m.label for m in at.metric]
    assert {"По группам студентов", "По длине"} <= {s.value for s in at.subheader}
    assert at.number_input(key="fairness_threshold").label == "Предупреждать, когда ΔMAE больше"
    assert at.selectbox(key="fairness_criterion").label == "Критерий"
    assert "Все критерии (вместе)" in at.selectbox(key="fairness_criterion").options
    assert any("превышает порог предупреждения 0.25" in e.value for e in at.error)
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "(из 24 студентов: студент, чьи оценки попадают в оба уровня" in captions
    assert "Наибольший разрыв MAE между группами: " in captions
    tests = [d.value for d in at.dataframe if "p-значение" in d.value.columns]
    assert len(tests) == 2 and {"группа", "В сравнении с", "Разница, 95 % ДИ"} <= set(tests[0].columns)
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Скачать данные: ошибка по «section»" in labels
    assert all(label.startswith("Скачать данные: ") for label in labels), labels
