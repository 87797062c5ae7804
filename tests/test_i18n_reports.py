"""The text core builds for the dashboards, in Swedish and Russian: the reference picker's options
and label, the notes and warnings, the appeal rates and the judges' notes (core/reports,
core/metrics, core/appeals/figures.py, core/judging/agreement.py). Core keeps saying it in English
(the command line, the JSON, the logs): a Message reads as its English text."""
from __future__ import annotations

from core.language.interface import Interface, Message
from core.reports import pairs
from shown import plain
from test_i18n_dashboards import _page


def test_the_reference_picker_and_label_in_swedish(app_test, conn):
    at = _page(app_test, conn, "pages/agreement.py", "sv-SE")
    assert not at.exception, at.exception
    picker = at.selectbox(key="agreement_reference")
    assert "Expertpoäng där sådana laddats upp, annars moderatorns fastställda poäng, annars blinda " \
           "kalibreringspoäng" in picker.options
    assert "Blinda kalibreringspoäng (satta innan AI-utkastet visades)" in picker.options
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "Referens: expertpoäng där sådana laddats upp" in captions


def test_the_reference_picker_in_russian(app_test, conn):
    at = _page(app_test, conn, "pages/fairness.py", "ru-RU")
    assert not at.exception, at.exception
    options = at.selectbox(key="fairness_reference").options
    assert "Загруженные оценки экспертов (среднее по экспертам)" in options
    assert "Эталон: оценки экспертов, где они загружены" in " ".join(plain(c.value) for c in at.caption)


def test_the_reference_labels_stay_english_in_core():
    label = pairs.reference_label("rater:R2")
    assert label == "expert rater R2 only" and isinstance(label, Message)
    assert Interface("sv").said(label) == "endast expertbedömare R2"
    assert pairs.reference_label("auto") == pairs.REFERENCE_LABELS["auto"]
    assert pairs.empty_message("blind") == ("No blind calibration scores yet — score a calibration set on the "
                                            "Calibrate page.")
    assert Interface("ru").said(pairs.empty_message("teacher")).startswith("Утверждённых преподавателями оценок")


def test_a_list_of_messages_is_translated_part_by_part():
    others = pairs.listed([Message.plural("{lo}–{hi} ({count} pairs)", "{lo}–{hi} ({count} pairs)", n, lo=0, hi=n)
                           for n in (1, 3, 5)])
    assert others == "0–1 (1 pairs), 0–3 (3 pairs), 0–5 (5 pairs)"
    assert Interface("ru").said(others) == "0–1 (1 пара), 0–3 (3 пары), 0–5 (5 пар)"


def _appeal_rates(app_test, conn, page, locale):
    from appeal_items import appealable, released
    from core.appeals import filing

    c = appealable(conn)
    sid, me = released(conn, c)
    filing.file(conn, sid, {"real_world_application": "My job is a real-world application."}, actor=me)
    at = app_test(page)
    at.context = {"locale": locale}
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.session_state["scope"] = "course"
    at.run()
    assert not at.exception, at.exception
    return "\n".join(str(v) for df in at.dataframe for v in df.value.to_numpy().ravel())


def test_the_appeal_rates_own_text_in_swedish(app_test, conn):
    cells = _appeal_rates(app_test, conn, "pages/agreement.py", "sv-SE")
    assert "1 av 1 elev överklagade (100.0 %, 95 % intervall 20.7–100.0 %)" in cells
    assert "inget överklagande avgjort än" in cells and "appealed" not in cells


def test_the_appeal_rates_own_text_in_russian(app_test, conn):
    cells = _appeal_rates(app_test, conn, "pages/fairness.py", "ru-RU")
    assert "апелляцию подали 1 из 1 студента (100.0 %, 95 % ДИ 20.7–100.0 %)" in cells
    assert "ни одна апелляция ещё не рассмотрена" in cells


