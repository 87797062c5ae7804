"""Lesson review, Stage 1: specifications and front matter, sections, the free heuristics, and
lesson files in (Markdown, TXT, DOCX, ZIP) with one transaction per upload."""
import io
import zipfile

import docx
import pytest

from core.errors import IngestError
from core.lessons import heuristics, ingest, sections
from core.lessons.spec import LessonSpec, split_front_matter
from db import lessons as lessons_db
from lesson_helpers import LESSON, add_lesson
from core.accounts.access import Actor
from stored import column_names

SPEC = LessonSpec(title="The water cycle", target_grade=5, min_words=40,
                  objectives=["Explain how the sun's heat makes water evaporate",
                              "Describe how water vapour condenses into clouds"])


def body() -> str:
    return split_front_matter(LESSON.decode())[1]


def by_name(results):
    return {r["name"]: r for r in results}


def test_front_matter_fills_the_spec_and_the_form_fills_what_it_leaves_out():
    meta, text = split_front_matter(LESSON.decode())
    spec = LessonSpec.build(meta, {"target_grade": 9, "archetype": "procedure", "audience": "ignored"}, file="w.md")
    assert spec.target_grade == 5 and spec.archetype == "procedure" and spec.audience == "grade 5"
    assert len(spec.objectives) == 2 and "evaporates" in spec.sources and text.startswith("# The water cycle")


@pytest.mark.parametrize("front, field", [("target_grade: twelve", "target_grade"), ("colour: red", "colour"),
                                          ("archetype: essay", "archetype")])
def test_a_bad_front_matter_field_names_the_file_and_the_field(front, field):
    meta, _ = split_front_matter(f"---\n{front}\n---\nText")
    with pytest.raises(IngestError, match=rf"x\.md.*{field}"):
        LessonSpec.build({**meta, "title": "T"}, file="x.md")


def test_broken_yaml_is_refused_with_where_to_look():
    with pytest.raises(IngestError, match="not valid YAML"):
        split_front_matter("---\ntitle: [unclosed\n---\nText", file="x.md")


def test_sections_keep_every_other_section_byte_for_byte_when_one_is_replaced():
    text = body()
    parts = sections.split(text)
    assert [s.name for s in parts] == ["The water cycle", "Evaporation", "Condensation", "Summary"]
    new = sections.replace_body(text, parts[1], "The sun heats the water.")
    after = sections.split(new)
    assert after[1].body == "The sun heats the water."
    assert [s.body for i, s in enumerate(after) if i != 1] == [s.body for i, s in enumerate(parts) if i != 1]
    assert new.replace("The sun heats the water.", parts[1].body) == text


def test_a_plain_text_lesson_is_split_into_paragraphs():
    parts = sections.split("Intro here.\n\nBody here. More.\n\nIn summary, done.")
    assert [s.body for s in parts] == ["Intro here.", "Body here. More.", "In summary, done."]


def test_a_clean_lesson_passes_every_check():
    results = heuristics.run(body(), SPEC)
    assert all(r["passed"] for r in results), [r for r in results if not r["passed"]]
    assert not heuristics.clear_failure(results) and heuristics.score(results) == 1.0


def test_length_far_below_the_minimum_is_a_clear_failure_and_slightly_below_a_warning():
    short = LessonSpec(title="T", min_words=200)
    r = by_name(heuristics.run("# T\nOne two three.\n", short))["length"]
    assert not r["passed"] and r["severity"] == "fail" and "too short" in r["detail"]
    r = by_name(heuristics.run(body(), LessonSpec(title="T", min_words=150)))["length"]
    assert not r["passed"] and r["severity"] == "warn"


def test_reading_grade_must_be_within_one_grade_and_far_too_hard_is_a_clear_failure():
    assert by_name(heuristics.run(body(), SPEC))["reading"]["passed"]
    r = by_name(heuristics.run(body(), SPEC.model_copy(update={"target_grade": 9})))["reading"]
    assert not r["passed"] and r["severity"] == "warn" and "easier" in r["detail"]
    jargon = ("Systematic meteorological observation constitutes the empirical foundation of contemporary numerical "
              "prediction methodologies. ") * 6
    r = by_name(heuristics.run(jargon, SPEC))["reading"]
    assert not r["passed"] and r["severity"] == "fail" and r["grade"] > 9


