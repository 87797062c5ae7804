"""The interface in English, Swedish and Russian (the teachers' own languages): no string of a
converted page reaches Streamlit without the translation function (tests/i18n_scan.py), every
message the code uses is translated in both catalogues with the same placeholders, the pages
render in the browser's language or the user's own choice, and the choice is stored per user."""
from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

import factories as f
import i18n_scan
from core.accounts import access, preferences
from core.errors import ConfigError, Forbidden
from core.language import interface
from core.language.interface import Interface, from_browser, placeholders
from db import users as users_db
from shown import plain
from support_i18n import student_app

LANGUAGES = interface.TRANSLATED


# --- (a) the scan: nothing reaches Streamlit untranslated ---------------------------------------
def test_no_string_of_a_converted_page_reaches_streamlit_untranslated():
    found = i18n_scan.untranslated()
    assert not found, "\n".join(map(str, found))


def test_every_page_module_is_scanned():
    """A new page cannot skip the check: every module of pages/ (and app.py) is on the scan's list."""
    root = i18n_scan.ROOT
    modules = {"app.py", *(p.relative_to(root).as_posix() for p in (root / "pages").glob("*.py") if p.name != "__init__.py")}
    assert modules - {spec.split(":")[0] for spec in i18n_scan.CONVERTED} == set()


def test_the_scan_finds_a_string_that_skips_t(tmp_path):
    """The scan can fail: literals given straight, through a name, a table, an f-string, a
    format_func's table or a help= are found; keys, paths, icons (coloured too), a download's data, file
    name and type, the names in **options, and t()'s messages are not."""
    (tmp_path / "page.py").write_text('''
import streamlit as st
from pages._i18n import N_, t
LABELS = {"a": "Shown as is", "b": N_("Marked")}
OPTIONS = {"x": "An option"}

def draw(col, n):
    st.title("A title")
    label = "Through a name"
    st.button(label, key="some_key", icon=":material/home:")
    col.metric(t(LABELS["b"]), 3, help="A help text")
    st.caption(LABELS["a"])
    st.markdown(f"Total: {n}")
    st.radio(t("Fine"), list(OPTIONS), format_func=OPTIONS.get)
    st.page_link("pages/home.py", label=t("Home"))
    st.markdown("**" + t("Bold") + "**")
    st.markdown(":green[:material/check_circle:] " + t("Passed"))
    st.markdown(":red[Coloured words]")
    st.download_button(t("Download"), data=make("csv"), file_name="week.csv", mime="text/csv")
    common = {"disabled": True, "help": "Through options", "width": "stretch"}
    st.button(t("Save"), **{**common, "disabled": False})
''')
    texts = sorted(x.text for x in i18n_scan.untranslated(["page.py"], root=tmp_path))
    assert texts == sorted(["A help text", "A title", "An option", "Shown as is", "Through a name", "Total: ",
                            ":red[Coloured words]", "Through options"])   # not: a coloured icon, a download's
    # file, an option's name (**common's "width": "stretch")


# --- (b) every message translated, placeholders kept ------------------------------------------
@pytest.mark.parametrize("code", LANGUAGES)
def test_every_message_the_code_uses_is_translated(code):
    assert not i18n_scan.missing(code), f"{code}.po lacks (python tests/i18n_scan.py prints them): " + repr(
        i18n_scan.missing(code))


@pytest.mark.parametrize("code", LANGUAGES)
def test_translations_keep_the_placeholders_and_the_plural_forms(code):
    catalogue = interface.read_catalogue(code)
    used = i18n_scan.messages()
    ids = {i18n_scan.msgid_of(m) for m in used}
    for message in catalogue:
        if not message.id:
            continue
        assert (message.id if isinstance(message.id, str) else message.id[0]) in ids, (
            f"{code}.po translates {message.id!r}, which no converted code uses: remove it")
        sources = (message.id,) if isinstance(message.id, str) else message.id
        wanted = set().union(*(placeholders(s) for s in sources))
        strings = (message.string,) if isinstance(message.string, str) else message.string
        if not isinstance(message.id, str):
            assert len(strings) == catalogue.num_plurals, (code, message.id)
        for text in strings:
            # A plural's forms may name {count} or not (Swedish "tecken" either way), never another field.
            got = placeholders(text)
            assert got == wanted or (not isinstance(message.id, str) and got == wanted - {"count"}), (
                code, message.id, text)


