"""Every kind of bad upload: a specific message (row, field, fix) and the database unchanged."""
import csv
import io
import re
import zipfile

import docx
import pytest
from openpyxl import Workbook

from core.ingest import commit as ingest
from core.ingest import read as ingest_read
from core.errors import IngestError
from core.ingest.read import MAX_FILE_BYTES
from db import submissions
from core.accounts.access import Actor

TEXT = "Temperature changes how random the next token is, so I keep it low for policy emails."


def csv_bytes(rows, encoding="utf-8"):
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    return buf.getvalue().encode(encoding)


def xlsx_bytes(rows):
    wb = Workbook()
    for r in rows:
        wb.active.append(r)
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def zip_bytes(members, compression=zipfile.ZIP_DEFLATED):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return out.getvalue()


@pytest.fixture
def unchanged(conn):
    """Seed a course with one reflection, then assert the whole database is the same after the test."""
    ingest.import_files(conn, [("seed.csv", csv_bytes([["student_id", "text"], ["s0", "An earlier reflection."]]))],
                        ingest.Target("Course", "Week 1"), actor=Actor("test", role="admin"))
    before = submissions.table_counts(conn)
    yield conn
    assert submissions.table_counts(conn) == before


def _preview(conn, name, data, assignment="Week 1"):
    return ingest.build_preview(conn, [(name, data)], ingest.Target("Course", assignment), actor=Actor("test", role="admin"))


def _refused(conn, name, data):
    """all_or_nothing: rejected rows mean nothing is written; returns the rejections."""
    preview = _preview(conn, name, data)
    result = ingest.commit(conn, preview, mode="all_or_nothing", actor=Actor("test", role="admin"))
    assert result.refused and result.imported == 0
    return result.rejected


def test_malformed_csv_unclosed_quote(unchanged):
    data = b'student_id,text\ns1,"This quote never closes\ns2,fine\n'
    with pytest.raises(IngestError, match=r"not a well-formed CSV file near line \d+.*quote"):
        _preview(unchanged, "bad.csv", data)


def test_csv_row_with_too_many_values_is_rejected_with_its_row(unchanged):
    data = b"student_id,text\ns1,ok text\ns2,an unquoted, comma splits this,row\n"
    rejected = _refused(unchanged, "bad.csv", data)
    assert rejected == [{"row": 3, "field": "row", "file": "bad.csv",
                         "message": "Has 4 values but the header has 2 columns; put text that contains commas in "
                                    "double quotes"}]


def test_wrong_encoding_is_refused_with_a_clear_message(unchanged):
    data = "student_id,text\ns1,caf\u00e9\n".encode("utf-8")[:-3] + b"\x81\x8d\n"  # invalid in UTF-8 and cp1252
    with pytest.raises(IngestError, match="not UTF-8, UTF-8 with BOM or Windows-1252.*save it as 'CSV UTF-8'"):
        _preview(unchanged, "bad.csv", data)


def test_binary_file_posing_as_text_is_refused(unchanged):
    with pytest.raises(IngestError, match="NUL bytes"):
        _preview(unchanged, "s1.txt", b"PK\x03\x04\x00\x00binary")


def test_missing_text_column_stops_the_import(unchanged):
    preview = _preview(unchanged, "a.csv", csv_bytes([["student_id", "notes"], ["s1", "hello"]]))
    assert any("reflection text" in p for p in preview.mapping_problems)
    with pytest.raises(IngestError, match="column mapping is incomplete"):
        ingest.commit(unchanged, preview, actor=Actor("test", role="admin"))


def test_missing_student_column_stops_the_import(unchanged):
    preview = _preview(unchanged, "a.csv", csv_bytes([["text"], [TEXT]]))
    assert preview.mapping_problems == ["Choose a column that says who wrote each reflection: a student id, "
                                        "e-mail or name"]


