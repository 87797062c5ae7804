"""Notes on the text on the Review page and the student page (AppTest): a teacher adds a note on
picked sentences, a pasted passage not in the text is refused with nothing written, the AI's
suggestion is kept edited or dropped, the passages are highlighted; hostile text in notes and in
the student's text is shown as text, never as Markdown or HTML."""
from __future__ import annotations

from core.signoff import anchored_notes as notes
from core.signoff import release
from core.text import escape_markdown
from anchor_support import annotated_item, approve
from shown import plain
from test_students_page import _student_token

HOSTILE = "**Bold** <script>alert(1)</script> [link](http://x.example) :red[red]"


def opened(app_test, conn, text=None):
    it = annotated_item(conn, **({"text": text} if text else {}))
    at = app_test("pages/review.py")
    at.session_state["course_id"] = it["course_id"]
    at.session_state["assignment_id"] = it["assignment_id"]
    at.run()
    at.button(key=f"open_{it['sid']}").click().run()
    assert not at.exception, at.exception
    return at, it


def _rows(conn):
    return conn.execute("SELECT quote, note, state, origin FROM anchored_notes ORDER BY id").fetchall()


def test_a_teacher_adds_a_note_on_picked_sentences_and_keeps_and_drops_the_ais(app_test, conn):
    at, it = opened(app_test, conn)
    sid = it["sid"]
    # a pasted passage that is not in the text: refused, nothing written
    at.text_input(key=f"an_quote_{sid}").set_value("bananas are yellow")
    at.text_area(key=f"an_new_{sid}").set_value("Hm.")
    at.button(key=f"an_add_{sid}").click().run()
    assert any("That passage is not in the submission" in plain(e.value) for e in at.error)
    assert _rows(conn) == []
    at.text_input(key=f"an_quote_{sid}").set_value("")
    at.multiselect(key=f"an_sent_{sid}").set_value([1])
    at.text_area(key=f"an_new_{sid}").set_value("Why the mean here?")
    at.button(key=f"an_add_{sid}").click().run()
    assert not at.exception, at.exception
    assert "Note added." in [plain(s.value) for s in at.success]
    assert at.text_area(key=f"an_new_{sid}").value == ""                     # the form is cleared
    # the AI's two suggestions: keep one edited, drop the other
    key = f"{sid}_{it['draft_id']}_concept_understanding"
    at.text_area(key=f"an_prop_{key}").set_value("You saw what the outliers did.")
    at.button(key=f"an_keep_{key}").click().run()
    at.button(key=f"an_drop_{sid}_{it['draft_id']}_real_world_application").click().run()
    assert not at.exception, at.exception
    assert _rows(conn) == [("I used the mean to summarise delivery times at work.", "Why the mean here?", "kept",
                            "teacher"),
                           ("the median told the truth better", "You saw what the outliers did.", "kept", "ai"),
                           ("delivery times at work", "A real dataset from the job.", "dropped", "ai")]
    text = "\n".join(m.value for m in at.markdown)
    assert ":blue-background[I used the mean to summarise delivery times at work\\.] :blue-badge[1]" in text
    assert ":blue-background[the median told the truth better] :blue-badge[2]" in text
    assert not [b for b in at.button if b.key and b.key.startswith("an_keep_")]   # nothing left to decide


def test_a_note_is_edited_and_deleted_on_the_page(app_test, conn):
    at, it = opened(app_test, conn)
    n = notes.add(conn, it["sid"], "First words.", actor=it["teacher"], sentences=[2])
    at.run()
    at.text_area(key=f"an_text_{n}").set_value("Better words.")
    at.selectbox(key=f"an_crit_{n}").set_value("clarity")
    at.button(key=f"an_save_{n}").click().run()
    assert conn.execute("SELECT note, criterion FROM anchored_notes").fetchall() == [("Better words.", "clarity")]
    at.button(key=f"an_del_{n}").click().run()
    assert not at.exception, at.exception
    assert _rows(conn) == [] and "Note deleted." in [plain(s.value) for s in at.success]


def test_hostile_notes_and_student_text_render_as_text_on_the_review_item(app_test, conn):
    hostile_text = f"I wrote {HOSTILE} on purpose. Then a plain sentence."
    at, it = opened(app_test, conn, text=hostile_text)
    notes.add(conn, it["sid"], HOSTILE, actor=it["teacher"], quote=HOSTILE)
    at.run()
    assert not at.exception, at.exception
    assert not any(m.allow_html for m in at.markdown if "alert" in m.value)
    shown = [m.value for m in at.markdown if "alert" in m.value]
    assert shown and all("<script>" not in v and "**Bold**" not in v and "](http" not in v and ":red[" not in v
                         for v in shown)
    assert any(escape_markdown(HOSTILE) in v for v in shown)                  # the note, escaped, as typed


def test_a_coordinator_reads_the_notes_but_only_who_may_review_gets_the_buttons(app_test, conn):
    it = annotated_item(conn)
    notes.add(conn, it["sid"], "Why the mean?", actor=it["teacher"], sentences=[1])
    at = app_test("pages/review.py", role="coordinator", courses=[it["course_id"]], names=True)
    at.session_state["course_id"] = it["course_id"]
    at.session_state["assignment_id"] = it["assignment_id"]
    at.run()
    at.button(key=f"open_{it['sid']}").click().run()
    assert not at.exception, at.exception
    assert any("Why the mean?" in m.value for m in at.markdown)
    assert not [b for b in at.button if b.key and b.key.startswith("an_")]


def test_the_student_page_highlights_released_notes_escaped(app_test, conn, db_path):
    hostile_text = f"I wrote {HOSTILE} on purpose. Then a plain sentence."
    it = annotated_item(conn, text=hostile_text)
    notes.add(conn, it["sid"], "Say more <b>here</b> **now**.", actor=it["teacher"], quote="then a plain sentence.")
    approve(conn, it["sid"], it["teacher"])
    out = release.release(conn, it["assignment_id"], actor=it["teacher"])
    at = app_test(signed_in=False)
    at.session_state["_student_token"] = _student_token(db_path, out["links"][0]["url"])
    at.run()
    assert not at.exception, at.exception
    text = "\n".join(m.value for m in at.markdown)
    assert "Notes on your text" in text
    assert ":blue-background[Then a plain sentence\\.] :blue-badge[1]" in text
    assert escape_markdown("Say more <b>here</b> **now**.") in text
    assert "<script>" not in text and "<b>" not in text and not any(m.allow_html for m in at.markdown)
