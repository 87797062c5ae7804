"""db.analytics: which scores are compared, scope, SQL aggregation == metrics on rows, caching."""
import pandas as pd
import pytest

import factories as f
from core import metrics
from core.rubric import parse_rubric
from db import analytics, dumps
from db.analytics import Scope

KEYS = ["concept_understanding", "real_world_application", "reflection_depth", "clarity"]


def scores(v):
    return {k: v for k in KEYS} if isinstance(v, int) else dict(zip(KEYS, v))


def review(conn, sid, did, teacher, status="approved", comment=None, reasons=()):
    conn.execute("INSERT INTO reviews (submission_id, draft_id, scores, comment, status, edited, reason_codes) "
               "VALUES (?,?,?,?,?,?,?)",
               [sid, did, dumps(teacher), comment if comment is not None else
                conn.execute("SELECT comment FROM drafts WHERE id = ?", [did]).fetchone()[0], status, 0,
                dumps(list(reasons))])


def item(conn, c, ai, *, expert=None, teacher=None, status="approved", attrs=None, words=150, assignment=0,
         rater="expert"):
    st = f.student(conn, c["course_id"], attributes=attrs)
    sid = f.submission(conn, c["assignment_ids"][assignment], st, text=" ".join(["word"] * words) + f" {st}")
    did = f.draft(conn, sid, scores(ai))
    if expert is not None:
        f.reference(conn, sid, scores(expert), rater=rater)
    if teacher is not None:
        review(conn, sid, did, scores(teacher), status=status)
    return sid, did


def test_reference_precedence_expert_then_approved_teacher(conn):
    c = f.course(conn)
    item(conn, c, 2, expert=1, teacher=3)            # expert wins
    item(conn, c, 2, teacher=3)                      # approved teacher
    item(conn, c, 2, teacher=0, status="in_review")  # not final: no reference
    item(conn, c, 2, teacher=0, status="rejected")   # rejected: no reference
    item(conn, c, 2)                                 # nothing
    t = analytics.pair_counts(conn, Scope("assignment", assignment_id=c["assignment_id"]), by=("source",))
    got = t.groupby(["source", "reference"])["n"].sum().to_dict()
    assert got == {("expert", 1.0): 4, ("teacher", 3.0): 4}
    teacher_only = analytics.pair_counts(conn, Scope("all"), reference="teacher")
    assert teacher_only.groupby("reference")["n"].sum().to_dict() == {3.0: 8}


def test_released_submission_counts_as_final(conn):
    c = f.course(conn)
    sid, _ = item(conn, c, 2, teacher=1, status="in_review")
    conn.execute("UPDATE submissions SET status = 'released' WHERE id = ?", [sid])
    assert analytics.pair_counts(conn, Scope("all"))["n"].sum() == 4


def test_ai_is_the_draft_the_review_started_from_not_a_later_one(conn):
    c = f.course(conn)
    sid, did = item(conn, c, 3, teacher=3)
    f.draft(conn, sid, scores(0))  # a re-run later: becomes current_draft_id
    t = analytics.pair_counts(conn, Scope("all"))
    assert t.groupby("ai")["n"].sum().to_dict() == {3.0: 4}
    # without a review, the current draft is the AI's
    sid2, _ = item(conn, c, 1, expert=1)
    f.draft(conn, sid2, scores(2))
    t = analytics.pair_counts(conn, Scope("all"), reference="expert")
    assert t.groupby("ai")["n"].sum().to_dict() == {2.0: 4}


def test_rater_choice_and_mean_of_raters_with_half_points(conn):
    c = f.course(conn)
    sid, _ = item(conn, c, 2, expert=1, rater="r1")
    f.reference(conn, sid, scores(2), rater="r2")
    assert analytics.raters(conn, Scope("all")) == ["r1", "r2"]
    mean = analytics.pair_counts(conn, Scope("all"), reference="expert")
    assert mean["reference"].unique().tolist() == [1.5]
    r2 = analytics.pair_counts(conn, Scope("all"), reference="rater:r2")
    assert r2["reference"].unique().tolist() == [2.0]
    with pytest.raises(ValueError, match="reference must be"):
        analytics.pair_counts(conn, Scope("all"), reference="nobody")


def test_scope_assignment_course_all(conn):
    a = f.course(conn, "A", weeks=2)
    b = f.course(conn, "B")
    item(conn, a, 2, expert=2, assignment=0)
    item(conn, a, 2, expert=2, assignment=1)
    item(conn, b, 2, expert=2)
    n = lambda s: int(analytics.pair_counts(conn, s)["n"].sum())
    assert n(Scope("assignment", a["course_id"], a["assignment_ids"][1])) == 4
    assert n(Scope("course", a["course_id"])) == 8
    assert n(Scope("all")) == 12
    assert n(Scope("assignment")) == 0  # nothing chosen: nothing shown


