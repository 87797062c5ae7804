"""Core's refusals around the upload, the language model and the runs, in Swedish and Russian:
each reads as the English it always did (the command line, logs, the tests that match it) and a
page shows it in the reader's language (Interface.said, pages/_common.show_error). The upload's
row-by-row problems (which row, which field, what to do) most of all."""
from __future__ import annotations

import io
import socket
import zipfile

import pytest

import factories as f
from core import demo
from core.errors import ConfigError, ConflictError, IngestError, LLMAuthError
from core.ingest import commit as ingest
from core.ingest import read
from core.ingest.mapping import Mapping, check_mapping
from core.language.interface import Interface
from core.llm import factory
from core.runs import reflections
from core.settings import Settings
from fake_llm import StubOpenAIServer
from shown import plain

SV, RU = Interface("sv"), Interface("ru")


def _refusal(files) -> IngestError:
    with pytest.raises(IngestError) as caught:
        read.read_files(files)
    return caught.value


def test_a_file_level_refusal_reads_english_as_before_and_translates():
    err = _refusal([("week1.csv", b"id,Text,text\ns1,a,b\n")])
    assert str(err) == "week1.csv: the column 'text' appears twice in the header row; rename one of them"
    assert SV.said(err) == "week1.csv: kolumnen 'text' förekommer två gånger i rubrikraden; byt namn på en av dem"
    assert RU.said(err) == "week1.csv: столбец 'text' дважды встречается в строке заголовков; переименуйте один из них"

    err = _refusal([("grades.xls", b"x")])
    assert str(err) == ("grades.xls: .xls files are not supported; upload CSV, XLSX, DOCX, TXT or a ZIP of them. "
                        "Save it as .xlsx.")
    assert SV.said(err).endswith("Spara filen som .xlsx.") and RU.said(err).startswith("grades.xls: файлы .xls не")

    err = _refusal([("a.csv", bytes([0x81, 0x8d]) + b"\n")])
    assert "(byte 0x81 at position 0)" in str(err)
    assert "(byte 0x81 på position 0)" in SV.said(err) and "(байт 0x81 в позиции 0)" in RU.said(err)

    err = _refusal([])
    assert SV.said(err) == "Ingen fil laddades upp; välj en CSV-, XLSX-, DOCX-, TXT- eller ZIP-fil"


def test_a_zip_members_problems_are_said_without_the_members_name():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("w1.csv", b"student_id,text\ns1,I learned about temperature.\ns2,one,two,three\n")
        zf.writestr("notes.pdf", b"%PDF")
        zf.writestr("dup.csv", b"a,A\n1,2\n")
    table = read.read_files([("class.zip", buf.getvalue())])
    by_file = {(p.source, p.row): p.message for p in table.problems}
    width = by_file[("class.zip/w1.csv", 3)]
    assert width == "has 4 values but the header has 2 columns; put text that contains commas in double quotes"
    assert SV.said(width).startswith("har 4 värden men rubrikraden har 2 kolumner;")
    assert RU.said(width).startswith("содержит 4 значения, а столбцов в строке заголовков: 2;")
    pdf = by_file[("class.zip/notes.pdf", None)]
    assert pdf == "unsupported file type .pdf; only CSV, XLSX, DOCX and TXT files are read"
    assert SV.said(pdf) == "filtypen .pdf stöds inte; bara CSV, XLSX, DOCX och TXT-filer läses"
    assert RU.said(pdf) == "тип файла .pdf не поддерживается; читаются только файлы CSV, XLSX, DOCX и TXT"
    dup = by_file[("class.zip/dup.csv", None)]   # the member's name is its row's file: not repeated
    assert dup == "the column 'A' appears twice in the header row; rename one of them"
    assert SV.said(dup) == "kolumnen 'A' förekommer två gånger i rubrikraden; byt namn på en av dem"