def test_russian_has_three_plural_forms_and_swedish_two():
    assert interface.read_catalogue("ru").num_plurals == 3 and interface.read_catalogue("sv").num_plurals == 2
    ru = Interface("ru")
    assert [ru.plural("{count} student", "{count} students", n) for n in (1, 2, 5, 11, 22)] == [
        "1 студент", "2 студента", "5 студентов", "11 студентов", "22 студента"]
    assert Interface("sv").plural("{count} week", "{count} weeks", 1) == "1 vecka"


def test_english_is_the_source_and_every_fallback():
    assert Interface("en")("Sign in") == "Sign in"
    assert Interface("sv")("A message no catalogue has") == "A message no catalogue has"
    assert Interface("sv").number(1000) != "1,000" and Interface("en").number(1000) == "1,000"
    with pytest.raises(ValueError, match="Choose one of"):
        Interface("de")


@pytest.mark.parametrize("locale, header, expected", [
    ("sv-SE", None, "sv"), ("ru", "en-GB,en;q=0.9", "ru"), ("en-US", "sv", "en"),
    ("de-DE", "de-DE,de;q=0.9,ru;q=0.8,sv;q=0.7", "ru"), (None, "fr, sv;q=0.5, ru;q=0.6", "ru"),
    (None, "sv;q=0, ru;q=0.1", "ru"), ("fr-FR", "fr", None), (None, None, None), ("SV_se", "", "sv"),
])
def test_the_browsers_language(locale, header, expected):
    assert from_browser(locale, header) == expected


def test_the_users_choice_wins_over_the_browser_and_english_is_last():
    assert interface.choose("ru", "sv-SE") == "ru"
    assert interface.choose(None, "sv-SE") == "sv"
    assert interface.choose(None, "fr-FR", "de") == "en"


# --- the preference, stored per user ------------------------------------------------------------
def test_a_user_sets_their_own_language_an_admin_anyones_and_nobody_else(conn):
    ann = f.user(conn, "ann", "instructor")
    tom = f.user(conn, "tom", "ta")
    admin = f.user(conn, "ada", "admin")
    assert preferences.language(conn, actor=ann) is None                      # the browser's
    assert preferences.set_language(conn, ann.user_id, " SV ", actor=ann) == "sv"
    assert preferences.language(conn, actor=ann) == "sv"
    with pytest.raises(Forbidden):
        preferences.set_language(conn, ann.user_id, "ru", actor=tom)
    assert preferences.set_language(conn, tom.user_id, "ru", actor=admin) == "ru"
    with pytest.raises(ConfigError, match="not supported.*en \\(English\\).*browser"):
        preferences.set_language(conn, ann.user_id, "klingon", actor=ann)
    assert users_db.language(conn, ann.user_id) == "sv"                       # nothing changed
    assert preferences.set_language(conn, ann.user_id, "browser", actor=ann) is None
    assert preferences.language(conn, actor=ann) is None
    rows = list(conn.query("SELECT actor, before, after FROM audit_log WHERE action = 'set_language' ORDER BY id"))
    assert [(r["actor"], json.loads(r["after"])["language"]) for r in rows] == [("ann", "sv"), ("ada", "ru"),
                                                                              ("ann", None)]