def test_reading_grade_is_skipped_for_text_it_does_not_fit():
    swedish = ("Vattnet i sjöar och hav värms av solen varje dag. När vattnet blir varmt blir en del av det ånga "
               "som vi inte kan se. Ångan stiger upp mot himlen och kyls av den kalla luften där uppe. ") * 3
    r = by_name(heuristics.run(swedish, SPEC))
    assert r["reading"]["severity"] == "info" and r["reading"]["passed"] and "English" in r["reading"]["detail"]
    assert r["drift"]["severity"] == "info"
    r = by_name(heuristics.run(body(), SPEC.model_copy(update={"language": "sv"})))
    assert r["reading"]["severity"] == "info"


def test_a_reading_grade_that_drifts_upward_is_found():
    easy = "The sun is hot. It warms the sea. The water goes up. It makes a cloud. Rain falls down. We get wet. "
    hard = ("Consequently, standardised instrumentation and calibration protocols are indispensable prerequisites "
            "for the comparability of heterogeneous meteorological observations. ") * 2
    r = by_name(heuristics.run(easy + hard, SPEC))["drift"]
    assert not r["passed"] and r["last"] - r["first"] > heuristics.DRIFT_GRADES
    assert by_name(heuristics.run(body(), SPEC))["drift"]["passed"]


def test_structure_needs_a_conclusion_and_signposting():
    r = by_name(heuristics.run("# A\nText here.\n\n## B\nMore text here.\n\n## C\nAnd more.", SPEC))["structure"]
    assert not r["passed"] and "no conclusion" in r["detail"] and "signposting" in r["detail"]


def test_a_missing_objective_is_named_with_its_absent_terms():
    spec = SPEC.model_copy(update={"objectives": SPEC.objectives + ["Measure rainfall with a rain gauge"]})
    r = by_name(heuristics.run(body(), spec))["objectives"]
    assert not r["passed"] and r["severity"] == "warn"
    assert r["missing"] == [{"objective": "Measure rainfall with a rain gauge",
                             "absent": ["measure", "rainfall", "gauge"]}]  # "rain" is in the text
    none = by_name(heuristics.run("# Wind\nWind blows. In summary, wind.", spec))["objectives"]
    assert none["severity"] == "fail"


def test_the_topic_word_alone_does_not_cover_an_objective():
    assert heuristics.objective_terms("Measure wind speed with an anemometer", "Wind") == \
        ["measure", "speed", "anemometer"]


def test_import_reads_markdown_docx_and_zip_with_titles_and_front_matter(conn):
    d = docx.Document()
    d.add_heading("Clouds", level=1)
    d.add_paragraph("Clouds are made of tiny drops.")
    d.add_paragraph("Cumulus", style="List Bullet")
    buf = io.BytesIO()
    d.save(buf)
    z = io.BytesIO()
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("lessons/rain.txt", "Rain falls from clouds.\n\nIt is wet.")
        zf.writestr("__MACOSX/._rain.txt", "junk")
    out = ingest.import_lessons(conn, [("water.md", LESSON), ("clouds.docx", buf.getvalue()), ("more.zip", z.getvalue())],
                                course_name="Science", defaults={"target_grade": 4}, actor=Actor("t", role="admin"))
    assert out["imported"] == 3
    lessons = {lesson["title"]: lesson for lesson in lessons_db.queue(conn, out["course_id"])}
    assert set(lessons) == {"The water cycle", "Clouds", "Rain"}
    assert lessons["Clouds"]["text"].startswith("# Clouds") and "- Cumulus" in lessons["Clouds"]["text"]
    assert lessons["The water cycle"]["spec"]["target_grade"] == 5 and lessons["Rain"]["spec"]["target_grade"] == 4
    assert "evaporates" in lessons["The water cycle"]["sources"] and lessons["Rain"]["source_file"] == "more.zip/lessons/rain.txt"


