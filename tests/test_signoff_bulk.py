"""Bulk approval after a stratified sample (core.signoff.bulk, db.samples) on a real SQLite file."""
from __future__ import annotations

import pytest

import factories as f
from core.errors import ConflictError, GateError
from core.signoff import actions, bulk, release
from db import reviews, submissions
from signoff_items import HIGH, LOW, course, make_item  # noqa: F401  (course: a fixture)
from core.accounts.access import Actor


@pytest.fixture(autouse=True)
def calibrated(monkeypatch):
    """These tests are about the sample and the writes: the calibration gate is open here, on the
    offline baseline's own agreement too, with no band held back (test_calibration.py tests that
    bulk approval is off below the bar, test_bulk_eligibility.py what the bar holds back)."""
    from core.calibration import readiness

    monkeypatch.setattr(readiness, "bulk_block", lambda conn, assignment_id, **_: None)
    monkeypatch.setattr(bulk, "held_back", lambda conn, assignment_id, **_: (("offline_only",), ()))


def test_bulk_approve_requires_opened_stratified_sample(conn, course):
    aid = course["assignment_id"]
    highs = [make_item(conn, course, HIGH) for _ in range(12)]
    lows = [make_item(conn, course, LOW) for _ in range(3)]
    flagged = make_item(conn, course, HIGH, flags=["short_text"])
    revise = make_item(conn, course, HIGH, verdict="REVISE")
    failed_check = make_item(conn, course, HIGH, checks=[{"name": "word_limit", "label": "words", "passed": False,
                                                        "detail": "", "severity": "fail"}])
    edited = make_item(conn, course, HIGH)
    actions.open_item(conn, edited, actor=Actor("ann", role="admin"))
    actions.save_edit(conn, edited, version=1, scores=HIGH, comment="changed", reasons=["generic"], actor=Actor("ann", role="admin"))
    state = bulk.sample_state(conn, aid, actor=Actor("test", role="admin"))
    assert state.candidates == 15 and state.by_band == {"high": 12, "low": 3}
    with pytest.raises(GateError, match="draw the sample"):
        bulk.bulk_approve(conn, aid, expected=15, actor=Actor("ann", role="admin"))
    state = bulk.draw_sample(conn, aid, actor=Actor("ann", role="admin"))
    bands = {s["band"] for s in state.sample}
    assert bands == {"high", "low"} and len(state.sample) == 2 + 1
    assert set(state.unopened) == {s["submission_id"] for s in state.sample}
    assert bulk.draw_sample(conn, aid, actor=Actor("ann", role="admin")).sample == state.sample  # stable
    with pytest.raises(GateError, match="open the sampled items"):
        bulk.bulk_approve(conn, aid, expected=15, actor=Actor("ann", role="admin"))
    for s in state.sample:
        actions.open_item(conn, s["submission_id"], actor=Actor("ann", role="admin"))
    assert bulk.sample_state(conn, aid, actor=Actor("test", role="admin")).checked
    with pytest.raises(ConflictError, match="changed from 14 to 15"):
        bulk.bulk_approve(conn, aid, expected=14, actor=Actor("ann", role="admin"))
    n = bulk.bulk_approve(conn, aid, expected=15, actor=Actor("ann", role="admin"))
    assert n == 15
    statuses = dict(conn.execute("SELECT id, status FROM submissions").fetchall())
    assert all(statuses[i] == "approved" for i in highs + lows)
    assert all(statuses[i] == "drafted" for i in (flagged, revise, failed_check, edited))
    assert reviews.history(conn, highs[0])[-1]["action"] == "bulk_approve"
    assert reviews.get_review(conn, highs[0])["approved_in_bulk"] == 1
    gates = {g.name: g.ok for g in release.release_gates(conn, aid, actor=Actor("test", role="admin"))}
    assert gates["Bulk-approval sample checked"]


