"""Notes anchored to the student's text (issue 27): a passage is picked sentences or a pasted quote
that occurs in the text (else refused, nothing written); the AI's evidence quotes become proposed
notes a teacher keeps, edits or drops; only kept notes are released (to the student page, and as
the release locked them); who may write is checked in core; the notes join data care."""
from __future__ import annotations

import pytest

import factories as f

from core import data_care
from core.errors import ConflictError, Forbidden, IngestError
from core.signoff import anchored_notes as notes
from core.signoff import release, review_view
from core.students import links, page, sessions
from db import data_care as data_care_db
from anchor_support import TEXT, annotated_item, approve
from student_support import token_of


def _count(conn, table: str = "anchored_notes") -> int:
    return conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def _view(conn, it, who="teacher"):
    out = review_view.review_page(conn, it["assignment_id"], actor=it[who], item=it["sid"])
    return out["item"]["anchored_notes"]


def _student(conn, url: str):
    return sessions.resume(conn, links.open_link(conn, token_of(url), client="test").token)


def test_picked_sentences_and_a_pasted_quote_anchor_a_note(conn):
    it = annotated_item(conn)
    sentences = notes.sentences(TEXT)
    assert [s["text"] for s in sentences][:2] == ["I used the mean to summarise delivery times at work.",
                                                  "It hid the two very late trucks, so the median told the truth better."]
    a = notes.add(conn, it["sid"], "  Why the mean?  ", actor=it["teacher"], sentences=[1])
    # pasted with other spaces, a line break and capitals: found where the student wrote it
    b = notes.add(conn, it["sid"], "Good catch.", actor=it["ta"], quote="AT WORK. It   hid the two",
                  criterion="concept_understanding")
    view = _view(conn, it)["notes"]
    assert [(n["number"], n["quote"], n["note"], n["title"]) for n in view] == [
        (1, "I used the mean to summarise delivery times at work.", "Why the mean?", ""),
        (2, "at work.\nIt hid the two", "Good catch.", "Concept understanding")]
    assert TEXT[view[1]["start"]:view[1]["end"]] == view[1]["quote"]
    notes.edit(conn, b, "Good catch: the late trucks.", actor=it["teacher"], criterion=None)
    notes.delete(conn, a, actor=it["teacher"])
    assert [(n["note"], n["criterion"]) for n in _view(conn, it)["notes"]] == [("Good catch: the late trucks.", None)]
    assert conn.execute("SELECT COUNT(*) FROM audit_log WHERE entity = 'anchored_notes' AND submission_id = ?",
                        [it["sid"]]).fetchone()[0] == 4


@pytest.mark.parametrize("kwargs, message", [
    ({"quote": "the student wrote about bananas"}, "That passage is not in the submission"),
    ({"quote": "  "}, "Choose the passage first"),
    ({"quote": "at"}, "That passage is not in the submission"),
    ({"sentences": [1, 3]}, "Pick sentences next to each other"),
    ({"sentences": [9]}, "The submission has 3 sentences"),
    ({"sentences": [1], "criterion": "spelling"}, "has no criterion 'spelling'"),
    ({"sentences": [1], "note": ""}, "Write the note first"),
    ({"sentences": [1], "note": "x" * 301}, "at most 300 characters"),
])
def test_a_passage_not_in_the_text_or_a_bad_note_is_refused_and_nothing_is_written(conn, kwargs, message):
    it = annotated_item(conn)
    kwargs = dict(kwargs)   # the parameters are shared by the test's runs on each database
    note = kwargs.pop("note", "A note.")
    with pytest.raises(IngestError, match=message):
        notes.add(conn, it["sid"], note, actor=it["teacher"], **kwargs)
    assert _count(conn) == 0 and conn.execute("SELECT COUNT(*) FROM audit_log WHERE entity = 'anchored_notes'"
                                              ).fetchone()[0] == 0


def test_the_evaluators_evidence_quotes_are_proposed_and_each_is_kept_edited_or_dropped(conn):
    it = annotated_item(conn)
    proposed = _view(conn, it)["proposals"]
    # the quote not found in the text is not proposed; the note is the reasoning's first sentence
    assert [(p["criterion"], p["quote"], p["note"]) for p in proposed] == [
        ("real_world_application", "delivery times at work", "A real dataset from the job."),
        ("concept_understanding", "the median told the truth better", "Sees why the median resists outliers.")]
    assert _count(conn) == 0                                    # a proposal is not stored until decided
    notes.decide(conn, it["sid"], draft_id=it["draft_id"], criterion="concept_understanding", keep=True,
                 note="You saw why the median resists the late trucks.", actor=it["ta"])
    notes.decide(conn, it["sid"], draft_id=it["draft_id"], criterion="real_world_application", keep=False,
                 actor=it["teacher"])
    view = _view(conn, it)
    assert view["proposals"] == [] and view["dropped"] == 1
    assert [(n["note"], n["origin"], n["title"]) for n in view["notes"]] == [
        ("You saw why the median resists the late trucks.", "ai", "Concept understanding")]
    with pytest.raises(ConflictError, match="already kept or dropped"):
        notes.decide(conn, it["sid"], draft_id=it["draft_id"], criterion="real_world_application", keep=True,
                     actor=it["teacher"])
    with pytest.raises(IngestError, match="not one of this item's"):           # its quote is not in the text
        notes.decide(conn, it["sid"], draft_id=it["draft_id"], criterion="clarity", keep=True, actor=it["teacher"])
    # deleting a kept suggestion drops it: it is not proposed again
    notes.delete(conn, view["notes"][0]["id"], actor=it["teacher"])
    assert _view(conn, it)["notes"] == [] and _view(conn, it)["proposals"] == []