def test_empty_text_and_empty_student_are_rejected_by_row_and_field(unchanged):
    rows = [["student_id", "text"], ["s1", TEXT], ["s2", "   "], ["", TEXT]]
    rejected = _refused(unchanged, "a.csv", csv_bytes(rows))
    assert [(r["row"], r["field"]) for r in rejected] == [(3, "text"), (4, "student_id")]
    assert "paste the text in or delete the row" in rejected[0]["message"]
    assert "fill in who wrote the reflection" in rejected[1]["message"]


def test_skip_rejected_imports_only_the_good_rows(conn):
    rows = [["student_id", "text"], ["s1", TEXT], ["s2", ""]]
    result = ingest.import_files(conn, [("a.csv", csv_bytes(rows))], ingest.Target("Course", "Week 1"),
                                 mode="skip_rejected", actor=Actor("test", role="admin"))
    assert result.imported == 1 and [r["row"] for r in result.rejected] == [3]
    assert submissions.table_counts(conn)["submissions"] == 1


def test_oversized_file_is_refused(unchanged):
    with pytest.raises(IngestError, match="the limit is 20 MB per file"):
        _preview(unchanged, "big.csv", b"student_id,text\n" + b"x" * MAX_FILE_BYTES)


def test_text_over_the_length_limit_is_rejected(unchanged):
    rejected = _refused(unchanged, "a.csv", csv_bytes([["student_id", "text"], ["s1", "word " * 5000]]))
    assert rejected[0]["field"] == "text" and "the limit is 20,000" in rejected[0]["message"]


def test_duplicate_rows_in_the_file_and_in_the_database_are_counted(unchanged):
    rows = [["student_id", "text"], ["s0", "An earlier reflection."], ["s1", TEXT], ["s1", TEXT]]
    preview = _preview(unchanged, "dups.csv", csv_bytes(rows))
    assert preview.duplicates == 2 and preview.ok == 1
    assert [d["row"] for d in preview.duplicate_rows] == [2, 4]


def test_only_duplicates_imports_nothing_and_reports_them(unchanged):
    result = ingest.import_files(unchanged, [("again.csv", csv_bytes([["student_id", "text"],
                                                                     ["s0", "An earlier reflection."]]))],
                                 ingest.Target("Course", "Week 1"), actor=Actor("test", role="admin"))
    assert (result.imported, result.duplicates, result.rejected) == (0, 1, [])


def test_formula_in_a_score_column_is_rejected_not_evaluated(unchanged):
    data = xlsx_bytes([["student_id", "text", "clarity"], ["s1", TEXT, "=AVERAGE(2,3)"]])
    rejected = _refused(unchanged, "a.xlsx", data)
    assert rejected[0]["field"] == "clarity"
    assert "'=AVERAGE(2,3)' is a spreadsheet formula, which is never evaluated" in rejected[0]["message"]


@pytest.mark.parametrize("cell,message", [
    ("abc", "'abc' is not a number; scores on the rubric 'Reflection rubric (seed 000)' run from 0 to 3"),
    ("2.3", "2.3 is not a whole or half point"),
    ("4", "4 is outside the scale"),
    ("-1", "-1 is outside the scale"),
])
def test_bad_reference_scores_name_the_fix(unchanged, cell, message):
    rejected = _refused(unchanged, "a.csv", csv_bytes([["student_id", "text", "clarity_rater1"], ["s1", TEXT, cell]]))
    assert rejected[0]["row"] == 2 and rejected[0]["field"] == "clarity_rater1"
    assert message in rejected[0]["message"]


def test_invalid_email_is_rejected(unchanged):
    rejected = _refused(unchanged, "a.csv", csv_bytes([["student_id", "email", "text"], ["s1", "not-an-email", TEXT]]))
    assert rejected[0]["field"] == "email" and "is not an e-mail address" in rejected[0]["message"]


