"""Teacher sign-off rules (core.review, db.reviews) on a real SQLite file."""
from __future__ import annotations

import pytest

from core import review, triage
from core.errors import ConflictError, FairMarkError, GateError, NotFound
from core.errors import RubricError
from db import reviews as q
import factories as f

HIGH = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 3}
LOW = {"concept_understanding": 1, "real_world_application": 0, "reflection_depth": 1, "clarity": 1}


@pytest.fixture
def course(conn):
    return f.course(conn)


def make_item(conn, course, scores=HIGH, text="I learned about temperature and bias.", **kw):
    sid = f.submission(conn, course["assignment_id"], f.student(conn, course["course_id"]), text=text)
    f.draft(conn, sid, scores, **kw)
    return sid


def actions(conn, sid):
    return [h["action"] for h in q.history(conn, sid)]


def test_open_creates_review_from_draft_once(conn, course):
    sid = make_item(conn, course)
    r1 = review.open_item(conn, sid, actor="ann")
    r2 = review.open_item(conn, sid, actor="ann")
    assert r1["scores"] == HIGH and r1["version"] == 1 and r1["status"] == "in_review" and r1["opened_at"]
    assert r2 == r1
    assert actions(conn, sid) == ["open"]


def test_edit_needs_reason_and_valid_scores_and_is_audited(conn, course):
    sid = make_item(conn, course)
    r = review.open_item(conn, sid, actor="ann")
    new = dict(HIGH, clarity=1)
    with pytest.raises(FairMarkError, match="reason"):
        review.save_edit(conn, sid, version=1, scores=new, comment=r["comment"], actor="ann")
    with pytest.raises(RubricError, match="between 0 and 3"):
        review.save_edit(conn, sid, version=1, scores=dict(HIGH, clarity=7), comment="x", reasons=["too_lenient"],
                         actor="ann")
    with pytest.raises(FairMarkError, match="note"):
        review.save_edit(conn, sid, version=1, scores=new, comment=r["comment"], reasons=["other"], actor="ann")
    with pytest.raises(FairMarkError, match="unknown reason"):
        review.save_edit(conn, sid, version=1, scores=new, comment=r["comment"], reasons=["meh"], actor="ann")
    assert q.get_review(conn, sid)["version"] == 1  # nothing written by the refused saves
    saved = review.save_edit(conn, sid, version=1, scores=new, comment="Better comment?", reasons=["too_lenient"],
                             actor="ann")
    assert saved["version"] == 2 and saved["edited"] == 1 and saved["scores"]["clarity"] == 1
    assert saved["reason_codes"] == ["too_lenient"]
    h = q.history(conn, sid)[-1]
    assert (h["action"], h["actor"], h["reason"]) == ("edit", "ann", "too_lenient")
    assert h["before"]["scores"]["clarity"] == 3 and h["after"]["scores"]["clarity"] == 1
    # The AI draft is untouched: the teacher's version lives in reviews.
    assert q.item(conn, sid)["draft"]["scores"] == HIGH


def test_unchanged_save_writes_nothing(conn, course):
    sid = make_item(conn, course)
    r = review.open_item(conn, sid, actor="ann")
    assert review.save_edit(conn, sid, version=1, scores=HIGH, comment=r["comment"], actor="ann")["version"] == 1
    assert actions(conn, sid) == ["open"]


def test_second_reviewer_gets_conflict_showing_what_changed(conn, course):
    sid = make_item(conn, course)
    r = review.open_item(conn, sid, actor="ann")
    review.save_edit(conn, sid, version=1, scores=dict(HIGH, clarity=2), comment="Ann's words.",
                     reasons=["tone"], actor="ann")
    with pytest.raises(ConflictError) as exc:
        review.save_edit(conn, sid, version=1, scores=dict(HIGH, clarity=0), comment=r["comment"],
                         reasons=["too_lenient"], actor="bob")
    msg = str(exc.value)
    assert "ann" in msg and "score: clarity: 3 -> 2" in msg and "Ann's words\\." in msg and "Nothing was saved" in msg
    fields = {c["field"] for c in exc.value.changes}
    assert {"comment", "score: clarity"} <= fields
    current = q.get_review(conn, sid)
    assert current["scores"]["clarity"] == 2 and current["version"] == 2
    assert actions(conn, sid) == ["open", "edit"]
    with pytest.raises(ConflictError):
        review.approve(conn, sid, version=1, actor="bob")
    assert q.get_submission(conn, sid)["status"] == "drafted"