def _zip(members: dict, compression=zipfile.ZIP_DEFLATED) -> bytes:
    z = io.BytesIO()
    with zipfile.ZipFile(z, "w", compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return z.getvalue()


def test_a_lesson_zip_gets_the_same_checks_as_a_reflection_zip(conn, monkeypatch):
    """One ZIP reader (core.ingest.read.zip_members) for reflections and lessons."""
    with pytest.raises(IngestError, match="looks like a zip bomb"):
        ingest.import_lessons(conn, [("bomb.zip", _zip({"big.md": b"# Big\n" + b"a" * (5 * 1024 * 1024)}))],
                              course_name="Science", actor=Actor("t", role="admin"))
    with pytest.raises(IngestError, match="more.zip/inner.zip: a ZIP inside a ZIP is not opened"):
        ingest.import_lessons(conn, [("more.zip", _zip({"rain.md": b"# Rain\nIt rains.",
                                                        "inner.zip": _zip({"x.md": b"# X\nx"})}))],
                              course_name="Science", actor=Actor("t", role="admin"))
    from core.ingest import read as ingest_read
    monkeypatch.setattr(ingest_read, "MAX_ZIP_MEMBERS", 2)
    with pytest.raises(IngestError, match="holds 3 entries; the limit is 2"):
        ingest.import_lessons(conn, [("many.zip", _zip({f"l{i}.md": b"# L\nText." for i in range(3)}))],
                              course_name="Science", actor=Actor("t", role="admin"))
    monkeypatch.setattr(ingest_read, "MAX_FILE_BYTES", 100)
    with pytest.raises(IngestError, match="long.md is 0.0 MB; the limit"):
        ingest.import_lessons(conn, [("long.md", b"# Long\n" + b"word " * 40)], course_name="Science", actor=Actor("t", role="admin"))
    assert list(conn.query("SELECT * FROM lessons")) == []


def test_a_word_lessons_tables_are_read(conn):
    d = docx.Document()
    d.add_heading("Weather words", level=1)
    d.add_paragraph("Learn these words.")
    table = d.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "humid", "full of water vapour"
    buf = io.BytesIO()
    d.save(buf)
    out = ingest.import_lessons(conn, [("words.docx", buf.getvalue())], course_name="Science", actor=Actor("t", role="admin"))
    assert "humid full of water vapour" in lessons_db.get(conn, out["lesson_ids"][0])["text"]


def test_a_bad_file_in_an_upload_changes_nothing(conn):
    with pytest.raises(IngestError, match="bad.md.*target_grade"):
        ingest.import_lessons(conn, [("water.md", LESSON), ("bad.md", b"---\ntarget_grade: 99\n---\nText")],
                              course_name="Science", actor=Actor("t", role="admin"))
    with pytest.raises(IngestError, match="both titled"):
        ingest.import_lessons(conn, [("a.md", LESSON), ("b.md", LESSON)], course_name="Science", actor=Actor("t", role="admin"))
    with pytest.raises(IngestError, match="not lessons"):
        ingest.import_lessons(conn, [("a.csv", b"x,y")], course_name="Science", actor=Actor("t", role="admin"))
    assert list(conn.query("SELECT * FROM lessons")) == [] and list(conn.query("SELECT * FROM courses")) == []


def test_reimporting_keeps_an_unchanged_lesson_and_replaces_a_changed_one(conn):
    lid = add_lesson(conn)
    again = ingest.import_lessons(conn, [("water.md", LESSON)], course_name="Science", actor=Actor("t", role="admin"))
    assert again["unchanged"] == 1 and again["lesson_ids"] == [lid]
    changed = ingest.import_lessons(conn, [("water.md", LESSON.replace(b"puddle", b"pond"))], course_name="Science",
                                    actor=Actor("t", role="admin"))
    lesson = lessons_db.get(conn, lid)
    assert changed["replaced"] == 1 and "pond" in lesson["text"] and lesson["version"] == 2
    assert [h["action"] for h in lessons_db.history(conn, lid)] == ["import_lesson", "replace_lesson"]


def test_the_lesson_tables_exist_after_migration(conn):
    for table, cols in {"lessons": {"course_id", "text", "original_text", "spec", "tier", "priority", "version"},
                        "lesson_reviews": {"record", "first_verdict", "is_offline", "tier"},
                        "lesson_fixes": {"before", "after", "status", "gain"},
                        "lesson_references": {"rater", "verdict", "problems"}}.items():
        assert cols <= column_names(conn, table), table
    assert "kind" in column_names(conn, "runs") and "lesson_id" in column_names(conn, "llm_calls")
    assert "lesson_run_items" not in conn.table_names()     # lesson runs' items are in run_items (m018b)