def test_redo_run_after_sample_needs_a_fresh_sample(conn, db_path, course):
    """A sample opened before a redo run checked drafts that no longer exist: bulk approval of the
    new drafts is refused until a fresh sample is drawn and opened."""
    from core.runs import reflections as runs

    text = ("This week I learned that temperature controls how random a language model is. For example, when I "
            "drafted a policy email at temperature 0.9 the model invented a deadline, so I now keep it low. ") * 4
    aid = course["assignment_id"]
    sids = [f.submission(conn, aid, f.student(conn, course["course_id"]), text=f"{text}{i}") for i in range(6)]
    runs.execute(str(db_path), runs.create(conn, course_id=course["course_id"], provider="offline", actor=Actor("test", role="admin")), actor=Actor("test", role="admin"))
    state = bulk.draw_sample(conn, aid, actor=Actor("ann", role="admin"))
    assert state.sample and state.candidates
    for s in state.sample:
        actions.open_item(conn, s["submission_id"], actor=Actor("ann", role="admin"))
    assert bulk.sample_state(conn, aid, actor=Actor("test", role="admin")).checked
    runs.execute(str(db_path), runs.create(conn, course_id=course["course_id"], provider="offline", redo=True, actor=Actor("test", role="admin")), actor=Actor("test", role="admin"))
    state = bulk.sample_state(conn, aid, actor=Actor("test", role="admin"))
    assert state.candidates and not state.checked
    with pytest.raises(GateError):
        bulk.bulk_approve(conn, aid, expected=state.candidates, actor=Actor("ann", role="admin"))
    assert not conn.execute("SELECT COUNT(*) FROM reviews WHERE status = 'approved'").fetchone()[0]
    # A fresh sample of the new drafts, opened, lets bulk approval through again.
    state = bulk.draw_sample(conn, aid, actor=Actor("ann", role="admin"))
    assert state.unopened and all(submissions.get_submission(conn, s["submission_id"])["current_draft_id"] == s["draft_id"]
                                  for s in state.sample)
    for s in state.sample:
        actions.open_item(conn, s["submission_id"], actor=Actor("ann", role="admin"))
    state = bulk.sample_state(conn, aid, actor=Actor("test", role="admin"))
    assert state.checked
    assert bulk.bulk_approve(conn, aid, expected=state.candidates, actor=Actor("ann", role="admin")) == state.candidates
    assert all(submissions.get_submission(conn, sid)["status"] in ("approved", "drafted", "needs_attention") for sid in sids)


def test_new_drafts_after_the_draw_invalidate_the_whole_sample(conn, db_path, course):
    """The sampled item itself is unchanged (approved on its own), but the other candidates got
    new drafts after the draw: those were never represented, so the sample must be redrawn."""
    from core import pipeline
    from core.runs import reflections as runs

    text = ("This week I learned that temperature controls how random a language model is. For example, when I "
            "drafted a policy email at temperature 0.9 the model invented a deadline, so I now keep it low. ") * 4
    aid = course["assignment_id"]
    for i in range(6):
        f.submission(conn, aid, f.student(conn, course["course_id"]), text=f"{text}{i}")
    runs.execute(str(db_path), runs.create(conn, course_id=course["course_id"], provider="offline", actor=Actor("test", role="admin")), actor=Actor("test", role="admin"))
    state = bulk.draw_sample(conn, aid, actor=Actor("ann", role="admin"))
    sampled = {s["submission_id"] for s in state.sample}
    for sid in sampled:
        actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    assert bulk.sample_state(conn, aid, actor=Actor("test", role="admin")).checked
    others = [r[0] for r in conn.execute("SELECT id FROM submissions WHERE assignment_id = ? AND status = 'drafted'",
                                       [aid]).fetchall() if r[0] not in sampled]
    for sid in others:
        pipeline.assess_one(str(db_path), sid)          # Regenerate-style new drafts, unseen
    state = bulk.sample_state(conn, aid, actor=Actor("test", role="admin"))
    assert not state.checked and set(state.stale) == sampled
    with pytest.raises(GateError):
        bulk.bulk_approve(conn, aid, expected=state.candidates, actor=Actor("ann", role="admin"))
    state = bulk.draw_sample(conn, aid, actor=Actor("ann", role="admin"))    # a fresh draw covers the new drafts
    assert state.sample and state.unopened