def test_the_command_line_sets_a_users_language(conn, db_path):
    from core.__main__ import main

    tom = f.user(conn, "tom", "ta")
    f.user(conn, "ada", "admin")
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["user", "language", "tom", "ru", "--db", str(db_path)]) == 0
    assert json.loads(out.getvalue())["language"] == "ru" and users_db.language(conn, tom.user_id) == "ru"
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["user", "language", "tom", "browser", "--db", str(db_path)]) == 0
    assert json.loads(out.getvalue())["language"] == "browser" and users_db.language(conn, tom.user_id) is None
    with redirect_stdout(io.StringIO()):
        code = main(["user", "language", "tom", "de", "--db", str(db_path)])
    assert code == 2 and users_db.language(conn, tom.user_id) is None          # refused, nothing written


# --- (c) the pages in Swedish and Russian --------------------------------------------------------
def _texts(at) -> str:
    parts = [e.value for kind in ("markdown", "caption", "info", "warning", "error", "success", "title", "subheader")
             for e in getattr(at, kind)]
    return plain(" ".join(str(p) for p in parts))


SIGN_IN = {"en": (["User name", "Password"], "Sign in", "Sign in to see your courses."),
           "sv": (["Användarnamn", "Lösenord"], "Logga in", "Logga in för att se dina kurser."),
           "ru": (["Имя пользователя", "Пароль"], "Войти", "Войдите, чтобы увидеть свои курсы.")}


@pytest.mark.parametrize("locale, code", [("sv-SE", "sv"), ("ru-RU", "ru"), ("de-DE", "en")])
def test_the_sign_in_page_speaks_the_browsers_language(app_test, conn, locale, code):
    f.user(conn, "admin", "admin")
    at = app_test(signed_in=False)
    at.context = {"locale": locale}
    at.run()
    assert not at.exception, at.exception
    fields, button, caption = SIGN_IN[code]
    assert [t.label for t in at.text_input] == fields
    assert [b.label for b in at.button] == [button]
    assert caption in _texts(at)


def test_the_first_admins_form_in_russian(app_test, conn):
    at = app_test(signed_in=False)
    at.context = {"locale": "ru"}
    at.run()
    assert "Добро пожаловать!" in _texts(at)
    assert "Пароль (не короче 10 символов)" in [t.label for t in at.text_input]
    assert [b.label for b in at.button] == ["Создать учётную запись администратора"]


def test_a_failed_sign_in_says_so_in_the_browsers_language(app_test, conn):
    f.user(conn, "ann", "instructor")
    at = app_test(signed_in=False)
    at.context = {"locale": "ru-RU"}
    at.run()
    at.text_input(key="signin_name").input("ann")
    at.text_input(key="signin_password").input("not the password")
    at.button[0].click().run()
    assert [plain(e.value) for e in at.error] == ["Не удалось войти: неверное имя или пароль."]


def test_core_messages_read_english_and_show_in_the_readers_language():
    from core.accounts import identity
    from core.errors import NotSignedIn

    locked = identity._locked_message(2)
    assert locked == ("Too many failed sign-ins for this name: it is locked for 2 more minutes. Ask an admin if you "
                      "forgot your password.")                            # the command line, logs, tests: English
    assert Interface("ru").said(NotSignedIn(locked)).startswith(
        "Слишком много неудачных попыток входа с этим именем: вход заблокирован ещё на 2 минуты.")
    assert Interface("sv").said(identity.SIGNIN_FAILED) == "Inloggningen misslyckades: namnet eller lösenordet stämmer inte."
    assert Interface("sv").said(NotSignedIn("Any other text, as it is.")) == "Any other text, as it is."


@pytest.mark.parametrize("locale, words, english", [
    ("sv-SE", ["Din återkoppling", "Kommentar", "Utkastet gjordes med hjälp av AI och har granskats och godkänts av "
               "Ada Lovelace", "Begär en ny bedömning"], ["Your feedback", "Comment", "Drafted with"]),
    ("ru-RU", ["Ваш отзыв", "Комментарий", "Черновик подготовлен с помощью ИИ, проверен и утверждён преподавателем "
               "Ada Lovelace", "Попросить пересмотреть оценку", "Опубликовано "], ["Your feedback", "Drafted with"]),
])
def test_the_student_page_speaks_the_browsers_language(conn, db_path, app_test, locale, words, english):
    at = student_app(conn, db_path, app_test, locale)
    assert not at.exception, at.exception
    text = _texts(at)
    for word in words:
        assert word in text, (word, text[:600])
    for word in english:
        assert word not in text
    assert [m.label for m in at.multiselect] == [Interface(locale[:2])("Criteria")]


