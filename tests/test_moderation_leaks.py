"""Moderation blindness where the first review missed it: every public core read that shows an
item's first mark or the AI's draft refuses (or leaves out) an item its second marker has not
marked yet (issue 28: the second marker sees neither until they commit)."""
from __future__ import annotations

import pytest

import factories as f
from core.accounts import access
from core.appeals import deciding, filing
from core.courses import browse, catalogue
from core.errors import GateError
from core.export import released
from core.moderation import agreement, markers, marking, sample
from core.signoff import actions, bulk, release, review_view
from db import reviews, samples, submissions
from test_moderation import HIGH, LOW, _first_marked, approve, m  # noqa: F401  (the fixture)


def _blind_item(conn, m, who="ivy"):
    drawn = _first_marked(conn, m)
    return next(i["submission_id"] for i in drawn if i["second_marker"] == who)


def test_an_export_of_approved_items_leaves_out_those_the_actor_still_marks_blind(conn, m):
    sid = _blind_item(conn, m)
    ivy = m["ivy"]
    mine = {r["submission_id"] for r in released.export_items(conn, m["c"]["course_id"], m["aid"],
                                                              include_approved=True, actor=ivy)}
    assert sid not in mine and mine                                  # the others' approved items are there
    other = f.user(conn, "ivy2", "instructor", courses=[m["c"]["course_id"]])
    assert sid in {r["submission_id"] for r in released.export_items(conn, m["c"]["course_id"], m["aid"],
                                                                     include_approved=True, actor=other)}
    marking.mark(conn, sid, HIGH, actor=ivy)
    assert sid in {r["submission_id"] for r in released.export_items(conn, m["c"]["course_id"], m["aid"],
                                                                     include_approved=True, actor=ivy)}


def test_the_review_item_and_its_history_refuse_the_second_marker_until_they_commit(conn, m):
    sid = _blind_item(conn, m, "tina")
    tina = m["tina"]
    with pytest.raises(GateError, match="second marker"):
        browse.review_item(conn, sid, actor=tina)
    with pytest.raises(GateError, match="second marker"):
        browse.item_history(conn, sid, actor=tina)
    assert browse.item_history(conn, sid, actor=m["cora"])          # the approval is in it for others
    marking.mark(conn, sid, HIGH, actor=tina)
    assert browse.review_item(conn, sid, actor=tina)["review"]["scores"]
    assert browse.item_history(conn, sid, actor=tina)


def test_the_second_marker_can_neither_decide_the_first_mark_nor_read_it_through_a_write(conn, m):
    """Drawn before anyone marked it (no first marker yet): ivy opens it and drafts her edit; tina,
    its second marker, may not approve, edit, reject, reopen or swap its draft (each would hand her
    the first mark, or make her mark it twice), before her blind mark or after it."""
    drawn = sample.draw(conn, m["aid"], size=8, actor=m["cora"])["sample"]
    sid = next(i["submission_id"] for i in drawn if i["second_marker"] == "tina")
    tina = m["tina"]
    actions.open_item(conn, sid, actor=m["ivy"])
    review = reviews.get_review(conn, sid)
    version, draft_id = review["version"], review["draft_id"]
    writes = {
        "approve": lambda: actions.approve(conn, sid, version=version, actor=tina),
        "edit": lambda: actions.save_edit(conn, sid, version=version, scores=HIGH, comment="x", reasons=["inaccurate"],
                                          actor=tina),
        "reject": lambda: actions.reject(conn, sid, version=version, note="no", actor=tina),
        "reopen": lambda: actions.back_to_review(conn, sid, version=version, actor=tina),
        "use draft": lambda: actions.use_draft(conn, sid, draft_id, version=version, actor=tina),
    }
    for name, write in writes.items():
        with pytest.raises(GateError, match="second marker"):
            write()
        assert reviews.get_review(conn, sid)["version"] == version, name
    with pytest.raises(GateError, match="second marker"):
        actions.newer_draft(conn, sid, actor=tina)
    marking.mark(conn, sid, HIGH, actor=tina)
    for name, write in writes.items():
        with pytest.raises(GateError, match="second marker"):
            write()
        assert reviews.get_review(conn, sid)["version"] == version, name
    assert actions.approve(conn, sid, version=version, actor=m["ivy"])["approved_by"] == "ivy"


