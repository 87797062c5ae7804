"""Export contents: only approved versions, the locked released one, markers, formula neutralisation."""
from __future__ import annotations

import csv
import io
import re
import zipfile

import pytest

import factories as f
from core.export import released as export
from core.signoff import actions, release
from core.errors import FairMarkError
from db import exports, reviews
from core.accounts.access import Actor

HIGH = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 3}
LOW = {"concept_understanding": 1, "real_world_application": 0, "reflection_depth": 1, "clarity": 1}


def read_csv(data: bytes) -> list[dict]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))


@pytest.fixture
def setup(conn):
    c = f.course(conn, name="Demo", weeks=2)
    aid = c["assignment_id"]
    items = {}
    for ext, name, scores, offline in [("s1", "=HYPERLINK(\"http://x\")", HIGH, False),
                                       ("s2", "Åsa Berg", LOW, True),
                                       ("s3", "Never Approved", HIGH, False),
                                       ("s4", "Approved Only", HIGH, False)]:
        st = f.student(conn, c["course_id"], external_id=ext, name=name, attributes={"section": "A"})
        sid = f.submission(conn, aid, st, text=f"text of {ext}")
        f.draft(conn, sid, scores, is_offline=offline, comment="-1 point: add an example. What next?")
        items[ext] = sid
    for ext in ("s1", "s2"):
        actions.open_item(conn, items[ext], actor=Actor("ann", role="admin"))
        actions.approve(conn, items[ext], version=1, actor=Actor("ann", role="admin"))
    release.release(conn, aid, actor=Actor("ann", role="admin"))
    actions.open_item(conn, items["s4"], actor=Actor("ann", role="admin"))
    actions.approve(conn, items["s4"], version=1, actor=Actor("ann", role="admin"))
    actions.open_item(conn, items["s3"], actor=Actor("ann", role="admin"))  # opened, never approved
    return c, items


def test_csv_has_only_released_items_with_markers_and_neutralised_cells(conn, setup):
    c, items = setup
    out = export.export(conn, c["course_id"], c["assignment_id"], fmt="csv", actor=Actor("test", role="admin"))
    rows = read_csv(out.data)
    assert [r["student_id"] for r in rows] == ["s1", "s2"]
    s1, s2 = rows
    assert s1["name"] == "'=HYPERLINK(\"http://x\")"
    assert s1["comment"].startswith("'-1 point")
    assert s1["marker"] == "AI-assisted, teacher-approved"
    assert s2["marker"] == "AI-assisted, teacher-approved; offline baseline — no LLM"
    assert s2["name"] == "Åsa Berg" and s2["clarity"] == "1" and s2["total"] == "3" and s2["max_total"] == "12"
    assert s1["total"] == "11" and s1["status"] == "released"
    assert out.summary == {"items": 2, "students": 2, "assignments": 1, "released": 2, "approved_unreleased": 0,
                           "offline_items": 1, "links": 0}
    assert out.data.startswith(b"\xef\xbb\xbf")


def test_approved_flag_adds_approved_but_never_unapproved(conn, setup):
    c, items = setup
    rows = read_csv(export.export(conn, c["course_id"], fmt="csv", include_approved=True, actor=Actor("test", role="admin")).data)
    assert sorted(r["student_id"] for r in rows) == ["s1", "s2", "s4"]
    assert {r["student_id"]: r["status"] for r in rows}["s4"] == "approved"


def test_released_version_is_locked_against_later_edits(conn, setup):
    c, items = setup
    r = reviews.get_review(conn, items["s1"])
    actions.save_edit(conn, items["s1"], version=r["version"], scores=LOW, comment="Edited after release",
                     reasons=["too_lenient"], actor=Actor("ann", role="admin"))
    for approved in (False, True):
        rows = read_csv(export.export(conn, c["course_id"], fmt="csv", include_approved=approved, actor=Actor("test", role="admin")).data)
        s1 = next(r for r in rows if r["student_id"] == "s1")
        assert s1["total"] == "11" and "Edited" not in s1["comment"]


def test_canvas_gradebook_format(conn, setup):
    c, items = setup
    data = export.export(conn, c["course_id"], fmt="canvas", actor=Actor("test", role="admin")).data.decode("utf-8")
    rows = list(csv.reader(io.StringIO(data)))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Week 1", export.LINK_COLUMN]
    assert rows[1] == ["Points Possible", "", "", "", "", "12", ""]
    assert rows[2] == ["'=HYPERLINK(\"http://x\")", "", "s1", "", "A", "11", export.NO_LINK]
    assert rows[3] == ["Åsa Berg", "", "s2", "", "A", "3", export.NO_LINK]
    assert len(rows) == 4


def test_zip_has_one_markdown_file_per_student(conn, setup):
    c, items = setup
    data = export.export(conn, c["course_id"], c["assignment_id"], fmt="zip", actor=Actor("test", role="admin")).data
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = sorted(zf.namelist())
        assert len(names) == 2 and all(n.endswith(".md") for n in names)
        s2 = zf.read(next(n for n in names if n.startswith("s2"))).decode()
    assert "# Feedback for Åsa Berg" in s2 and "| Clarity | 1 |" in s2 and "offline baseline — no LLM" in s2
    # The student reads the rubric's titles, not de-underscored keys.
    assert "| Real-world application | 0 |" in s2 and "real world application" not in s2
    assert "-1 point: add an example" in s2


