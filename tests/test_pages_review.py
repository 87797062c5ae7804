"""Review page (AppTest): queue order, edit with reasons, approve/reject/regenerate, precedence of
the teacher's version, version conflicts, bulk approval preconditions."""
from __future__ import annotations

import re

import pytest

import factories as f
from core.signoff import actions, bulk
from db import drafts, releases, reviews, submissions
from shown import plain
from core.accounts.access import Actor

HIGH = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 3}
LOW = {"concept_understanding": 1, "real_world_application": 0, "reflection_depth": 1, "clarity": 1}
TEXT = ("This week I learned that temperature controls how random a language model's answers are. "
        "When I tried it, a high temperature gave creative but unreliable text. <b>bold?</b>")


@pytest.fixture
def seeded(conn):
    c = f.course(conn)
    aid = c["assignment_id"]
    ids = {}

    def add(key, scores, **kw):
        st_id = f.student(conn, c["course_id"], external_id=key, name=f"Name {key}")
        sid = f.submission(conn, aid, st_id, text=f"{TEXT} ({key})")
        f.draft(conn, sid, scores, **kw)
        ids[key] = sid

    add("rest", HIGH)
    add("low", LOW)
    add("attention", HIGH, status="needs_attention", flags=["injection"])
    add("unsure", HIGH, confidence=0.3)
    return c, ids


def review_page(app_test, c):
    """AppTest runs the page script alone after switch_page, so set the sidebar's selection."""
    at = app_test("pages/review.py")
    at.session_state["course_id"] = c["course_id"]
    at.session_state["assignment_id"] = c["assignment_id"]
    return at.run()


def open_buttons(at):
    return [b.key for b in at.button if b.key and b.key.startswith("open_")]


def open_item(at, sid):
    at.button(key=f"open_{sid}").click().run()
    assert not at.exception, at.exception
    return at


def test_queue_is_ordered_by_need_and_filters(app_test, seeded):
    c, ids = seeded
    at = review_page(app_test, c)
    assert not at.exception, at.exception
    assert open_buttons(at) == [f"open_{ids[k]}" for k in ("attention", "unsure", "low", "rest")]
    assert [m.label for m in at.metric] == ["Needs attention", "Low confidence / judges disagree",
                                             "Predicted low band", "Other drafts"]
    at.text_input(key="rq_search").set_value("(low)").run()
    assert open_buttons(at) == [f"open_{ids['low']}"]
    at.text_input(key="rq_search").set_value("").run()
    at.selectbox(key="rq_flag").set_value("injection").run()
    assert open_buttons(at) == [f"open_{ids['attention']}"]


def test_student_text_is_never_html(app_test, seeded, conn):
    c, ids = seeded
    at = open_item(review_page(app_test, c), ids["rest"])
    md = [m.value for m in at.markdown if "temperature" in m.value]
    assert md and all("<b>" not in v for v in md) and any("\\<b\\>" in v for v in md)

    # Markdown link / image syntax in a name or comment never renders as a link or a tracking image:
    # not in the header, the conflict message, nor the "Approved …" message.
    evil = "Eve ![t](https://tracker.example/p.png) [x](https://phish.example)"
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], external_id="evil", name=evil),
                       text=f"{TEXT} {evil}")
    f.draft(conn, sid, HIGH, comment=f"You wrote {evil}. What next?")
    at.button(key="ri_back").click().run()
    at = open_item(at, sid)
    actions.save_edit(conn, sid, version=1, scores=HIGH, comment=f"Bob quotes {evil}. What next?", reasons=["tone"],
                     actor=Actor("bob", role="admin"))
    shown = []

    def collect():
        shown.extend(e.value for kind in ("markdown", "caption", "success", "error", "warning", "info", "toast")
                     for e in getattr(at, kind))

    at.button(key=f"ri_approve_{sid}_1").click().run()  # refused: Bob saved first
    assert any("your change was not saved" in e.value for e in at.error)
    collect()
    at.button(key=f"ri_reload_{sid}").click().run()
    at.button(key=f"ri_approve_{sid}_2").click().run()
    assert not at.exception, at.exception
    assert reviews.get_review(conn, sid)["status"] == "approved" and any("Approved Eve" in s.value for s in at.success)
    collect()
    assert any("tracker" in v for v in shown) and any("phish" in v for v in shown)
    assert not [v for v in shown if "![t](" in v or "[x](" in v or "](https" in v]


