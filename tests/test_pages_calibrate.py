"""Calibrate page and the calibration hooks of Review, Home, Upload and Settings (AppTest): a
calibration item's AI draft cannot be seen anywhere before a blind score is saved."""
from __future__ import annotations

import factories as f
from shown import plain
from core.calibration import blind, draw, readiness
from db import calibration
from core.accounts.access import Actor

SCORES = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 1}
TEXT = "This week I learned that temperature controls how random a language model's answers are. Item"


def seeded(conn, n=6):
    c = f.course(conn)
    sids = []
    for i in range(n):
        st = f.student(conn, c["course_id"], external_id=f"s{i}", name=f"Name {i}")
        sid = f.submission(conn, c["assignment_id"], st, text=f"{TEXT} {i}.")
        f.draft(conn, sid, SCORES, comment=f"SECRET AI COMMENT {i}")
        sids.append(sid)
    return c, sids


def page(app_test, c, path="pages/calibrate.py", actor=Actor("ann", role="admin")):
    at = app_test(path, user=str(actor))
    at.session_state["course_id"] = c["course_id"]
    at.session_state["assignment_id"] = c["assignment_id"]
    return at.run()


def shown(at) -> str:
    """Everything a teacher could read on the page (texts, labels, options, tables)."""
    parts = []
    for kind in ("markdown", "text", "caption", "info", "warning", "error", "success", "subheader", "title"):
        parts += [str(e.value) for e in getattr(at, kind)]
    for box in at.selectbox:
        parts += [box.label, *map(str, box.options)]
    parts += [m.label + str(m.value) for m in at.metric]
    parts += [d.value.to_string() for d in at.dataframe]
    return "\n".join(parts)


def test_scoring_blind_hides_the_ai_until_saved_then_shows_it(conn, app_test):
    c, sids = seeded(conn)
    at = page(app_test, c)
    assert not at.exception, at.exception
    assert "AI not yet calibrated for this assignment" in shown(at)
    at.button(key="FormSubmitter:cal_draw-Draw the calibration set").click().run()
    assert not at.exception, at.exception
    items = draw.state(conn, c["assignment_id"], actor=Actor("test", role="admin")).items
    assert len(items) == 6 and "SECRET AI COMMENT" not in shown(at)
    sid = items[0]["submission_id"]
    at.button(key=f"cal_open_{sid}").click().run()
    page_text = shown(at)
    assert TEXT in page_text and "SECRET AI COMMENT" not in page_text
    assert "AI" not in " ".join(b.label for b in at.selectbox)   # no "(AI: 3)" in the score pickers
    save = at.button(key=f"cal_save_{sid}")
    assert save.disabled  # every criterion must be scored
    for box in at.selectbox:
        if box.key and box.key.startswith(f"cal_score_{sid}_"):
            box.set_value(2)
    at.run()
    at.button(key=f"cal_save_{sid}").click().run()
    assert not at.exception, at.exception
    assert calibration.scores_of(conn, sid) == {"ann": dict.fromkeys(SCORES, 2)}
    after = shown(at)
    i = sids.index(sid)
    assert f"SECRET AI COMMENT {i}" in after and "Saved. Here is how the AI scored it." in after
    table = next(d.value for d in at.dataframe if "You (blind)" in d.value.columns)
    assert table["AI"].tolist() == list(SCORES.values()) and set(table["You (blind)"]) == {2}


def test_the_calibration_list_shows_no_ai_band_until_you_scored_the_item(conn, app_test):
    c, sids = seeded(conn, 4)
    at = page(app_test, c)
    at.button(key="FormSubmitter:cal_draw-Draw the calibration set").click().run()
    assert not at.exception, at.exception

    def bands(at):   # the items' stratum captions that name the AI's band
        return [cap.value for cap in at.caption if cap.value.startswith(("low band", "high band"))]

    assert sum(cap.value.startswith(("shorter half", "longer half")) for cap in at.caption) == 4
    assert bands(at) == [] and "low band ·" not in shown(at) and "high band ·" not in shown(at)
    blind.save(conn, sids[0], dict.fromkeys(SCORES, 2), actor=Actor("ann", role="admin"))
    at.run()
    assert len(bands(at)) == 1   # the one Ann scored
    at = page(app_test, c, actor=Actor("bob", role="admin"))   # Bob has scored none of them
    assert bands(at) == [] and "low band ·" not in shown(at) and "high band ·" not in shown(at)


def test_the_review_page_links_a_pending_item_to_calibrate_and_shows_nothing_of_it(conn, app_test):
    c, sids = seeded(conn, 2)
    calibration.add_items(conn, c["assignment_id"], [(sids[0], None, "t")], actor="ann", at="2025-01-01")
    at = app_test("pages/review.py")
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.query_params["item"] = str(sids[0])
    at.run()
    assert not at.exception, at.exception
    link = next(x.proto for x in at.get("page_link") if x.proto.label == "Score it blind on Calibrate")
    assert link.page == "calibrate"
    text = shown(at)
    assert "SECRET AI COMMENT" not in text and "(AI:" not in text and "Total" not in text