def test_the_upload_rows_rejections_say_which_row_which_field_and_what_to_do(conn):
    data = (b"student_id,email,text,clarity\n"
            b"s1,ada@example.edu,I learned about temperature.,7\n"
            b"s2,not-an-address,I learned about tokens.,2\n"
            b"s3,,,=A1\n")
    preview = ingest.build_preview(conn, [("week1.csv", data)], ingest.Target("Course", "Week 1"),
                                   actor=f.actor(role="admin"))
    rows = {(p.row, p.field): p.message for p in preview.rejected}
    scale = rows[(2, "clarity")]
    assert scale.startswith("7 is outside the scale; scores on the rubric '")
    assert SV.said(scale).startswith("7 ligger utanför skalan; poängen i bedömningsmatrisen '")
    assert RU.said(scale).startswith("7 — вне шкалы; баллы по рубрикатору '")
    email = rows[(3, "email")]
    assert email == "'not-an-address' is not an e-mail address; correct it or clear the cell"
    assert SV.said(email) == "'not-an-address' är ingen e-postadress; rätta den eller töm cellen"
    assert RU.said(email) == "'not-an-address' — не адрес эл. почты; исправьте его или очистите ячейку"
    assert RU.said(rows[(4, "text")]) == "текст рефлексии пуст; вставьте текст или удалите строку"
    assert SV.said(rows[(4, "clarity")]).startswith("'=A1' är en kalkylbladsformel")
    # the rejected rows' table (the command line, the page's English) reads as before
    assert {"row": 4, "field": "text", "file": "week1.csv",
            "message": "The reflection text is empty; paste the text in or delete the row"} in preview.rejected_table()


def test_mapping_problems_and_a_commit_of_an_incomplete_mapping(conn):
    problems = check_mapping(Mapping(student_id="id", text="id"), ["id", "essay"])
    assert problems == ["Column(s) id are mapped to more than one field; map each column once"]
    assert SV.said(problems[0]) == "Kolumnen id är kopplad till mer än ett fält; koppla varje kolumn bara en gång"
    assert RU.said(problems[0]) == "Столбец id сопоставлен нескольким полям; сопоставьте каждый столбец только одному"
    preview = ingest.build_preview(conn, [("w.csv", b"id,essay\ns1,Some text.\n")], ingest.Target("Course", None),
                                   Mapping(student_id="id"), actor=f.actor(role="admin"))
    with pytest.raises(IngestError) as caught:
        ingest.commit(conn, preview, actor=f.actor(role="admin"))
    assert str(caught.value) == ("The column mapping is incomplete: Choose the column that holds the reflection text "
                                 "(usually named text, reflection, response or essay); Choose the assignment these "
                                 "reflections belong to, or map a week/assignment column")
    assert SV.said(caught.value).startswith("Kopplingen av kolumner är ofullständig: Välj kolumnen som innehåller "
                                            "reflektionens text")
    assert "; Выберите задание, к которому относятся эти рефлексии" in RU.said(caught.value)


def test_a_failed_connection_test_is_said_in_the_readers_language(db_path):
    with pytest.raises(ConfigError) as caught:   # nothing configured: the factory refuses
        factory.test_connection(Settings(llm_base_url=None, llm_api_key=None), db_path)
    assert str(caught.value).startswith("No language model is configured: set FAIRMARK_LLM_BASE_URL")
    assert SV.said(caught.value).startswith("Ingen språkmodell är konfigurerad: ange FAIRMARK_LLM_BASE_URL")
    with StubOpenAIServer() as srv:   # the real SDK path; the provider's own words stay as they are
        srv.respond(401, {"error": {"message": "Incorrect API key provided."}})
        with pytest.raises(LLMAuthError) as caught:
            factory.test_connection(Settings(llm_base_url=srv.base_url, llm_api_key="sk-test"), db_path)
    assert str(caught.value) == (f"The language model at {srv.base_url} refused the API key (HTTP 401: Error code: "
                                 "401 - Incorrect API key provided.). Set a valid FAIRMARK_LLM_API_KEY in the environment or "
                                 ".streamlit/secrets.toml.")
    assert SV.said(caught.value) == (f"Språkmodellen på {srv.base_url} godtog inte API-nyckeln (HTTP 401: Error "
                                     "code: 401 - Incorrect API key provided.). Ange en giltig FAIRMARK_LLM_API_KEY i miljön eller i "
                                     ".streamlit/secrets.toml.")
    assert RU.said(caught.value).startswith(f"Языковая модель по адресу {srv.base_url} не приняла ключ API (HTTP 401: "
                                            "Error code: 401 - Incorrect API key provided.).")