@pytest.mark.parametrize("locale, words, english", [
    ("de-DE", ["Din återkoppling", "Kommentar"], ["Your feedback"]),     # not offered: the course's (Swedish)
    ("en-GB", ["Your feedback", "Comment"], ["Din återkoppling"]),       # offered: the browser's wins
])
def test_the_student_page_falls_back_to_the_courses_language(conn, db_path, app_test, locale, words, english):
    at = student_app(conn, db_path, app_test, locale, course_language="sv")
    assert not at.exception, at.exception
    text = _texts(at)
    for word in words:
        assert word in text, (word, text[:600])
    for word in english:
        assert word not in text


def test_only_a_student_asks_their_pages_language(conn):
    from core.students import page

    c = f.course(conn, "Biology")
    teacher = f.user(conn, "ada", "instructor", courses=[c["course_id"]])
    with pytest.raises(Forbidden):
        page.language_of(conn, actor=teacher, browser=None)


def test_a_users_own_language_wins_over_the_browsers_and_the_picker_changes_it(app_test, conn, db_path):
    at = app_test("pages/home.py", user="ann", role="instructor")
    at.context = {"locale": "sv-SE"}
    at.run()
    assert not at.exception, at.exception
    assert "Logga ut" in [b.label for b in at.sidebar.button]                # the browser's: Swedish
    picker = at.sidebar.selectbox(key="_pick_language")
    assert picker.value == "" and picker.options[:2] == ["Webbläsarens språk (Svenska)", "English"]
    picker.select("ru").run()
    assert not at.exception, at.exception
    ann = users_db.find(conn, "ann")
    assert users_db.language(conn, ann["id"]) == "ru"
    assert "Выйти" in [b.label for b in at.sidebar.button]
    assert "С чего начать" in _texts(at) or "Вам пока не открыт ни один курс" in _texts(at)
    again = app_test("pages/home.py", user="ann", role="instructor")      # a new browser session, Swedish browser
    again.context = {"locale": "sv-SE"}
    again.run()
    assert "Выйти" in [b.label for b in again.sidebar.button]


def test_the_home_page_and_the_menu_in_swedish(app_test, conn):
    c = f.course(conn)
    at = app_test("pages/home.py")
    at.context = {"locale": "sv"}
    at.session_state["course_id"] = c["course_id"]
    at.run()
    assert not at.exception, at.exception
    text = _texts(at)
    assert "Den här kursen" in text and "Uppladdade" in [m.label for m in at.metric]
    assert {"Start", "Uppladdning", "Granskning", "Inställningar"} <= set(page_links(at)), page_links(at)
    assert at.sidebar.selectbox(key="_pick_course").label == "Kurs"
    assert any(plain(c.value).startswith("Inloggad som ") for c in at.sidebar.caption)


def page_links(at) -> list[str]:
    return [e.proto.label for e in at.get("page_link")]


def test_the_students_page_in_russian(app_test, conn):
    c = f.course(conn)
    f.student(conn, c["course_id"], name="Kim Lee")
    at = app_test("pages/student.py")
    at.context = {"locale": "ru"}
    at.session_state["course_id"] = c["course_id"]
    at.run()
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Студенты"] and at.selectbox(key="student_pick").label == "Студент"
    assert "Для студента Kim Lee пока ничего не опубликовано." in _texts(at)
    assert "В этом курсе пока ни у кого нет опубликованных работ." in _texts(at)


def test_the_settings_tabs_in_swedish(app_test, conn):
    at = app_test("pages/settings.py")
    at.context = {"locale": "sv-FI"}
    at.run()
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Inställningar"]
    assert [t.label for t in at.tabs][:3] == ["Kurser och uppgifter", "Bedömningsmatriser", "Språkmodell och priser"]


