"""Calibration (issue 12) on a real SQLite file: the stratified set, blind scores and hidden
drafts, the readiness gate and bulk approval, the Evaluator's anchors and their prompt hash,
offsets, and honest references (bulk approvals change no figure)."""
from __future__ import annotations

import pytest

import factories as f
from core import reports
from core.calibration import anchors, blind, draw, offset, readiness
from core.errors import ConflictError, GateError, RubricError
from core.signoff import actions, bulk
from dashboard_data import KEYS, scores
from db import analytics, calibration, queue
from db.analytics import Scope
from core.accounts.access import Actor

TEXT = ("This week I learned how temperature changes a language model's answers. For example, at work I drafted "
        "emails and saw invented deadlines at a high temperature, so I now keep it low and check the facts. ")


def course_with_drafts(conn, n: int, *, ai=lambda i: 2, attrs=lambda i: {"section": "AB"[i % 2]},
                       words=lambda i: 40 + 7 * i):
    c = f.course(conn)
    sids = []
    for i in range(n):
        st = f.student(conn, c["course_id"], name=f"Pupil Number{i}", attributes=attrs(i))
        sid = f.submission(conn, c["assignment_id"], st,
                           text=f"I am Pupil Number{i}. {TEXT}" + " more" * words(i) + f" {i}")
        f.draft(conn, sid, scores(ai(i)), comment=f"AI COMMENT {i}")
        sids.append(sid)
    return c, sids


def blind_all(conn, c, sids, score=lambda i: 2, rater="ann"):
    for i, sid in enumerate(sids):
        if not calibration.in_set(conn, sid):
            calibration.add_items(conn, c["assignment_id"], [(sid, None, "test")], actor=rater, at="2025-01-01")
        blind.save(conn, sid, scores(score(i)), actor=Actor(rater, role="admin"))


# --- the set ---------------------------------------------------------------------------------
def test_draw_is_stratified_stable_and_only_takes_items_nobody_opened(conn):
    c, sids = course_with_drafts(conn, 30, ai=lambda i: 0 if i % 3 == 0 else 3)
    actions.open_item(conn, sids[1], actor=Actor("ann", role="admin"))  # seen by a teacher: can no longer be scored blind
    by_stratum = draw.strata(conn, c["assignment_id"], group_by="section", actor=Actor("test", role="admin"))
    assert len(by_stratum) == 8 and sids[1] not in {s for items in by_stratum.values() for s, _ in items}
    state = draw.draw(conn, c["assignment_id"], size=10, group_by="section", actor=Actor("ann", role="admin"))
    assert len(state.items) == 10 and state.pending == 10 and state.available == 19
    drawn = calibration.items(conn, c["assignment_id"])     # as stored (the view hides the band: below)
    assert {i["stratum"] for i in drawn} == set(by_stratum)  # every stratum represented
    assert all(i["stratum"].startswith(("low band", "high band")) for i in drawn)
    again = draw.draw(conn, c["assignment_id"], size=10, actor=Actor("ann", role="admin"))
    assert [i["submission_id"] for i in again.items] == [i["submission_id"] for i in state.items]
    assert len(draw.draw(conn, c["assignment_id"], size=16, actor=Actor("ann", role="admin")).items) == 16  # grows, keeps the first 10
    with pytest.raises(GateError, match="between 1 and"):
        draw.draw(conn, c["assignment_id"], size=0, actor=Actor("ann", role="admin"))


def test_allocation_gives_every_stratum_one_then_by_size():
    assert draw.allocate({"a": 10, "b": 5, "c": 1}, 8) == {"a": 5, "b": 2, "c": 1}
    assert draw.allocate({"a": 2, "b": 2}, 10) == {"a": 2, "b": 2}  # never more than a stratum has
    assert sum(draw.allocate({"x": 7, "y": 3, "z": 3}, 4).values()) == 4


