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
from lesson_helpers import add_lesson

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