def test_approve_with_edit_and_reject(conn, course):
    sid = make_item(conn, course)
    review.open_item(conn, sid, actor="ann")
    out = review.approve(conn, sid, version=1, scores=dict(HIGH, clarity=2), comment="Nice work. Why?",
                         reasons=["too_lenient"], actor="ann")
    assert out["status"] == "approved" and out["version"] == 3 and out["approved_by"] == "ann"
    sub = q.get_submission(conn, sid)
    assert (sub["status"], sub["priority"]) == ("approved", triage.APPROVED)
    assert actions(conn, sid) == ["open", "edit", "approve"]

    sid2 = make_item(conn, course)
    review.open_item(conn, sid2, actor="ann")
    with pytest.raises(FairMarkError, match="why"):
        review.reject(conn, sid2, version=1, note=" ", actor="ann")
    out = review.reject(conn, sid2, version=1, note="Quotes are invented", actor="ann")
    assert out["status"] == "rejected" and out["note"] == "Quotes are invented"
    assert q.get_submission(conn, sid2)["priority"] == triage.REJECTED
    assert q.history(conn, sid2)[-1]["reason"] == "Quotes are invented"


def test_approve_requires_opening_and_a_comment(conn, course):
    sid = make_item(conn, course, comment="")
    with pytest.raises(NotFound, match="open it first"):
        review.approve(conn, sid, version=1, actor="ann")
    review.open_item(conn, sid, actor="ann")
    with pytest.raises(FairMarkError, match="comment is empty"):
        review.approve(conn, sid, version=1, actor="ann")


def test_regenerate_keeps_teachers_version_until_chosen(conn, course):
    sid = make_item(conn, course)
    review.open_item(conn, sid, actor="ann")
    mine = review.save_edit(conn, sid, version=1, scores=dict(HIGH, clarity=1), comment="Teacher's comment.",
                            reasons=["inaccurate"], actor="ann")
    calls = []

    def fake_assess_one(db_path, submission_id, *, llm=None):
        calls.append((db_path, submission_id, llm))
        from db import connect
        other = connect(db_path)  # the pipeline works on its own connection
        did = f.draft(other, submission_id, LOW, comment="A fresh AI comment.")
        other.close()
        return did

    new_id = review.regenerate(conn, sid, actor="ann", assess_one=fake_assess_one)
    assert calls and calls[0][1] == sid
    kept = q.get_review(conn, sid)
    assert review.snapshot(kept) == review.snapshot(mine)  # the re-run did not touch the teacher's version
    detail = q.item(conn, sid)
    assert detail["latest_draft_id"] == new_id and detail["draft"]["id"] != new_id
    assert actions(conn, sid)[-1] == "regenerate"
    chosen = review.use_draft(conn, sid, new_id, version=kept["version"], actor="ann")
    assert chosen["scores"] == LOW and chosen["comment"] == "A fresh AI comment." and chosen["draft_id"] == new_id
    assert actions(conn, sid)[-1] == "use_draft"


def test_edit_after_release_makes_new_version_needing_own_release(conn, course):
    sid = make_item(conn, course)
    review.open_item(conn, sid, actor="ann")
    review.approve(conn, sid, version=1, actor="ann")
    rel = review.release(conn, course["assignment_id"], actor="ann")
    assert rel["n_items"] == 1
    assert q.get_submission(conn, sid)["status"] == "released"
    locked = conn.execute("SELECT review_version, scores FROM release_items WHERE submission_id = ?", [sid]).fetchone()
    assert locked[0] == 2
    r = q.get_review(conn, sid)
    review.save_edit(conn, sid, version=r["version"], scores=dict(HIGH, clarity=0), comment=r["comment"],
                     reasons=["too_lenient"], actor="ann")
    sub = q.get_submission(conn, sid)
    assert sub["status"] == "drafted" and q.get_review(conn, sid)["status"] == "in_review"
    # The release still holds the locked version.
    assert conn.execute("SELECT review_version FROM release_items WHERE submission_id = ?", [sid]).fetchone()[0] == 2
    with pytest.raises(GateError, match="no approved item"):
        review.release(conn, course["assignment_id"], actor="ann")
    r = q.get_review(conn, sid)
    review.approve(conn, sid, version=r["version"], actor="ann")
    second = review.release(conn, course["assignment_id"], actor="ann")
    versions = [row[0] for row in conn.execute(
        "SELECT review_version FROM release_items WHERE submission_id = ? ORDER BY release_id", [sid])]
    assert second["release_id"] != rel["release_id"] and versions == [2, 4]