def test_nothing_to_draw_says_what_to_do(conn):
    c = f.course(conn)
    with pytest.raises(GateError, match="Run Assess first"):
        draw.draw(conn, c["assignment_id"], actor=Actor("ann", role="admin"))


# --- hidden until a blind score is saved -----------------------------------------------------
def test_a_pending_item_is_hidden_from_queue_open_and_bulk_until_scored_blind(conn):
    c, sids = course_with_drafts(conn, 6)
    aid, hidden = c["assignment_id"], sids[0]
    calibration.add_items(conn, aid, [(hidden, None, "test")], actor=Actor("ann", role="admin"), at="2025-01-01")
    rows = queue.queue(conn, aid)["rows"]
    assert hidden not in {r["id"] for r in rows} and len(rows) == 5
    assert sum(queue.group_counts(conn, aid).values()) == 5
    assert queue.neighbour(conn, aid, (-1, -1)) != hidden
    with pytest.raises(GateError, match="score it blind on the Calibrate page"):
        actions.open_item(conn, hidden, actor=Actor("ann", role="admin"))
    assert bulk.sample_state(conn, aid, actor=Actor("test", role="admin")).candidates == 5
    seen = blind.for_rater(conn, hidden, actor=Actor("ann", role="admin"))
    assert not seen["scored"] and "ai" not in seen and "others" not in seen  # nothing of the AI, not even keys
    blind.save(conn, hidden, scores(1), actor=Actor("ann", role="admin"))
    assert hidden in {r["id"] for r in queue.queue(conn, aid)["rows"]}
    assert actions.open_item(conn, hidden, actor=Actor("ann", role="admin"))["scores"] == scores(2)
    seen = blind.for_rater(conn, hidden, actor=Actor("ann", role="admin"))
    assert seen["mine"] == scores(1) and seen["ai"]["comment"] == "AI COMMENT 0" and seen["others"] == {}


def test_the_set_shows_no_ai_band_to_a_teacher_until_they_scored_the_item(conn):
    c, sids = course_with_drafts(conn, 8, ai=lambda i: 0 if i % 2 else 3)
    draw.draw(conn, c["assignment_id"], size=4, group_by="section", actor=Actor("ann", role="admin"))
    ann, bob = Actor("ann", role="admin"), Actor("bob", role="instructor")
    seen = draw.state(conn, c["assignment_id"], actor=ann).items
    assert len(seen) == 4 and not any("band" in i["stratum"] for i in seen)
    assert all(i["stratum"].startswith(("shorter half", "longer half")) and "section: " in i["stratum"] for i in seen)
    sid = seen[0]["submission_id"]
    blind.save(conn, sid, scores(1), actor=ann)
    stored = next(i["stratum"] for i in calibration.items(conn, c["assignment_id"]) if i["submission_id"] == sid)
    mine = {i["submission_id"]: i["stratum"] for i in draw.state(conn, c["assignment_id"], actor=ann).items}
    assert mine[sid] == stored and stored.startswith(("low band", "high band"))
    assert not any("band" in s for k, s in mine.items() if k != sid)
    # Bob has not scored it: still no band for him, although Ann's score made the draft visible elsewhere.
    assert not any("band" in i["stratum"] for i in draw.state(conn, c["assignment_id"], actor=bob).items)


def test_the_review_item_view_refuses_a_pending_item_until_scored_blind(conn):
    from core.courses import browse

    c, sids = course_with_drafts(conn, 2)
    calibration.add_items(conn, c["assignment_id"], [(sids[0], None, "t")], actor="ann", at="2025-01-01")
    with pytest.raises(GateError, match="score it blind on the Calibrate page"):
        browse.review_item(conn, sids[0], actor=Actor("ann", role="admin"))
    assert browse.review_item(conn, sids[1], actor=Actor("ann", role="admin"))["draft"]["comment"] == "AI COMMENT 1"
    blind.save(conn, sids[0], scores(1), actor=Actor("ann", role="admin"))
    assert browse.review_item(conn, sids[0], actor=Actor("ann", role="admin"))["draft"]["comment"] == "AI COMMENT 0"


