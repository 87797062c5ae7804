"""The comment bank (issue 27): a teacher's own bank and the course bank, searched, inserted into
a comment after a chosen sentence with its use counted, saved from a review item (never naming a
student), imported and exported as CSV (a bad row changes nothing), deleted with the course."""
import pytest

import factories as f
from core import data_care
from core.courses import comment_bank as bank
from core.errors import Forbidden, IngestError


@pytest.fixture
def course(conn):
    c = f.course(conn)
    cid = c["course_id"]
    people = {"ms_t": f.user(conn, "ms_t", "instructor", courses=[cid]),
              "mr_b": f.user(conn, "mr_b", "instructor", courses=[cid]),
              "tom": f.user(conn, "tom", "ta", courses=[cid]),
              "cora": f.user(conn, "cora", "coordinator", courses=[cid])}
    return c, people


def test_a_teachers_own_bank_add_search_edit_remove(conn, course):
    c, p = course
    cid = c["course_id"]
    a = bank.add(conn, cid, "  Add one example  from your job. ", actor=p["tom"],
                 criterion="real_world_application", level=1)
    bank.add(conn, cid, "Say what still confuses you.", actor=p["tom"])
    found = bank.search(conn, cid, "EXAMPLE", actor=p["tom"])
    assert [r["text"] for r in found["mine"]] == ["Add one example from your job."]
    assert found["mine"][0]["criterion"] == "real_world_application" and found["mine"][0]["level"] == 1
    assert found["course"] == [] and found["may_curate"] is False
    assert bank.search(conn, cid, "", actor=p["mr_b"])["mine"] == []        # another teacher's is not theirs
    bank.edit(conn, a, "Add one example from your work.", actor=p["tom"])
    assert bank.search(conn, cid, "work", actor=p["tom"])["mine"][0]["text"] == "Add one example from your work."
    bank.remove(conn, a, actor=p["tom"])
    assert [r["text"] for r in bank.search(conn, cid, actor=p["tom"])["mine"]] == ["Say what still confuses you."]


def test_another_teacher_cannot_edit_my_bank(conn, course):
    c, p = course
    mine = bank.add(conn, c["course_id"], "Good start.", actor=p["ms_t"])
    with pytest.raises(Forbidden, match="another teacher's own bank"):
        bank.edit(conn, mine, "Changed.", actor=p["mr_b"])
    with pytest.raises(Forbidden, match="another teacher's own bank"):
        bank.remove(conn, mine, actor=p["mr_b"])
    with pytest.raises(Forbidden):
        bank.insert_into(conn, mine, "Hello.", actor=p["mr_b"])
    assert bank.search(conn, c["course_id"], actor=p["ms_t"])["mine"][0]["text"] == "Good start."


def test_a_ta_cannot_edit_the_course_bank_a_coordinator_curates_it(conn, course):
    c, p = course
    cid = c["course_id"]
    with pytest.raises(Forbidden, match="teaching assistant"):
        bank.add(conn, cid, "Nice.", actor=p["tom"], mine=False)
    shared = bank.add(conn, cid, "Nice work on the example.", actor=p["ms_t"], mine=False)
    with pytest.raises(Forbidden):
        bank.edit(conn, shared, "Changed.", actor=p["tom"])
    bank.edit(conn, shared, "Nice work on your example.", actor=p["cora"])        # curates
    assert bank.search(conn, cid, actor=p["tom"])["course"][0]["text"] == "Nice work on your example."
    assert bank.search(conn, cid, actor=p["cora"])["may_curate"] is True
    outsider = f.user(conn, "olga", "instructor", courses=[f.course(conn, "Other")["course_id"]])
    with pytest.raises(Forbidden, match="no access"):
        bank.search(conn, cid, actor=outsider)


def test_length_and_level_are_checked_with_a_clear_message(conn, course):
    c, p = course
    with pytest.raises(IngestError, match=f"at most {bank.MAX_CHARS} characters .this one has 301."):
        bank.add(conn, c["course_id"], "x" * 301, actor=p["tom"])
    with pytest.raises(IngestError, match="cannot be empty"):
        bank.add(conn, c["course_id"], "   ", actor=p["tom"])
    with pytest.raises(IngestError, match="Choose the criterion"):
        bank.add(conn, c["course_id"], "Fine.", actor=p["tom"], level=2)
    assert bank.search(conn, c["course_id"], actor=p["tom"])["mine"] == []


