"""Settings → Data (AppTest, issue 21): a deletion is bound to the student or course confirmed and
the form resets after it; a click without the confirmation says what is missing; the message
counts what was deleted in a teacher's words; a course name with a shortcode is shown as text
and can be typed; the backup is built where the signed-in admin is known; a restore checks the
upload and changes nothing when it is refused."""
from __future__ import annotations

import pytest

import db as dbmod
import factories as f
from core import data_care
from core.text import escape_markdown
from shown import plain

SCORES = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 3}


@pytest.fixture
def course(conn):
    c = f.course(conn, "Ethics :material/home: 2026")
    people = []
    for n, name in enumerate(["Ana Silva", "Ben Okafor", "Chloé Martin"]):
        st = f.student(conn, c["course_id"], external_id=f"s{n}", name=name)
        f.draft(conn, f.submission(conn, c["assignment_id"], st, text=f"{name} wrote about bias."), SCORES)
        people.append(st)
    return c, people


def _button(at, label):
    return next(b for b in at.button if b.label == label)


def _students(conn) -> list[str]:
    return [r[0] for r in conn.execute("SELECT name FROM students ORDER BY id")]


def _settings(app_test):
    at = app_test("pages/settings.py").run()
    assert not at.exception
    return at


def test_a_deletion_resets_the_form_and_a_second_click_deletes_nobody_else(app_test, conn, course):
    c, people = course
    at = _settings(app_test)
    pick = f"data_student_{c['course_id']}_0"
    assert at.selectbox(key=pick).value is None                  # nobody is chosen to begin with
    at.selectbox(key=pick).set_value(people[0]).run()
    at.text_input(key=f"data_student_reason_{people[0]}").set_value("her request of 3 May")
    at.checkbox(key=f"data_student_sure_{people[0]}").check()
    _button(at, "Delete the student's data").click().run()
    assert not at.exception
    assert _students(conn) == ["Ben Okafor", "Chloé Martin"]
    assert plain(at.success[0].value) == "Deleted Ana Silva's data: 1 reflection, 1 AI draft."
    assert "\u2060" not in at.success[0].value                    # nothing invisible travels with copied text
    # Reset: a new picker with no student chosen, so no tick and no Delete button to click again.
    assert at.selectbox(key=f"data_student_{c['course_id']}_1").value is None
    assert not [b for b in at.button if b.label == "Delete the student's data"]
    assert not [x for x in at.checkbox if x.key and x.key.startswith("data_student_sure_")]
    at.run()                                                      # a rerun (a second click on the old button)
    assert _students(conn) == ["Ben Okafor", "Chloé Martin"]
    assert plain(at.success[0].value).startswith("Deleted Ana Silva's data")  # the message stays until
    at.selectbox(key=f"data_student_{c['course_id']}_1").set_value(people[1]).run()
    assert not at.success                                         # the next student is chosen
    reason = conn.execute("SELECT reason FROM audit_log WHERE action = 'delete_student'").fetchone()[0]
    assert reason == "her request of 3 May"


def test_a_tick_for_one_student_is_not_a_tick_for_another(app_test, conn, course):
    c, people = course
    at = _settings(app_test)
    pick = f"data_student_{c['course_id']}_0"
    at.selectbox(key=pick).set_value(people[0]).run()
    at.checkbox(key=f"data_student_sure_{people[0]}").check().run()
    at.selectbox(key=pick).set_value(people[1]).run()              # another student: a fresh, unticked box
    assert at.checkbox(key=f"data_student_sure_{people[1]}").value is False
    _button(at, "Delete the student's data").click().run()
    assert _students(conn) == ["Ana Silva", "Ben Okafor", "Chloé Martin"]
    assert plain(at.error[0].value) == "Tick \"Delete everything about Ben Okafor\" to confirm: nothing was deleted."


def test_the_course_name_with_a_shortcode_is_shown_as_text_and_typing_it_deletes_the_course(app_test, conn, course):
    c, _ = course
    name = "Ethics :material/home: 2026"
    at = _settings(app_test)
    assert name in [x.value for x in at.code]                      # verbatim, not an icon
    assert not [w for w in at.text_input if ":material/" in w.label]  # no label renders the name
    box = at.text_input(key=f"data_course_name_{c['course_id']}")
    _button(at, "Delete the course").click().run()
    assert at.error[0].value.startswith("Type the course's name exactly as shown above to delete it (the box was empty)")
    box = at.text_input(key=f"data_course_name_{c['course_id']}")
    box.set_value("Ethics 2026")
    _button(at, "Delete the course").click().run()
    assert "nothing was deleted" in at.error[0].value
    assert conn.execute("SELECT COUNT(*) FROM courses").fetchone()[0] == 1
    at.text_input(key=f"data_course_name_{c['course_id']}").set_value(name)
    _button(at, "Delete the course").click().run()
    assert not at.exception
    assert conn.execute("SELECT COUNT(*) FROM courses").fetchone()[0] == 0
    assert plain(at.success[0].value) == (f"Deleted the course {name} and everything in it: 1 assignment, 3 students, 3 reflections, "
                       "3 AI drafts.")