def test_the_analysis_export_blanks_a_pending_items_ai_columns_until_scored_blind(conn):
    from core.export import analysis as export_analysis

    c, sids = course_with_drafts(conn, 3)
    f.draft(conn, sids[0], scores(3), flags=["short_text"])
    hidden = sids[0]
    calibration.add_items(conn, c["assignment_id"], [(hidden, None, "test")], actor="ann", at="2025-01-01")

    def row_of(sid):
        table = export_analysis.analysis_table(conn, c["course_id"], actor=Actor("ann", role="admin"))
        return dict(zip(table[0], next(r for r in table[1:] if r[table[0].index("submission_id")] == sid)))

    shown = row_of(sids[1])
    assert shown["draft_id"] and shown[f"{KEYS[0]}_ai"] == 2
    row = row_of(hidden)
    assert row["draft_id"] == "" and row["flags"] == ""
    assert all(row[f"{k}_ai"] == "" for k in KEYS)
    blind.save(conn, hidden, scores(1), actor=Actor("ann", role="admin"))
    row = row_of(hidden)
    assert row["draft_id"] and row[f"{KEYS[0]}_ai"] == 3 and row["flags"] == "short_text"


def test_a_pending_item_is_never_sampled_for_a_blind_comparison(conn):
    from db import comparisons

    c, sids = course_with_drafts(conn, 4)
    calibration.add_items(conn, c["assignment_id"], [(sids[0], None, "test")], actor="ann", at="2025-01-01")
    assert [r["submission_id"] for r in comparisons.candidates(conn, c["course_id"], None)] == sids[1:]
    blind.save(conn, sids[0], scores(1), actor=Actor("ann", role="admin"))
    assert [r["submission_id"] for r in comparisons.candidates(conn, c["course_id"], None)] == sids


def test_blind_scores_are_final_complete_and_per_teacher(conn):
    c, sids = course_with_drafts(conn, 2)
    calibration.add_items(conn, c["assignment_id"], [(sids[0], None, "t")], actor=Actor("ann", role="admin"), at="2025-01-01")
    with pytest.raises(RubricError, match="missing"):
        blind.save(conn, sids[0], {"clarity": 2}, actor=Actor("ann", role="admin"))
    assert calibration.scores_of(conn, sids[0]) == {}  # bad input changes nothing
    blind.save(conn, sids[0], scores(2), actor=Actor("ann", role="admin"))
    with pytest.raises(ConflictError, match="final"):
        blind.save(conn, sids[0], scores(3), actor=Actor("ann", role="admin"))
    bob = blind.for_rater(conn, sids[0], actor=Actor("bob", role="admin"))
    assert not bob["scored"] and "others" not in bob  # a second teacher does not see Ann's scores first
    blind.save(conn, sids[0], scores(3), actor=Actor("bob", role="admin"))
    assert blind.for_rater(conn, sids[0], actor=Actor("bob", role="admin"))["others"] == {"ann": scores(2)}
    with pytest.raises(Exception, match="not in a calibration set"):
        blind.save(conn, sids[1], scores(2), actor=Actor("ann", role="admin"))
    assert [h["action"] for h in calibration_audit(conn)] == ["draw_calibration", "calibration_score",
                                                             "calibration_score"]


def calibration_audit(conn):
    return list(conn.query("SELECT action FROM audit_log WHERE entity LIKE 'calibration%' ORDER BY id"))


def test_skipping_a_pending_item_makes_its_draft_visible_again(conn):
    c, sids = course_with_drafts(conn, 3)
    draw.draw(conn, c["assignment_id"], size=1, actor=Actor("ann", role="admin"))
    sid = draw.state(conn, c["assignment_id"], actor=Actor("test", role="admin")).items[0]["submission_id"]
    assert blind.is_hidden(conn, sid, actor=Actor("test", role="admin"))
    draw.skip(conn, c["assignment_id"], sid, actor=Actor("ann", role="admin"))
    assert not blind.is_hidden(conn, sid, actor=Actor("test", role="admin")) and not draw.state(conn, c["assignment_id"], actor=Actor("test", role="admin")).items
    with pytest.raises(GateError):
        draw.skip(conn, c["assignment_id"], sid, actor=Actor("ann", role="admin"))


