"""The lesson review's refusals (core/lessons: import, the front matter, sign-off, export, runs)
read in the teacher's language on a page and as the same English on the command line; the
Stage 1 checks with values and the judges' panel notes too."""
from __future__ import annotations

import pytest

from core.accounts.access import Actor
from core.errors import ConflictError, IngestError
from core.language.interface import Interface, Message
from core.lessons import export, ingest, review, signoff
from db import lessons as lessons_db
from lesson_helpers import add_lesson, lesson_page as _page
from shown import plain

ADMIN = Actor("ana", role="admin")
SV, RU = Interface("sv"), Interface("ru")


def _refused(error, call, *args, **kwargs):
    with pytest.raises(error) as caught:
        call(*args, **kwargs)
    assert isinstance(caught.value.args[0], Message)     # a page can say it in the reader's language
    return caught.value


def test_approving_an_approved_lesson_is_refused_in_swedish_and_russian(conn, db_path):
    lid = add_lesson(conn)
    review.review_lesson(db_path, lid, None)
    signoff.approve(conn, lid, version=1, actor=ADMIN, verdict="publish")
    version = lessons_db.get(conn, lid)["version"]   # approval is a new version
    err = _refused(ConflictError, signoff.approve, conn, lid, version=version, actor=ADMIN)
    assert str(err) == "Lesson 'The water cycle' is already approved."        # the command line's English
    assert SV.said(err) == "Lektionen 'The water cycle' är redan godkänd."      # the title is the teacher's
    assert RU.said(err) == "Занятие «The water cycle» уже утверждено."


def test_a_stale_version_and_open_fixes_are_refused_with_their_values_translated(conn, db_path):
    lid = add_lesson(conn)
    err = _refused(ConflictError, signoff.approve, conn, lid, version=3, actor=ADMIN)
    assert str(err) == "Lesson 'The water cycle' changed since you opened it (version 3, now 1). Reload it and decide again."
    assert RU.said(err) == ("Занятие «The water cycle» изменилось с тех пор, как вы его открыли (версия 3, теперь 1). "
                            "Обновите страницу и решите заново.")
    err = _refused(ConflictError, signoff.approve, conn, lid, version=1, actor=ADMIN)   # not reviewed yet
    assert SV.said(err).startswith("Lektionen 'The water cycle' har ingen avslutad granskning ännu: starta")


def test_exporting_a_lesson_not_approved_is_refused_in_russian(conn, db_path):
    lid = add_lesson(conn)
    err = _refused(ConflictError, export.render, conn, lid, "md", actor=ADMIN)
    assert str(err).startswith("Lesson 'The water cycle' is not approved yet: only approved lessons are exported.")
    assert RU.said(err).startswith("Занятие «The water cycle» ещё не утверждено: экспортируются только")
    err = _refused(ConflictError, export.render, conn, lid, "pdf", actor=ADMIN)
    assert str(err) == "unknown format 'pdf'; use one of md, docx"
    assert SV.said(err) == "okänt format 'pdf'; använd ett av md, docx"


def test_an_upload_that_is_not_a_lesson_is_refused_in_the_teachers_language():
    err = _refused(IngestError, ingest.read_files, [("notes.pdf", b"%PDF")])
    assert str(err) == ("notes.pdf: .pdf files are not lessons; upload Markdown (.md), text (.txt), Word (.docx) "
                        "or a ZIP of them.")
    assert SV.said(err).startswith("notes.pdf: .pdf-filer är inte lektioner; ladda upp Markdown (.md)")
    err = _refused(IngestError, ingest.read_files, [])
    assert (str(err), RU.said(err)) == ("No lesson files were given.", "Файлы занятий не переданы.")
    err = _refused(IngestError, ingest.read_files, [("a.md", b"---\ntitle: A\n---\n"), ])
    assert RU.said(err) == "В файле a.md нет текста занятия (только YAML-заголовок или вообще ничего)."