def _mixed_course(conn):
    c = f.course(conn, weeks=2)
    rows = []
    plan = [  # ai, expert, attrs, words
        (3, 1, {"ell": "yes", "section": "A"}, 60), (2, 0, {"ell": "yes", "section": "A"}, 80),
        (2, 2, {"ell": "no", "section": "B"}, 150), (3, 3, {"ell": "no", "section": "A"}, 200),
        (1, 1, {"ell": "no"}, 120), (0, 2, {"section": "B"}, 90), (2, 3, {"ell": "yes", "section": "B"}, 300),
    ] * 3
    for i, (ai, ref, attrs, words) in enumerate(plan):
        item(conn, c, ai, expert=ref, attrs=attrs, words=words, assignment=i % 2)
        rows += [{"ai": ai, "reference": ref, "words": words, **{f"a_{k}": v for k, v in attrs.items()}}] * 4
    return c, pd.DataFrame(rows)


def test_agreement_view_equals_metrics_on_the_rows(conn):
    c, rows = _mixed_course(conn)
    v = analytics.agreement_view(conn, Scope("course", c["course_id"]), n_boot=200)
    direct = metrics.agreement_from_rows(rows["ai"], rows["reference"], 0, 3)
    overall = v["headline"].set_index("criterion").loc["All criteria"]
    assert overall["n"] == direct["n"] == 84
    assert overall["mae"] == pytest.approx(direct["mae"]) and overall["qwk"] == pytest.approx(direct["qwk"])
    assert set(v["confusion"]) == set(KEYS) | {"All criteria"}
    assert v["confusion"]["All criteria"].to_numpy().sum() == 84
    assert v["by_week"]["week"].tolist() == ["1", "2"] and v["by_week"]["n"].sum() == 84
    assert v["by_version"]["version"].str.contains("openai").all()
    assert v["sources"] == {"expert": 84}


def test_fairness_view_bands_groups_and_length_equal_metrics_on_rows(conn):
    c, rows = _mixed_course(conn)
    v = analytics.fairness_view(conn, Scope("course", c["course_id"]), n_boot=200, min_n=5)
    direct = metrics.band_report(metrics.pair_counts(rows["ai"], rows["reference"]), 0, 3, n_boot=200, min_n=5)
    assert v["bands"]["delta_mae"] == pytest.approx(direct["delta_mae"])
    assert v["bands"]["bands"]["low"]["n"] == direct["bands"]["low"]["n"]
    assert set(v["groups"]) == {"ell", "section"}
    ell = v["groups"]["ell"]["by_group"]
    assert set(ell) == {"yes", "no", "(not recorded)"}  # students without the attribute are shown, not dropped
    yes = rows[rows["a_ell"] == "yes"]
    assert ell["yes"]["n"] == len(yes)
    assert ell["yes"]["mae"] == pytest.approx((yes["ai"] - yes["reference"]).abs().mean())
    assert ell["(not recorded)"]["n"] == int(rows["a_ell"].isna().sum())
    lb = v["length"]
    assert lb["short"]["n"] == int((rows["words"] + 1 < 100).sum())
    assert lb["n"] == 84


def test_fairness_view_for_one_criterion_and_custom_cut(conn):
    c, _ = _mixed_course(conn)
    v = analytics.fairness_view(conn, Scope("all"), criterion="clarity", cut=0, n_boot=100)
    assert v["bands"]["bands"]["low"]["n"] == 3  # only the reference-0 items
    assert v["bands"]["cut"] == 0


def test_empty_views_say_what_to_do(conn):
    c = f.course(conn)
    item(conn, c, 2)  # a draft but no reference
    for view in (analytics.agreement_view(conn, Scope("all")), analytics.fairness_view(conn, Scope("all"))):
        assert view["empty"] and "upload expert scores or approve drafts" in view["message"]
    assert analytics.costs_view(conn, Scope("all"))["empty"]


def test_cache_is_invalidated_by_any_write(conn):
    c = f.course(conn)
    item(conn, c, 2, expert=2)
    before = analytics.data_version(conn)
    assert analytics.pair_counts(conn, Scope("all"))["n"].sum() == 4
    item(conn, c, 1, teacher=1)
    assert analytics.data_version(conn) > before
    assert analytics.pair_counts(conn, Scope("all"))["n"].sum() == 8
    conn.execute("UPDATE reviews SET status = 'in_review'")
    assert analytics.pair_counts(conn, Scope("all"))["n"].sum() == 4


def test_cached_results_cannot_be_changed_by_a_caller(conn):
    c = f.course(conn)
    item(conn, c, 2, expert=2)
    first = analytics.pair_counts(conn, Scope("all"))
    first["n"] = 0
    assert analytics.pair_counts(conn, Scope("all"))["n"].sum() == 4


def test_mixed_scales_show_the_biggest_and_say_so(conn):
    c = f.course(conn)
    item(conn, c, 2, expert=2)
    item(conn, c, 1, expert=1)
    five = parse_rubric({"name": "Five", "scale_min": 1, "scale_max": 5, "criteria": [
        {"key": "clarity", "title": "Clarity", "levels": {i: f"level {i}" for i in range(1, 6)}}]})
    other = f.course(conn, "Other", rubric=five)
    st = f.student(conn, other["course_id"])
    sid = f.submission(conn, other["assignment_id"], st)
    f.draft(conn, sid, {"clarity": 4}, rubric=five)
    f.reference(conn, sid, {"clarity": 5})
    v = analytics.agreement_view(conn, Scope("all"), n_boot=50)
    assert (v["scale"]["lo"], v["scale"]["hi"]) == (0, 3)
    assert "mixes rubric scales" in v["notes"][0] and "1–5 (1 pairs)" in v["notes"][0]