# --- readiness ------------------------------------------------------------------------------
def test_the_bulk_message_says_what_is_left_to_do_once_every_item_is_scored(conn):
    c, sids = course_with_drafts(conn, 6)
    aid, ann = c["assignment_id"], Actor("ann", role="admin")
    assert "Draw a calibration set and score it blind on the Calibrate page" in readiness.bulk_block(conn, aid, actor=ann)
    draw.draw(conn, aid, size=2, actor=ann)
    assert "Score the 2 items of the calibration set still waiting" in readiness.bulk_block(conn, aid, actor=ann)
    for item in calibration.items(conn, aid):
        blind.save(conn, item["submission_id"], scores(2), actor=ann)
    block = readiness.bulk_block(conn, aid, actor=ann)
    assert block.startswith("Bulk approval is off") and "Score the" not in block
    assert "Every item of the calibration set is scored: add items to it (a larger set size)" in block


def test_readiness_needs_the_bar_and_gates_bulk_approval(conn):
    c, sids = course_with_drafts(conn, 24, ai=lambda i: i % 4)
    aid = c["assignment_id"]
    r = readiness.readiness(conn, aid, actor=Actor("test", role="admin"))
    assert r["status"] == "no_calibration" and not r["ready"] and r["more_needed"] == 16
    assert "AI not yet calibrated for this assignment" in r["message"]
    with pytest.raises(GateError, match="Bulk approval is off: AI not yet calibrated"):
        bulk.bulk_approve(conn, aid, expected=24, actor=Actor("ann", role="admin"))
    blind_all(conn, c, sids[:8], score=lambda i: i % 4)
    r = readiness.readiness(conn, aid, actor=Actor("test", role="admin"))
    assert r["status"] == "not_ready" and r["students"] == 8
    assert all("8 of 16 students" in row["reasons"][0] for row in r["criteria"])
    blind_all(conn, c, sids[8:20], score=lambda i: (i + 8) % 4)
    r = readiness.readiness(conn, aid, actor=Actor("test", role="admin"))
    assert r["ready"] and r["students"] == 20 and r["criteria"][0]["qwk"] == 1.0
    assert readiness.bulk_block(conn, aid, actor=Actor("test", role="admin")) is None
    # the admin raises the bar: not ready again
    readiness.save_bar(conn, readiness.Bar(min_students=30), actor=Actor("admin", role="admin"))
    assert not readiness.readiness(conn, aid, actor=Actor("test", role="admin"))["ready"]
    with pytest.raises(Exception, match="cannot be required above"):
        readiness.save_bar(conn, readiness.Bar(qwk_min=0.5, qwk_ci_low_min=0.6), actor=Actor("admin", role="admin"))


def test_readiness_flags_bias_and_shows_the_human_ceiling(conn):
    c, sids = course_with_drafts(conn, 20, ai=lambda i: min(3, i % 3 + 1))
    blind_all(conn, c, sids, score=lambda i: i % 3)          # the AI is one level high
    blind_all(conn, c, sids[:10], score=lambda i: i % 3, rater="bob")  # a second teacher agrees
    r = readiness.readiness(conn, c["assignment_id"], actor=Actor("test", role="admin"))
    row = r["criteria"][0]
    assert not row["ready"] and row["bias"] == pytest.approx(1.0) and any("bias +1.00" in x for x in row["reasons"])
    assert row["ceiling_students"] == 10 and row["ceiling_qwk"] == 1.0
    found = offset.offsets(conn, c["assignment_id"], actor=Actor("test", role="admin"))
    assert found and "the AI scored 1.0 higher than your blind scores on low-band work" in found[0]["message"]