def test_the_settings_page_says_a_failed_connection_test_in_swedish(app_test, monkeypatch):
    from pages import _i18n

    monkeypatch.setattr(_i18n, "browser_language", lambda: "sv")   # the options AppTest formats after the run
    with socket.socket() as s:   # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        base_url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", base_url)
    at = app_test("pages/settings.py")
    at.context = {"locale": "sv-SE"}
    at.run()
    at.button(key="llm_test_connection").click().run()
    assert not at.exception, at.exception
    shown = [plain(e.value) for e in at.error]
    assert any(e.startswith(f"Det går inte att nå språkmodellen på {base_url} (") and
               e.endswith("Kontrollera FAIRMARK_LLM_BASE_URL och att servern är igång.") for e in shown), shown


def test_a_second_run_of_a_course_and_a_concurrency_out_of_range_are_refused_in_each_language(conn):
    cid = demo.load_demo(conn, actor=f.actor(role="admin"))["course_id"]
    with pytest.raises(ConfigError) as caught:
        reflections.create(conn, course_id=cid, provider="offline", concurrency=999, actor=f.actor(role="admin"))
    assert str(caught.value) == "concurrency must be between 1 and 64"
    assert SV.said(caught.value) == "antalet samtidiga anrop måste vara mellan 1 och 64"
    assert RU.said(caught.value) == "число одновременных запросов должно быть от 1 до 64"
    run_id = reflections.create(conn, course_id=cid, provider="offline", actor=f.actor(role="admin"))
    with pytest.raises(ConflictError) as caught:
        reflections.create(conn, course_id=cid, provider="offline", actor=f.actor(role="admin"))
    english = str(caught.value)
    assert english.startswith(f"Run {run_id} of this course is ") and english.endswith(
        " item(s) left: wait for it, resume it or cancel it first.")
    assert SV.said(caught.value).startswith(f"Körning {run_id} i den här kursen ")
    assert SV.said(caught.value).endswith("arbeten kvar: vänta på den, återuppta den eller avbryt den först.")
    assert RU.said(caught.value).startswith(f"Запуск {run_id} этого курса ")


def test_the_upload_page_shows_the_rejections_and_a_refusal_in_swedish(app_test, conn):
    at = app_test("pages/upload.py")
    at.context = {"locale": "sv-SE"}
    at.session_state["upload_sources"] = [("week1.csv", b"student_id,email,text\ns1,nope,I learned a lot.\n")]
    at.run()
    assert not at.exception, at.exception
    assert [plain(e.value) for e in at.error] == ["Välj en kurs (eller skriv namnet på en ny)"]  # no course
    at.text_input(key="up_new_course").set_value("Vårkurs")
    at.text_input(key="up_new_title").set_value("Vecka 1")
    at.run()
    assert not at.exception, at.exception
    rejected = at.dataframe[-1].value
    assert "'nope' är ingen e-postadress; rätta den eller töm cellen" in rejected.to_numpy().ravel().tolist()

    at = app_test("pages/upload.py")
    at.context = {"locale": "ru-RU"}
    at.session_state["upload_sources"] = [("bad.csv", b'student_id,text\ns1,"open quote\n')]
    at.run()
    assert not at.exception, at.exception
    shown = plain(at.error[0].value)
    assert shown.startswith("bad.csv — некорректный CSV-файл около строки") and "Поищите кавычку" in shown