def test_edit_view(conn):
    c = f.course(conn)
    for i in range(3):  # approved unchanged
        sid, did = item(conn, c, 2)
        review(conn, sid, did, scores(2))
    sid, did = item(conn, c, 2)
    review(conn, sid, did, scores([3, 2, 1, 2]), comment="Rewritten entirely.", reasons=["too_harsh", "vague"])
    sid, did = item(conn, c, 2)
    review(conn, sid, did, scores(2), status="rejected", reasons=["vague"])
    sid, did = item(conn, c, 2)
    review(conn, sid, did, scores(0), status="in_review")  # undecided: not counted
    e = analytics.edit_view(conn, Scope("all"))
    assert (e["n_decided"], e["n_approved"], e["approved_unchanged"]) == (5, 4, 3)
    assert e["share_unchanged"] == 0.75
    bc = e["by_criterion"].set_index("criterion")
    assert bc.loc["concept_understanding", "up"] == 1 and bc.loc["reflection_depth", "down"] == 1
    assert bc.loc["clarity", "changed"] == 0 and bc.loc["clarity", "n"] == 4
    assert e["comment_edits"]["n"] == 1 and e["comment_edits"]["mean_edit_distance"] > 0.5
    assert dict(zip(e["reason_codes"]["code"], e["reason_codes"]["n"])) == {"vague": 2, "too_harsh": 1}


def _call(conn, sid, agent, cost, *, run=None, cache=False, latency=1000.0, model="gpt-4o-mini"):
    conn.execute("INSERT INTO llm_calls (run_id, submission_id, agent, model, prompt_name, prompt_hash, input_hash, "
               "temperature, cache_key, tokens_in, tokens_out, latency_ms, cost_usd, status, cache_hit) "
               "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
               [run, sid, agent, model, agent, "h", "i", 0.3, "k", 100, 50, latency, cost,
                "cache_hit" if cache else "ok", int(cache)])


def test_costs_view(conn):
    c = f.course(conn)
    run = conn.execute("INSERT INTO runs (course_id, assignment_id, provider) VALUES (?,?,?)",
                     [c["course_id"], c["assignment_id"], "openai"]).lastrowid
    s1, _ = item(conn, c, 2)
    s2, _ = item(conn, c, 2)
    _call(conn, s1, "evaluator", 0.001, run=run)
    _call(conn, s1, "aggregator", 0.0005, run=run, latency=500)
    _call(conn, s2, "evaluator", 0.0, run=run, cache=True, latency=0)
    _call(conn, None, "judge", 0.0002, run=run)  # run-level call, no submission
    v = analytics.costs_view(conn, Scope("assignment", assignment_id=c["assignment_id"]))
    s = v["summary"]
    assert s["calls"] == 4 and s["cost_usd"] == pytest.approx(0.0017) and s["cache_hits"] == 1
    assert s["cost_per_submission"] == pytest.approx(0.0017 / 2)
    agents = v["by_agent"].set_index("agent")
    assert agents.loc["evaluator", "cost_usd"] == pytest.approx(0.001) and agents.loc["evaluator", "calls"] == 2
    assert v["by_run"]["run"].tolist() == [f"run {run}"]
    assert v["by_course"]["course"].tolist() == ["Test course"]
    assert v["per_submission"]["n"] == 2 and v["per_submission"]["mean_cost"] == pytest.approx(0.00075)
    assert analytics.costs_view(conn, Scope("assignment", assignment_id=999))["empty"]


def test_criteria_and_attributes_in_scope(conn):
    c = f.course(conn)
    item(conn, c, 2, attrs={"section": "A"})
    assert analytics.criteria(conn, Scope("course", c["course_id"])) == KEYS
    assert analytics.attributes(conn, Scope("all")) == ["section"]
    assert analytics.criteria(conn, Scope("assignment")) == []


def test_judge_view_krippendorff_between_versions(conn):
    c = f.course(conn)
    pairs = [(2, 2), (1, 1), (3, 2), (0, 0), (2, 3)]
    for a, b in pairs:
        sid, _ = item(conn, c, a)
        did = f.draft(conn, sid, scores(b))
        conn.execute("UPDATE drafts SET models = ? WHERE id = ?", [dumps({"evaluator": "gpt-4o"}), did])
    item(conn, c, 1)  # scored by one version only: not used
    v = analytics.judge_view(conn, Scope("all"))
    assert v["available"] and len(v["versions"]) == 2
    row = v["alpha"].set_index("criterion").loc["clarity"]
    assert row["submissions"] == 5
    assert row["alpha"] == pytest.approx(metrics.judge_alpha([[a for a, _ in pairs], [b for _, b in pairs]]))
    assert not analytics.judge_view(conn, Scope("assignment", assignment_id=999))["available"]
