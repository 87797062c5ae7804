"""The review item's comment bank panel (AppTest): a bank comment inserted after the chosen
sentence of the comment box and counted, the comment's sentence saved to the bank, a student's
name refused, and hostile bank text shown as text."""
from __future__ import annotations

import factories as f
from core.courses import comment_bank as bank
from shown import plain

HIGH = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 3}
HOSTILE = "**Bold** <script>alert(1)</script> [link](http://x.example)"


def opened(app_test, conn):
    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], name="Ana Silva"), "My text.")
    f.draft(conn, sid, HIGH, comment="You explain it well. Add an example.")
    at = app_test("pages/review.py")
    at.session_state["course_id"] = c["course_id"]
    at.session_state["assignment_id"] = c["assignment_id"]
    at.run()
    at.button(key=f"open_{sid}").click().run()
    assert not at.exception, at.exception
    return at, c, sid


def comment_box(at):
    return next(t for t in at.text_area if t.key and t.key.startswith("ri_comment_"))


def test_insert_after_a_sentence_and_save_one_to_the_bank(app_test, conn):
    at, c, sid = opened(app_test, conn)
    cid = c["course_id"]
    b = bank.add(conn, cid, "Name one source.", actor=f.actor("test-admin"), mine=False)
    at.run()
    k = comment_box(at).key.removeprefix("ri_comment_")
    at.selectbox(key=f"cb_where_{k}").set_value(0).run()
    at.button(key=f"cb_insert_{k}").click().run()
    assert not at.exception, at.exception
    assert comment_box(at).value == "You explain it well. Name one source. Add an example."
    assert bank.search(conn, cid, actor=f.actor("test-admin"))["course"][0]["uses"] == 1
    # save the comment's third sentence into my own bank
    at.selectbox(key=f"cb_what_{k}").set_value(2).run()
    at.button(key=f"cb_save_{k}").click().run()
    assert "Saved to the bank." in [plain(s.value) for s in at.success]
    assert [r["text"] for r in bank.search(conn, cid, actor=f.actor("test-admin"))["mine"]] == ["Add an example."]
    assert b in [r["id"] for r in bank.search(conn, cid, actor=f.actor("test-admin"))["course"]]


def test_a_students_name_is_refused_and_nothing_saved(app_test, conn):
    at, c, sid = opened(app_test, conn)
    box = comment_box(at)
    k = box.key.removeprefix("ri_comment_")
    box.set_value("Well done, Ana Silva.").run()
    at.button(key=f"cb_save_{k}").click().run()
    assert any("names a student" in plain(e.value) for e in at.error)
    assert conn.execute("SELECT COUNT(*) FROM bank_comments").fetchone()[0] == 0


def test_hostile_bank_text_renders_as_text(app_test, conn):
    at, c, sid = opened(app_test, conn)
    bank.add(conn, c["course_id"], HOSTILE, actor=f.actor("test-admin"), mine=False)
    at.run()
    assert not at.exception, at.exception
    assert HOSTILE in [t.value for t in at.text]                     # st.text: shown exactly, as text
    # the selectbox option shows it as typed (options are plain text), and no Markdown element
    # renders it: no bold, no link, no script
    k = comment_box(at).key.removeprefix("ri_comment_")
    assert HOSTILE[:40] in at.selectbox(key=f"cb_pick_{k}").options[0]
    assert not any("<script>" in m.value and m.allow_html for m in at.markdown)
    assert not any("[link](http://x.example)" in m.value for m in at.markdown)