def test_a_first_mark_counts_for_the_marker_who_approved_it_not_the_one_assigned_when_drawn(conn, m):
    """ivy is assigned every item, the sample is drawn (first marker 'ivy' then), but ian approves
    one of them raising depth to 3; tina marks it blind 1. The difference is ian's, not ivy's."""
    ian = f.user(conn, "ian", "instructor", courses=[m["c"]["course_id"]])
    markers.assign(conn, m["aid"], how="section", markers={"": "ivy"}, actor=m["cora"])
    drawn = sample.draw(conn, m["aid"], size=8, actor=m["cora"])["sample"]
    sid = next(i["submission_id"] for i in drawn
               if i["second_marker"] == "tina" and i["submission_id"] in m["sids"][:4])
    approve(conn, sid, ian, {**LOW, "reflection_depth": 3})
    marking.mark(conn, sid, LOW, actor=m["tina"])
    figs = {x["marker"]: x for x in markers.figures(conn, m["c"]["course_id"], actor=m["cora"])["markers"]}
    assert [s["difference"] for s in figs["ian"]["severity"] if s["criterion"] == "reflection_depth"] == [2]
    assert figs["ivy"]["severity"] == []
    view = agreement.moderation_view(conn, m["aid"], actor=m["cora"])
    assert next(d for d in view["differing"] if d["submission_id"] == sid)["first_marker"] == "ian"


def test_a_review_changed_after_its_settlement_holds_the_release(conn, m):
    """The moderator settles an item; its first marker then reopens it and approves other scores:
    the release would carry a mark nobody settled, so it waits (until the review is back at the
    settled scores)."""
    sid = m["sids"][0]
    drawn = _first_marked(conn, m)
    second = next(i["second_marker"] for i in drawn if i["submission_id"] == sid)
    first = "tina" if second == "ivy" else "ivy"
    marking.mark(conn, sid, HIGH, actor=m[second])
    settled = {**LOW, "clarity": 2}
    marking.settle(conn, sid, settled, note="clarity only", actor=m["cora"])
    review = reviews.get_review(conn, sid)
    actions.back_to_review(conn, sid, version=review["version"], actor=m[first])
    approve(conn, sid, m[first], HIGH)
    for i in drawn:          # every other item's second mark is in, the same as the first: nothing else waits
        if i["submission_id"] != sid:
            marking.mark(conn, i["submission_id"], reviews.get_review(conn, i["submission_id"])["scores"],
                         actor=m[i["second_marker"]])
    with pytest.raises(GateError, match=f"submission {sid} .*changed after the moderator's settlement"):
        release.release(conn, m["aid"], actor=m["ivy"])
    actions.back_to_review(conn, sid, version=reviews.get_review(conn, sid)["version"], actor=m[first])
    approve(conn, sid, m[first], settled)
    assert release.release(conn, m["aid"], actor=m["ivy"])["n_items"] == 8


def test_an_appeals_change_of_a_settled_item_is_released(conn, m):
    """After its release a settled item's review may change through an appeal: that change is
    released (the settlement held the first release, not every later one)."""
    sid = m["sids"][0]
    drawn = _first_marked(conn, m)
    for i in drawn:
        scores = HIGH if i["submission_id"] == sid else reviews.get_review(conn, i["submission_id"])["scores"]
        marking.mark(conn, i["submission_id"], scores, actor=m[i["second_marker"]])
    marking.settle(conn, sid, {**LOW, "clarity": 2}, note="clarity only", actor=m["cora"])
    assert release.release(conn, m["aid"], actor=m["ivy"])["n_items"] == 8
    catalogue.edit_assignment(conn, m["aid"], actor=f.actor("ann"), appeal_deadline="2099-12-31")
    student = submissions.get_submission(conn, sid)["student_id"]
    appeal = filing.file(conn, sid, {"clarity": "My answer was clear and I gave an example."},
                         actor=access.student(student, m["c"]["course_id"], assignment_id=m["aid"]))
    second = next(i["second_marker"] for i in drawn if i["submission_id"] == sid)   # may decide it once released
    out = deciding.decide(conn, appeal["appeal_id"], actor=m[second], outcome="change", scores={"clarity": 3},
                          reason_code="too_harsh", note="You are right.")
    assert out["status"] == "changed"
    if not out["released"]:   # waiting approved for an instructor: its second marker may still reopen it
        back = actions.back_to_review(conn, sid, version=reviews.get_review(conn, sid)["version"], actor=m[second])
        approve(conn, sid, m[second], {**back["scores"]})
    assert release.release(conn, m["aid"], actor=m["ivy"], only=[sid])["n_items"] == 1


def test_what_changed_since_a_version_is_refused_to_the_blind_second_marker(conn, m):
    """changed_since words the current version (scores and comment): the first mark."""
    sid = _blind_item(conn, m, "tina")
    with pytest.raises(GateError, match="second marker"):
        actions.changed_since(conn, sid, 0, actor=m["tina"])
    assert actions.changed_since(conn, sid, 0, actor=m["cora"])        # others read it


