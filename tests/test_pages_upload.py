"""Upload page (AppTest). File picking cannot be driven in AppTest, so the staged upload is put
where the page keeps it (session_state['upload_sources']); everything after that is the real flow."""
import re

import db as dbmod
from core import demo
from db import submissions
from shown import plain
from core.accounts.access import Actor

CSV = (b"student_id,name,text,clarity_rater1,section\n"
       b"s1,Ada,<script>alert(1)</script> I learned about temperature.,2,A\n"
       b"s2,Grace,,1,B\n")


def _staged(app_test, data=CSV, name="week1.csv"):
    at = app_test("pages/upload.py")
    at.session_state["upload_sources"] = [(name, data)]
    return at.run()


def _button(at, label):
    return next(b for b in at.button if b.label == label)


def _metrics(at):
    return {m.label: m.value for m in at.metric}


def test_empty_database_offers_a_new_course(app_test):
    at = app_test("pages/upload.py").run()
    assert not at.exception
    assert at.selectbox(key="up_course").value == -1
    assert any(t.label == "New course name" for t in at.text_input)
    assert any("Nothing imported yet" in c.value for c in at.caption)


def test_preview_then_import_without_rejected_rows_persists_in_the_db(app_test, conn):
    at = app_test("pages/upload.py").run()
    at.text_input(key="up_new_course").set_value("Spring course")
    at.text_input(key="up_new_title").set_value("Week 1")
    at.session_state["upload_sources"] = [("week1.csv", CSV)]
    at.run()
    assert not at.exception, at.exception
    assert _metrics(at) == {"Ready to import": "1", "Rejected rows": "1", "Duplicates (skipped)": "0"}
    assert at.selectbox(key=next(s.key for s in at.selectbox if s.key.startswith("map_text_"))).value == "text"
    assert all("<script>" not in m.value for m in at.markdown)  # student text only inside data tables
    at.radio(key="up_mode").set_value("skip_rejected").run()
    _button(at, "Import").click().run()
    assert not at.exception
    assert "Imported 1 reflection(s)" in at.success[0].value
    assert submissions.table_counts(conn)["submissions"] == 1
    assert conn.execute("SELECT name FROM courses").fetchone()[0] == "Spring course"
    at.run()  # a rerun reads the import back from the database
    assert any(df.value["imported"].tolist() == [1] for df in at.dataframe)


def test_reject_whole_file_writes_nothing(app_test, conn):
    demo.load_demo(conn, actor=Actor("test", role="admin"))
    at = _staged(app_test)
    before = submissions.table_counts(conn)
    assert at.radio(key="up_mode").value == "all_or_nothing"
    _button(at, "Import").click().run()
    assert "Nothing was imported: 1 row(s) were rejected" in at.error[0].value
    assert submissions.table_counts(conn) == before
    rejected = at.dataframe[-1].value
    assert rejected.iloc[0]["row"] == 3 and rejected.iloc[0]["field"] == "text"


def test_unmapping_the_text_column_explains_what_to_choose(app_test, conn):
    demo.load_demo(conn, actor=Actor("test", role="admin"))
    at = _staged(app_test)
    key = next(s.key for s in at.selectbox if s.key.startswith("map_text_"))
    at.selectbox(key=key).select_index(0).run()  # "— none —"
    assert any("reflection text" in w.value for w in at.warning)
    assert not any(b.label == "Import" for b in at.button)


def test_unreadable_file_shows_the_reason(app_test, conn):
    at = _staged(app_test, b'student_id,text\ns1,"open quote\n', "bad.csv")
    assert not at.exception
    # Escaped Markdown (the message names the file): compare the text as displayed.
    assert "bad.csv is not a well-formed CSV" in at.error[0].value.replace("\\", "")


def test_clear_staged_files(app_test, conn):
    at = _staged(app_test)
    _button(at, "Clear the staged file(s)").click().run()
    assert "upload_sources" not in at.session_state
    assert not at.metric
    dbmod.forget_migrated()


