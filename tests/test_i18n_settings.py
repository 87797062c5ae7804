"""The Settings page's tabs in Swedish and Russian (AppTest): the language model and prices, the
judges, the LMS platforms, data care, courses and assignments, rubrics and the rubric builder
speak the browser's language (pages/settings.py draws every tab in one run), with core's words
(the agents' names, what a deletion removed: tests/test_i18n_core_labels.py)."""
from __future__ import annotations

import factories as f
from db import llm_calls
from shown import plain

PAGE = "pages/settings.py"
SCORES = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 3}


def _open(app_test, locale: str, monkeypatch=None, **kw):
    """The page in the browser language `locale`. With `monkeypatch`, the options' format_func that
    AppTest calls after the run, outside it (the Users tab's roles, translated), reads that language
    too, so that widgets can be changed and the page run again."""
    if monkeypatch is not None:
        from pages import _i18n

        monkeypatch.setattr(_i18n, "browser_language", lambda: locale.split("-")[0])
    at = app_test(PAGE, **kw)
    at.context = {"locale": locale}
    at.run()
    assert not at.exception, at.exception
    return at


def _button(at, label):
    return next(b for b in at.button if b.label == label)


def test_the_language_model_tab_in_swedish(app_test):
    at = _open(app_test, "sv-SE")
    subheaders = [s.value for s in at.subheader]
    assert {"Slutpunkt", "Modeller och gränser", "Priser (US-dollar per miljon tokens)"} <= set(subheaders)
    assert any("**offline-bas – ingen språkmodell**" in i.value for i in at.info)
    markdown = "\n".join(m.value for m in at.markdown)
    assert "**Bas-URL:** ingen: ingen språkmodell används (offline-bas)" in markdown
    assert "**API-nyckel:** inte angiven" in markdown
    assert at.button(key="llm_test_connection").label == "Testa anslutningen"
    assert at.number_input(key="llm_temperature").label == "Temperatur"
    assert "Spara modellinställningarna" in [b.label for b in at.button]


def test_the_judges_tab_in_russian(app_test, conn, monkeypatch):
    monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", "http://main.example/v1")
    monkeypatch.setenv("FAIRMARK_JUDGE_B_BASE_URL", "http://judge-b.example/v1")
    monkeypatch.setenv("FAIRMARK_JUDGE_B_API_KEY", "sk-judge-b-SECRET")
    llm_calls.save_judging_overrides(conn, {"judges": [{"name": "b", "model": "other-family", "weight": 1.5},
                                                       {"name": "c", "model": "gpt-4o-mini", "weight": 1}]})
    at = _open(app_test, "ru-RU", monkeypatch)
    assert {"Проверяющие", "Когда баллы первого проверяющего остаются в силе"} <= {s.value for s in at.subheader}
    judges = next(d.value for d in at.dataframe if "Адрес API" in d.value.columns).set_index("Проверяющий")
    assert list(judges.columns) == ["Модель", "Вес", "Адрес API", "Ключ"]
    assert judges.loc["b", "Адрес API"] == "http://judge-b.example/v1" and judges.loc["b", "Ключ"] == "задан"
    assert judges.loc["c", "Адрес API"] == "основной адрес API" and judges.loc["c", "Ключ"] == "основной ключ"
    assert any(w.value.startswith("Проверяющий c использует ту же модель, что и агент «Оценщик» (gpt-4o-mini)")
               for w in at.warning)
    assert at.number_input(key="cascade_band_margin").label == "Запас до границы диапазонов"
    at.number_input(key="cascade_band_margin").set_value(0.5)
    _button(at, "Сохранить пороги").click().run()
    assert not at.exception, at.exception
    assert [plain(s.value) for s in at.success] == ["Пороги сохранены. Новые запуски используют их."]


def test_the_lms_platforms_tab_in_swedish(app_test, conn, monkeypatch):
    monkeypatch.setenv("FAIRMARK_PUBLIC_URL", "https://fairmark.uni.example/")
    at = _open(app_test, "sv-SE", monkeypatch)
    assert {"FairMarks adresser för lärplattformen", "Registrerade lärplattformar",
            "Registrera en lärplattform"} <= {s.value for s in at.subheader}
    assert "Inloggnings-URL (start av OpenID Connect)" in [x.value for x in at.text]
    at.text_input(key="lti_issuer").set_value("https://moodle.uni.example")
    at.text_input(key="lti_client_id").set_value("Abc123")
    at.text_area(key="lti_deployments").set_value("1\n2")
    for key, path in (("auth_url", "auth.php"), ("token_url", "token.php"), ("jwks_url", "certs.php")):
        at.text_input(key=f"lti_{key}").set_value(f"https://moodle.uni.example/mod/lti/{path}")
    _button(at, "Registrera").click().run()
    assert not at.exception, at.exception
    assert plain(at.success[0].value) == ("Registrerade https://moodle.uni.example (klient-ID Abc123, "
                                          "deployments 1, 2).")
    lms = next(d.value for d in at.dataframe if "utfärdare" in d.value.columns)
    assert list(lms.columns) == ["utfärdare", "klient-ID", "deployments", "auktoriserings-URL", "token-URL",
                                 "URL för publika nycklar"]