def test_release_gate_needs_attention_items_decided(conn, course):
    ok = make_item(conn, course)
    bad = make_item(conn, course, status="needs_attention", attention_reasons=["REVISE after 2 rounds"])
    review.open_item(conn, ok, actor="ann")
    review.approve(conn, ok, version=1, actor="ann")
    gates = {g.name: g for g in review.release_gates(conn, course["assignment_id"])}
    assert not gates["No item needing attention left unreviewed"].ok
    with pytest.raises(GateError, match="needing attention"):
        review.release(conn, course["assignment_id"], actor="ann")
    assert conn.execute("SELECT COUNT(*) FROM releases").fetchone()[0] == 0
    review.open_item(conn, bad, actor="ann")
    review.reject(conn, bad, version=1, note="needs a rewrite", actor="ann")
    out = review.release(conn, course["assignment_id"], actor="ann")
    assert out["n_items"] == 1
    assert q.get_submission(conn, bad)["status"] == "rejected"
    assert actions(conn, ok)[-1] == "release"


def test_bulk_approve_requires_opened_stratified_sample(conn, course):
    aid = course["assignment_id"]
    highs = [make_item(conn, course, HIGH) for _ in range(12)]
    lows = [make_item(conn, course, LOW) for _ in range(3)]
    flagged = make_item(conn, course, HIGH, flags=["short_text"])
    revise = make_item(conn, course, HIGH, verdict="REVISE")
    failed_check = make_item(conn, course, HIGH, checks=[{"name": "word_limit", "label": "words", "passed": False,
                                                        "detail": "", "severity": "fail"}])
    edited = make_item(conn, course, HIGH)
    r = review.open_item(conn, edited, actor="ann")
    review.save_edit(conn, edited, version=1, scores=HIGH, comment="changed", reasons=["generic"], actor="ann")
    state = review.sample_state(conn, aid)
    assert state.candidates == 15 and state.by_band == {"high": 12, "low": 3}
    with pytest.raises(GateError, match="draw the sample"):
        review.bulk_approve(conn, aid, expected=15, actor="ann")
    state = review.draw_sample(conn, aid, actor="ann")
    bands = {s["band"] for s in state.sample}
    assert bands == {"high", "low"} and len(state.sample) == 2 + 1
    assert set(state.unopened) == {s["submission_id"] for s in state.sample}
    assert review.draw_sample(conn, aid, actor="ann").sample == state.sample  # stable
    with pytest.raises(GateError, match="open the sampled items"):
        review.bulk_approve(conn, aid, expected=15, actor="ann")
    for s in state.sample:
        review.open_item(conn, s["submission_id"], actor="ann")
    assert review.sample_state(conn, aid).checked
    with pytest.raises(ConflictError, match="changed from 14 to 15"):
        review.bulk_approve(conn, aid, expected=14, actor="ann")
    n = review.bulk_approve(conn, aid, expected=15, actor="ann")
    assert n == 15
    statuses = dict(conn.execute("SELECT id, status FROM submissions").fetchall())
    assert all(statuses[i] == "approved" for i in highs + lows)
    assert all(statuses[i] == "drafted" for i in (flagged, revise, failed_check, edited))
    assert q.history(conn, highs[0])[-1]["action"] == "bulk_approve"
    assert q.get_review(conn, highs[0])["approved_in_bulk"] == 1
    gates = {g.name: g.ok for g in review.release_gates(conn, aid)}
    assert gates["Bulk-approval sample checked"]