def test_unknown_front_matter_fields_are_refused_in_the_form_their_number_asks_for():
    def refusal(front: bytes):
        return _refused(IngestError, ingest.prepare, ingest.read_files([("b.md", b"---\n" + front + b"---\nText.")]))

    one, two = refusal(b"colour: red\n"), refusal(b"colour: red\nsize: 2\n")
    assert str(two).startswith("b.md: unknown front-matter field(s) ['colour', 'size']; use title, ")
    assert SV.said(one).startswith("b.md: okänt fält i YAML-huvudet ['colour']; använd title, ")
    assert SV.said(two).startswith("b.md: okända fält i YAML-huvudet ['colour', 'size']; använd title, ")
    assert RU.said(one).startswith("b.md: неизвестное поле YAML-заголовка ['colour']; используйте title, ")
    assert RU.said(two).startswith("b.md: неизвестные поля YAML-заголовка ['colour', 'size']; используйте ")
    err = refusal(b"min_words: 500\nmax_words: 100\n")
    assert RU.said(err) == "b.md: min_words (500) больше, чем max_words (100)."


def test_two_lessons_with_one_title_are_refused_naming_both_files():
    files = ingest.read_files([("a.md", b"---\ntitle: Rain\n---\nIt rains."), ("b.md", b"---\ntitle: rain\n---\nIt pours.")])
    err = _refused(IngestError, ingest.prepare, files)
    assert str(err) == ("b.md and a.md are both titled 'rain'; give each lesson its own title (front matter "
                        "`title:`).")
    assert SV.said(err) == "b.md och a.md har båda titeln 'rain'; ge varje lektion en egen titel (`title:` i YAML-huvudet)."


def test_open_fixes_and_a_fix_that_no_longer_applies_are_refused_in_russian(conn, db_path):
    from test_lessons_signoff import reviewed_with_two_rounds

    lid, (first, second) = reviewed_with_two_rounds(conn, db_path)
    err = _refused(ConflictError, signoff.approve, conn, lid, version=1, actor=ADMIN, verdict="revise")
    section = first["section"]
    assert str(err) == f"Decide every proposed fix first (accept or reject): round 1 in '{section}', round 2 in '{section}'."
    assert RU.said(err) == ("Сначала примите решение по каждому предложенному исправлению (принять или отклонить): "
                            f"раунд 1 в разделе «{section}», раунд 2 в разделе «{section}».")
    err = _refused(ConflictError, signoff.accept_fix, conn, lid, second["id"], version=1, actor=ADMIN)
    assert SV.said(err) == (f"Ändring {second['id']} passar inte längre in i '{section}': den skriver om texten från "
                            "ändringen i runda 1: godta den först, eller avvisa den här.")


def test_a_lesson_run_with_a_bad_concurrency_is_refused_in_swedish(conn):
    from core.errors import ConfigError
    from core.lessons import runs

    lid = add_lesson(conn)
    err = _refused(ConfigError, runs.create, conn, course_id=lessons_db.get(conn, lid)["course_id"], provider="offline",
                   concurrency=40, actor=ADMIN)
    assert (str(err), SV.said(err)) == ("concurrency must be between 1 and 16",
                                        "antalet samtidiga granskningar måste vara mellan 1 och 16")


# --- what core writes into a review, shown in the teacher's language ------------------------------

def _checks(at) -> dict:
    table = next(d.value for d in at.dataframe if "проверка" in d.value.columns)
    return {row["проверка"]: row["подробности"] for row in table.to_dict("records")}


def test_the_stage1_checks_show_their_values_in_russian_and_stay_english_in_the_review(app_test, conn, db_path):
    lid = add_lesson(conn)
    review.review_lesson(db_path, lid, None)                  # the offline baseline: Stage 1 only
    at = _page(app_test, "pages/lesson_review.py", "ru-RU", lessons_db.get(conn, lid)["course_id"], lid)
    checks = _checks(at)
    assert checks["Объём 40–4000 слов"] == "140 слов"                                  # Russian plural of 140
    assert checks["Уровень читаемости в пределах ±1 от 5"] == "уровень по Флешу — Кинкейду 4.5 при целевом 5"
    assert checks["Введение, основная часть и заключение, с указателями переходов"] == ("4 раздела, заключение, "
                                                                                        "6 указателей перехода")
    assert checks["Все учебные цели раскрыты"] == "раскрыто 2 из 2"
    record = lessons_db.review(conn, lessons_db.get(conn, lid)["current_review_id"])["record"]
    assert [(c["label"], c["detail"]) for c in record["heuristics"]][:2] == [
        ("Length 40-4000 words", "140 words"), ("Reading grade within ±1 of 5", "Flesch-Kincaid grade 4.5 for a target of 5")]