def test_the_users_tab_in_russian(app_test, conn):
    at = app_test("pages/settings.py")
    at.context = {"locale": "ru-RU"}
    at.run()
    assert not at.exception, at.exception
    assert "Добавить пользователя" in [s.value for s in at.subheader]
    assert {"Имя пользователя (для входа)", "Отображаемое имя"} <= {t.label for t in at.text_input}
    role = next(s for s in at.selectbox if s.label == "Роль")
    assert "ассистент преподавателя" in role.options
    users = next(d.value for d in at.dataframe if "последний вход" in d.value.columns)
    assert users.loc[users["пользователь"] == "test-admin", "курсы"].item() == "все курсы"
    # what each role may do: the actions' words and the roles' names (core's English labels)
    grants = next(d.value for d in at.dataframe if "действие" in d.value.columns)
    assert "администратор" in grants.columns and "action" not in grants.columns
    english = [row["action"] for row in access.table()]
    assert len(grants) == len(english) and not set(grants["действие"]) & set(english)


def test_the_upload_page_in_russian(app_test, conn):
    at = app_test("pages/upload.py")
    at.context = {"locale": "ru-RU"}
    at.session_state["upload_sources"] = [("week1.csv", b"student_id,name,text\ns1,Ada,I learned.\ns1,Ada,I learned.\n")]
    at.session_state["up_new_course"], at.session_state["up_new_title"] = "Весна", "Неделя 1"
    at.run()
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Загрузить рефлексии"]
    assert {"Готово к импорту", "Отклонённые строки", "Дубликаты (пропущены)"} == {m.label for m in at.metric}
    assert "Импортировать" in [b.label for b in at.button]
    assert "+ Новый курс" in at.selectbox(key="up_course").options


def test_the_assess_page_in_swedish(app_test, conn):
    c = f.course(conn, name="Vårkurs")
    f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), "Jag lärde mig mycket om temperatur.")
    at = app_test("pages/assess.py")
    at.context = {"locale": "sv-SE"}
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.run()
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Bedömning"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Inlämningar att bedöma"] == "1" and metrics["Beräknad kostnad"] == "$0 (offline)"
    assert plain(at.radio(key="assess_scope").options[1]) == "Alla uppgifter i Vårkurs"
    assert "Starta bedömningen" in [b.label for b in at.button]


def test_the_release_page_in_russian(app_test, conn):
    c = f.course(conn)
    at = app_test("pages/release.py")
    at.context = {"locale": "ru-RU"}
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.run()
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Публикация"]
    assert [m.label for m in at.metric][:2] == ["Утверждено, не опубликовано", "Опубликовано"]
    assert "Публиковать нечего: сначала утвердите работы на странице «Проверка»." in _texts(at)
    assert at.button(key="release_go").label == "Опубликовать 0 утверждённых работ"   # Russian's "many" form
    assert "Экспорт" in [s.value for s in at.subheader]


def test_the_review_queue_in_swedish(app_test, conn):
    c = f.course(conn)
    for i in range(2):
        sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], name=f"Elev {i}"),
                           text="Jag lärde mig att temperaturen styr hur slumpmässiga svaren blir.")
        f.draft(conn, sid, {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3,
                            "clarity": 3})
    at = app_test("pages/review.py")
    at.context = {"locale": "sv-SE"}
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.run()
    assert not at.exception, at.exception
    status = at.selectbox(key="rq_status")
    assert status.label == "Status" and status.options[:2] == ["Alla med utkast", "Att granska"]
    assert at.selectbox(key="rq_group").options[0] == "Alla grupper"
    assert at.text_input(key="rq_search").label == "Sök i text, namn eller student-id"
    assert {b.label for b in at.button if b.key.startswith("open_")} == {"Öppna"}
    assert "Sida 1" in [cap.value for cap in at.caption]
    assert any(plain(m.value).startswith("Totalt ") for m in at.markdown)
    assert any(plain(m.value).endswith("· 10 ord") for m in at.markdown)
    assert any("Se poängen som en första gissning: 0 studenter har bedömts blint" in w.value for w in at.warning)