def test_edit_needs_reason_then_approve_moves_to_next(app_test, seeded, conn):
    c, ids = seeded
    at = open_item(review_page(app_test, c), ids["unsure"])
    sid = ids["unsure"]
    at.selectbox(key=f"ri_score_{sid}_1_clarity").set_value(1).run()
    at.button(key=f"ri_approve_{sid}_1").click().run()
    assert any("reason" in e.value for e in at.error)
    assert submissions.get_submission(conn, sid)["status"] == "drafted"
    at.multiselect(key=f"ri_reasons_{sid}_1").set_value(["too_lenient"]).run()
    at.button(key=f"ri_approve_{sid}_1").click().run()
    assert not at.exception, at.exception
    rv = reviews.get_review(conn, sid)
    assert rv["status"] == "approved" and rv["scores"]["clarity"] == 1 and rv["reason_codes"] == ["too_lenient"]
    assert [h["action"] for h in reviews.history(conn, sid)] == ["open", "edit", "approve"]
    assert any("Approved Name unsure" in s.value for s in at.success)
    # The approved item stays on screen (a second click cannot land on the next one), marked.
    assert at.session_state["review_item"] == sid
    assert at.button(key=f"ri_approve_{sid}_3").disabled and at.button(key=f"ri_approve_{sid}_3").label == "Approved"
    # Place kept: the next item in the queue after "unsure" is "low".
    at.button(key=f"ri_nextdecide_{sid}_3").click().run()
    assert at.session_state["review_item"] == ids["low"]


def test_reject_needs_note(app_test, seeded, conn):
    c, ids = seeded
    sid = ids["attention"]
    at = open_item(review_page(app_test, c), sid)
    at.button(key=f"ri_reject_{sid}_1").click().run()
    assert any("why you reject" in e.value for e in at.error)
    at.text_input(key=f"ri_note_{sid}_1").set_value("Scores look steered by the injection").run()
    at.button(key=f"ri_reject_{sid}_1").click().run()
    assert reviews.get_review(conn, sid)["status"] == "rejected"
    assert submissions.get_submission(conn, sid)["status"] == "rejected"


def test_second_reviewer_conflict_is_refused_and_explained(app_test, seeded, conn):
    c, ids = seeded
    sid = ids["rest"]
    at = open_item(review_page(app_test, c), sid)
    # Another teacher saves first.
    actions.save_edit(conn, sid, version=1, scores=dict(HIGH, clarity=2), comment="Bob's comment.",
                     reasons=["tone"], actor=Actor("bob", role="admin"))
    at.selectbox(key=f"ri_score_{sid}_1_clarity").set_value(0)
    at.multiselect(key=f"ri_reasons_{sid}_1").set_value(["too_lenient"])
    at.button(key=f"ri_save_{sid}_1").click().run()
    errors = " ".join(plain(e.value) for e in at.error)
    # In a teacher's words: who, a readable time, criterion titles, no codes or version numbers.
    assert "bob saved this item just now " in errors and "your change was not saved" in errors
    assert "Clarity: 3 → 2" in errors and "score: clarity" not in errors and "Reasons: — → Tone" in errors
    assert "reason_codes" not in errors and not re.search(r"\d{4}-\d\d-\d\d", errors)  # no raw ISO timestamp
    assert reviews.get_review(conn, sid)["scores"]["clarity"] == 2
    assert any("Load the latest version" == b.label for b in at.button)
    at.button(key=f"ri_reload_{sid}").click().run()
    assert at.selectbox(key=f"ri_score_{sid}_2_clarity").value == 2