def test_more_needed_shrinks_the_interval_as_one_over_root_n():
    bar = readiness.Bar()
    assert readiness.more_needed(20, 0.65, [0.2, 1.0], bar) == 7
    assert readiness.more_needed(40, 0.9, [0.8, 0.95], bar) == 0
    assert readiness.more_needed(10, 0.3, [-0.2, 0.8], bar) > 0   # clearly below needs a tighter interval too


# --- honest references --------------------------------------------------------------------
def test_bulk_approved_items_change_no_agreement_figure(conn, monkeypatch):
    c, sids = course_with_drafts(conn, 30, ai=lambda i: i % 4)
    aid = c["assignment_id"]
    for i, sid in enumerate(sids[:10]):
        f.reference(conn, sid, scores((i + 1) % 4))                  # expert scores
    blind_all(conn, c, sids[10:16], score=lambda i: 3 - i % 4)     # blind scores
    for sid in sids[16:18]:                                         # one-by-one approvals, one edited
        actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    actions.approve(conn, sids[16], version=1, scores=scores(0), comment="Edited.", reasons=["too_lenient"],
                    actor=Actor("ann", role="admin"))
    actions.approve(conn, sids[17], version=1, scores=None, comment=None, actor=Actor("ann", role="admin"))
    scope = Scope("assignment", assignment_id=aid)

    def figures():
        analytics.clear_cache()
        a = reports.agreement_view(conn, scope, n_boot=200, actor=Actor("test", role="admin"))
        fv = reports.fairness_view(conn, scope, n_boot=200, actor=Actor("test", role="admin"))
        e = reports.edit_view(conn, scope, actor=Actor("test", role="admin"))
        return (a["headline"].drop(columns="title").to_dict("records"), a["sources"],
                reports.anchored_view(conn, scope, actor=Actor("test", role="admin")), fv["bands"]["delta_mae"], fv["bands"]["delta_mae_ci"],
                {k: {g: v["mae"] for g, v in rep["by_group"].items()} for k, rep in fv["groups"].items()},
                e["n_approved"], e["approved_unchanged"], e["share_unchanged"],
                readiness.readiness(conn, aid, actor=Actor("test", role="admin"))["criteria"][0]["qwk"])

    before = figures()
    monkeypatch.setattr(readiness, "bulk_block", lambda conn, assignment_id, **_: None)  # the gate is tested above
    state = bulk.draw_sample(conn, aid, actor=Actor("ann", role="admin"))
    for s in state.sample:
        actions.open_item(conn, s["submission_id"], actor=Actor("ann", role="admin"))
    n = bulk.bulk_approve(conn, aid, expected=bulk.sample_state(conn, aid, actor=Actor("test", role="admin")).candidates, actor=Actor("ann", role="admin"))
    assert n >= 8
    after = figures()
    assert after == before
    assert reports.edit_view(conn, scope, actor=Actor("test", role="admin"))["bulk_approved"] == n
    assert before[6] == 2 and before[7] == 1  # "approved unchanged" counts only one-by-one approvals


# --- what the teacher taught: anchors ------------------------------------------------------
def test_anchors_one_per_level_and_criterion_pseudonymised_never_the_item_itself(conn):
    c, sids = course_with_drafts(conn, 8)
    blind_all(conn, c, sids[:6], score=lambda i: i % 4)
    rubric = c["rubric"]
    got = anchors.for_submission(conn, sids[0], c["assignment_id"], rubric)
    assert sids[0] not in {a["submission_id"] for a in got}
    pairs = [(k, v) for a in got for k, v in a["scores"].items()]
    assert len(pairs) == len(set(pairs)) == 4 * 4  # levels 0-3 on 4 criteria, each once
    text = " ".join(a["text"] for a in got)
    assert "Pupil" not in text and "Student-" in text  # each example's own student is pseudonymised
    assert all(len(a["text"].split()) <= anchors.ANCHOR_WORDS + 1 for a in got)
    # an item scored by two teachers who disagree is no example for that criterion
    blind.save(conn, sids[1], scores(3), actor=Actor("bob", role="admin"))
    again = anchors.for_submission(conn, sids[0], c["assignment_id"], rubric)
    assert sids[1] not in {a["submission_id"] for a in again}