def test_nothing_to_export_is_an_error(conn):
    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]))
    f.draft(conn, sid, HIGH)
    with pytest.raises(FairMarkError, match="nothing to export"):
        export.export(conn, c["course_id"], fmt="csv", actor=Actor("test", role="admin"))
    with pytest.raises(FairMarkError, match="unknown export format"):
        export.export(conn, c["course_id"], fmt="xlsx", actor=Actor("test", role="admin"))


@pytest.mark.parametrize("value,expected", [("=1+1", "'=1+1"), ("+a", "'+a"), ("-a", "'-a"), ("@x", "'@x"),
                                            ("\tx", "'\tx"), ("\rx", "'\rx"), ("ok", "ok"), (3, 3)])
def test_neutralise(value, expected):
    assert export.neutralise(value) == expected


def test_exportable_count_matches_the_export(conn, setup):
    c, items = setup
    r = reviews.get_review(conn, items["s1"])  # edited after release: still exported in its released version
    actions.save_edit(conn, items["s1"], version=r["version"], scores=LOW, comment="Edited", reasons=["tone"],
                     actor=Actor("ann", role="admin"))
    for include in (False, True):
        n = len(export.export_items(conn, c["course_id"], c["assignment_id"], include_approved=include, actor=Actor("test", role="admin")))
        assert exports.exportable_count(conn, c["assignment_id"], include_approved=include) == n
    assert n == 3


def test_released_totals_keep_the_rubric_they_were_released_under(conn):
    from core.courses import catalogue
    from core.rubric import default_rubric

    c = f.course(conn)
    scores = {"concept_understanding": 3, "real_world_application": 0, "reflection_depth": 0, "clarity": 0}
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), text="x")
    f.draft(conn, sid, scores)
    actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    actions.approve(conn, sid, version=1, actor=Actor("ann", role="admin"))
    release.release(conn, c["assignment_id"], actor=Actor("ann", role="admin"))

    def released():
        it = export.export_items(conn, c["course_id"], c["assignment_id"], actor=Actor("test", role="admin"))[0]
        return it["total"], it["max_total"]

    assert released() == (3, 12)
    r = default_rubric()
    weighted = [cr.model_copy(update={"weight": 5.0 if cr.key == "concept_understanding" else 1.0})
                for cr in r.criteria]
    rid, _ = catalogue.save_rubric_version(conn, r.model_copy(update={"criteria": weighted}), actor=Actor("admin", role="admin"))
    catalogue.edit_assignment(conn, c["assignment_id"], rubric_id=rid, actor=Actor("admin", role="admin"))
    assert released() == (3, 12)
    row = read_csv(export.export(conn, c["course_id"], c["assignment_id"], fmt="csv", actor=Actor("test", role="admin")).data)[0]
    assert (row["total"], row["max_total"]) == ("3", "12")
    canvas = export.export(conn, c["course_id"], c["assignment_id"], fmt="canvas", actor=Actor("test", role="admin")).data.decode()
    assert canvas.splitlines()[1].endswith(",12,") and canvas.splitlines()[2].endswith(",3," + export.NO_LINK)


def test_csv_criterion_columns_are_the_rubric_keys(conn, setup):
    """CSV criterion columns are stable ids (the rubric's keys); titles are for the Markdown."""
    c, items = setup
    header = next(csv.reader(io.StringIO(export.export(conn, c["course_id"], fmt="csv", actor=Actor("test", role="admin")).data.decode("utf-8-sig"))))
    assert header[4:8] == ["concept_understanding", "real_world_application", "reflection_depth", "clarity"]


def test_zip_markdown_is_escaped_and_file_names_keep_accents(conn):
    """Issue 11 item 8: `<img src=x onerror=…>` and `[x](javascript:…)` were written as they are, and
    "Zoë Ñúñez" became `Zo_ez.md`."""
    import unicodedata

    c = f.course(conn, name="Écriture")
    name = unicodedata.normalize("NFD", "Zoë Ñúñez")  # as some systems send it: e + combining diaeresis
    st = f.student(conn, c["course_id"], external_id="s/../9", name=name)
    sid = f.submission(conn, c["assignment_id"], st, text="text")
    evil = "Great start <img src=x onerror=alert(1)> [x](javascript:alert(1)) **bold**\n- not a list. What next?"
    f.draft(conn, sid, HIGH, comment=evil)
    actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    actions.approve(conn, sid, version=1, actor=Actor("ann", role="admin"))
    release.release(conn, c["assignment_id"], actor=Actor("ann", role="admin"))
    out = export.export(conn, c["course_id"], c["assignment_id"], fmt="zip", actor=Actor("test", role="admin"))
    with zipfile.ZipFile(io.BytesIO(out.data)) as zf:
        [member] = zf.namelist()
        body = zf.read(member).decode()
    assert member == "s_.._9-Zoë_Ñúñez.md" and member == unicodedata.normalize("NFC", member)
    assert out.file_name == "Écriture-Week_1-feedback.zip"
    assert not re.search(r"(?<!\\)<img", body) and "\\<img src=x onerror=alert(1)\\>" in body
    assert "[x](javascript" not in body and "\\[x\\](javascript:alert(1))" in body
    assert "\\*\\*bold\\*\\*" in body and "\n\\- not a list" in body
    assert f"# Feedback for {name}" in body  # the name itself is kept as written
