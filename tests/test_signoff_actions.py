"""Teacher sign-off of one item (core.signoff.actions, db.reviews) on a real SQLite file."""
from __future__ import annotations

import pytest

import db
import factories as f
from core.signoff import triage
from core.errors import ConflictError, FairMarkError, NotFound, RubricError
from core.signoff import actions
from db import drafts, reviews, submissions
from signoff_items import HIGH, LOW, audited, course, make_item  # noqa: F401  (course: a fixture)
from stored import lock_wait
from core.accounts.access import Actor


def test_open_creates_review_from_draft_once(conn, course):
    sid = make_item(conn, course)
    r1 = actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    r2 = actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    assert r1["scores"] == HIGH and r1["version"] == 1 and r1["status"] == "in_review" and r1["opened_at"]
    assert r2 == r1
    assert audited(conn, sid) == ["open"]


def test_edit_needs_reason_and_valid_scores_and_is_audited(conn, course):
    sid = make_item(conn, course)
    r = actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    new = dict(HIGH, clarity=1)
    with pytest.raises(FairMarkError, match="reason"):
        actions.save_edit(conn, sid, version=1, scores=new, comment=r["comment"], actor=Actor("ann", role="admin"))
    with pytest.raises(RubricError, match="between 0 and 3"):
        actions.save_edit(conn, sid, version=1, scores=dict(HIGH, clarity=7), comment="x", reasons=["too_lenient"],
                         actor=Actor("ann", role="admin"))
    with pytest.raises(FairMarkError, match="note"):
        actions.save_edit(conn, sid, version=1, scores=new, comment=r["comment"], reasons=["other"], actor=Actor("ann", role="admin"))
    with pytest.raises(FairMarkError, match="unknown reason"):
        actions.save_edit(conn, sid, version=1, scores=new, comment=r["comment"], reasons=["meh"], actor=Actor("ann", role="admin"))
    assert reviews.get_review(conn, sid)["version"] == 1  # nothing written by the refused saves
    saved = actions.save_edit(conn, sid, version=1, scores=new, comment="Better comment?", reasons=["too_lenient"],
                             actor=Actor("ann", role="admin"))
    assert saved["version"] == 2 and saved["edited"] == 1 and saved["scores"]["clarity"] == 1
    assert saved["reason_codes"] == ["too_lenient"]
    h = reviews.history(conn, sid)[-1]
    assert (h["action"], h["actor"], h["reason"]) == ("edit", "ann", "too_lenient")
    assert h["before"]["scores"]["clarity"] == 3 and h["after"]["scores"]["clarity"] == 1
    # The AI draft is untouched: the teacher's version lives in reviews.
    assert reviews.item(conn, sid)["draft"]["scores"] == HIGH


def test_unchanged_save_writes_nothing(conn, course):
    sid = make_item(conn, course)
    r = actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    assert actions.save_edit(conn, sid, version=1, scores=HIGH, comment=r["comment"], actor=Actor("ann", role="admin"))["version"] == 1
    assert audited(conn, sid) == ["open"]


def test_a_reason_without_a_change_makes_no_new_version(conn, course):
    """Issue 11 item 4: picking a reason and saving an unchanged item wrote version 2."""
    sid = make_item(conn, course)
    r = actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    out = actions.save_edit(conn, sid, version=1, scores=HIGH, comment=r["comment"], reasons=["too_harsh"], actor=Actor("ann", role="admin"))
    assert out["version"] == 1 and out["reason_codes"] == []
    assert audited(conn, sid) == ["open"]


def test_approving_an_approved_item_is_refused_and_not_audited(conn, course):
    """Issue 11 item 2: a second Approve said "Approved …" with no audit row and moved on."""
    sid = make_item(conn, course)
    actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    out = actions.approve(conn, sid, version=1, actor=Actor("ann", role="admin"))
    with pytest.raises(actions.AlreadyDecided, match="already approved .by ann"):
        actions.approve(conn, sid, version=out["version"], actor=Actor("ann", role="admin"))
    with pytest.raises(ConflictError):  # the version the first click was drawn for
        actions.approve(conn, sid, version=1, actor=Actor("ann", role="admin"))
    assert audited(conn, sid) == ["open", "approve"]