def test_an_injection_flagged_text_is_never_an_example(conn):
    c, sids = course_with_drafts(conn, 3)
    f.draft(conn, sids[1], scores(1), flags=["injection"])
    blind_all(conn, c, sids[:2], score=lambda i: 1)
    got = anchors.for_submission(conn, sids[2], c["assignment_id"], c["rubric"])
    assert [a["submission_id"] for a in got] == [sids[0]]


def test_anchors_reach_the_evaluator_and_change_its_prompt_hash_and_only_its_cache(conn, db_path):
    from assess_script import RICH_TEXT, good_llm
    from core import pipeline
    from core.llm.logged import LoggedLLM

    c, sids = course_with_drafts(conn, 5)
    target = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT)
    llm = good_llm()
    logged = LoggedLLM(llm, db_path, prices={})
    pipeline.assess_submission(db_path, target, logged)
    first = conn.execute("SELECT agent, prompt_hash, status FROM llm_calls ORDER BY id").fetchall()
    blind_all(conn, c, sids[:4], score=lambda i: i % 4)
    pipeline.assess_submission(db_path, target, logged)
    second = conn.execute("SELECT agent, prompt_hash, status FROM llm_calls ORDER BY id").fetchall()[len(first):]
    request = llm.calls_for("evaluator")[-1].messages[0]["content"]
    example = anchors.for_submission(conn, target, c["assignment_id"], c["rubric"])[0]["text"]
    assert example[:60] in request and "<examples>" in request
    assert "(none yet)" in llm.calls_for("evaluator")[0].messages[0]["content"]
    hashes = {agent: (h1, h2) for (agent, h1, _), (_, h2, _) in zip(first, second)}
    assert hashes["evaluator"][0] != hashes["evaluator"][1]           # new anchors, new prompt hash
    assert {a: s for a, _, s in second} == {"evaluator": "ok", "equity": "cache_hit", "coach": "cache_hit",
                                           "aggregator": "cache_hit", "reviewer": "cache_hit",
                                           "grounding": "cache_hit", "pedagogy": "cache_hit"}


def test_the_evaluator_writes_evidence_and_reasoning_before_the_score():
    from core.agents import evaluator

    fields = list(evaluator.schema_for(f.default_rubric()).model_json_schema()["$defs"].values())[0]["properties"]
    assert list(fields)[:3] == ["evidence_quote", "reasoning", "score"]
    prompt = evaluator.PROMPT.load().system
    assert prompt.index("- evidence_quote") < prompt.index("- reasoning") < prompt.index("- score")


# --- uploads declared as calibration -------------------------------------------------------
def test_import_scores_are_calibration(conn, db_path, tmp_path, capsys):
    import json

    from core.cli import main

    rows = ["student_id,name,text," + ",".join(KEYS)]
    rows += [f's{i},Pupil {i},"{TEXT} {i}",' f"{i % 4},{i % 4},{(i + 1) % 4},{i % 4}" for i in range(5)]
    (tmp_path / "cal.csv").write_text("\n".join(rows) + "\n")
    code = main(["import", str(tmp_path / "cal.csv"), "--course", "C", "--assignment", "Week 1",
                 "--scores-are", "calibration", "--db", str(db_path)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["imported"] == 5 and out["scores_are"] == "calibration"
    assert conn.execute("SELECT COUNT(*), MIN(source) FROM calibration_scores").fetchone() == (20, "upload")
    assert conn.execute("SELECT COUNT(*) FROM reference_scores").fetchone()[0] == 0
