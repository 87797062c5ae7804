"""core's refusals about courses, assignments, answer keys, rubrics, the comment bank, data care
and the prompt files read as the same English as before, and in Swedish and Russian on a page
(Interface.said); the rubric builder's stored draft note and the versions' differences too."""
from __future__ import annotations

import pytest

import factories as f
from core import data_care, prompts
from core.accounts.access import Actor
from core.courses import answer_keys, catalogue
from core.courses import comment_bank as bank
from core.courses import rubric_builder as builder
from core.courses import rubric_versions as versions
from core.errors import (ConfigError, ConflictError, FairMarkError, IngestError, LLMTimeout, NotFound,
                         RubricError)
from core.language.interface import Interface, Message
from core.rubric import parse_rubric
from db import rubric_drafts
from fake_llm import ScriptedLLM

ADMIN = Actor("ann", role="admin")
SV, RU = Interface("sv"), Interface("ru")


def _refused(error_class, call, *args, **kwargs) -> FairMarkError:
    with pytest.raises(error_class) as info:
        call(*args, **kwargs)
    assert isinstance(info.value.args[0], Message), info.value   # a page translates it (show_error)
    return info.value


def test_the_catalogues_refusals(conn):
    c = f.course(conn)
    e = _refused(NotFound, catalogue.create_course, conn, "Test course", actor=ADMIN)
    assert str(e) == "A course named 'Test course' already exists; choose it instead"
    assert SV.said(e) == "Det finns redan en kurs som heter ”Test course”; välj den i stället"
    assert RU.said(e) == "Курс «Test course» уже существует; выберите его"
    e = _refused(NotFound, catalogue.edit_assignment, conn, c["assignment_id"], target_grade=30, actor=ADMIN)
    assert str(e) == "Target reading level must be a school grade between 1 and 18"
    assert RU.said(e) == "Целевой уровень читаемости должен быть школьным классом от 1 до 18"
    rows = catalogue.rubric_to_rows(c["rubric"])
    rows[0]["weight"] = "heavy"
    e = _refused(RubricError, catalogue.rows_to_rubric, c["rubric"], rows)
    assert str(e) == "Row 1: weight must be a number, got 'heavy'"
    assert SV.said(e) == "Rad 1: weight ska vara ett tal, men är ”heavy”"
    assert RU.said(e) == "Строка 1: значение weight должно быть числом, а не «heavy»"


def test_an_answer_keys_refusal_says_the_numbers_reason_in_the_readers_language(conn):
    c = f.course(conn)
    e = _refused(ConfigError, answer_keys.set_answer_key, conn, c["assignment_id"], kind="number", value="three",
                 actor=ADMIN)
    assert str(e) == ("Answer key: 'three' is not a number: type digits with a decimal point or comma, e.g. 3.5, "
                      "or choose the kind 'text'")
    assert SV.said(e) == ("Facit: ”three” är inte ett tal: skriv siffror med decimalpunkt eller decimalkomma, "
                          "till exempel 3.5, eller välj ”En text”")
    assert RU.said(e).startswith("Правильный ответ: «three» — не число: введите цифры")
    e = _refused(ConfigError, answer_keys.fields, "number", "3", "70")
    assert (str(e), SV.said(e), RU.said(e)) == ("Tolerance must be between 0 and 50 %, not 70",
                                                "Toleransen ska vara mellan 0 och 50 %, inte 70",
                                                "Допуск должен быть от 0 до 50 %, а не 70")