@pytest.mark.parametrize("name,data,message", [
    ("empty.csv", b"", "is empty"),
    ("dup.csv", b"text,Text\na,b\n", "appears twice in the header"),
    ("old.xls", b"\xd0\xcf\x11\xe0", "Save it as .xlsx"),
    ("fake.xlsx", b"not a workbook", "could not be opened as an Excel workbook"),
    ("fake.docx", b"not a document", "could not be opened as a Word document"),
    ("fake.zip", b"not a zip", "is not a valid ZIP file"),
])
def test_unreadable_files_are_refused(unchanged, name, data, message):
    with pytest.raises(IngestError, match=message):
        _preview(unchanged, name, data)


def test_zip_with_junk_and_a_broken_member_reports_the_member_by_name(unchanged):
    data = zip_bytes({"w1.csv": csv_bytes([["student_id", "text"], ["s1", TEXT]]),
                      "__MACOSX/._w1.csv": b"\x00junk", ".DS_Store": b"\x00\x01",
                      "s2_Bo.docx": b"corrupt", "inner.zip": zip_bytes({"x.txt": b"hi"}), "photo.png": b"\x89PNG"})
    preview = _preview(unchanged, "class.zip", data)
    assert preview.ok == 1 and sorted(preview.skipped_members) == [".DS_Store", "__MACOSX/._w1.csv"]
    problems = {p.source: p.message for p in preview.rejected}
    assert set(problems) == {"class.zip/s2_Bo.docx", "class.zip/inner.zip", "class.zip/photo.png"}
    assert "could not be opened as a Word document" in problems["class.zip/s2_Bo.docx"]
    # Issue 11 item 13: an exception class name ("BadZipFile", "PackageNotFoundError") told a teacher nothing.
    assert not [m for m in problems.values() if re.search(r"[a-z][A-Z][a-z]+(Error|File)\b", m)], problems
    assert "ZIP inside a ZIP" in problems["class.zip/inner.zip"]
    result = ingest.commit(unchanged, preview, mode="all_or_nothing", actor=Actor("test", role="admin"))
    assert result.refused and len(result.rejected) == 3


def test_zip_bomb_is_refused(unchanged):
    data = zip_bytes({"bomb.txt": b"0" * (5 * 1024 * 1024)})
    with pytest.raises(IngestError, match="zip bomb"):
        _preview(unchanged, "bomb.zip", data)


def test_zip_with_too_many_members_is_refused(unchanged, monkeypatch):
    monkeypatch.setattr(ingest_read, "MAX_ZIP_MEMBERS", 3)
    data = zip_bytes({f"s{i}.txt": TEXT.encode() for i in range(4)})
    with pytest.raises(IngestError, match="holds 4 entries; the limit is 3"):
        _preview(unchanged, "many.zip", data)


def test_zip_with_nothing_usable_is_refused(unchanged):
    with pytest.raises(IngestError, match="contains no CSV, XLSX, DOCX or TXT files"):
        _preview(unchanged, "junk.zip", zip_bytes({"__MACOSX/._a": b"x", ".DS_Store": b"y"}))


def test_unknown_mode_is_refused(unchanged):
    preview = _preview(unchanged, "a.csv", csv_bytes([["student_id", "text"], ["s1", TEXT]]))
    with pytest.raises(IngestError, match="Unknown import mode"):
        ingest.commit(unchanged, preview, mode="some", actor=Actor("test", role="admin"))


def test_a_failure_inside_the_commit_leaves_nothing_behind(unchanged, monkeypatch):
    preview = _preview(unchanged, "a.csv", csv_bytes([["student_id", "text"], ["s1", TEXT], ["s2", TEXT + "!"]]))
    calls = {"n": 0}
    real = submissions.audit

    def failing_audit(*a, **kw):
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("disk full")
        return real(*a, **kw)

    monkeypatch.setattr(submissions, "audit", failing_audit)
    with pytest.raises(RuntimeError):
        ingest.commit(unchanged, preview, actor=Actor("test", role="admin"))


def test_docx_without_text_is_rejected(unchanged):
    d = docx.Document()
    out = io.BytesIO()
    d.save(out)
    rejected = _refused(unchanged, "s5_Empty.docx", out.getvalue())
    assert rejected[0]["field"] == "text"