def test_the_learning_page_in_russian(app_test, conn):
    from test_learning import _course

    _course(conn)
    at = app_test("pages/learning.py")
    at.context = {"locale": "ru-RU"}
    at.run()
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Обучение во времени"]
    assert "Рост по критериям (баллов в неделю)" in [s.value for s in at.subheader]
    assert {"критерий", "студентов", "средний рост в неделю"} <= set(at.dataframe[0].value.columns)


def test_second_marking_in_swedish(app_test, conn):
    from test_pages_moderation import _seeded

    m = _seeded(conn)
    sid = m["sids"][0]
    at = app_test("pages/second_marking.py", role="ta", user="tina", courses=[m["c"]["course_id"]])
    at.context = {"locale": "sv-SE"}
    at.session_state["course_id"], at.session_state["assignment_id"] = m["c"]["course_id"], m["c"]["assignment_id"]
    at.run()
    assert not at.exception, at.exception
    assert at.button(key=f"sm_open_{sid}").label == "Bedöm blint"
    assert any("inte bedömt av dig ännu" in x.value for x in at.markdown)
    at.button(key=f"sm_open_{sid}").click().run()
    assert [s.value for s in at.subheader] == ["Reflektion · 6 ord", "Din blinda bedömning"]
    assert at.button(key=f"sm_save_{sid}").label == "Lämna min bedömning"


def test_the_markers_page_in_russian(app_test, conn):
    c = f.course(conn)
    at = app_test("pages/markers.py", role="coordinator", user="cora", courses=[c["course_id"]])
    at.context = {"locale": "ru-RU"}
    at.session_state["course_id"] = c["course_id"]
    at.run()
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Проверяющие"]
    assert [i.value for i in at.info] == ["В этом курсе пока нет проверяющих: откройте курс преподавателям или "
                                          "ассистентам."]


def test_the_costs_page_in_swedish(app_test, conn):
    from test_pages_dashboards import _fill

    c = _fill(conn)
    at = app_test("pages/costs.py")
    at.context = {"locale": "sv-SE"}
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.session_state["scope"] = "course"
    at.run()
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Kostnader"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Anrop till språkmodellen"] == "24" and metrics["Total kostnad"] == "$0.0096"
    assert "Granskarkedjan: anrop och dollar per nivå" in [s.value for s in at.subheader]


def test_a_review_item_in_russian(app_test, conn):
    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], name="Иван Петров"),
                       text="На этой неделе я узнал, что температура влияет на ответы модели.")
    f.draft(conn, sid, {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 3})
    at = app_test("pages/review.py")
    at.context = {"locale": "ru-RU"}
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    # Opened as the address opens it: AppTest re-formats the queue's selectboxes outside a script run (in
    # English, the session's language unknown there), so a click on this page cannot be replayed in Russian.
    at.session_state["review_item"] = sid
    at.run()
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Проверка"]
    assert {"Работа · 11 слов", "Ваша версия"} <= {s.value for s in at.subheader}
    assert at.text_area(key=next(a.key for a in at.text_area if a.key.startswith("ri_comment_"))).label == \
        "Комментарий для студента"
    assert {"Сохранить", "Утвердить", "Отклонить", "Новый черновик", "← Очередь"} <= {b.label for b in at.button}
    assert [t.label for t in at.tabs][-2:] == ["Доработки", "История"]
    assert "**Заметки к тексту**" in [m.value for m in at.markdown]                 # the notes on the text
    assert {"Добавить заметку к тексту", "Банк комментариев"} <= {e.label for e in at.expander}