def test_back_to_review_undoes_an_approval_before_release_and_is_audited(conn, course):
    from core.signoff import release

    sid = make_item(conn, course)
    actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    approved = actions.approve(conn, sid, version=1, actor=Actor("ann", role="admin"))
    back = actions.back_to_review(conn, sid, version=approved["version"], actor=Actor("ann", role="admin"))
    assert back["status"] == "in_review" and back["approved_by"] is None and back["scores"] == HIGH
    assert submissions.get_submission(conn, sid)["status"] == "drafted"
    h = reviews.history(conn, sid)[-1]
    assert (h["action"], h["before"]["status"], h["after"]["status"]) == ("back_to_review", "approved", "in_review")
    with pytest.raises(actions.AlreadyDecided, match="already waiting"):
        actions.back_to_review(conn, sid, version=back["version"], actor=Actor("ann", role="admin"))
    again = actions.approve(conn, sid, version=back["version"], actor=Actor("ann", role="admin"))
    release.release(conn, course["assignment_id"], actor=Actor("ann", role="admin"))
    with pytest.raises(actions.AlreadyDecided, match="already released"):
        actions.back_to_review(conn, sid, version=again["version"], actor=Actor("ann", role="admin"))
    assert submissions.get_submission(conn, sid)["status"] == "released"


def test_offline_regenerate_reports_the_same_draft_and_offers_nothing_new(conn, db_path, course):
    """Issue 11 item 10: the deterministic offline baseline was presented as "a newer AI draft"."""
    from core import pipeline

    sid = make_item(conn, course, text="I learned about temperature and bias. " * 20)
    first = pipeline.assess_one(db_path, sid)            # the offline baseline (no LLM configured)
    conn.execute("DELETE FROM drafts WHERE submission_id = ? AND id != ?", [sid, first])
    actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    assert reviews.get_review(conn, sid)["draft_id"] == first
    out = actions.regenerate(conn, sid, actor=Actor("ann", role="admin"))
    assert out.same and out.offline and out.draft_id != first
    assert actions.newer_draft(conn, sid, actor=Actor("test", role="admin")) is None
    assert reviews.history(conn, sid)[-1]["reason"].endswith("the same as the previous draft")


def test_second_reviewer_gets_conflict_showing_what_changed(conn, course):
    sid = make_item(conn, course)
    r = actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    actions.save_edit(conn, sid, version=1, scores=dict(HIGH, clarity=2), comment="Ann's words.",
                     reasons=["tone"], actor=Actor("ann", role="admin"))
    with pytest.raises(ConflictError) as exc:
        actions.save_edit(conn, sid, version=1, scores=dict(HIGH, clarity=0), comment=r["comment"],
                         reasons=["too_lenient"], actor=Actor("bob", role="admin"))
    msg = str(exc.value)
    assert msg.startswith("ann saved this item just now ") and "your change was not saved" in msg
    assert "Clarity: 3 → 2" in msg and "Comment: “" in msg and "Ann's words.”" in msg
    assert "Reasons: — → Tone" in msg
    fields = {c["field"] for c in exc.value.changes}
    assert {"comment", "score: clarity"} <= fields
    current = reviews.get_review(conn, sid)
    assert current["scores"]["clarity"] == 2 and current["version"] == 2
    assert audited(conn, sid) == ["open", "edit"]
    with pytest.raises(ConflictError):
        actions.approve(conn, sid, version=1, actor=Actor("bob", role="admin"))
    assert submissions.get_submission(conn, sid)["status"] == "drafted"


def test_a_conflict_names_the_saver_by_display_name_says_when_in_words_and_both_versions(conn, course):
    """Issue 21 item 13: "you have version 1, the latest is 2", not who saved, when, or what changed."""
    from core.accounts import identity as accounts

    accounts.add_user(conn, username="bob", role="instructor", password=f.PASSWORD, display_name="Bob Brown",
                      actor=f.actor("test setup"))
    sid = make_item(conn, course)
    actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    actions.save_edit(conn, sid, version=1, scores=dict(HIGH, clarity=2), comment="Bob's words.",
                      reasons=["tone"], actor=Actor("bob", role="admin"))
    conn.execute("UPDATE audit_log SET at = '2020-03-04T10:05:00Z' WHERE action = 'edit'")
    said = actions.changed_since(conn, sid, 1, actor=Actor("ann", role="admin"))
    assert said.startswith("Bob Brown saved this item on 4 March 2020 at 10:05 UTC after you opened it.")
    assert "You opened version 1; the latest is version 2" in said
    assert "Clarity: 3 → 2" in said and "Bob's words.”" in said and "2020-03-04" not in said
    assert "Saving is refused until you load the latest version" in said and "was not saved" not in said
    assert actions.changed_since(conn, sid, 2, actor=Actor("ann", role="admin")) is None