def test_the_calibrate_banner_does_not_send_you_to_the_page_you_are_on(conn, app_test):
    c, _ = seeded(conn, 2)
    at = page(app_test, c)
    assert not at.exception, at.exception
    banner = next(w.value for w in at.warning if "AI not yet calibrated" in w.value)
    assert "no blind scores yet" in banner and "Calibrate page" not in banner
    assert "Draw a calibration set and score it blind" in banner


def test_a_second_teacher_does_not_see_the_first_ones_scores_before_saving(conn, app_test):
    c, sids = seeded(conn, 2)
    draw.draw(conn, c["assignment_id"], size=2, actor=Actor("ann", role="admin"))
    blind.save(conn, sids[0], dict.fromkeys(SCORES, 0), actor=Actor("ann", role="admin"))
    at = page(app_test, c, actor=Actor("bob", role="admin"))
    at.button(key=f"cal_open_{sids[0]}").click().run()
    text = shown(at)
    assert "ann (blind)" not in text and "SECRET AI COMMENT" not in text


def test_review_item_and_queue_hide_a_pending_calibration_item(conn, app_test):
    c, sids = seeded(conn, 3)
    calibration.add_items(conn, c["assignment_id"], [(sids[0], None, "t")], actor=Actor("ann", role="admin"), at="2025-01-01")
    at = page(app_test, c, "pages/review.py")
    assert not at.exception, at.exception
    assert f"open_{sids[0]}" not in [b.key for b in at.button]
    assert "1 item(s) of the calibration set wait for a blind score" in shown(at)
    at = app_test("pages/review.py")
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.query_params["item"] = str(sids[0])  # a deep link straight to the hidden item
    at.run()
    assert not at.exception, at.exception
    text = shown(at)
    assert "score it blind on the Calibrate page" in text and "SECRET AI COMMENT" not in text
    assert not [b for b in at.button if b.key and b.key.startswith("ri_approve_")]


def test_review_item_says_not_calibrated_and_bulk_approval_is_off(conn, app_test):
    c, sids = seeded(conn, 3)
    at = page(app_test, c, "pages/review.py")
    at.toggle(key="rq_bulk").set_value(True).run()
    assert any("Bulk approval is off: AI not yet calibrated" in i.value for i in at.info)
    assert not [b for b in at.button if b.key == "rq_draw"]
    at.button(key=f"open_{sids[1]}").click().run()
    assert "AI not yet calibrated for this assignment" in shown(at)


def test_home_shows_which_assignments_are_ready(conn, app_test):
    c, sids = seeded(conn, 3)
    draw.draw(conn, c["assignment_id"], size=2, actor=Actor("ann", role="admin"))
    at = page(app_test, c, "pages/home.py")
    assert not at.exception, at.exception
    table = next(d.value for d in at.dataframe if "AI ready" in d.value.columns)
    row = table.iloc[0]
    assert row["AI ready"] == "Not calibrated" and row["Waiting for a blind score"] == 2
    assert row["More blind scores likely needed"] == "16"


def test_settings_saves_the_bar(conn, app_test):
    c, _ = seeded(conn, 1)
    at = page(app_test, c, "pages/settings.py", actor=Actor("admin", role="admin"))
    at.number_input(key="bar_students").set_value(20)
    at.number_input(key="bar_qwk").set_value(0.7)
    at.button(key="FormSubmitter:cal_bar-Save the bar").click().run()
    assert not at.exception, at.exception
    assert readiness.get_bar(conn) == readiness.Bar(min_students=20, qwk_min=0.7)


def test_upload_can_declare_the_scores_blind_calibration_scores(app_test, conn):
    at = app_test("pages/upload.py").run()
    at.text_input(key="up_new_course").set_value("Spring course")
    at.text_input(key="up_new_title").set_value("Week 1")
    at.session_state["upload_sources"] = [("week1.csv", b"student_id,name,text,clarity_rater1\n"
                                                        b"s1,Ada,I learned about temperature.,2\n")]
    at.run()
    choice = next(r for r in at.radio if r.key and r.key.startswith("map_scores_are_"))
    assert choice.value == "reference"  # the default keeps today's meaning
    choice.set_value("calibration").run()
    next(b for b in at.button if b.label == "Import").click().run()
    assert not at.exception, at.exception
    assert conn.execute("SELECT rater, criterion, score, source FROM calibration_scores").fetchall() == [
        ("rater1", "clarity", 2.0, "upload")]
    assert conn.execute("SELECT COUNT(*) FROM reference_scores").fetchone()[0] == 0


def test_the_readiness_view_says_when_every_judge_is_of_one_model_family(conn, app_test, monkeypatch):
    """Issue 22 point 3: with one family configured the readiness view says so (and says nothing
    of the kind with a judge of another family)."""
    c, _ = seeded(conn, 2)
    monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("FAIRMARK_LLM_MODEL", "gpt-4o-mini")
    at = page(app_test, c)
    assert not at.exception, at.exception
    assert any("one model family (gpt)" in plain(w.value) for w in at.warning)
    monkeypatch.setenv("FAIRMARK_JUDGES", '[{"name": "b", "model": "claude-3-5-haiku"}]')
    at = page(app_test, c)
    assert not any("one model family" in plain(w.value) for w in at.warning)