def test_the_retention_caption_shows_a_course_name_as_text(app_test, conn, course):
    conn.execute("UPDATE courses SET created_at = '2019-01-01T00:00:00.000Z'")
    conn.execute("UPDATE submissions SET created_at = '2019-06-01T00:00:00.000Z'")
    data_care.set_retention(conn, 365, actor=f.actor())
    at = _settings(app_test)
    caption = next(x.value for x in at.caption if "would be deleted" in x.value)
    assert escape_markdown("Ethics :material/home: 2026") in caption and ":material/home:" not in caption  # no icon
    assert "(last work 1 June 2019)" in plain(caption) and "2019-06-01" not in plain(caption)


def test_prepare_a_backup_gives_a_download_and_a_failure_says_why(app_test, conn, course, monkeypatch, tmp_path):
    at = _settings(app_test)
    assert not at.download_button                                 # nothing built before it is asked for
    _button(at, "Prepare a backup").click().run()
    assert not at.exception and not at.error
    assert [d.label for d in at.download_button if d.label.startswith("Download the backup (")]
    assert conn.execute("SELECT actor FROM audit_log WHERE action = 'backup'").fetchone()[0] == "test-admin"
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "gone"))
    _button(at, "Prepare a backup").click().run()
    assert plain(at.error[0].value).startswith("The backup could not be made ([Errno 2] No such file")
    assert "nothing was downloaded" in at.error[0].value
    assert not [d for d in at.download_button if d.label.startswith("Download the backup")]


def _restore(at, name: str, data: bytes, *, tick: bool = True):
    at.file_uploader(key="data_restore_file").upload(name, data)
    if tick:
        at.checkbox(key="data_restore_sure").check()
    _button(at, "Restore").click().run()
    assert not at.exception


def test_a_restore_of_a_bad_upload_is_refused_and_changes_nothing(app_test, conn, course, tmp_path):
    at = _settings(app_test)
    _restore(at, "grades.csv", b"name,score\nAna,3\n")
    kind = "a PostgreSQL backup" if dbmod.on_postgresql(conn) else "an SQLite database file"
    assert plain(at.error[0].value).startswith(f"grades.csv cannot be restored: it is not {kind}")
    assert _students(conn) == ["Ana Silva", "Ben Okafor", "Chloé Martin"]
    data_care.backup(conn, tmp_path / "b.db", actor=f.actor())
    _restore(at, "b.db", (tmp_path / "b.db").read_bytes(), tick=False)
    assert "Tick" in at.error[0].value and "nothing was changed" in at.error[0].value
    assert conn.execute("SELECT COUNT(*) FROM audit_log WHERE action = 'restore'").fetchone()[0] == 0


def test_a_restore_through_the_page_brings_the_backup_back_and_ends_every_session(app_test, conn, db_path, course,
                                                                                 tmp_path, monkeypatch):
    c, people = course
    monkeypatch.chdir(tmp_path)                                    # where PostgreSQL's replaced database is kept
    at = _settings(app_test)                                       # signed in before the backup: its session is in it
    data_care.backup(conn, tmp_path / "b.db", actor=f.actor())
    data_care.delete_student(conn, people[0], actor=f.actor())
    _restore(at, "fairmark-backup.db", (tmp_path / "b.db").read_bytes())
    assert plain(at.success[0].value).startswith("Restored fairmark-backup.db. Every session has ended")
    check = dbmod.connect(db_path)
    assert [r[0] for r in check.execute("SELECT name FROM students ORDER BY id")] == [
        "Ana Silva", "Ben Okafor", "Chloé Martin"]
    assert check.execute("SELECT COUNT(*) FROM sessions WHERE ended_at IS NULL").fetchone()[0] == 0
    assert check.execute("SELECT actor FROM audit_log WHERE action = 'restore'").fetchone()[0] == "test-admin"
    check.close()
    at.run()
    assert [t for t in at.text_input if t.label == "User name"]   # signed out: the next run asks to sign in


def test_restore_is_for_admins_only_checked_in_core(conn, tmp_path, course):
    from core.errors import Forbidden

    data_care.backup(conn, tmp_path / "b.db", actor=f.actor())
    ines = f.user(conn, "ines", "instructor", courses=[course[0]["course_id"]])
    with pytest.raises(Forbidden):
        data_care.restore(tmp_path / "live.db", tmp_path / "b.db", actor=ines)
    assert not (tmp_path / "live.db").exists()


def test_an_admin_sets_how_long_students_links_last(app_test, conn, course):
    from core.students import links

    at = _settings(app_test)
    field = next(n for n in at.number_input if n.label.startswith("A student's private link"))
    assert field.value == links.DEFAULT_DAYS
    field.set_value(60)
    next(b for b in at.button if b.label == "Save" and b.key and "data_student_links" in b.key).click().run()
    assert not at.exception and links.link_days(conn) == 60
    assert conn.execute("SELECT actor FROM audit_log WHERE action = 'set_student_link_days'").fetchone()[0] == "test-admin"