def test_approve_with_edit_and_reject(conn, course):
    sid = make_item(conn, course)
    actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    out = actions.approve(conn, sid, version=1, scores=dict(HIGH, clarity=2), comment="Nice work. Why?",
                         reasons=["too_lenient"], actor=Actor("ann", role="admin"))
    assert out["status"] == "approved" and out["version"] == 3 and out["approved_by"] == "ann"
    sub = submissions.get_submission(conn, sid)
    assert (sub["status"], sub["priority"]) == ("approved", triage.APPROVED)
    assert audited(conn, sid) == ["open", "edit", "approve"]

    sid2 = make_item(conn, course)
    actions.open_item(conn, sid2, actor=Actor("ann", role="admin"))
    with pytest.raises(FairMarkError, match="why"):
        actions.reject(conn, sid2, version=1, note=" ", actor=Actor("ann", role="admin"))
    out = actions.reject(conn, sid2, version=1, note="Quotes are invented", actor=Actor("ann", role="admin"))
    assert out["status"] == "rejected" and out["note"] == "Quotes are invented"
    assert submissions.get_submission(conn, sid2)["priority"] == triage.REJECTED
    assert reviews.history(conn, sid2)[-1]["reason"] == "Quotes are invented"


def test_approve_requires_opening_and_a_comment(conn, course):
    sid = make_item(conn, course, comment="")
    with pytest.raises(NotFound, match="open it first"):
        actions.approve(conn, sid, version=1, actor=Actor("ann", role="admin"))
    actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    with pytest.raises(FairMarkError, match="comment is empty"):
        actions.approve(conn, sid, version=1, actor=Actor("ann", role="admin"))


def test_regenerate_keeps_teachers_version_until_chosen(conn, course):
    sid = make_item(conn, course)
    actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    mine = actions.save_edit(conn, sid, version=1, scores=dict(HIGH, clarity=1), comment="Teacher's comment.",
                            reasons=["inaccurate"], actor=Actor("ann", role="admin"))
    calls = []

    def fake_assess_one(db_path, submission_id, *, llm=None, actor=""):
        calls.append((db_path, submission_id, llm))
        from db import connect
        other = connect(db_path)  # the pipeline works on its own connection
        did = f.draft(other, submission_id, LOW, comment="A fresh AI comment.")
        other.close()
        return did

    new_id = actions.regenerate(conn, sid, actor=Actor("ann", role="admin"), assess_one=fake_assess_one).draft_id
    assert calls and calls[0][1] == sid
    kept = reviews.get_review(conn, sid)
    assert actions.snapshot(kept) == actions.snapshot(mine)  # the re-run did not touch the teacher's version
    detail = reviews.item(conn, sid)
    assert detail["latest_draft_id"] == new_id and detail["draft"]["id"] != new_id
    assert audited(conn, sid)[-1] == "regenerate"
    chosen = actions.use_draft(conn, sid, new_id, version=kept["version"], actor=Actor("ann", role="admin"))
    assert chosen["scores"] == LOW and chosen["comment"] == "A fresh AI comment." and chosen["draft_id"] == new_id
    assert audited(conn, sid)[-1] == "use_draft"


def test_failed_ai_item_is_marked_by_hand_without_reason(conn, course):
    sid = make_item(conn, course, HIGH, status="failed", comment="")
    conn.execute("UPDATE drafts SET scores = '{}', total = 0 WHERE submission_id = ?", [sid])  # as the pipeline stores it
    r = actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    assert r["scores"] == {}
    with pytest.raises(FairMarkError, match="choose a score for: Clarity"):
        actions.save_edit(conn, sid, version=1, scores=dict(HIGH, clarity=None), comment="x", actor=Actor("ann", role="admin"))
    out = actions.approve(conn, sid, version=1, scores=LOW, comment="Marked by hand. What next?", actor=Actor("ann", role="admin"))
    assert out["status"] == "approved" and out["edited"] == 1
    assert submissions.get_submission(conn, sid)["status"] == "approved"


