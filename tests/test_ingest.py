"""Every upload format end to end: read, map, preview, commit into a real SQLite file."""
import csv
import io
import zipfile

import docx
import pytest
from openpyxl import Workbook

from core.ingest import commit as ingest
from core.ingest.mapping import detect_mapping, parse_score_column
from core.ingest.read import document_row, read_files
from core.rubric import default_rubric, load_rubric_file
from core.rubric import RUBRIC_DIR
from db import courses, submissions
from core.accounts.access import Actor

TEXT_A = "Temperature changes how random the next token is, so I use a low value for policy emails."
TEXT_B = "Prompting is giving context: role, audience, format. I tried it on meeting notes."


def csv_bytes(rows, encoding="utf-8", delimiter=","):
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter).writerows(rows)
    return buf.getvalue().encode(encoding)


def xlsx_bytes(rows):
    wb = Workbook()
    ws = wb.active
    for r in rows:
        ws.append(r)
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def docx_bytes(*paragraphs):
    d = docx.Document()
    for p in paragraphs:
        d.add_paragraph(p)
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


def zip_bytes(members):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return out.getvalue()


HEADER = ["student_id", "name", "text", "clarity_rater1", "clarity_rater2", "section"]
ROWS = [HEADER, ["s1", "Ada Lovelace", TEXT_A, "2", "3", "A"], ["s2", "Grace Hopper", TEXT_B, "1", "", "B"]]


def _import(conn, files, course="Course", assignment="Week 1", mode="all_or_nothing", **kw):
    return ingest.import_files(conn, files, ingest.Target(course, assignment, **kw), mode=mode, actor=Actor("test", role="admin"))


def _texts(conn):
    return sorted(r["text"] for r in conn.query("SELECT text FROM submissions"))


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "cp1252"])
def test_csv_in_each_supported_encoding(conn, encoding):
    rows = [HEADER, ["s1", "Zoë Ørsted", "Café ‘quotes’ – naïve résumé. " + TEXT_A, "2", "3", "A"]]
    result = _import(conn, [("w1.csv", csv_bytes(rows, encoding))])
    assert result.imported == 1 and not result.rejected
    assert _texts(conn) == ["Café ‘quotes’ – naïve résumé. " + TEXT_A]
    assert conn.execute("SELECT name FROM students").fetchone()[0] == "Zoë Ørsted"


def test_csv_with_semicolons_and_several_raters(conn):
    result = _import(conn, [("w1.csv", csv_bytes(ROWS, delimiter=";"))])
    assert result.imported == 2
    sub = conn.execute("SELECT s.id FROM submissions s JOIN students st ON st.id = s.student_id "
                     "WHERE st.external_id = 's1'").fetchone()[0]
    assert submissions.reference_scores(conn, sub) == {"rater1": {"clarity": 2}, "rater2": {"clarity": 3}}
    attrs = {r["external_id"]: r["attributes"] for r in courses.list_students(conn, result.course_id)}
    assert attrs == {"s1": {"section": "A"}, "s2": {"section": "B"}}


def test_xlsx_reads_formula_cells_as_text_and_never_evaluates(conn):
    rows = [HEADER, ["s1", "Ada", TEXT_A, 2, 3, "A"], ["s2", "Grace", "=1+1", 1, None, "B"]]
    result = _import(conn, [("w1.xlsx", xlsx_bytes(rows))])
    assert result.imported == 2
    assert "=1+1" in _texts(conn)  # the formula text itself, not 2
    scores = [r[0] for r in conn.execute("SELECT score FROM reference_scores ORDER BY id")]
    assert scores == [2, 3, 1]


def test_docx_one_submission_per_file_named_by_file_name_or_header(conn):
    files = [("s7_Ada_Lovelace.docx", docx_bytes(TEXT_A, "Second paragraph.")),
             ("whatever.docx", docx_bytes("Student ID: s8", "Name: Grace Hopper", "", TEXT_B))]
    result = _import(conn, files)
    assert result.imported == 2
    people = {r["external_id"]: r["name"] for r in courses.list_students(conn, result.course_id)}
    assert people == {"s7": "Ada Lovelace", "s8": "Grace Hopper"}
    assert _texts(conn) == sorted([TEXT_A + "\nSecond paragraph.", TEXT_B])


def test_txt_file_with_header_lines_and_week():
    row = document_row("notes.txt", "Student ID: s9\nName: Alan Turing\nWeek: 2\n\nMy reflection.\nLine two.")
    assert row.values == {"student_id": "s9", "name": "Alan Turing", "email": "", "week": "2",
                          "text": "My reflection.\nLine two."}
    assert document_row("s10.txt", "Only text.").values["student_id"] == "s10"


def test_txt_import_goes_to_the_week_in_its_header(conn):
    files = [("a.txt", "Student ID: s1\nWeek: 2\n\n".encode() + TEXT_A.encode("cp1252")),
             ("s2_Bo.txt", TEXT_B.encode("utf-8-sig"))]
    result = _import(conn, files)
    assert result.imported == 2
    titles = {a["title"]: a["week"] for a in courses.list_assignments(conn, result.course_id)}
    assert titles == {"Week 1": None, "Week 2": 2}


