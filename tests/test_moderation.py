"""Moderation (issue 28): the stratified draw, blind second marking everywhere it could leak, the
settlement as release gate and reference, marker figures against hand-computed values, role limits."""
from __future__ import annotations

import json

import pytest

import factories as f
from core.cli import main
from core.errors import FairMarkError, Forbidden, GateError
from core.export import analysis
from core.moderation import agreement, blindness, markers, marking, sample
from core.signoff import actions, release, review_view
from db import analytics, reviews, submissions

LOW = {"concept_understanding": 1, "real_world_application": 1, "reflection_depth": 1, "clarity": 1}
HIGH = {"concept_understanding": 3, "real_world_application": 3, "reflection_depth": 2, "clarity": 3}
ITEM = ["--course", "Course M", "--assignment", "Week 1"]


def run(capsys, *argv) -> tuple[int, dict]:
    code = main(list(argv))
    return code, json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def approve(conn, sid, who, scores=None):
    actions.open_item(conn, sid, actor=who)
    version = reviews.get_review(conn, sid)["version"]
    return actions.approve(conn, sid, version=version, actor=who, scores=scores, reasons=["inaccurate"] if scores else ())


@pytest.fixture
def m(conn):
    c = f.course(conn, name="Course M")
    other = f.course(conn, name="Course O")
    sids = []
    for k in range(8):
        sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], external_id=f"s{k}",
                                                               name=f"Student {k}"))
        f.draft(conn, sid, LOW if k < 4 else HIGH)
        sids.append(sid)
    ivy = f.user(conn, "ivy", "instructor", courses=[c["course_id"]])
    tina = f.user(conn, "tina", "ta", courses=[c["course_id"]])
    cora = f.user(conn, "cora", "coordinator", courses=[c["course_id"]])
    out = f.user(conn, "olly", "instructor", courses=[other["course_id"]])
    return {"c": c, "aid": c["assignment_id"], "sids": sids, "ivy": ivy, "tina": tina, "cora": cora, "out": out}


def _first_marked(conn, m, scores=None):
    """Assign ivy and tina at random, each approves their items, then draw every item."""
    plan = markers.assign(conn, m["aid"], how="random", seed=3, actor=m["cora"])
    assert plan == {"assigned": {"ivy": 4, "tina": 4}}
    who = {"ivy": m["ivy"], "tina": m["tina"]}
    from db import moderation as mod_db
    for sid, marker in mod_db.assigned(conn, m["aid"]).items():
        approve(conn, sid, who[marker], (scores or {}).get(sid))
    return sample.draw(conn, m["aid"], size=8, actor=m["cora"])["sample"]


def test_the_draw_is_stratified_by_band_and_first_marker_and_never_gives_an_item_its_own_marker(conn, m):
    markers.assign(conn, m["aid"], how="random", seed=3, actor=m["cora"])
    out = sample.draw(conn, m["aid"], size=4, seed=1, actor=m["cora"])["sample"]
    strata = {i["stratum"] for i in out}
    assert len(out) == 4 and strata == {"low band · first marker ivy", "low band · first marker tina",
                                        "high band · first marker ivy", "high band · first marker tina"}
    for i in out:
        assert i["second_marker"] in ("ivy", "tina") and i["second_marker"] not in i["stratum"]
    again = sample.draw(conn, m["aid"], share=0.75, actor=m["cora"])["sample"]
    assert len(again) == 6 and again[:4] == out          # items already drawn stay
    assert sample.status(conn, m["aid"], actor=m["ivy"]) == {"drawn": 6, "marked": 0, "differing": 0, "settled": 0}


def test_the_draw_refuses_bad_sizes_a_teaching_assistant_and_an_instructor(conn, m):
    with pytest.raises(GateError, match="size or its share"):
        sample.draw(conn, m["aid"], size=2, share=0.5, actor=m["cora"])
    with pytest.raises(GateError, match="share must be"):
        sample.draw(conn, m["aid"], share=1.5, actor=m["cora"])
    for who in (m["tina"], m["ivy"], m["out"]):
        with pytest.raises(Forbidden):
            sample.draw(conn, m["aid"], size=2, actor=who)
    assert sample.status(conn, m["aid"], actor=m["cora"])["drawn"] == 0


