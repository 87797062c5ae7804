"""The reasons db/ gives (its FairMark errors, raised with db/message.py's Message: db/ imports no
core) read as the same English as before on the command line, and in Swedish and Russian on a page
(Interface.said): a course or assignment that is not there, the price table's, the LLM and the
judging settings' refusals, a lesson's conflicts, blind scores given twice, the rubric model's
checks, the database's location and PostgreSQL's settings; and the Settings page in Swedish shows
the price table's refusal in Swedish."""
from __future__ import annotations

import pytest

import factories as f
from core import admin
from core.accounts.access import Actor
from core.calibration import blind
from core.courses import catalogue
from core.errors import ConfigError, ConflictError, FairMarkError, IngestError, NotFound, RubricError
from core.language.interface import Interface, Message
from core.lessons import review
from db import calibration as calibration_db
from db import courses, llm_calls, location
from db import lessons as lessons_db
from db.postgres import pool, tools
from lesson_helpers import LESSON, add_lesson
from shown import plain

ADMIN = Actor("ann", role="admin")
SV, RU = Interface("sv"), Interface("ru")


def _refused(error_class, call, *args, **kwargs) -> FairMarkError:
    with pytest.raises(error_class) as caught:
        call(*args, **kwargs)
    assert isinstance(caught.value.args[0], Message), caught.value   # a page says it in the reader's language
    return caught.value


def test_a_course_or_an_assignment_that_is_not_there(conn):
    e = _refused(NotFound, courses.course_by_name, conn, "Nope")
    assert str(e) == "no course named 'Nope' (courses: none yet)"   # the command line's English, as before
    assert SV.said(e) == "det finns ingen kurs som heter ”Nope” (kurser: inga ännu)"
    assert RU.said(e) == "курса «Nope» нет (курсы: пока нет)"
    c = f.course(conn)
    e = _refused(NotFound, courses.course_by_name, conn, "Nope")
    assert (str(e), SV.said(e)) == ("no course named 'Nope' (courses: Test course)",
                                    "det finns ingen kurs som heter ”Nope” (kurser: Test course)")
    e = _refused(NotFound, courses.assignment_by_title, conn, c["course_id"], "Week 9")
    assert str(e).startswith("no assignment titled 'Week 9' in this course (assignments: ")
    assert RU.said(e).startswith("в этом курсе нет задания «Week 9» (задания: ")
    e = _refused(NotFound, courses.get_course, conn, 999)
    assert (str(e), SV.said(e), RU.said(e)) == ("course 999 does not exist", "kurs 999 finns inte",
                                                "курса 999 не существует")
    e = _refused(NotFound, courses.ensure_course, conn, "  ")
    assert (str(e), SV.said(e)) == ("a course needs a name", "en kurs behöver ett namn")


def test_the_price_tables_refusals_change_nothing(conn):
    before = llm_calls.list_prices(conn)
    e = _refused(ConfigError, admin.replace_prices, conn,
                 [{"model": "gpt-4o", "input_per_mtok": "cheap", "output_per_mtok": 1}], actor=ADMIN)
    assert str(e) == ("Price row 1 (gpt-4o): input_per_mtok must be a number of dollars per million tokens, not "
                      "'cheap'.")
    assert SV.said(e) == ("Prisrad 1 (gpt-4o): input_per_mtok ska vara ett tal i dollar per miljon tokens, inte "
                          "”cheap”.")
    assert RU.said(e) == ("Строка 1 таблицы цен (gpt-4o): значение input_per_mtok должно быть числом долларов за "
                          "миллион токенов, а не «cheap».")
    rows = [{"model": "a", "input_per_mtok": 1, "output_per_mtok": 2},
            {"model": "b", "input_per_mtok": 1, "output_per_mtok": -2}]
    e = _refused(ConfigError, admin.replace_prices, conn, rows, actor=ADMIN)
    assert str(e) == "Price row 2 (b): output_per_mtok cannot be negative."
    assert SV.said(e) == "Prisrad 2 (b): output_per_mtok kan inte vara negativt."
    e = _refused(ConfigError, admin.replace_prices, conn, [rows[0], {**rows[0], "model": " a "}], actor=ADMIN)
    assert str(e) == "Price row 2: model 'a' is listed twice. Keep one row."
    assert RU.said(e) == "Строка 2 таблицы цен: модель «a» указана дважды. Оставьте одну строку."
    e = _refused(ConfigError, admin.replace_prices, conn, [{"model": "", "input_per_mtok": 1}], actor=ADMIN)
    assert SV.said(e) == "Prisrad 1: modellnamnet är tomt. Skriv modellens exakta namn."
    assert llm_calls.list_prices(conn) == before