def test_queue_order_filters_pagination_and_neighbours(conn, course):
    aid = course["assignment_id"]
    rest = make_item(conn, course, HIGH, text="alpha text")
    low = make_item(conn, course, LOW, text="beta text")
    attention = make_item(conn, course, HIGH, status="needs_attention", text="gamma text", flags=["injection"])
    unsure = make_item(conn, course, HIGH, confidence=0.2, text="delta text")
    f.submission(conn, aid, f.student(conn, course["course_id"]), text="not drafted")
    page = q.queue(conn, aid)
    assert [r["id"] for r in page["rows"]] == [attention, unsure, low, rest]
    assert q.group_counts(conn, aid) == {0: 1, 1: 1, 2: 1, 3: 1, 9: 1}
    assert [r["id"] for r in q.queue(conn, aid, q.QueueFilter(search="BETA"))["rows"]] == [low]
    assert [r["id"] for r in q.queue(conn, aid, q.QueueFilter(flag="injection"))["rows"]] == [attention]
    assert [r["id"] for r in q.queue(conn, aid, q.QueueFilter(criterion="clarity", score=1))["rows"]] == [low]
    p0 = q.queue(conn, aid, page_size=3)
    p1 = q.queue(conn, aid, page=1, page_size=3)
    assert p0["has_next"] and not p1["has_next"] and [r["id"] for r in p1["rows"]] == [rest]
    assert q.neighbour(conn, aid, (triage.UNSURE, unsure)) == low
    assert q.neighbour(conn, aid, (triage.UNSURE, unsure), forward=False) == attention
    # The teacher edits (score filter uses their version) and approves: order follows priority.
    review.open_item(conn, low, actor="ann")
    review.approve(conn, low, version=1, actor="ann")
    assert [r["id"] for r in q.queue(conn, aid)["rows"]][-1] == low
    assert q.neighbour(conn, aid, (triage.LOW_BAND, low)) == rest
    assert [r["id"] for r in q.queue(conn, aid, q.QueueFilter(statuses=("approved",)))["rows"]] == [low]


def test_queue_uses_the_queue_index(conn, course):
    where, args = q.QueueFilter().where()
    plan = " ".join(str(r[-1]) for r in conn.execute(
        f"EXPLAIN QUERY PLAN SELECT s.id {q._QUEUE_FROM} WHERE {where} ORDER BY s.priority, s.id LIMIT 25",
        [course["assignment_id"], *args]).fetchall())
    assert "idx_submissions_queue" in plan and "TEMP B-TREE" not in plan


def test_highlight_is_escaped_markdown_with_bold_quotes():
    text = "I think <script>alert(1)</script> temperature *matters* [link](x) :red[boom]"
    md = review.highlight_markdown(text, ["temperature *matters*", "absent quote"])
    assert "<script>" not in md and "\\<script\\>" in md
    assert "**temperature \\*matters\\***" in md
    assert "\\[link\\]\\(x\\)" in md and "\\:red\\[boom\\]" in md
    assert review.find_quotes("Hello World", ["world", "xx"]) == [(6, 11)]


def test_failed_ai_item_is_marked_by_hand_without_reason(conn, course):
    sid = make_item(conn, course, HIGH, status="failed", comment="")
    conn.execute("UPDATE drafts SET scores = '{}', total = 0 WHERE submission_id = ?", [sid])  # as the pipeline stores it
    r = review.open_item(conn, sid, actor="ann")
    assert r["scores"] == {}
    with pytest.raises(FairMarkError, match="choose a score for: Clarity"):
        review.save_edit(conn, sid, version=1, scores=dict(HIGH, clarity=None), comment="x", actor="ann")
    out = review.approve(conn, sid, version=1, scores=LOW, comment="Marked by hand. What next?", actor="ann")
    assert out["status"] == "approved" and out["edited"] == 1
    assert q.get_submission(conn, sid)["status"] == "approved"


def test_highlight_never_makes_code_blocks_from_indented_text():
    md = review.highlight_markdown("Here:\n    client = OpenAI()\n\tx = 1", [])
    lines = md.split("  \n")
    assert lines[1] == "\u00a0" * 4 + "client \\= OpenAI\\(\\)"
    assert lines[2] == "\u00a0" * 4 + "x \\= 1"