def test_streamlit_upload_limit_matches_the_apps_own_limit():
    """The uploader's "… MB per file" comes from .streamlit/config.toml; the app refuses files
    over core.ingest.read.MAX_FILE_BYTES. Both must say the same."""
    import tomllib
    from pathlib import Path

    from core.ingest.read import MAX_FILE_BYTES

    config = tomllib.loads((Path(__file__).parents[1] / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] * 1024 * 1024 == MAX_FILE_BYTES
    assert config["browser"]["gatherUsageStats"] is False


GOOD_CSV = b"student_id,name,text\ns1,Ada,I learned about temperature and bias in language models.\n"


def test_import_into_a_new_assignment_selects_it_and_clears_the_new_fields(app_test, conn):
    demo.load_demo(conn, actor=Actor("test", role="admin"))
    at = app_test("pages/upload.py").run()
    old = at.session_state["assignment_id"]
    assert at.sidebar.selectbox(key="_pick_assignment").value == old
    at.selectbox(key="up_assignment").set_value(-1).run()
    at.text_input(key="up_new_title").set_value("Week 9 essay")
    at.number_input(key="up_week").set_value(9)
    at.session_state["upload_sources"] = [("week9.csv", GOOD_CSV)]
    at.run()
    _button(at, "Import").click().run()
    assert not at.exception, at.exception
    new = conn.execute("SELECT id, course_id FROM assignments WHERE title = 'Week 9 essay'").fetchone()
    assert new[0] != old
    # The sidebar (which Assess and Review read) follows the import, and so does this page.
    assert at.session_state["assignment_id"] == new[0] and at.session_state["course_id"] == new[1]
    assert at.sidebar.selectbox(key="_pick_assignment").value == new[0]
    assert at.selectbox(key="up_assignment").value == new[0]
    at.run()  # the selection holds on later runs
    assert at.session_state["assignment_id"] == new[0]
    # Assess then runs the imported assignment, not the one selected before.
    at.switch_page("pages/assess.py").run()
    assert not at.exception, at.exception
    assert "Week 9: Week 9 essay" in plain(at.radio(key="assess_scope").options[0])
    assert {m.label: m.value for m in at.metric}["Submissions to assess"] == "1"
    at.switch_page("pages/upload.py").run()
    # "+ New assignment" starts empty again.
    at.selectbox(key="up_assignment").set_value(-1).run()
    assert at.text_input(key="up_new_title").value == "" and at.number_input(key="up_week").value is None


def test_import_into_a_new_course_selects_it(app_test, conn):
    at = app_test("pages/upload.py").run()
    at.text_input(key="up_new_course").set_value("Autumn course")
    at.text_input(key="up_new_title").set_value("Week 1")
    at.session_state["upload_sources"] = [("w1.csv", GOOD_CSV)]
    at.run()
    _button(at, "Import").click().run()
    assert not at.exception, at.exception
    cid, aid = conn.execute("SELECT a.course_id, a.id FROM assignments a JOIN courses c ON c.id = a.course_id "
                          "WHERE c.name = 'Autumn course'").fetchone()
    assert (at.session_state["course_id"], at.session_state["assignment_id"]) == (cid, aid)
    assert at.sidebar.selectbox(key="_pick_course").value == cid
    assert at.selectbox(key="up_course").value == cid


def test_import_into_a_new_course_puts_it_in_the_address_and_a_refresh_stays_there(app_test, conn):
    """Issue 21 item 12: after importing into a new course the address kept course=1 (the Upload page ends
    with st.stop(), after which the address written at the end never reached the browser)."""
    demo.load_demo(conn, actor=Actor("test", role="admin"))
    at = app_test("pages/upload.py").run()
    assert at.query_params["course"] == "1"
    at.selectbox(key="up_course").set_value(-1).run()
    at.text_input(key="up_new_course").set_value("Autumn course")
    at.text_input(key="up_new_title").set_value("Week 1")
    at.session_state["upload_sources"] = [("w1.csv", GOOD_CSV)]
    at.run()
    _button(at, "Import").click().run()
    assert not at.exception, at.exception
    cid, aid = conn.execute("SELECT a.course_id, a.id FROM assignments a JOIN courses c ON c.id = a.course_id "
                            "WHERE c.name = 'Autumn course'").fetchone()
    assert at.query_params["course"] == str(cid) and at.query_params["assignment"] == str(aid)
    refreshed = app_test("pages/upload.py")          # a refresh: a new session with the same address
    for key, value in at.query_params.items():
        refreshed.query_params[key] = value
    refreshed.run()
    assert not refreshed.exception
    assert refreshed.session_state["course_id"] == cid and refreshed.sidebar.selectbox(key="_pick_course").value == cid


def test_recent_imports_show_readable_times_and_zero_rejected(app_test, conn):
    demo.load_demo(conn, actor=Actor("test", role="admin"))
    at = app_test("pages/upload.py").run()
    recent = next(df.value for df in at.dataframe if "when" in df.value.columns)
    when = recent["when"].iloc[0]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", when), when
    assert recent["rejected rows left out"].tolist() == [0]


def test_an_unreadable_zip_member_is_listed_as_a_whole_file_in_plain_words(app_test, conn):
    """Issue 11 item 13: rejected ZIP members showed row "None" and an exception class name."""
    import io
    import zipfile

    demo.load_demo(conn, actor=Actor("test", role="admin"))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("w1.csv", b"student_id,text\ns1,I learned about temperature and bias at work.\n")
        zf.writestr("broken.xlsx", b"not a workbook")
    at = _staged(app_test, buf.getvalue(), "class.zip")
    assert not at.exception, at.exception
    rejected = at.dataframe[-1].value
    row = rejected[rejected["file"] == "class.zip/broken.xlsx"].iloc[0]
    assert row["row"] == "whole file" and "None" not in rejected.astype(str).to_string()
    assert "damaged or not really an .xlsx file" in row["message"] and "Error" not in row["message"]