def test_only_kept_notes_are_released_as_the_release_locked_them(conn):
    it = annotated_item(conn)
    notes.add(conn, it["sid"], "Why the mean?", actor=it["teacher"], sentences=[1])
    notes.decide(conn, it["sid"], draft_id=it["draft_id"], criterion="concept_understanding", keep=True,
                 actor=it["teacher"])
    notes.decide(conn, it["sid"], draft_id=it["draft_id"], criterion="real_world_application", keep=False,
                 actor=it["teacher"])
    approve(conn, it["sid"], it["teacher"])
    out = release.release(conn, it["assignment_id"], actor=it["teacher"])
    sam = _student(conn, out["links"][0]["url"])
    item = page.view(conn, actor=sam)["items"][0]
    assert [(n["number"], n["quote"], n["note"]) for n in item["notes"]] == [
        (1, "I used the mean to summarise delivery times at work.", "Why the mean?"),
        (2, "the median told the truth better", "Sees why the median resists outliers.")]
    assert item["text"] == TEXT
    shown = " ".join(n["note"] for n in item["notes"])
    assert "A real dataset" not in shown                                       # dropped: never released
    # a note added after the release waits for the item's next release
    notes.add(conn, it["sid"], "Plot first: yes.", actor=it["teacher"], quote="plot the data first")
    assert len(page.view(conn, actor=sam)["items"][0]["notes"]) == 2


def test_an_undecided_suggestion_blocks_nothing_and_is_never_released(conn):
    it = annotated_item(conn)
    approve(conn, it["sid"], it["teacher"])
    out = release.release(conn, it["assignment_id"], actor=it["teacher"])      # two suggestions undecided
    assert out["n_items"] == 1 and _count(conn, "released_notes") == 0
    item = page.view(conn, actor=_student(conn, out["links"][0]["url"]))["items"][0]
    assert item["notes"] == [] and item["text"] == ""                          # no notes: the text is not read


def test_who_may_annotate_is_checked_in_core(conn):
    it = annotated_item(conn)
    mine = notes.add(conn, it["sid"], "Mine.", actor=it["teacher"], sentences=[2])
    for who in ("outsider",):                                                  # a TA of another course
        with pytest.raises(Forbidden):
            notes.add(conn, it["sid"], "Hi.", actor=it[who], sentences=[1])
        with pytest.raises(Forbidden):
            notes.edit(conn, mine, "Changed.", actor=it[who])
        with pytest.raises(Forbidden):
            notes.delete(conn, mine, actor=it[who])
        with pytest.raises(Forbidden):
            notes.decide(conn, it["sid"], draft_id=it["draft_id"], criterion="concept_understanding", keep=True,
                         actor=it[who])
    approve(conn, it["sid"], it["teacher"])
    out = release.release(conn, it["assignment_id"], actor=it["teacher"])
    student = _student(conn, out["links"][0]["url"])                          # the student of the item
    with pytest.raises(Forbidden):
        notes.add(conn, it["sid"], "I disagree.", actor=student, sentences=[1])
    with pytest.raises(Forbidden):
        notes.edit(conn, mine, "Changed.", actor=student)
    with pytest.raises(Forbidden):
        notes.delete(conn, mine, actor=student)
    assert [r[0] for r in conn.execute("SELECT note FROM anchored_notes")] == ["Mine."]


def test_deleting_the_student_deletes_their_notes_and_released_notes(conn):
    it = annotated_item(conn)
    notes.add(conn, it["sid"], "Why the mean?", actor=it["teacher"], sentences=[1])
    notes.decide(conn, it["sid"], draft_id=it["draft_id"], criterion="real_world_application", keep=False,
                 actor=it["teacher"])
    approve(conn, it["sid"], it["teacher"])
    release.release(conn, it["assignment_id"], actor=it["teacher"])
    assert (_count(conn), _count(conn, "released_notes")) == (2, 1)
    counts = data_care.delete_student(conn, it["student_id"], actor=f.actor(), reason="asked")
    assert counts["anchored_notes"] == 2 and counts["released_notes"] == 1
    assert (_count(conn), _count(conn, "released_notes")) == (0, 0)
    assert "2 notes on students' texts" in data_care.deleted_words(counts)


def test_a_recent_note_is_course_activity_for_retention_and_a_backup_holds_the_notes(conn, tmp_path, sqlite_file):
    import sqlite3
    it = annotated_item(conn)
    conn.execute("UPDATE submissions SET created_at = '2019-01-01T00:00:00.000Z'")
    conn.execute("UPDATE courses SET created_at = '2019-01-01T00:00:00.000Z'")
    before = {r["id"]: r["last_activity"] for r in data_care_db.last_activity(conn)}[it["course_id"]]
    notes.add(conn, it["sid"], "Why the mean?", actor=it["teacher"], sentences=[1])
    after = {r["id"]: r["last_activity"] for r in data_care_db.last_activity(conn)}[it["course_id"]]
    assert before.startswith("2019") and not after.startswith("2019")
    data_care_db.backup_to(conn, tmp_path / "copy.db")
    copy = sqlite3.connect(tmp_path / "copy.db")
    assert copy.execute("SELECT quote, note FROM anchored_notes").fetchall() == [
        ("I used the mean to summarise delivery times at work.", "Why the mean?")]
    copy.close()
    counts = data_care_db.delete_course(conn, it["course_id"])
    assert counts["anchored_notes"] == 1 and _count(conn) == 0