def test_regenerate_keeps_teachers_version_until_chosen(app_test, seeded, conn):
    c, ids = seeded
    sid = ids["low"]
    at = open_item(review_page(app_test, c), sid)
    at.selectbox(key=f"ri_score_{sid}_1_clarity").set_value(3)
    at.text_area(key=f"ri_comment_{sid}_1").set_value("My own comment. What next?")
    at.multiselect(key=f"ri_reasons_{sid}_1").set_value(["too_harsh"])
    at.button(key=f"ri_save_{sid}_1").click().run()
    mine = reviews.get_review(conn, sid)
    assert mine["version"] == 2 and mine["comment"] == "My own comment. What next?"
    drafts_before = len(drafts.drafts_of(conn, sid))
    regen = next(b for b in at.button if b.key and b.key.startswith(f"ri_regen_{sid}_2_"))
    regen.click().run()  # the real pipeline, offline provider
    assert not at.exception, at.exception
    assert len(drafts.drafts_of(conn, sid)) == drafts_before + 1
    assert actions.snapshot(reviews.get_review(conn, sid)) == actions.snapshot(mine)
    assert at.text_area(key=f"ri_comment_{sid}_2").value == "My own comment. What next?"
    new_id = drafts.latest_draft_id(conn, sid)
    assert any("newer AI draft" in m.value for m in at.markdown)
    # The new draft's scores are shown with the rubric's titles, not the criterion keys.
    offered = [t.value for t in at.text if " · total " in t.value]
    assert offered and offered[0].startswith("Concept understanding: ") and "_" not in offered[0]
    at.button(key=f"ri_use_{new_id}_2").click().run()
    rv = reviews.get_review(conn, sid)
    assert rv["draft_id"] == new_id and rv["comment"] == drafts.get_draft(conn, new_id)["comment"]


def test_previous_next_and_back_keep_place(app_test, seeded):
    c, ids = seeded
    at = open_item(review_page(app_test, c), ids["unsure"])
    assert at.query_params["item"] == [str(ids["unsure"])] or at.query_params["item"] == str(ids["unsure"])
    at.button(key="ri_next").click().run()
    assert at.session_state["review_item"] == ids["low"]
    at.button(key="ri_prev").click().run()
    at.button(key="ri_prev").click().run()
    assert at.session_state["review_item"] == ids["attention"]
    at.button(key="ri_back").click().run()
    assert open_buttons(at)


def test_bulk_approve_only_after_sample_opened_with_confirmation(app_test, conn, monkeypatch):
    from core.calibration import readiness

    # calibrated (see test_calibration): the page's view and bulk_approve's gate both ask block_text
    monkeypatch.setattr(readiness, "block_text", lambda conn, assignment_id, r: None)
    c = f.course(conn)
    aid = c["assignment_id"]
    ids = []
    for i, scores in enumerate([HIGH] * 4 + [LOW] * 2):
        sid = f.submission(conn, aid, f.student(conn, c["course_id"]), text=f"{TEXT} {i}")
        f.draft(conn, sid, scores)
        ids.append(sid)
    at = review_page(app_test, c)
    at.toggle(key="rq_bulk").set_value(True).run()
    go = at.button(key="rq_bulk_go")
    assert go.disabled and "6 items" in go.label
    at.button(key="rq_draw").click().run()
    sample = bulk.sample_state(conn, aid, actor=Actor("test", role="admin")).sample
    assert {s["band"] for s in sample} == {"high", "low"}
    assert at.button(key="rq_bulk_go").disabled
    for s in sample:
        at.button(key=f"sample_{s['submission_id']}").click().run()
        assert at.session_state["review_item"] == s["submission_id"]
        at.button(key="ri_back").click().run()
    assert not at.button(key="rq_bulk_go").disabled
    at.button(key="rq_bulk_go").click().run()
    assert any("Approve **6** drafts" in m.value for m in at.markdown)
    assert releases.release_overview(conn, aid).approved_unreleased == 0  # nothing before confirming
    at.button(key="rq_confirm_yes").click().run()
    assert not at.exception, at.exception
    assert releases.release_overview(conn, aid).approved_unreleased == 6
    assert any("Approved 6 items" in s.value for s in at.success)


