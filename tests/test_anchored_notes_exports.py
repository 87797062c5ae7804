"""Notes on the text in the exports (issue 27): a column of the released CSV and a list under the
comment in the ZIP's Markdown, kept notes only (as the release locked them), escaped."""
from __future__ import annotations

import csv
import io
import zipfile

import factories as f
from core.export import released as export
from core.signoff import anchored_notes as notes
from core.signoff import release
from anchor_support import annotated_item, approve

HOSTILE = "<img src=x onerror=alert(1)> [click](javascript:alert(1)) **bold**"


def _csv(conn, it, **kw) -> list[dict]:
    out = export.export(conn, it["course_id"], it["assignment_id"], fmt="csv", actor=f.actor(), **kw)
    return list(csv.DictReader(io.StringIO(out.data.decode("utf-8-sig"))))


def _released(conn):
    it = annotated_item(conn)
    notes.add(conn, it["sid"], "Why the mean?", actor=it["teacher"], sentences=[1], criterion="concept_understanding")
    notes.decide(conn, it["sid"], draft_id=it["draft_id"], criterion="real_world_application", keep=False,
                 actor=it["teacher"])          # dropped; concept_understanding's suggestion left undecided
    approve(conn, it["sid"], it["teacher"])
    release.release(conn, it["assignment_id"], actor=it["teacher"])
    return it


def test_the_released_csv_has_a_column_with_the_kept_notes_only(conn):
    it = _released(conn)
    rows = _csv(conn, it)
    assert rows[0]["notes_on_text"] == ("1. “I used the mean to summarise delivery times at work.” "
                                        "(Concept understanding): Why the mean?")
    # a note added after the release is not in the released file, nor a suggestion nobody kept
    notes.add(conn, it["sid"], "Later note.", actor=it["teacher"], quote="plot the data")
    assert "Later note" not in _csv(conn, it)[0]["notes_on_text"]
    assert "A real dataset" not in _csv(conn, it)[0]["notes_on_text"]
    assert "Sees why the median" not in _csv(conn, it)[0]["notes_on_text"]


def test_an_approved_item_exported_before_release_carries_its_kept_notes(conn):
    it = annotated_item(conn)
    notes.decide(conn, it["sid"], draft_id=it["draft_id"], criterion="concept_understanding", keep=True,
                 actor=it["teacher"])
    approve(conn, it["sid"], it["teacher"])
    row = _csv(conn, it, include_approved=True)[0]
    assert row["status"] == "approved"
    assert row["notes_on_text"] == ("1. “the median told the truth better” (Concept understanding): "
                                    "Sees why the median resists outliers.")


def test_the_zip_lists_the_notes_under_the_comment_escaped(conn):
    it = annotated_item(conn)
    notes.add(conn, it["sid"], HOSTILE, actor=it["teacher"], quote="delivery times")
    approve(conn, it["sid"], it["teacher"])
    release.release(conn, it["assignment_id"], actor=it["teacher"])
    out = export.export(conn, it["course_id"], it["assignment_id"], fmt="zip", actor=f.actor())
    with zipfile.ZipFile(io.BytesIO(out.data)) as zf:
        md = zf.read(zf.namelist()[0]).decode()
    comment_at, notes_at = md.index("### Comment"), md.index("### Notes on your text")
    assert comment_at < notes_at < md.index("AI-assisted, teacher-approved")
    line = md[notes_at:].splitlines()[2]
    assert line.startswith("1. ") and "delivery times" in line
    bare = md.replace("\\<", "").replace("\\]", "").replace("\\*", "")        # what is not escaped
    assert "<img" not in bare and "](javascript" not in bare and "**bold**" not in bare   # nothing of it works
    assert "\\<img" in line and "\\*\\*bold\\*\\*" in line