def test_the_comment_banks_refusals_a_bad_import_lists_each_row_translated(conn):
    c = f.course(conn)
    cid = c["course_id"]
    teacher = f.user(conn, "ms_t", "instructor", courses=[cid])
    e = _refused(IngestError, bank.add, conn, cid, "x" * 301, actor=teacher)
    assert str(e) == ("A bank comment is at most 300 characters (this one has 301): shorten it or split it in two.")
    assert RU.said(e) == ("Комментарий в банке — не длиннее 300 символов (в этом — 301): сократите его или "
                          "разделите на два.")
    e = _refused(IngestError, bank.import_csv, conn, cid, "text,level\n,\nGood,two\n", actor=teacher)
    assert str(e) == ("Nothing was imported. Fix these rows and try again:\n"
                      "Row 2: Write the comment first: a bank comment cannot be empty.\n"
                      "Row 3: The level must be a whole number (got 'two').")
    assert SV.said(e) == ("Ingenting importerades. Rätta de här raderna och försök igen:\n"
                          "Rad 2: Skriv kommentaren först: en kommentar i banken kan inte vara tom.\n"
                          "Rad 3: Nivån ska vara ett heltal (inte ”two”).")
    assert RU.said(e).splitlines() == ["Ничего не импортировано. Исправьте эти строки и попробуйте снова:",
                                       "Строка 2: Сначала напишите комментарий: комментарий в банке не может быть "
                                       "пустым.",
                                       "Строка 3: Уровень должен быть целым числом (а не «two»)."]
    mine = bank.add(conn, cid, "Good start.", actor=teacher)
    other = f.user(conn, "mr_b", "instructor", courses=[cid])
    e = _refused(FairMarkError, bank.edit, conn, mine, "Changed.", actor=other)
    assert SV.said(e).startswith("Kommentaren finns i en annan lärares egen bank: bara den läraren får ändra den.")


def test_the_rubric_builders_refusals_and_its_notes(conn):
    c = f.course(conn)
    cid = c["course_id"]
    e = _refused(IngestError, builder.draft, conn, cid, "an essay, 1–6", "Score: 9\nToo high.\n" * 5, actor=ADMIN)
    assert str(e) == ("Example 1: the score 9 is outside the scale 1–6 your description names; fix the score or "
                      "the description.")
    assert RU.said(e) == ("Пример 1: балл 9 вне шкалы 1–6, указанной в вашем описании; исправьте балл или "
                          "описание.")
    e = _refused(IngestError, builder.draft, conn, cid, "an essay", "Score: 2\nOk.", actor=ADMIN)
    assert SV.said(e) == ("Ge 5 till 20 bedömda exempel (du gav 1), eller inga alls för ett utkast utifrån enbart "
                          "beskrivningen.")
    # offline: the template's note, read back from the database as a Message
    draft_id = builder.draft(conn, cid, "an essay, 1 criterion, 1–6", actor=ADMIN)
    (d,) = [d for d in builder.drafts_view(conn, cid, actor=ADMIN) if d["id"] == draft_id]
    assert d["note"] == rubric_drafts.get(conn, draft_id)["note"] == (
        "This is a template, not written by a language model: a essay rubric with 1 criterion scored 1–6, chosen "
        "from your description. Edit the wording before you save it.")
    assert SV.said(d["note"]).startswith("Det här är en mall, inte skriven av en språkmodell: en bedömningsmatris "
                                         "av typen uppsats med 1 kriterium på skalan 1–6")
    assert RU.said(d["note"]).startswith("Это шаблон, а не текст языковой модели: рубрикатор для работы типа "
                                         "«эссе» — 1 критерий со шкалой 1–6")
    # the model timed out: why the template stands in, then the template's note
    llm = ScriptedLLM().script("rubric_builder", LLMTimeout("slow"))
    draft_id = builder.draft(conn, cid, "a weekly reflection, 3 criteria, 0–3", llm=llm, actor=ADMIN)
    (d,) = [d for d in builder.drafts_view(conn, cid, actor=ADMIN) if d["id"] == draft_id]
    assert d["note"].startswith("The model's draft could not be used: the language model could not be asked (")
    assert RU.said(d["note"]).startswith("Черновик модели использовать не удалось: не удалось обратиться к языковой "
                                         "модели (")
    assert "3 критерия со шкалой 0–3" in RU.said(d["note"])
    # twice an answer with too few criteria: the count of attempts and the model's fault translated too
    two = {"name": "R", "criteria": [{"key": k, "title": k.capitalize(), "description": f"Looks at {k}.",
                                      "levels": [{"level": lvl, "descriptor": f"{k} {lvl}."} for lvl in (3, 2, 1, 0)],
                                      "guidance": ""} for k in ("understanding", "clarity")]}
    llm = ScriptedLLM().script("rubric_builder", two, two)
    invalid = builder.draft(conn, cid, "a weekly reflection, 3 criteria, 0–3", llm=llm, actor=ADMIN)
    (n,) = [d["note"] for d in builder.drafts_view(conn, cid, actor=ADMIN) if d["id"] == invalid]
    assert n.startswith("The model's draft could not be used: its answer did not make a usable rubric (asked for 3 "
                        "criteria, got 2), 2 times. This is a template")
    assert SV.said(n).startswith("Modellens utkast kunde inte användas: dess svar gav ingen användbar bedömningsmatris "
                                 "(fel antal kriterier: 2 i stället för 3), 2 gånger. Det här är en mall")
    assert RU.said(n).startswith("Черновик модели использовать не удалось: из её ответа не получился пригодный "
                                 "рубрикатор (неверное число критериев: 2 вместо 3), 2 раза. Это шаблон")
    assert isinstance(builder.note_of("A note someone typed."), str)   # a note no message makes: as it is
    builder.save(conn, draft_id, catalogue.rubric_to_rows(d["rubric"]), name="Saved once", actor=ADMIN)
    e = _refused(ConflictError, builder.save, conn, draft_id, catalogue.rubric_to_rows(d["rubric"]),
                 name="Saved once", actor=ADMIN)
    assert RU.said(e) == "Этот черновик уже сохранён; откройте рубрикатор на вкладке «Рубрикаторы»."