def test_the_second_marker_sees_nothing_of_the_first_mark_or_the_ai_until_they_commit(conn, m, capsys):
    drawn = _first_marked(conn, m)
    item = next(i for i in drawn if i["second_marker"] == "tina")
    sid, tina = item["submission_id"], m["tina"]
    view = marking.for_marker(conn, sid, actor=tina)
    assert view["marked"] is False and "first" not in view and "ai" not in view
    with pytest.raises(GateError, match="second marker"):
        review_view.review_show(conn, sid, actor=tina)
    with pytest.raises(GateError, match="second marker"):
        actions.open_item(conn, sid, actor=tina)
    queued = {i["submission_id"]: i for i in review_view.review_queue(conn, m["aid"], actor=tina)["items"]}
    assert queued[sid]["group"] == blindness.SECOND_MARKING_GROUP and queued[sid]["reasons"] == []
    table = analysis.analysis_table(conn, m["c"]["course_id"], m["aid"], actor=f.user(conn, "ivy2", "instructor",
                                                                                          courses=[m["c"]["course_id"]]))
    assert table[1][table[0].index("clarity_ai")] != ""               # others still see the columns
    code, out = run(capsys, "review", "show", str(sid), "--as", "tina")
    assert code == 2 and "second marker" in out["error"]
    with pytest.raises(Forbidden):
        marking.for_marker(conn, sid, actor=m["ivy"])                  # not ivy's to mark
    after = marking.mark(conn, sid, HIGH, actor=tina)
    assert after["marked"] and after["first"] is not None and after["ai"]["scores"]
    assert review_view.review_show(conn, sid, actor=tina, opening=False)["scores"]
    with pytest.raises(FairMarkError, match="final"):
        marking.mark(conn, sid, LOW, actor=tina)


def test_an_instructors_analysis_export_blanks_the_items_they_still_mark_blind(conn, m):
    drawn = _first_marked(conn, m)
    sid = next(i["submission_id"] for i in drawn if i["second_marker"] == "ivy")
    table = analysis.analysis_table(conn, m["c"]["course_id"], m["aid"], actor=m["ivy"])
    row = next(r for r in table[1:] if r[table[0].index("submission_id")] == sid)
    assert row[table[0].index("clarity_ai")] == "" and row[table[0].index("clarity_teacher")] == ""
    assert row[table[0].index("draft_id")] == ""


def test_differing_marks_hold_the_release_until_the_settlement_which_becomes_the_released_mark_and_reference(
        conn, m, capsys):
    drawn = _first_marked(conn, m)
    for i in drawn:
        marker = m[i["second_marker"]]
        low = submissions.get_submission(conn, i["submission_id"])["id"] in m["sids"][:4]
        marking.mark(conn, i["submission_id"], HIGH if low else {**HIGH, "reflection_depth": 3}, actor=marker)
    # low items: AI-scored 1s against second marks of 2-3 -> differ; high items: within a level
    assert sample.status(conn, m["aid"], actor=m["cora"]) == {"drawn": 8, "marked": 8, "differing": 4, "settled": 0}
    with pytest.raises(GateError, match=f"submission {m['sids'][0]} its two marks differ"):
        release.release(conn, m["aid"], actor=m["ivy"])
    code, out = run(capsys, "release", *ITEM, "--as", "ivy")
    assert code == 2 and "waits for the moderator's settlement" in out["error"]
    with pytest.raises(Forbidden):
        marking.settle(conn, m["sids"][0], HIGH, note="n", actor=m["tina"])    # a TA cannot moderate
    with pytest.raises(GateError, match="within a level"):
        marking.settle(conn, m["sids"][5], HIGH, note="n", actor=m["cora"])
    final = {**LOW, "clarity": 2}
    for sid in m["sids"][:4]:
        marking.settle(conn, sid, final, note="second marker right on clarity only", actor=m["cora"])
    assert sample.status(conn, m["aid"], actor=m["cora"])["settled"] == 4
    assert reviews.get_review(conn, m["sids"][0])["scores"] == final
    assert release.release(conn, m["aid"], actor=m["ivy"])["n_items"] == 8
    pairs = analytics.pair_counts(conn, analytics.Scope("assignment", m["c"]["course_id"], m["aid"]), reference="auto",
                                  by=("source",))
    moderated = pairs[pairs["source"] == "moderated"]
    assert int(moderated["n"].sum()) == 16                               # 4 items x 4 criteria
    clarity = moderated[moderated["criterion"] == "clarity"]
    assert clarity["reference"].tolist() == [2.0]