# --- regressions ------------------------------------------------------------------------------
def test_redo_run_after_sample_needs_a_fresh_sample(conn, db_path, course):
    """A sample opened before a redo run checked drafts that no longer exist: bulk approval of the
    new drafts is refused until a fresh sample is drawn and opened."""
    from core import runs

    text = ("This week I learned that temperature controls how random a language model is. For example, when I "
            "drafted a policy email at temperature 0.9 the model invented a deadline, so I now keep it low. ") * 4
    aid = course["assignment_id"]
    sids = [f.submission(conn, aid, f.student(conn, course["course_id"]), text=f"{text}{i}") for i in range(6)]
    runs.execute(str(db_path), runs.create(conn, course_id=course["course_id"], provider="offline"))
    state = review.draw_sample(conn, aid, actor="ann")
    assert state.sample and state.candidates
    for s in state.sample:
        review.open_item(conn, s["submission_id"], actor="ann")
    assert review.sample_state(conn, aid).checked
    runs.execute(str(db_path), runs.create(conn, course_id=course["course_id"], provider="offline", redo=True))
    state = review.sample_state(conn, aid)
    assert state.candidates and not state.checked
    with pytest.raises(GateError):
        review.bulk_approve(conn, aid, expected=state.candidates, actor="ann")
    assert not conn.execute("SELECT COUNT(*) FROM reviews WHERE status = 'approved'").fetchone()[0]
    # A fresh sample of the new drafts, opened, lets bulk approval through again.
    state = review.draw_sample(conn, aid, actor="ann")
    assert state.unopened and all(q.get_submission(conn, s["submission_id"])["current_draft_id"] == s["draft_id"]
                                  for s in state.sample)
    for s in state.sample:
        review.open_item(conn, s["submission_id"], actor="ann")
    state = review.sample_state(conn, aid)
    assert state.checked
    assert review.bulk_approve(conn, aid, expected=state.candidates, actor="ann") == state.candidates
    assert all(q.get_submission(conn, sid)["status"] in ("approved", "drafted", "needs_attention") for sid in sids)


def test_new_drafts_after_the_draw_invalidate_the_whole_sample(conn, db_path, course):
    """The sampled item itself is unchanged (approved on its own), but the other candidates got
    new drafts after the draw: those were never represented, so the sample must be redrawn."""
    from core import pipeline, runs

    text = ("This week I learned that temperature controls how random a language model is. For example, when I "
            "drafted a policy email at temperature 0.9 the model invented a deadline, so I now keep it low. ") * 4
    aid = course["assignment_id"]
    for i in range(6):
        f.submission(conn, aid, f.student(conn, course["course_id"]), text=f"{text}{i}")
    runs.execute(str(db_path), runs.create(conn, course_id=course["course_id"], provider="offline"))
    state = review.draw_sample(conn, aid, actor="ann")
    sampled = {s["submission_id"] for s in state.sample}
    for sid in sampled:
        review.open_item(conn, sid, actor="ann")
    assert review.sample_state(conn, aid).checked
    others = [r[0] for r in conn.execute("SELECT id FROM submissions WHERE assignment_id = ? AND status = 'drafted'",
                                       [aid]).fetchall() if r[0] not in sampled]
    for sid in others:
        pipeline.assess_one(str(db_path), sid)          # Regenerate-style new drafts, unseen
    state = review.sample_state(conn, aid)
    assert not state.checked and set(state.stale) == sampled
    with pytest.raises(GateError):
        review.bulk_approve(conn, aid, expected=state.candidates, actor="ann")
    state = review.draw_sample(conn, aid, actor="ann")    # a fresh draw covers the new drafts
    assert state.sample and state.unopened