def test_item_page_shows_a_draft_without_comment_or_review(conn, db_path, app_test):
    """The Aggregator failed: the scores stand, the page explains why there is no comment."""
    import factories
    from assess_script import RICH_TEXT, good_llm
    from core import pipeline
    from core.errors import LLMTimeout

    c = factories.course(conn)
    sub = factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]), RICH_TEXT)
    llm = good_llm()
    llm.script("aggregator", LLMTimeout("no answer"))
    pipeline.assess_one(db_path, sub, llm=llm)
    at = app_test("pages/review.py")
    at.query_params["item"] = str(sub)
    at.run()
    assert not at.exception, at.exception
    texts = " ".join(str(e.value) for e in list(at.markdown) + list(at.caption) + list(at.warning) + list(at.error) + list(at.info))
    assert "Aggregator failed" in texts


ALL_LABELS = (("rq_status", "All drafted"), ("rq_group", "All groups"), ("rq_criterion", "Any criterion"),
              ("rq_flag", "Any or none"))


def assert_filters_show_all(at):
    for key, label in ALL_LABELS:
        box = at.selectbox(key=key)
        assert box.value == "all" and box.options[box.index] == label, (key, box.value)


def test_filters_keep_their_all_labels_after_reruns_paging_and_items(app_test, conn):
    """Regression: keep_filters() wrote None back and the boxes showed "Choose an option"."""
    c = f.course(conn)
    for i in range(27):
        sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), text=f"{TEXT} {i}")
        f.draft(conn, sid, HIGH)
    at = review_page(app_test, c)
    assert_filters_show_all(at)
    at.run()
    assert_filters_show_all(at)
    at.button(key="rq_next").click().run()
    assert not at.exception, at.exception
    assert "Page 2" in [cap.value for cap in at.caption]
    assert_filters_show_all(at)
    at = open_item(at, int(open_buttons(at)[0].split("_")[1]))
    at.button(key="ri_back").click().run()
    assert_filters_show_all(at)
    at.selectbox(key="rq_status").set_value("needs_attention").run()
    assert at.selectbox(key="rq_status").value == "needs_attention"
    at.selectbox(key="rq_status").set_value("all").run()
    assert_filters_show_all(at)
    assert len(open_buttons(at)) == 25


def test_own_reject_is_not_reported_as_a_conflict_when_coming_back(app_test, seeded, conn):
    c, ids = seeded
    sid = ids["attention"]
    at = open_item(review_page(app_test, c), sid)
    at.text_input(key=f"ri_note_{sid}_1").set_value("Scores look steered").run()
    at.button(key=f"ri_reject_{sid}_1").click().run()
    assert not at.exception, at.exception
    assert reviews.get_review(conn, sid)["status"] == "rejected"
    at.button(key="ri_back").click().run()
    at = open_item(at, sid)
    assert not [w.value for w in at.warning if "changed since you opened" in w.value]
    assert at.button(key=f"ri_save_{sid}_2")  # the widgets carry the version after the reject


def test_approving_the_last_undecided_item_goes_back_to_the_queue(app_test, seeded, conn):
    c, ids = seeded
    for key in ("attention", "unsure", "low"):
        actions.open_item(conn, ids[key], actor=Actor("ann", role="admin"))
        actions.approve(conn, ids[key], version=1, actor=Actor("ann", role="admin"))
    sid = ids["rest"]
    at = open_item(review_page(app_test, c), sid)
    at.button(key=f"ri_approve_{sid}_1").click().run()
    assert not at.exception, at.exception
    at.button(key=f"ri_nextdecide_{sid}_2").click().run()
    assert "review_item" not in at.session_state  # not an already-approved item
    assert any("Nothing left to decide in this assignment" in s.value for s in at.success)
    assert open_buttons(at)


def test_approving_the_last_item_in_order_moves_to_an_earlier_undecided_one(app_test, seeded, conn):
    c, ids = seeded
    sid = ids["rest"]  # last in queue order; "attention", "unsure", "low" still wait
    at = open_item(review_page(app_test, c), sid)
    at.button(key=f"ri_approve_{sid}_1").click().run()
    at.button(key=f"ri_nextdecide_{sid}_2").click().run()
    assert at.session_state["review_item"] == ids["attention"]