def test_the_llm_and_judging_settings_refusals_name_the_setting_in_the_readers_language(conn):
    e = _refused(ConfigError, admin.save_llm_overrides, conn, {"temperature": 5}, actor=ADMIN)
    assert (str(e), SV.said(e)) == ("temperature must be between 0.0 and 2.0, not 5.0.",
                                    "temperature ska vara mellan 0.0 och 2.0, inte 5.0.")
    e = _refused(ConfigError, admin.save_llm_overrides, conn, {"concurrency": "many"}, actor=ADMIN)
    assert RU.said(e) == "concurrency: значение должно быть числом от 1 до 64, а не «many»."
    e = _refused(ConfigError, admin.save_llm_overrides, conn, {"api_key": "x"}, actor=ADMIN)
    assert str(e).startswith("Unknown LLM setting(s) ['api_key']; allowed: llm_model, models, ")
    assert SV.said(e).startswith("Okända inställningar för språkmodellen ['api_key']; tillåtna: llm_model, models, ")
    # a cascade threshold is named by its label, itself a Message said in the reader's language
    e = _refused(ConfigError, admin.save_judging_overrides, conn, {"cascade_band_margin": 9}, actor=ADMIN)
    assert str(e) == "the distance from the band cut that counts as near must be between 0.0 and 5.0, not 9.0."
    assert SV.said(e) == "avståndet från bandgränsen som räknas som nära ska vara mellan 0.0 och 5.0, inte 9.0."
    assert RU.said(e) == ("расстояние от границы диапазонов, которое считается близким: значение должно быть от 0.0 "
                          "до 5.0, а не 9.0.")
    e = _refused(ConfigError, admin.save_judging_overrides, conn,
                 {"judges": [{"name": "b", "model": "m", "weight": 11}]}, actor=ADMIN)
    assert str(e) == "Judge row 1 (b): the weight must be above 0 and at most 10, not 11.0."
    assert SV.said(e) == "Granskarrad 1 (b): vikten ska vara över 0 och högst 10, inte 11.0."
    e = _refused(ConfigError, admin.save_judging_overrides, conn,
                 {"judges": [{"name": "b", "model": "m"}, {"name": "B", "model": "n"}]}, actor=ADMIN)
    assert str(e) == "Judge row 2 (B): the name clashes with row 1 (both use FAIRMARK_JUDGE_B_*). Rename one."
    assert RU.said(e) == ("Строка 2 таблицы проверяющих (B): имя совпадает со строкой 1 (обе используют "
                          "FAIRMARK_JUDGE_B_*). Переименуйте одну из них.")
    assert llm_calls.get_llm_overrides(conn) == {} and llm_calls.get_judging_overrides(conn) == {}


def test_a_lessons_conflicts_and_an_approved_title_uploaded_again(conn, db_path):
    lid = add_lesson(conn)
    review.review_lesson(db_path, lid, None)
    version = lessons_db.get(conn, lid)["version"]
    # someone else's decision landed between the page's read and this approval (db's version check)
    e = _refused(ConflictError, lessons_db.approve, conn, lid, loaded_version=version - 1, actor="ann", priority=0,
                 reference=None)
    assert str(e) == (f"Lesson {lid} changed since you opened it (someone decided a fix, approved it or a review "
                      "finished). Reload the lesson and decide again.")
    assert SV.said(e).startswith(f"Lektion {lid} har ändrats sedan du öppnade den (någon har tagit ställning till")
    assert RU.said(e).endswith("Обновите страницу занятия и решите заново.")
    lessons_db.approve(conn, lid, loaded_version=version, actor="ann", priority=0, reference=None)
    from core.lessons import ingest

    changed = LESSON.replace(b"Have you ever seen", b"Did you ever see")
    e = _refused(IngestError, ingest.import_lessons, conn, [("water.md", changed)], course_name="Science",
                 actor=ADMIN)
    assert str(e) == ("water.md: lesson 'The water cycle' is already approved in this course; give the new version "
                      "another title to upload it beside the approved one.")
    assert SV.said(e) == ("water.md: lektionen ”The water cycle” är redan godkänd i den här kursen; ge den nya "
                          "versionen en annan titel för att ladda upp den bredvid den godkända.")
    e = _refused(NotFound, lessons_db.get, conn, 999)
    assert (str(e), RU.said(e)) == ("lesson 999 does not exist", "занятия 999 не существует")


def test_blind_scores_given_twice_and_a_score_off_the_scale(conn):
    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]))
    calibration_db.add_items(conn, c["assignment_id"], [(sid, None, "test")], actor="ann", at="2025-01-01")
    scores = {k.key: 2 for k in c["rubric"].criteria}
    e = _refused(RubricError, blind.save, conn, sid, {**scores, c["rubric"].criteria[0].key: 9}, actor=ADMIN)
    key = c["rubric"].criteria[0].key
    low, high = c["rubric"].scale_min, c["rubric"].scale_max
    assert str(e) == f"score for '{key}' is 9; it must be between {low} and {high}"
    assert SV.said(e) == f"poängen för ”{key}” är 9; den ska vara mellan {low} och {high}"
    blind.save(conn, sid, scores, actor=ADMIN)
    e = _refused(ConflictError, blind.save, conn, sid, scores, actor=ADMIN)
    assert str(e) == (f"ann already saved blind scores for submission {sid}; blind scores are final (a change after "
                      "seeing the AI's draft would not be blind)")
    assert SV.said(e) == (f"ann har redan sparat blinda poäng för inlämning {sid}; blinda poäng är slutgiltiga (en "
                          "ändring efter att ha sett AI:ns utkast vore inte blind)")
    assert RU.said(e).startswith(f"Слепые оценки работы {sid} от ann уже сохранены; слепые оценки окончательны")