def test_the_versions_differences_and_rollback_refusals(conn):
    a = parse_rubric({"name": "R", "scale_min": 0, "scale_max": 1, "criteria": [
        {"key": "clarity", "title": "Clarity", "levels": {0: "Unclear", 1: "Clear"}}]})
    b = parse_rubric({"name": "R", "scale_min": 0, "scale_max": 2, "criteria": [
        {"key": "clarity", "title": "Clarity", "levels": {0: "Unclear", 1: "Clear", 2: "Very clear"},
         "guidance": "Ignore spelling."},
        {"key": "depth", "title": "Depth", "levels": {0: "Thin", 1: "Deep", 2: "Deeper"}}]})
    lines = versions.diff_lines(a, b)
    assert lines == ["scale: “0–1” → “0–2”", "Clarity — notes for graders: (none) → “Ignore spelling.”",
                     "Clarity — level 2: (none) → “Very clear”", "Depth: added"]
    assert [SV.said(x) for x in lines] == ["skala: ”0–1” → ”0–2”",
                                           "Clarity — anteckningar för bedömare: (inget) → ”Ignore spelling.”",
                                           "Clarity — nivå 2: (inget) → ”Very clear”", "Depth: tillagt"]
    assert [RU.said(x) for x in lines] == ["шкала: «0–1» → «0–2»",
                                           "Clarity — заметки для проверяющих: (нет) → «Ignore spelling.»",
                                           "Clarity — уровень 2: (нет) → «Very clear»", "Depth: критерий добавлен"]
    c = f.course(conn)
    e = _refused(ConflictError, versions.rollback, conn, c["rubric_id"], latest=c["rubric"].version, actor=ADMIN)
    assert str(e) == f"Version {c['rubric'].version} is the newest already: there is nothing to roll back."
    assert SV.said(e) == f"Version {c['rubric'].version} är redan den senaste: det finns inget att återgå från."