def test_the_rates_read_in_english_in_core():
    from core.metrics.proportion import share

    text = share(3, 40, "released result", "appealed")["text"]
    assert text == "3 of 40 released results appealed (7.5 %, 95 % interval 2.6–19.9 %)" and isinstance(text, Message)
    assert Interface("ru").said(text) == "обжаловано 3 из 40 выставленных результатов (7.5 %, 95 % ДИ 2.6–19.9 %)"
    assert share(2, 5, "thing", "done")["text"].startswith("2 of 5 things done (")   # other words: English


def test_the_judges_notes_and_verdicts_in_russian(app_test, conn):
    from core.accounts.access import Actor
    from core.judging import agreement
    from test_judging_agreement import voted_assignment

    c, _ = voted_assignment(conn, [(0, 3), (3, 0), (1, 2), (2, 1), (3, 1), (1, 1)])
    agreement.review_assignment(conn, c["assignment_id"], actor=Actor("test", role="admin"))
    at = app_test("pages/agreement.py")
    at.context = {"locale": "ru-RU"}
    at.run()
    assert not at.exception, at.exception
    captions = " ".join(plain(cap.value) for cap in at.caption)
    assert "Альфа Криппендорфа (порядковая) считается по всем работам с двумя и более голосами (здесь 24 оценки" \
           in captions
    assert "Слепых калибровочных оценок здесь пока нет" in captions
    cells = "\n".join(str(v) for df in at.dataframe for v in df.value.to_numpy().ravel())
    assert "плохо (α < 0,67): работы, по которым проверяющие разошлись, переданы преподавателю" in cells
    assert "poor (alpha" not in cells
    assert agreement.VERDICTS["poor"] == "poor (alpha < 0.67): items whose judges disagreed went to a teacher"


def test_the_fairness_pages_warnings_notes_and_group_tests_in_russian(app_test, conn):
    at = _page(app_test, conn, "pages/fairness.py", "ru-RU")
    assert not at.exception, at.exception
    assert [plain(w.value) for w in at.warning] == [
        "Группа 'yes': всего 8 студентов (меньше 10) — слишком мало для выводов; считайте эти показатели "
        "ненадёжными; не учитывается в разнице и в групповых тестах"]
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "— для разницы нужны хотя бы две группы, в каждой не меньше 10 студентов." in captions
    assert "ДИ недоступен: все единицы (12) дают одно и то же значение в каждой повторной выборке" in captions
    tests = [d.value for d in at.dataframe if "В сравнении с" in d.value.columns]
    assert set(tests[0]["В сравнении с"]) == {"остальные"}


def test_the_fairness_warnings_read_in_english_in_core(conn):
    from core import reports
    from core.accounts.access import Actor
    from core.metrics.fairness import _small_warning
    from db.analytics import Scope
    from test_pages_dashboards import _fill

    c = _fill(conn)
    view = reports.fairness_view(conn, Scope("course", c["course_id"]), actor=Actor("test", role="admin"))
    warning = next(w for rep in view["groups"].values() for w in rep["warnings"])
    assert warning == ("Group 'yes': only 8 students (fewer than 10) — too few to judge; treat its figures as "
                       "unreliable; left out of the difference and the group tests")
    assert isinstance(warning, Message)
    band = _small_warning(Message("Low band ({range})", range="0–1"), 1, 10, "items")
    assert band == "Low band (0–1): only 1 item (fewer than 10) — too few to judge; treat its figures as unreliable"
    assert Interface("sv").said(band) == ("Låg nivå (0–1): bara 1 arbete (färre än 10) — för få för att bedöma; "
                                          "se siffrorna som osäkra")


def test_the_costs_pages_runs_other_work_and_empty_state_in_swedish_and_russian(app_test, conn):
    import factories as f
    from dashboard_data import call
    from test_pages_dashboards import _fill

    c = _fill(conn)
    lessons = conn.execute("INSERT INTO runs (course_id, provider, kind) VALUES (?, 'openai', 'lessons')",
                           [c["course_id"]]).lastrowid
    call(conn, None, "lesson_judge", 0.05, run=lessons)
    at = app_test("pages/costs.py")
    at.context = {"locale": "sv-SE"}
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.session_state["scope"] = "course"
    at.run()
    assert not at.exception, at.exception
    assert "Generera om (utanför körningar)" in at.get("plotly_chart")[0].proto.spec
    assert at.dataframe[-1].value.iloc[0, 0] == "Granskning av lektioner"
    empty = app_test("pages/costs.py")
    empty.context = {"locale": "ru-RU"}
    other = f.course(conn, name="Empty")
    empty.session_state["course_id"], empty.session_state["assignment_id"] = other["course_id"], other["assignment_id"]
    empty.session_state["scope"] = "course"
    empty.run()
    assert not empty.exception, empty.exception
    assert "Вызовов языковых моделей пока нет — сначала запустите оценивание." in [plain(i.value) for i in empty.info]


