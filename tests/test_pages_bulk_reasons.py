"""The Review and Calibrate pages say why an item is kept out of bulk approval (issue 22) and show
no Reviewer verdict for the offline baseline (issue 21 item 7) (AppTest, real SQLite file)."""
from __future__ import annotations

import json

import factories as f
from core.accounts.access import Actor
from core.signoff import eligibility
from shown import plain
from test_bulk_eligibility import band_gap_course
from test_pages_calibrate import page, shown

HIGH = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 3}
SPLIT = eligibility.reason("votes_split", "The two judges gave 1 and 3 for Reflection depth; the draft says 3. "
                                          "Check this score before approving.", ["reflection_depth"])


def review_page(app_test, c):
    at = app_test("pages/review.py")
    at.session_state["course_id"] = c["course_id"]
    at.session_state["assignment_id"] = c["assignment_id"]
    return at.run()


def test_the_item_and_its_queue_row_say_why_it_is_not_for_bulk_approval(app_test, conn):
    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], name="Ann Lee"))
    did = f.draft(conn, sid, HIGH)
    conn.execute("UPDATE drafts SET held_back = ? WHERE id = ?", [json.dumps([SPLIT]), did])
    offline = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], name="Bo Kim"))
    f.draft(conn, offline, HIGH, is_offline=True, verdict=None)
    at = review_page(app_test, c)
    assert not at.exception, at.exception
    captions = [plain(x.value) for x in at.caption]
    assert any("judges disagree" in x for x in captions)
    assert not any("verdict" in x.lower() and "offline" in x.lower() for x in captions)   # no verdict beside it
    at.button(key=f"open_{sid}").click().run()
    assert not at.exception, at.exception
    box = next(plain(i.value) for i in at.info if "Not for bulk approval" in str(i.value))
    assert "The two judges gave 1 and 3 for Reflection depth; the draft says 3." in box


def test_an_offline_draft_shows_no_reviewer_verdict_anywhere_on_its_item(app_test, conn, db_path):
    from assess_script import RICH_TEXT
    from core import pipeline

    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT)
    pipeline.assess_submission(db_path, sid, pipeline.make_llm("offline", db_path))
    at = review_page(app_test, c)
    at.button(key=f"open_{sid}").click().run()
    assert not at.exception, at.exception
    text = "\n".join(str(e.value) for kind in ("markdown", "caption", "text", "subheader", "info", "warning")
                     for e in getattr(at, kind))
    assert "Rule-based review" in text and "CONFIDENT" not in text and "Verdict" not in text


def test_the_readiness_view_says_the_band_gap_holds_the_low_band_back(app_test, conn):
    c = band_gap_course(conn)
    at = page(app_test, c, actor=Actor("ann", role="admin"))
    assert not at.exception, at.exception
    text = plain(shown(at))
    assert "Band gap: ΔMAE (low band − high band) +0.50" in text
    assert "Drafts the AI put in the low band are not approved in bulk." in text