def test_teachers_see_labels_not_internal_codes(app_test, seeded, conn):
    c, ids = seeded
    at = review_page(app_test, c)
    captions = " ".join(x.value for x in at.caption)
    assert "Injection attempt" in captions and "injection" not in captions
    assert "Reviewer: confident" in plain(captions) and "CONFIDENT" not in captions
    at.toggle(key="rq_bulk").set_value(True).run()
    assert "the Reviewer confirmed the comment" in at.toggle(key="rq_bulk").help
    assert "CONFIDENT" not in at.toggle(key="rq_bulk").help
    sid = ids["attention"]
    at = open_item(at, sid)
    md = " ".join(m.value for m in at.markdown)
    assert "status: Needs attention" in md and "needs_attention" not in md
    assert "Reviewer: confident** after 0 revision rounds" in plain(md) and "CONFIDENT" not in md
    at.selectbox(key=f"ri_score_{sid}_1_real_world_application").set_value(1)
    at.multiselect(key=f"ri_reasons_{sid}_1").set_value(["too_harsh", "tone"])
    at.text_input(key=f"ri_note_{sid}_1").set_value("kinder")
    at.button(key=f"ri_save_{sid}_1").click().run()
    assert not at.exception, at.exception
    hist = at.dataframe[-1].value
    assert list(hist.columns) == ["When", "Who", "Action", "Reason", "Change"]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", w) for w in hist["When"])
    edit = hist[hist["Action"] == "Edited"].iloc[0]
    assert edit["Reason"] == "Tone, Too harsh: kinder"
    assert "Real-world application: 2 → 1" in edit["Change"] and "real_world" not in edit["Change"]
    assert "Reasons: — → Tone, Too harsh" in edit["Change"]
    assert all(f"_{sid}_2" in b.key for b in at.button
               if b.key and b.key.startswith(("ri_save", "ri_approve", "ri_reject", "ri_regen")))


def _actions_shown(at, sid, version):
    return sorted(re.match(r"(ri_[a-z]+)_", b.key).group(1) for b in at.button
                  if b.key and f"_{sid}_{version}" in b.key and b.key.startswith("ri_"))


def test_a_refused_action_keeps_every_button(app_test, seeded, conn):
    """Issue 11 item 3: after Save without a reason (or a conflict) Approve, Reject and Regenerate
    disappeared until another widget changed."""
    c, ids = seeded
    sid = ids["unsure"]
    at = open_item(review_page(app_test, c), sid)
    full = _actions_shown(at, sid, 1)
    assert {"ri_save", "ri_approve", "ri_reject", "ri_regen"} <= set(full)
    at.selectbox(key=f"ri_score_{sid}_1_clarity").set_value(1)
    at.button(key=f"ri_save_{sid}_1").click().run()
    assert any("pick at least one reason" in e.value for e in at.error)
    assert _actions_shown(at, sid, 1) == full
    actions.save_edit(conn, sid, version=1, scores=HIGH, comment="Bob's.", reasons=["tone"], actor=Actor("bob", role="admin"))
    at.multiselect(key=f"ri_reasons_{sid}_1").set_value(["too_lenient"])
    at.button(key=f"ri_save_{sid}_1").click().run()
    assert any("not saved" in e.value for e in at.error)
    assert set(_actions_shown(at, sid, 1)) >= {"ri_save", "ri_approve", "ri_reject", "ri_regen"}


def test_why_an_item_needs_attention_is_at_the_top(app_test, conn):
    """Issue 11 item 9: the reason was only in the fourth tab."""
    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), text=TEXT)
    f.draft(conn, sid, HIGH, status="needs_attention", attention_reasons=["Under 100 words: **short**"])
    at = open_item(review_page(app_test, c), sid)
    order = [(n.type, getattr(n, "value", None)) for n in _walk(at.main)]
    top = next(i for i, (kind, v) in enumerate(order)
               if kind == "warning" and "Why this item needs attention" in str(v))
    first_column = next(i for i, (kind, v) in enumerate(order) if kind == "subheader")
    assert top < first_column  # above the submission and the editor, not in a tab
    assert plain(order[top][1]).endswith("Under 100 words: **short**")  # shown as text, not bold