def test_the_queue_and_its_next_item_never_hand_the_second_marker_an_item_they_mark_blind(conn, m):
    """browse.queue_page carries each row's AI and teacher scores; Next (queue_neighbour) opens
    the item it names: neither may be an item the actor still marks blind."""
    sid = _blind_item(conn, m, "tina")
    tina = m["tina"]
    rows = browse.queue_page(conn, m["aid"], browse.QueueFilter(everything=True), actor=tina)["rows"]
    assert sid not in {r["id"] for r in rows} and rows
    before = (browse.queue_position(conn, sid, actor=m["cora"])[1], sid - 1)
    assert browse.queue_neighbour(conn, m["aid"], before, browse.QueueFilter(everything=True), actor=tina) != sid
    assert sid in {r["id"] for r in browse.queue_page(conn, m["aid"], actor=m["cora"])["rows"]}
    marking.mark(conn, sid, HIGH, actor=tina)
    assert sid in {r["id"] for r in browse.queue_page(conn, m["aid"], browse.QueueFilter(everything=True),
                                                      actor=tina)["rows"]}


def test_after_the_second_mark_the_review_item_is_read_only_for_its_second_marker(conn, m):
    """The item opens for them once marked, but not for editing: the first mark is another's."""
    sid = _blind_item(conn, m, "tina")
    marking.mark(conn, sid, HIGH, actor=m["tina"])
    item = review_view.review_page(conn, m["aid"], item=sid, actor=m["tina"])["item"]
    assert item["error"] is None and item["data"] and item["editable"] is False
    other = next(s for s in m["sids"] if s != sid and s not in {
        i["submission_id"] for i in sample.draw(conn, m["aid"], size=8, actor=m["cora"])["sample"]
        if i["second_marker"] == "tina"})
    assert review_view.review_page(conn, m["aid"], item=other, actor=m["tina"])["item"]["editable"] is True


def test_an_item_of_the_moderation_sample_is_never_approved_in_bulk(conn, m):
    """A bulk approval copies the AI: as a sample item's first mark it would compare the AI, not a
    marker, with the second mark (and its second marker could approve what they mark blind)."""
    before = sum(samples.candidates_by_band(conn, m["aid"], bulk._rule(conn, m["aid"], m["ivy"])).values())
    drawn = {i["submission_id"] for i in sample.draw(conn, m["aid"], size=2, actor=m["cora"])["sample"]}
    after = sum(samples.candidates_by_band(conn, m["aid"], bulk._rule(conn, m["aid"], m["ivy"])).values())
    assert before == 8 and after == 6 and len(drawn) == 2


def test_the_queue_and_the_item_say_a_sample_item_is_not_for_bulk_approval(conn, m):
    """The bulk approval leaves sample items out (above); the queue's per-item flag and the item's
    reasons say so instead of "can be approved in bulk"."""
    ivy = m["ivy"]
    before = {i["submission_id"]: i for i in review_view.review_queue(conn, m["aid"], actor=m["cora"])["items"]}
    eligible = {sid for sid, i in before.items() if i["bulk_eligible"]}
    assert len(eligible) == 8
    drawn = {i["submission_id"] for i in sample.draw(conn, m["aid"], size=2, actor=m["cora"])["sample"]}
    after = {i["submission_id"]: i for i in review_view.review_queue(conn, m["aid"], actor=m["cora"])["items"]}
    assert {sid for sid, i in after.items() if i["bulk_eligible"]} == eligible - drawn
    for sid in drawn:
        assert "moderation_sample" in [r["code"] for r in after[sid]["reasons"]]
        assert "moderation_sample" in [r["code"] for r in review_view.item_reasons(conn, sid, actor=ivy)]
    other = next(iter(eligible - drawn))
    assert review_view.item_reasons(conn, other, actor=ivy) == []


def test_the_second_marker_may_not_write_notes_on_the_text_of_an_item_they_mark(conn, m):
    """A note on the text is part of the first mark's feedback (released with it): its blind
    second marker may not add one, before or after their blind mark (the page shows them none)."""
    from core.signoff import anchored_notes
    from db import anchored_notes as notes_db

    drawn = sample.draw(conn, m["aid"], size=8, actor=m["cora"])["sample"]
    sid = next(i["submission_id"] for i in drawn if i["second_marker"] == "tina")
    with pytest.raises(GateError, match="second marker"):
        anchored_notes.add(conn, sid, "Good point.", sentences=[1], actor=m["tina"])
    assert notes_db.of_submission(conn, sid) == []
    note = anchored_notes.add(conn, sid, "Good point.", sentences=[1], actor=m["ivy"])   # another marker may
    with pytest.raises(GateError, match="second marker"):
        anchored_notes.edit(conn, note, "Changed.", actor=m["tina"])
    with pytest.raises(GateError, match="second marker"):
        anchored_notes.delete(conn, note, actor=m["tina"])
    assert notes_db.get(conn, note)["note"] == "Good point."