def _hold_write_lock(db_path, seconds: float, started):
    """Another connection (the background worker) holds the write lock, then commits."""
    import time

    conn = db.connect(db_path)
    with db.write_transaction(conn):
        conn.execute("INSERT INTO audit_log (actor, action, entity) VALUES ('worker', 'tick', 'runs')")
        started.set()
        time.sleep(seconds)
    conn.close()


def test_approve_waits_for_a_background_write_instead_of_failing(conn, db_path, course):
    import threading
    import time

    sid = make_item(conn, course)
    actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    started = threading.Event()
    worker = threading.Thread(target=_hold_write_lock, args=(db_path, 0.5, started))
    worker.start()
    started.wait(5)
    t0 = time.monotonic()
    try:
        out = actions.approve(conn, sid, version=1, actor=Actor("ann", role="admin"))
    finally:
        worker.join()
    assert out["status"] == "approved" and time.monotonic() - t0 >= 0.3  # it waited for the worker
    assert submissions.get_submission(conn, sid)["status"] == "approved"
    assert audited(conn, sid) == ["open", "approve"]


def test_save_while_the_database_stays_locked_is_a_clear_conflict(conn, db_path, course):
    import threading

    sid = make_item(conn, course)
    actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    lock_wait(conn, 100)  # the worker holds the lock longer than we wait
    started = threading.Event()
    worker = threading.Thread(target=_hold_write_lock, args=(db_path, 1.0, started))
    worker.start()
    started.wait(5)
    try:
        with pytest.raises(ConflictError, match="another save is in progress; try again"):
            actions.approve(conn, sid, version=1, actor=Actor("ann", role="admin"))
    finally:
        worker.join()
    assert reviews.get_review(conn, sid)["status"] == "in_review" and audited(conn, sid) == ["open"]


def test_conflict_message_is_plain_text_with_the_real_values(conn, course):
    sid = make_item(conn, course, comment='You wrote "![x](https://tracker.example/t.png)". (1) a (2) b. Why?')
    r = actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    actions.save_edit(conn, sid, version=1, scores=HIGH, comment="[click](https://phish.example) now. Why?",
                     reasons=["tone"], actor=Actor("bob", role="admin"))
    with pytest.raises(ConflictError) as info:
        actions.save_edit(conn, sid, version=1, scores=dict(HIGH, clarity=1), comment=r["comment"],
                         reasons=["tone"], actor=Actor("ann", role="admin"))
    msg = str(info.value)
    # Plain text: the page escapes it for Markdown (pages/_common.md).
    assert "[click](https://phish.example) now" in msg and "\\[" not in msg
    # The structured changes keep the real text (for a table, the audit, the command line).
    assert {c["field"]: c["after"] for c in info.value.changes}["comment"].startswith("[click](https://")


def test_regenerate_is_audited_even_when_the_teacher_saved_meanwhile(conn, course):
    sid = make_item(conn, course)
    actions.open_item(conn, sid, actor=Actor("ann", role="admin"))

    def slow_pipeline(db_path, submission_id, *, llm=None, actor=""):
        from db import connect
        other = connect(db_path)
        did = f.draft(other, submission_id, LOW, comment="A new AI draft.")
        # A colleague saves an edit in another tab while the pipeline is drafting.
        actions.save_edit(other, submission_id, version=1, scores=dict(HIGH, clarity=1), comment="Bob's version.",
                         reasons=["tone"], actor=Actor("bob", role="admin"))
        other.close()
        return did

    new_id = actions.regenerate(conn, sid, actor=Actor("ann", role="admin"), assess_one=slow_pipeline).draft_id
    assert drafts.latest_draft_id(conn, sid) == new_id
    assert audited(conn, sid) == ["open", "edit", "regenerate"]
    kept = reviews.get_review(conn, sid)
    assert kept["comment"] == "Bob's version." and kept["draft_id"] != new_id  # the teacher's version is untouched