def test_insert_after_a_chosen_sentence_counts_the_use(conn, course):
    c, p = course
    b = bank.add(conn, c["course_id"], "Name one source.", actor=p["tom"])
    comment = "You explain it well. Add an example. What next?"
    assert bank.insert_into(conn, b, comment, actor=p["tom"], after=0) == \
        "You explain it well. Name one source. Add an example. What next?"
    assert bank.insert_into(conn, b, comment, actor=p["tom"]) == comment + " Name one source."
    assert bank.search(conn, c["course_id"], actor=p["tom"])["mine"][0]["uses"] == 2


def test_save_to_bank_from_an_item_refuses_a_students_name(conn, course):
    c, p = course
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], name="Ana Silva"), "My text.")
    with pytest.raises(IngestError, match=r"names a student.*Ana"):
        bank.save_from_item(conn, sid, "Well done, Ana, on the example.", actor=p["tom"])
    new = bank.save_from_item(conn, sid, "Well done on the example.", actor=p["tom"], criterion="clarity", level=3)
    assert bank.search(conn, c["course_id"], actor=p["tom"])["mine"][0]["id"] == new


def test_csv_export_then_import_and_a_bad_row_changes_nothing(conn, course):
    c, p = course
    cid = c["course_id"]
    bank.add(conn, cid, 'Say "why", with one example.', actor=p["ms_t"], criterion="clarity", level=2)
    data = bank.export_csv(conn, cid, actor=p["ms_t"])
    assert data.splitlines()[0] == "text,criterion,level,uses"
    assert bank.import_csv(conn, cid, data, actor=p["mr_b"]) == 1
    assert bank.search(conn, cid, actor=p["mr_b"])["mine"][0]["text"] == 'Say "why", with one example.'
    assert bank.import_csv(conn, cid, data, actor=p["mr_b"]) == 0             # already there: skipped
    bad = "text,criterion,level\nGood.,clarity,2\n,clarity,1\nFine.,clarity,high\n"
    with pytest.raises(IngestError) as e:
        bank.import_csv(conn, cid, bad, actor=p["mr_b"], mine=True)
    assert "Row 3: Write the comment first" in str(e.value) and "Row 4: The level must be a whole number" in str(e.value)
    assert len(bank.search(conn, cid, actor=p["mr_b"])["mine"]) == 1
    with pytest.raises(IngestError, match="'text' column"):
        bank.import_csv(conn, cid, "comment\nGood.\n", actor=p["mr_b"])


def test_the_banks_go_with_the_course(conn, course):
    c, p = course
    bank.add(conn, c["course_id"], "Mine.", actor=p["tom"])
    bank.add(conn, c["course_id"], "Shared.", actor=p["ms_t"], mine=False)
    other = f.course(conn, "Course B")
    bank.add(conn, other["course_id"], "Kept.", actor=f.actor())
    counts = data_care.delete_course(conn, c["course_id"], actor=f.actor())
    assert counts["bank_comments"] == 2
    assert [r[0] for r in conn.execute("SELECT text FROM bank_comments")] == ["Kept."]
    assert conn.execute("SELECT COUNT(*) FROM audit_log WHERE entity = 'bank_comments'").fetchone()[0] == 1
    assert "2 comment bank comments" in data_care.deleted_words(counts)


def test_retention_counts_bank_work_and_deletes_the_banks_with_the_course(conn, course):
    c, p = course
    cid = c["course_id"]
    conn.execute("UPDATE courses SET created_at = '2019-01-01T00:00:00.000Z'")
    data_care.set_retention(conn, 365, actor=f.actor())
    assert [x["id"] for x in data_care.expired_courses(conn, actor=f.actor())] == [cid]
    b = bank.add(conn, cid, "Name one source.", actor=p["tom"])           # recent work in the course
    assert data_care.expired_courses(conn, actor=f.actor()) == []
    conn.execute("UPDATE bank_comments SET created_at = '2019-02-01T00:00:00.000Z' WHERE id = ?", [b])
    done = data_care.apply_retention(conn, actor=f.actor())
    assert done[0]["deleted"]["bank_comments"] == 1
    assert conn.execute("SELECT COUNT(*) FROM bank_comments").fetchone()[0] == 0


def test_a_backup_holds_the_banks(conn, course, tmp_path, sqlite_file):
    import sqlite3

    c, p = course
    bank.add(conn, c["course_id"], "Name one source.", actor=p["tom"])
    dest = tmp_path / "backup.db"
    data_care.backup(conn, dest, actor=f.actor())
    copy = sqlite3.connect(dest)
    assert copy.execute("SELECT owner, text FROM bank_comments").fetchall() == [("tom", "Name one source.")]
    copy.close()