def test_the_comment_bank_in_swedish(app_test, conn):
    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), text="Jag lärde mig om temperatur.")
    f.draft(conn, sid, {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 3})
    at = app_test("pages/review.py")
    at.context = {"locale": "sv-SE"}
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.session_state["review_item"] = sid
    at.run()
    assert not at.exception, at.exception
    assert "Kommentarsbank" in [e.label for e in at.expander]
    assert "Banken är tom: spara en kommentar i den nedan." in [x.value for x in at.caption]
    assert {"Vad som ska sparas", "För kriterium", "På nivå", "Till"} <= {s.label for s in at.selectbox}
    assert "Spara i banken" in [b.label for b in at.button]


def test_an_appeal_on_the_review_page_in_russian(app_test, conn):
    from test_pages_appeals import WHY, _appealed

    c, sid = _appealed(conn)
    at = app_test("pages/review.py")
    at.context = {"locale": "ru-RU"}
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.session_state["review_item"] = sid
    at.run()
    assert not at.exception, at.exception
    shown = "\n".join(plain(m.value) for m in at.markdown)
    assert "Апелляция студента" in shown and "опубликованный балл 2" in shown
    assert WHY in [x.value for x in at.text]                                   # the student's words as written
    assert at.radio(key=f"ap_outcome_{sid}").options == ["Оставить опубликованный балл", "Изменить балл"]
    assert "Сначала оценить вслепую" in [b.label for b in at.button]