def test_the_data_tab_in_russian(app_test, conn, monkeypatch):
    c = f.course(conn, "Этика ИИ")
    ana = f.student(conn, c["course_id"], external_id="s0", name="Ana Silva")
    f.draft(conn, f.submission(conn, c["assignment_id"], ana, text="Ana wrote about bias."), SCORES)
    at = _open(app_test, "ru-RU", monkeypatch)
    assert {"Резервная копия", "Восстановить из резервной копии", "Удаление по запросу", "Срок хранения",
            "Ссылки студентов"} <= {s.value for s in at.subheader}
    assert "Подготовить резервную копию" in [b.label for b in at.button]
    pick = at.selectbox(key=f"data_student_{c['course_id']}_0")
    assert pick.label == "Студент" and pick.placeholder == "Выберите студента"
    pick.set_value(ana).run()
    sure = at.checkbox(key=f"data_student_sure_{ana}")
    assert plain(sure.label) == "Удалить всё о студенте Ana Silva: рефлексии, черновики, проверки, баллы и публикации"
    _button(at, "Удалить данные студента").click().run()
    assert plain(at.error[0].value) == ("Отметьте «Удалить всё о студенте Ana Silva» для подтверждения: "
                                        "ничего не удалено.")
    at.checkbox(key=f"data_student_sure_{ana}").check()
    _button(at, "Удалить данные студента").click().run()
    assert not at.exception, at.exception
    # what was deleted is core's count, in Russian too (tests/test_i18n_core_labels.py)
    assert plain(at.success[0].value).startswith("Удалены данные студента Ana Silva: 1 рефлексия, 1 черновик ИИ")


def test_the_courses_and_rubrics_tabs_in_swedish(app_test, conn):
    f.course(conn, "Vårkurs")
    at = _open(app_test, "sv-SE")
    assert "+ Ny kurs" in at.selectbox(key="set_course").options
    assert "Uppgifter" in [s.value for s in at.subheader]
    assignments = next(d.value for d in at.dataframe if "nyckelbegrepp" in d.value.columns)
    assert list(assignments.columns) == ["vecka", "namn", "bedömningsmatrisens id", "nyckelbegrepp", "läsnivå"]
    assert "Frågan som studenterna svarade på" in [x.label for x in at.text_area]
    answer = next(r for r in at.radio if r.label == "Facit (valfritt)")
    assert list(answer.options) == ["Ingen", "Ett tal", "En text"]
    assert {"Spara kursen", "Spara uppgiften", "Lägg till de medföljande bedömningsmatriserna"} <= {
        b.label for b in at.button}
    scale = next(c.value for c in at.caption if c.value.startswith("Skala "))
    assert scale.endswith("kriterier. När en ändring sparas skapas en ny version; poäng som getts med den här "
                          "behåller sin betydelse.")
    assert {"Versioner", "Ladda upp en bedömningsmatris", "Skapa bedömningsmatris"} <= {s.value for s in at.subheader}


def test_the_rubric_builder_in_russian(app_test, conn):
    c = f.course(conn)
    at = _open(app_test, "ru-RU", role="instructor", courses=[c["course_id"]])
    assert "Конструктор рубрикаторов" in [s.value for s in at.subheader]
    versions = next(d.value for d in at.dataframe if "версия" in d.value.columns)
    assert list(versions.columns) == ["версия", "сохранена", "примечание", "заданий с этой версией",
                                      "черновиков ИИ, оценённых по ней"]
    at.text_input(key="rb_description").set_value("An essay, 4 criteria, scored 1 to 6")
    assert at.text_input(key="rb_description").label == "Опишите работу"
    _button(at, "Подготовить черновик рубрикатора").click().run()
    assert not at.exception, at.exception
    assert [plain(s.value) for s in at.success] == ["Черновик готов. Проверьте его ниже, исправьте и сохраните."]
    draft = next(e for e in at.expander if e.label.startswith("Черновик от "))
    assert draft.label.endswith("(шаблон)")
    assert "Шкала 1–6; 4 критерия." in [x.value for x in at.caption]
    _button(at, "Сохранить как рубрикатор").click().run()
    assert not at.exception, at.exception
    assert plain(at.success[0].value).endswith("сохранён как версия 1. Выберите его для задания на вкладке "
                                               "«Курсы и задания».")