def test_an_undone_second_mark_holds_the_release_and_agreeing_marks_do_not(conn, m):
    drawn = _first_marked(conn, m)
    with pytest.raises(GateError, match="waits for its second mark"):
        release.release(conn, m["aid"], actor=m["ivy"])
    for i in drawn[1:]:
        scores = LOW if i["submission_id"] in m["sids"][:4] else HIGH
        marking.mark(conn, i["submission_id"], scores, actor=m[i["second_marker"]])
    with pytest.raises(GateError, match=f"submission {drawn[0]['submission_id']} waits for its second mark"):
        release.release(conn, m["aid"], actor=m["ivy"])
    with pytest.raises(Forbidden):
        sample.withdraw(conn, drawn[0]["submission_id"], actor=m["ivy"])
    sample.withdraw(conn, drawn[0]["submission_id"], actor=m["cora"])      # its second marker left, say
    with pytest.raises(GateError, match="not an item of a moderation sample waiting"):
        sample.withdraw(conn, drawn[1]["submission_id"], actor=m["cora"])  # marked already: it stays
    assert release.release(conn, m["aid"], actor=m["ivy"])["n_items"] == 8


def test_marker_figures_against_hand_computed_values(conn, m):
    # ivy first-marks s0..s3's AI 1s as 2 on reflection depth; tina marks them blind 1: ivy +1
    # against the consensus. One item settled at 1 keeps the consensus 1 (never ivy's own 2).
    markers.assign(conn, m["aid"], how="section", markers={"": "ivy"}, actor=m["cora"])
    for sid in m["sids"][:4]:
        approve(conn, sid, m["ivy"], {**LOW, "reflection_depth": 3} if sid == m["sids"][0]
                else {**LOW, "reflection_depth": 2})
    out = sample.draw(conn, m["aid"], size=8, actor=m["cora"])["sample"]
    assert {i["second_marker"] for i in out} == {"tina"}
    for sid in m["sids"][:4]:
        marking.mark(conn, sid, LOW, actor=m["tina"])
    marking.settle(conn, m["sids"][0], LOW, note="depth is thin", actor=m["cora"])
    figs = markers.figures(conn, m["c"]["course_id"], actor=m["cora"])["markers"]
    ivy = next(x for x in figs if x["marker"] == "ivy")
    depth = next(s for s in ivy["severity"] if s["criterion"] == "reflection_depth")
    # ivy's depth: 3, 2, 2, 2 against consensus 1 (settled), 1, 1, 1 -> mean difference +1.25
    assert depth["difference"] == pytest.approx(1.25) and depth["students"] == 4 and depth["n"] == 4
    assert depth["text"].startswith("marks Reflection depth 1.2 higher than the consensus") or \
        depth["text"].startswith("marks Reflection depth 1.3 higher than the consensus")
    assert depth["text"].endswith("on 4 students")
    tina = next(x for x in figs if x["marker"] == "tina")
    tdepth = next(s for s in tina["severity"] if s["criterion"] == "reflection_depth")
    # tina: 1 vs settled 1 (0), 1 vs ivy's 2 three times (-1) -> -0.75
    assert tdepth["difference"] == pytest.approx(-0.75)
    # edits count ivy's own marks, also on the item the settlement put back at the AI's scores
    assert ivy["edits"]["items"] == 4 and ivy["edits"]["changed"] == 4 and ivy["edits"]["raised"] == 4
    assert ivy["edits"]["exact_with_ai"] == pytest.approx(12 / 16)
    # every one of ivy's 4 students gives 3 of 4: resampling them cannot vary, so no interval, said so
    assert ivy["edits"]["exact_interval"] is None and ivy["edits"]["students"] == 4
    assert ivy["edits"]["text"].endswith("same score as the AI on 75% of criteria (on 4 students; no interval: "
                                         "too few students or no variation between them)")
    own = markers.figures(conn, m["c"]["course_id"], actor=m["tina"])["markers"]
    assert [x["marker"] for x in own] == ["tina"]
    with pytest.raises(Forbidden, match="only your own"):
        markers.figures(conn, m["c"]["course_id"], marker="ivy", actor=m["tina"])
    view = agreement.moderation_view(conn, m["aid"], actor=m["cora"])
    crit = {c["criterion"]: c for c in view["agreement"]["criteria"]}
    assert crit["clarity"]["exact"] == 1.0 and crit["reflection_depth"]["mae"] == pytest.approx(1.25)
    assert {d["student"] for d in view["differing"]} <= {s for s in
                                                          conn.execute("SELECT pseudonym FROM students").fetchall()
                                                          for s in s}      # coordinator: pseudonyms