def test_data_cares_and_the_prompt_files_refusals(conn, db_path, tmp_path):
    e = _refused(ConfigError, data_care.set_retention, conn, 5, actor=f.actor())
    assert RU.said(e) == "Храните старые курсы от 30 до 3650 дней (или очистите настройку, чтобы не удалять их)."
    missing = tmp_path / "gone.db"
    e = _refused(NotFound, data_care.restore, db_path, missing, actor=f.actor(), shown_as="gone.db")
    assert (str(e), SV.said(e), RU.said(e)) == ("gone.db: no such backup file", "gone.db: säkerhetskopian finns inte",
                                                "gone.db: такого файла резервной копии нет")
    bad = tmp_path / "bad.db"
    bad.write_text("not a database")
    e = _refused(ConfigError, data_care.restore, db_path, bad, actor=f.actor(), shown_as="bad.db")
    # the reason is the database's own (db/ on SQLite, pg_restore's check on PostgreSQL), in English
    reason = ("it is not a PostgreSQL backup" if str(db_path).startswith("postgresql") else
              "it is not an SQLite database file")
    assert str(e).startswith("bad.db cannot be restored: " + reason)
    assert SV.said(e).startswith("bad.db kan inte återställas: " + reason)
    assert SV.said(e).endswith(". Ingenting ändrades.")
    e = _refused(prompts.PromptError, prompts.parse, "coach", "=== system ===\n{{x}}\n=== user ===\nhi",
                 frozenset({"x", "y"}))
    assert str(e) == "prompt 'coach' never uses ['y'], which the code passes to it"
    assert RU.said(e) == "промпт 'coach' нигде не использует ['y'], хотя код их передаёт"
    coach = prompts.Spec("coach", frozenset({"language", "evaluation", "previous", "follow_up"})).load()
    e = _refused(prompts.PromptError, coach.render, language="", evaluation="", previous="", student="Ana")
    assert str(e) == "prompt 'coach': missing ['follow_up']; unknown ['student']"
    assert SV.said(e) == "prompten 'coach': saknas: ['follow_up']; okända: ['student']"
    assert RU.said(e) == "промпт 'coach': не хватает: ['follow_up']; неизвестные: ['student']"


def test_settings_rubrics_shows_the_drafts_note_the_differences_and_a_refusal_in_swedish(app_test, conn, monkeypatch):
    """pages/_settings_rubric_builder.py: core's note on a draft and its description of a change
    are said in the reader's language; a refused draft's error too (show_error)."""
    from shown import plain
    from pages import _i18n

    monkeypatch.setattr(_i18n, "browser_language", lambda: "sv")   # the options AppTest formats after a run too
    c = f.course(conn)
    data = c["rubric"].model_dump(mode="json")
    data["criteria"][0]["guidance"] = "Ignore spelling."
    v2, _ = catalogue.save_rubric_version(conn, parse_rubric(data), actor=ADMIN)
    builder.draft(conn, c["course_id"], "an essay, 4 criteria, 1–6", actor=ADMIN)
    at = app_test("pages/settings.py")
    at.context = {"locale": "sv-SE"}
    at.run()
    assert not at.exception, at.exception
    assert any(plain(i.value).startswith("Det här är en mall, inte skriven av en språkmodell: en bedömningsmatris av "
                                         "typen uppsats med 4 kriterier på skalan 1–6") for i in at.info)
    at.selectbox(key="set_rubric").set_value(v2).run()
    assert not at.exception, at.exception
    title = c["rubric"].criteria[0].title
    assert f"- {title} — anteckningar för bedömare: (inget) → ”Ignore spelling.”" in [
        plain(m.value) for m in at.markdown]
    at.text_input(key="rb_description").set_value("reflection, 3 criteria, 0-3")
    at.text_area(key="rb_examples").set_value("Score: 2\nOnly one example.")
    next(b for b in at.button if b.label == "Gör ett utkast till bedömningsmatris").click().run()
    assert [plain(e.value) for e in at.error] == [
        "Ge 5 till 20 bedömda exempel (du gav 1), eller inga alls för ett utkast utifrån enbart beskrivningen."]