def _hold_write_lock(db_path, seconds: float, started):
    """Another connection (the background worker) holds the write lock, then commits."""
    import sqlite3
    import time

    conn = sqlite3.connect(str(db_path), isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO audit_log (actor, action, entity) VALUES ('worker', 'tick', 'runs')")
    started.set()
    time.sleep(seconds)
    conn.execute("COMMIT")
    conn.close()


def test_approve_waits_for_a_background_write_instead_of_failing(conn, db_path, course):
    import threading
    import time

    sid = make_item(conn, course)
    review.open_item(conn, sid, actor="ann")
    started = threading.Event()
    worker = threading.Thread(target=_hold_write_lock, args=(db_path, 0.5, started))
    worker.start()
    started.wait(5)
    t0 = time.monotonic()
    try:
        out = review.approve(conn, sid, version=1, actor="ann")
    finally:
        worker.join()
    assert out["status"] == "approved" and time.monotonic() - t0 >= 0.3  # it waited for the worker
    assert q.get_submission(conn, sid)["status"] == "approved"
    assert actions(conn, sid) == ["open", "approve"]


def test_save_while_the_database_stays_locked_is_a_clear_conflict(conn, db_path, course):
    import threading

    sid = make_item(conn, course)
    review.open_item(conn, sid, actor="ann")
    conn.execute("PRAGMA busy_timeout = 100")  # the worker holds the lock longer than we wait
    started = threading.Event()
    worker = threading.Thread(target=_hold_write_lock, args=(db_path, 1.0, started))
    worker.start()
    started.wait(5)
    try:
        with pytest.raises(ConflictError, match="another save is in progress; try again"):
            review.approve(conn, sid, version=1, actor="ann")
    finally:
        worker.join()
    assert q.get_review(conn, sid)["status"] == "in_review" and actions(conn, sid) == ["open"]


def test_conflict_message_shows_changed_text_as_plain_text(conn, course):
    sid = make_item(conn, course, comment='You wrote "![x](https://tracker.example/t.png)". (1) a (2) b. Why?')
    r = review.open_item(conn, sid, actor="ann")
    review.save_edit(conn, sid, version=1, scores=HIGH, comment="[click](https://phish.example) now. Why?",
                     reasons=["tone"], actor="bob")
    with pytest.raises(ConflictError) as info:
        review.save_edit(conn, sid, version=1, scores=dict(HIGH, clarity=1), comment=r["comment"],
                         reasons=["tone"], actor="ann")
    msg = str(info.value)
    assert "![x](" not in msg and "[click](" not in msg
    assert "\\!\\[x\\]\\(https" in msg and "\\[click\\]\\(https" in msg
    # The structured changes keep the real text (for a table, the audit, the command line).
    assert {c["field"]: c["after"] for c in info.value.changes}["comment"].startswith("[click](https://")


def test_regenerate_is_audited_even_when_the_teacher_saved_meanwhile(conn, course):
    sid = make_item(conn, course)
    review.open_item(conn, sid, actor="ann")

    def slow_pipeline(db_path, submission_id, *, llm=None):
        from db import connect
        other = connect(db_path)
        did = f.draft(other, submission_id, LOW, comment="A new AI draft.")
        # A colleague saves an edit in another tab while the pipeline is drafting.
        review.save_edit(other, submission_id, version=1, scores=dict(HIGH, clarity=1), comment="Bob's version.",
                         reasons=["tone"], actor="bob")
        other.close()
        return did

    new_id = review.regenerate(conn, sid, actor="ann", assess_one=slow_pipeline)
    assert q.latest_draft_id(conn, sid) == new_id
    assert actions(conn, sid) == ["open", "edit", "regenerate"]
    kept = q.get_review(conn, sid)
    assert kept["comment"] == "Bob's version." and kept["draft_id"] != new_id  # the teacher's version is untouched


def test_labels_for_codes_timestamps_and_history():
    from core.rubric import default_rubric
    from core.text import format_timestamp

    assert format_timestamp("2026-11-29T21:27:43.687677Z") == "2026-11-29 21:27 UTC"
    assert format_timestamp("2026-11-29T23:27:43+02:00") == "2026-11-29 21:27 UTC"
    assert format_timestamp(None) == "" and format_timestamp("not a time") == "not a time"
    assert review.label(review.STATUS_LABELS, "needs_attention") == "Needs attention"
    assert review.label(review.FLAG_LABELS, "short_text") == "Short text"
    assert review.label(review.FLAG_LABELS, "new_flag") == "New flag"
    assert review.reason_label("too_harsh, tone: be kind") == "Too harsh, Tone: be kind"
    assert review.reason_label("Quotes are invented") == "Quotes are invented"
    rubric = default_rubric()
    assert review.scores_text({"clarity": 2, "real_world_application": 1}, rubric) == \
        "Real-world application: 1, Clarity: 2"
    rows = review.history_rows([{"at": "2026-11-29T21:27:43.687677Z", "actor": "ann", "action": "reject",
                                 "reason": "too_lenient", "before": {"status": "in_review", "scores": {"clarity": 3}},
                                 "after": {"status": "rejected", "scores": {"clarity": 1}}}], rubric)
    assert rows == [{"When": "2026-11-29 21:27 UTC", "Who": "ann", "Action": "Rejected", "Reason": "Too lenient",
                     "Change": "Status: In review → Rejected; Clarity: 3 → 1"}]