def _walk(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _walk(child)


def test_back_to_review_from_the_item_view(app_test, seeded, conn):
    c, ids = seeded
    sid = ids["low"]
    at = open_item(review_page(app_test, c), sid)
    at.button(key=f"ri_approve_{sid}_1").click().run()
    assert submissions.get_submission(conn, sid)["status"] == "approved"
    at.button(key=f"ri_undo_{sid}_2").click().run()
    assert not at.exception, at.exception
    assert reviews.get_review(conn, sid)["status"] == "in_review"
    assert [h["action"] for h in reviews.history(conn, sid)][-1] == "back_to_review"
    assert not at.button(key=f"ri_approve_{sid}_3").disabled



def test_an_assignment_without_uploads_says_upload_not_assess(app_test, conn):
    """Issue 11 item 13: an empty assignment said "run the assessment first"."""
    c = f.course(conn)
    at = review_page(app_test, c)
    assert any("no reflections were uploaded for this assignment" in i.value for i in at.info)
    f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]))
    at.run()
    assert any("run the assessment on the Assess page first" in i.value for i in at.info)


def _box_heights(at) -> list[int]:
    """Pixel heights of the fixed-height containers on the page (scroll boxes)."""
    found = []

    def walk(node):
        proto = getattr(node, "proto", None)
        if proto is not None and proto.__class__.__name__ == "Block" and proto.HasField("height_config") \
                and proto.height_config.HasField("pixel_height"):
            found.append(proto.height_config.pixel_height)
        for child in getattr(node, "children", {}).values():
            walk(child)
    walk(at.main)
    return found


def test_a_long_text_without_spaces_is_shown_in_a_scroll_box(app_test, conn):
    """Issue 21 item 11: 20,000 characters without a space are one "word": the box grew to ~11,000 px."""
    c = f.course(conn)
    st_id = f.student(conn, c["course_id"], external_id="s1", name="Name s1")
    long_sid = f.submission(conn, c["assignment_id"], st_id, text="x" * 20_000)
    f.draft(conn, long_sid, HIGH)
    short_sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], external_id="s2"),
                             text="A short text about temperature.")
    f.draft(conn, short_sid, HIGH)
    at = open_item(review_page(app_test, c), long_sid)
    assert 480 in _box_heights(at)
    at = open_item(review_page(app_test, c), short_sid)
    assert 480 not in _box_heights(at)


def test_an_item_changed_since_opening_says_who_when_what_with_the_headers_version_numbers(app_test, seeded, conn):
    """Issue 21 item 13: the warning said "you have version 1, the latest is 2" while the header already
    said version 2, and not who saved, when, or what changed."""
    from core.accounts import identity as accounts

    c, ids = seeded
    sid = ids["rest"]
    accounts.add_user(conn, username="bob", role="instructor", password=f.PASSWORD, display_name="Bob Brown",
                      actor=f.actor("test setup"))
    at = open_item(review_page(app_test, c), sid)
    actions.save_edit(conn, sid, version=1, scores=dict(HIGH, clarity=2), comment="Bob's comment.",
                      reasons=["tone"], actor=Actor("bob", role="admin"))
    at.run()
    warned = " ".join(plain(w.value) for w in at.warning)
    assert "Bob Brown saved this item just now after you opened it." in warned
    assert "You opened version 1; the latest is version 2" in warned
    assert "Clarity: 3 → 2" in warned and "Bob's comment." in warned
    header = " ".join(plain(m.value) for m in at.markdown)
    assert "you opened version 1, the latest is version 2" in header and "review version 2" not in header


def test_home_and_review_show_the_same_needs_attention_and_home_counts_every_upload(app_test, conn):
    """Issue 21 item 5: Home's "Uploaded" counted undrafted reflections only (0 of 28 in a drafted week), and
    Home counted a calibration item waiting for its blind score under "Needs attention", Review did not."""
    from test_submission_status import _progress_course

    c, _ = _progress_course(conn)
    review = review_page(app_test, c)
    review_counts = {m.label: m.value for m in review.metric}
    at = app_test("pages/home.py")
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.run()
    assert not at.exception, at.exception
    counts = {m.label: m.value for m in at.metric[:5]}  # "This assignment"
    assert review_counts["Needs attention"] == "1" and counts["Needs attention"] == "1 of 4"
    assert counts["Uploaded"] == "4" and counts["Drafted"] == "3 of 4"