def test_the_rubric_models_checks_list_each_row_translated(conn):
    c = f.course(conn)
    rows = catalogue.rubric_to_rows(c["rubric"])
    first = rows[0]["key"]
    levels = [k for k in rows[0] if k.startswith("level_")]
    rows[0][levels[-1]] = " "               # an empty descriptor
    rows[1]["key"] = first                  # a key used twice
    e = _refused(RubricError, catalogue.rows_to_rubric, c["rubric"], rows)
    top = levels[-1].removeprefix("level_")
    assert str(e) == (f"Invalid rubric: Row 1 ({first}): empty descriptor for level {top}; criterion keys must be "
                      f"unique; repeated: {first} (rows 1 and 2)")
    assert SV.said(e) == (f"Ogiltig bedömningsmatris: Rad 1 ({first}): tom beskrivning för nivå {top}; kriteriernas "
                          f"nycklar måste vara unika; upprepad: {first} (raderna 1 och 2)")
    assert RU.said(e) == (f"Недопустимый рубрикатор: Строка 1 ({first}): пустое описание уровня {top}; ключи "
                          f"критериев должны быть уникальными; повторяется: {first} (строки 1 и 2)")
    e = _refused(RubricError, c["rubric"].criterion, "nope")
    assert RU.said(e) == f"в рубрикаторе «{c['rubric'].name}» нет критерия «nope»"


def test_the_databases_location_and_postgresqls_settings(monkeypatch):
    e = _refused(ConfigError, location.check, "mysql://host/fm")
    assert str(e).startswith("FAIRMARK_DB is an address (mysql:…), which FairMark does not support. Supported: a "
                             "file path, e.g. fairmark.db")
    assert SV.said(e).startswith("FAIRMARK_DB är en adress (mysql:…), som FairMark inte stöder. Stöds: en sökväg "
                                 "till en fil, till exempel fairmark.db")
    assert RU.said(e).endswith("или адрес PostgreSQL, postgresql://USER:PASSWORD@HOST:PORT/DATABASE. Ничего не "
                               "создано.")
    monkeypatch.setenv("FAIRMARK_DB_CONNECTIONS", "lots")
    e = _refused(ConfigError, pool.pool_size)
    assert str(e) == ("FAIRMARK_DB_CONNECTIONS must be a whole number from 1 to 10000 (it is 'lots'): how many "
                      "PostgreSQL connections one FairMark process may hold at once")
    assert SV.said(e).startswith("FAIRMARK_DB_CONNECTIONS ska vara ett heltal från 1 till 10000 (det är ”lots”)")
    e = _refused(ConfigError, tools.program, "pg_nothing_such")
    assert str(e).startswith("pg_nothing_such is not installed on this host, and a PostgreSQL database is backed up")
    assert RU.said(e).startswith("pg_nothing_such не установлен на этом сервере")


def test_the_settings_page_shows_the_price_tables_refusal_in_swedish(app_test, conn, monkeypatch):
    """A price stored before the check (negative) is refused when the admin saves the table: the
    page shows db/'s reason in Swedish, and nothing changes. (The options AppTest formats after the
    run read Swedish too: docs/development.md, "Testing a translated page with AppTest".)"""
    from pages import _i18n

    monkeypatch.setattr(_i18n, "browser_language", lambda: "sv")
    conn.execute("UPDATE prices SET output_per_mtok = ? WHERE model = ?", [-0.6, "gpt-4o-mini"])
    before = llm_calls.list_prices(conn)
    row = [p["model"] for p in before].index("gpt-4o-mini") + 1   # the table's order, as the page shows it
    at = app_test("pages/settings.py")
    at.context = {"locale": "sv-SE"}
    at.run()
    assert not at.exception, at.exception
    save = at.button(key="llm_save_prices")
    assert save.label == "Spara priserna"
    save.click().run()
    assert not at.exception, at.exception
    errors = [plain(x.value) for x in at.error]
    assert f"Prisrad {row} (gpt-4o-mini): output_per_mtok kan inte vara negativt." in errors, errors
    assert not any("cannot be negative" in x for x in errors)
    assert not at.success and llm_calls.list_prices(conn) == before


def test_a_views_error_keeps_db_s_message_for_the_page(conn):
    """A core view that hands a page an error keeps its Message (not str(e)), so the calibration
    page says db/'s "submission … does not exist" in Swedish."""
    from core.calibration import calibrate_view
    c = f.course(conn)
    view = calibrate_view.calibrate_page(conn, c["assignment_id"], actor=ADMIN, item=99999)
    error = view["item"]["error"]
    assert error == "submission 99999 does not exist"
    assert (SV.said(error), RU.said(error)) == ("inlämning 99999 finns inte", "работы 99999 не существует")