def test_zip_of_mixed_files_skips_junk(conn):
    data = zip_bytes({
        "class/week1.csv": csv_bytes(ROWS),
        "class/s3_Alan_Turing.docx": docx_bytes("I reflected on bias in hiring tools and what to check."),
        "class/s4.txt": b"Short text reflection about AI at work.",
        "__MACOSX/class/._week1.csv": b"\x00\x05junk",
        "class/.DS_Store": b"\x00\x00junk",
    })
    preview = ingest.build_preview(conn, [("upload.zip", data)], ingest.Target("Course", "Week 1"), actor=Actor("test", role="admin"))
    assert preview.ok == 4 and not preview.rejected
    assert sorted(preview.skipped_members) == ["__MACOSX/class/._week1.csv", "class/.DS_Store"]
    result = ingest.commit(conn, preview, actor=Actor("test", role="admin"))
    assert result.imported == 4
    sources = {r[0] for r in conn.execute("SELECT source_file FROM submissions")}
    assert sources == {"upload.zip/class/week1.csv", "upload.zip/class/s3_Alan_Turing.docx", "upload.zip/class/s4.txt"}


def test_week_column_routes_rows_to_existing_and_new_assignments(conn):
    rid = courses.save_rubric(conn, default_rubric())
    cid = courses.ensure_course(conn, "Course")
    courses.ensure_assignment(conn, cid, "Prompting", rubric_id=rid, week=2)
    rows = [["student_id", "text", "week"], ["s1", TEXT_A, "2"], ["s1", TEXT_B, "Week 3"], ["s2", TEXT_B, ""]]
    result = _import(conn, [("all.csv", csv_bytes(rows))], assignment="Week 1")
    assert result.imported == 3
    got = dict(conn.execute("SELECT a.title, COUNT(*) FROM submissions s JOIN assignments a ON a.id = s.assignment_id "
                          "GROUP BY a.title").fetchall())
    assert got == {"Prompting": 1, "Week 3": 1, "Week 1": 1}


def test_without_a_target_a_row_without_week_is_rejected(conn):
    rows = [["student_id", "text", "week"], ["s1", TEXT_A, "1"], ["s2", TEXT_B, ""]]
    preview = ingest.build_preview(conn, [("a.csv", csv_bytes(rows))], ingest.Target("Course", None), actor=Actor("test", role="admin"))
    assert preview.ok == 1
    assert [(p.row, p.field) for p in preview.rejected] == [(3, "week")]


def test_half_points_are_allowed_for_averaged_raters_on_a_1_to_5_rubric(conn):
    ellipse = load_rubric_file(RUBRIC_DIR / "ellipse.yaml")
    rows = [["text_id", "full_text", "Cohesion", "Syntax", "Vocabulary", "Phraseology", "Grammar", "Conventions",
             "Overall", "gender"],
            ["t1", TEXT_A, "3.5", "3", "4", "2.5", "3", "3", "3.5", "F"]]
    result = _import(conn, [("ellipse.csv", csv_bytes(rows))], rubric=ellipse)
    assert result.imported == 1
    got = dict(conn.execute("SELECT criterion, score FROM reference_scores WHERE rater = 'expert'").fetchall())
    assert got == {"cohesion": 3.5, "syntax": 3, "vocabulary": 4, "phraseology": 2.5, "grammar": 3,
                   "conventions": 3}
    assert courses.get_rubric(conn, courses.list_assignments(conn, result.course_id)[0]["rubric_id"]).scale_max == 5


def test_mapping_detection_and_score_column_names():
    r = default_rubric()
    m = detect_mapping(["E-mail", "Student Name", "Response", "Concept Understanding", "clarity_score_teacher",
                        "ELL", "Notes"], r)
    assert (m.email, m.name, m.text, m.student_id) == ("E-mail", "Student Name", "Response", None)
    assert [(s.criterion, s.rater) for s in m.scores] == [("concept_understanding", "expert"), ("clarity", "teacher")]
    assert m.attributes == ["ELL"]
    assert parse_score_column("Notes", r) is None


def test_student_identified_by_email_when_there_is_no_id_column(conn):
    rows = [["email", "text"], ["Ada@Example.edu", TEXT_A], ["ada@example.edu", TEXT_B]]
    result = _import(conn, [("a.csv", csv_bytes(rows))])
    assert result.imported == 2
    assert [r["external_id"] for r in courses.list_students(conn, result.course_id)] == ["ada@example.edu"]


def test_preview_writes_nothing_and_lists_rows_as_plain_data(conn):
    before = submissions.table_counts(conn)
    preview = ingest.build_preview(conn, [("a.csv", csv_bytes(ROWS))], ingest.Target("New course", "Week 1"), actor=Actor("test", role="admin"))
    assert submissions.table_counts(conn) == before
    assert preview.new_course and preview.new_assignments == {"Week 1": None}
    table = preview.rows_table()
    assert table[0]["student_id"] == "s1" and table[0]["clarity (rater1)"] == 2 and table[0]["section"] == "A"


def test_read_files_counts_rows_from_every_file():
    table = read_files([("a.csv", csv_bytes(ROWS)), ("b.xlsx", xlsx_bytes(ROWS))])
    assert [(r.source, r.row) for r in table.rows] == [("a.csv", 2), ("a.csv", 3), ("b.xlsx", 2), ("b.xlsx", 3)]