def test_the_command_line_draws_reports_and_refuses(conn, m, capsys):
    markers.assign(conn, m["aid"], how="random", seed=3, actor=m["cora"])
    code, out = run(capsys, "moderation", "draw", *ITEM, "--size", "3", "--seed", "2", "--as", "cora")
    assert code == 0 and len(out["sample"]) == 3
    assert set(out["sample"][0]) == {"submission_id", "stratum", "second_marker"}
    code, out = run(capsys, "moderation", "status", *ITEM, "--as", "ivy")
    assert code == 0 and out == {"drawn": 3, "marked": 0, "differing": 0, "settled": 0}
    code, out = run(capsys, "moderation", "draw", *ITEM, "--size", "3", "--as", "tina")
    assert code == 2 and "may not draw moderation samples" in out["error"]
    code, out = run(capsys, "moderation", "markers", "--course", "Course M", "--marker", "ivy", "--as", "tina")
    assert code == 2 and "only your own" in out["error"]
    code, out = run(capsys, "moderation", "markers", "--course", "Course M", "--as", "cora")
    assert code == 0 and {x["marker"] for x in out["markers"]} == {"ivy", "tina"}


def test_a_markers_queue_shows_their_items_unless_they_ask_for_all(conn, m, capsys):
    markers.assign(conn, m["aid"], how="random", seed=3, actor=m["cora"])
    code, mine = run(capsys, "review", "queue", *ITEM, "--as", "ivy")
    assert code == 0 and len(mine["items"]) == 4
    code, every = run(capsys, "review", "queue", *ITEM, "--as", "ivy", "--all")
    assert len(every["items"]) == 8
    assert len(review_view.review_queue(conn, m["aid"], actor=m["cora"])["items"]) == 8


def test_section_assignment_needs_a_marker_for_every_section_and_only_the_courses_markers(conn, m):
    with pytest.raises(GateError, match="every section"):
        markers.assign(conn, m["aid"], how="section", markers={"A": "ivy"}, actor=m["cora"])
    with pytest.raises(GateError, match="not a marker of this course: olly"):
        markers.assign(conn, m["aid"], how="random", markers=["olly"], actor=m["cora"])
    with pytest.raises(Forbidden):
        markers.assign(conn, m["aid"], how="random", actor=m["tina"])


def test_a_markers_share_of_the_ais_scores_has_an_interval_over_students():
    """The Markers page's "same score as the AI" share: an interval that resamples students."""
    rows = [{"student_id": s, "rubric_id": 1, "ai": {"a": 1, "b": 2}, "mine": {"a": 1, "b": 2 if s % 3 else 3}}
            for s in range(1, 31)]
    edits = markers._edits(rows, {1: (0, 3)}, seed=0)
    assert edits["exact_with_ai"] == pytest.approx(50 / 60) and edits["students"] == 30
    lo, hi = edits["exact_interval"]
    assert 0.6 < lo < 50 / 60 < hi < 1
    assert f"(95 % interval {lo:.0%}–{hi:.0%}, on 30 students)" in edits["text"]