def test_failed_checks_name_the_teachers_objectives_in_a_russian_sentence(app_test, conn, db_path):
    text = (b"---\ntitle: Wind\ntarget_grade: 5\nobjectives:\n  - Measure wind speed with an anemometer\n"
            b"min_words: 5\n---\n# Wind\nWind is moving air. The sun warms the land.")
    lid = add_lesson(conn, text)
    review.review_lesson(db_path, lid, None)
    at = _page(app_test, "pages/lesson_review.py", "ru-RU", lessons_db.get(conn, lid)["course_id"], lid)
    checks = _checks(at)
    assert checks["Все учебные цели раскрыты"] == ("раскрыто 0 из 1; не хватает: «Measure wind speed with an "
                                                    "anemometer» (нет: measure, speed, anemometer)")
    assert checks["Введение, основная часть и заключение, с указателями переходов"].startswith(
        "только 1 раздел: для введения, основной части и заключения нужно три; нет заключения")
    captions = [plain(c.value) for c in at.caption]   # the clear failure among the tier's reasons, its detail translated
    assert ("Этап 1: Все учебные цели раскрыты: раскрыто 0 из 1; не хватает: «Measure wind speed with an "
            "anemometer» (нет: measure, speed, anemometer)") in captions, captions


def test_a_review_stored_before_its_forms_were_kept_shows_its_english():
    from core.lessons import view

    record = {"heuristics": [{"label": "Length 40-4000 words", "detail": "140 words"}], "notes": ["a note"]}
    said = view._said(record, {"error": None})
    assert said["checks"] == record["heuristics"] and said["notes"] == ["a note"] and said["error"] is None


def test_the_judges_panel_note_reads_in_swedish_on_the_page(app_test, conn, db_path):
    from fake_llm import ScriptedLLM
    from lesson_helpers import ONE_JUDGE, verdict

    lid = add_lesson(conn)
    fake = ScriptedLLM(models=ONE_JUDGE)                       # every seat the same model: one family judges
    fake.script("lesson_judge", verdict(0.95, 0.95, 0.95, 0.95))
    review.review_lesson(db_path, lid, fake)
    record = lessons_db.review(conn, lessons_db.get(conn, lid)["current_review_id"])["record"]
    assert any(n.startswith("Every judge is of one model family (deepseek): no model of another family")
               for n in record["notes"]), record["notes"]     # stored English
    at = _page(app_test, "pages/lesson_review.py", "sv-SE", lessons_db.get(conn, lid)["course_id"], lid)
    captions = [plain(c.value) for c in at.caption]
    assert any(c.startswith("Alla granskare tillhör en och samma modellfamilj (deepseek): ingen modell") for c in captions), \
        captions
    assert not any("Every judge is of one model family" in c for c in captions)


def test_the_call_logs_columns_are_named_in_swedish(app_test, conn, db_path):
    lid = add_lesson(conn)
    at = _page(app_test, "pages/lessons.py", "sv-SE", lessons_db.get(conn, lid)["course_id"])
    calls = next(d.value for d in at.dataframe if "anrop" in d.value.columns)
    assert list(calls.columns) == ["lektion", "anrop", "cacheträffar", "tokens in", "tokens ut", "kostnad ($)"]
    assert list(calls["lektion"]) == ["The water cycle"]      # the title as the teacher gave it


def test_a_failed_review_says_why_in_russian_with_the_models_error_as_it_is(app_test, conn, db_path):
    from core.errors import LLMInvalidOutput
    from fake_llm import ScriptedLLM
    from lesson_helpers import ONE_JUDGE

    lid = add_lesson(conn)
    fake = ScriptedLLM(models=ONE_JUDGE).script("lesson_judge", LLMInvalidOutput("not JSON"))
    out = review.review_lesson(db_path, lid, fake)
    assert out["status"] == "failed" and out["error"] == "The lesson judge gave no verdict: deepseek-chat: not JSON"
    at = _page(app_test, "pages/lesson_review.py", "ru-RU", lessons_db.get(conn, lid)["course_id"], lid)
    shown = " ".join(plain(e.value) for e in at.error)
    assert "Проверяющий не вынес вердикт по занятию: deepseek-chat: not JSON" in shown, shown