def test_a_catalogue_joins_its_parts_and_refuses_a_message_in_two_files(tmp_path, monkeypatch):
    header = ('msgid ""\nmsgstr ""\n"Language: sv\\n"\n"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n'
              '"Content-Type: text/plain; charset=utf-8\\n"\n\n')
    (tmp_path / "sv").mkdir()
    (tmp_path / "sv.po").write_text(header + 'msgid "Sign in"\nmsgstr "Logga in"\n', encoding="utf-8")
    (tmp_path / "sv" / "lessons.po").write_text(header + 'msgid "Lessons"\nmsgstr "Lektioner"\n', encoding="utf-8")
    monkeypatch.setattr(interface, "CATALOGUES", tmp_path)
    joined = interface.read_catalogue("sv")
    assert joined.get("Sign in").string == "Logga in" and joined.get("Lessons").string == "Lektioner"
    (tmp_path / "sv" / "more.po").write_text(header + 'msgid "Lessons"\nmsgstr "Lektionerna"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="more.po.*'Lessons'.*another file"):
        interface.read_catalogue("sv")


# --- (c) core's refusals: a page shows them in the reader's language ---------------------------
def test_core_raises_no_refusal_in_plain_english():
    """Every FairMark error core and db/ raise carries a Message (English on the command line, the
    reader's language on a page), except in the modules still listed as pending."""
    found = i18n_scan.refusals()
    assert not found, "\n".join(map(str, found))


def test_the_refusal_scan_finds_a_plain_string(tmp_path):
    """The scan can fail: a literal, an f-string, a .format() and a joined text are found, in a class
    that derives from FairMarkError through another, or given to a module's `_refuse…` helper; a
    Message, a variable and ValueError are not."""
    for folder in ("db", "core"):
        (tmp_path / folder).mkdir()
    (tmp_path / "db" / "errors.py").write_text("class FairMarkError(Exception): ...\nclass NotFound(FairMarkError): ...\n")
    (tmp_path / "core" / "mod.py").write_text('''
from db.errors import NotFound
class Gone(NotFound): ...
def f(x, msg):
    if x == 1: raise NotFound("plain")
    if x == 2: raise Gone(f"no {x}")
    if x == 3: raise NotFound("no {x}".format(x=x)) from None
    if x == 4: raise NotFound("no " + str(x))
    if x == 5: raise NotFound(Message("No {x}.", x=x))
    if x == 6: raise NotFound(msg)
    raise ValueError("a programming error")
''')
    found = i18n_scan.refusals(["core/mod.py"], root=tmp_path)
    assert [(r.line, r.text) for r in found] == [(5, "NotFound"), (6, "Gone"), (7, "NotFound"), (8, "NotFound")]
    # A module-level helper that raises the refusal, `_refuse…(text)`: a plain string given to it is
    # found (defined in the module or imported into it); a Message, a variable, a method is not.
    (tmp_path / "core" / "helper.py").write_text('''
from core.elsewhere import _refuse_login, other
def _refuse(text):
    raise NotFound(text)
def _refused(e, status=400): ...
class Checker:
    def _refuse(self, text): ...
    def check(self, x, e):
        if x == 1: _refuse("expired")
        if x == 2: _refuse(f"no {x}")
        if x == 3: _refuse("no " + SETTINGS + ".")
        if x == 4: _refuse_login("no {x}".format(x=x))
        if x == 5: _refuse(Message("expired"))
        if x == 6: _refuse(e)
        if x == 7: _refused(e, 500)
        if x == 8: self._refuse("a method's, not the module's")
        if x == 9: other("not a refusal")
''')
    found = i18n_scan.refusals(["core/helper.py"], root=tmp_path)
    assert [(r.line, r.text) for r in found] == [(9, "_refuse"), (10, "_refuse"), (11, "_refuse"),
                                                 (12, "_refuse_login")]
    assert str(found[0]) == "core/helper.py:9: calls _refuse with a plain string: give it a Message"


def test_db_raises_no_refusal_in_plain_english_and_its_messages_are_checked():
    """db/ gives its refusals as Messages too (db/message.py: the one Message class, at the bottom
    layer, so db/ imports no core): every FairMark error raised in db/ (db/postgres/ and the
    migrations too) carries one, and its Messages are among those every catalogue must translate."""
    assert set(i18n_scan.db_modules()) <= set(i18n_scan.refusal_modules())   # the default scan covers db/
    assert {"db/llm_calls.py", "db/postgres/tools.py", "db/migrations/m001_initial.py"} <= set(i18n_scan.db_modules())
    found = i18n_scan.refusals(i18n_scan.db_modules())
    assert not found, "\n".join(map(str, found))
    collected = i18n_scan.messages()
    assert any(w.startswith("db/llm_calls.py:")
               for w in collected["Price row {row}: the model name is empty. Enter the model's exact name."])
    assert any(w.startswith("db/rubric_model.py:") for w in collected[
        ("{where}: empty descriptor for level {levels}", "{where}: empty descriptor for levels {levels}")])
    from core.language.interface import Message
    from db.message import Message as bottom
    assert Message is bottom   # one class: isinstance holds whichever module a caller imports it from


def test_the_refusal_scan_finds_a_plain_string_in_db(tmp_path):
    """The scan can fail on db/: with no list given it reads db/'s modules (db/postgres/ too) beside
    core's, and finds a FairMark error raised there with a plain string; a Message, a variable and
    a programmer's ValueError are not."""
    for folder in ("db", "db/postgres", "core"):
        (tmp_path / folder).mkdir()
    (tmp_path / "db" / "errors.py").write_text("class FairMarkError(Exception): ...\n"
                                               "class ConfigError(FairMarkError): ...\nclass NotFound(FairMarkError): ...\n")
    (tmp_path / "db" / "courses.py").write_text('''
from db.errors import NotFound
from db.message import Message
def get(conn, course_id, why):
    if course_id == 1: raise NotFound(f"course {course_id} does not exist")
    if course_id == 2: raise NotFound(Message("course {id} does not exist", id=course_id))
    if course_id == 3: raise NotFound(why)
    raise ValueError(f"cannot update {course_id}")
''')
    (tmp_path / "db" / "postgres" / "pool.py").write_text('''
from db.errors import ConfigError
def size(raw):
    raise ConfigError("FAIRMARK_DB_CONNECTIONS must be a whole number, not " + raw)
''')
    found = i18n_scan.refusals(root=tmp_path)
    assert [(r.where, r.line, r.text) for r in found] == [("db/courses.py", 5, "NotFound"),
                                                          ("db/postgres/pool.py", 4, "ConfigError")]
    assert str(found[0]) == "db/courses.py:5: raises NotFound with a plain string: give it a Message"