def test_the_charts_axes_and_legends_in_swedish(app_test, conn):
    import json

    at = _page(app_test, conn, "pages/fairness.py", "sv-SE")
    assert not at.exception, at.exception
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    axes = {spec["layout"].get(axis, {}).get("title", {}).get("text") for spec in specs for axis in ("xaxis", "yaxis")}
    assert {"Referenspoängens nivå", "Poäng", "Grupp (grå: för få för att bedöma)", "Antal ord (intervallets början)",
            "Medelfel (AI − referens)"} <= axes
    names = {trace.get("name") for spec in specs for trace in spec["data"]}
    assert {"systematiskt fel (AI − referens)", "medelfel"} <= names
    assert "Band of the reference score" not in axes


def test_the_charts_read_in_english_in_core():
    import pandas as pd
    from core import charts

    fig = charts.band_chart(pd.DataFrame([{"band": "low", "range": "0–1", "n": 3, "mae": 1.0, "mae_lo": 0.5,
                                           "mae_hi": 1.5, "bias": 0.2, "bias_lo": 0.0, "bias_hi": 0.4}]))
    assert fig.layout.xaxis.title.text == "Band of the reference score" and fig.data[1].name == "bias (AI − reference)"


def _markers_page(app_test, conn, locale):
    import factories as f
    from core.moderation import marking
    from test_pages_moderation import HIGH, _seeded, _shown

    m = _seeded(conn)
    tina = f.user(conn, "tina", "ta")
    for sid in m["sids"]:
        marking.mark(conn, sid, HIGH, actor=tina)
    at = app_test("pages/markers.py", role="coordinator", user="cora", courses=[m["c"]["course_id"]])
    at.context = {"locale": locale}
    at.session_state["course_id"], at.session_state["assignment_id"] = m["c"]["course_id"], m["c"]["assignment_id"]
    at.run()
    assert not at.exception, at.exception
    return _shown(at)


def test_the_markers_figures_in_swedish(app_test, conn):
    text = _markers_page(app_test, conn, "sv-SE")
    assert "- bedömer Clarity 2.0 lägre än konsensus, inget intervall ännu, för 2 studenter" in text
    assert "- bedömer Clarity 2.0 högre än konsensus, inget intervall ännu, för 2 studenter" in text
    assert "Ändrar AI:ns poäng på 0 av 2 arbeten godkända ett i taget (höjde 0, sänkte 0 kriteriepoäng); samma " \
           "poäng som AI:n på 100% av kriterierna (för 2 studenter; inget intervall" in text
    assert "marks Clarity" not in text


def test_the_markers_sentences_read_in_english_in_core():
    from core.moderation import markers

    line = markers.sentence("Clarity", 0.5, [-0.2, 1.1], 1)
    assert line == "marks Clarity 0.5 higher than the consensus, 95 % interval from 0.2 lower to 1.1 higher, on 1 student"
    assert Interface("ru").said(line) == ("оценивает «Clarity» на 0.5 выше консенсуса, 95 % ДИ от 0.2 ниже до 1.1 выше; "
                                          "данные 1 студента")
    edits = markers._edits_text(3, 1, 2, 0, 0.75, None, 2)
    assert edits == ("changes the AI's scores on 1 of 3 items approved one by one (raised 2, lowered 0 criterion "
                     "scores); same score as the AI on 75% of criteria (on 2 students; no interval: too few students "
                     "or no variation between them)")
    assert Interface("sv").said(edits).startswith("ändrar AI:ns poäng på 1 av 3 arbeten godkända ett i taget")
