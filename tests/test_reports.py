"""core.reports: the dashboards' figures from db.analytics' counts equal core.metrics on the rows."""
import pytest

import factories as f
from core import metrics, reports
from core.cli import metrics as cli_metrics
from core.rubric import parse_rubric
from dashboard_data import KEYS, call, item, mixed_course, review, scores
from db import analytics, dumps
from db import costs as costs_db
from db.analytics import Scope
from core.accounts.access import Actor


def test_agreement_view_equals_metrics_on_the_rows(conn):
    c, rows = mixed_course(conn)
    v = reports.agreement_view(conn, Scope("course", c["course_id"]), n_boot=200, actor=Actor("test", role="admin"))
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
    c, rows = mixed_course(conn)
    v = reports.fairness_view(conn, Scope("course", c["course_id"]), n_boot=200, min_n=5, actor=Actor("test", role="admin"))
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
    c, _ = mixed_course(conn)
    v = reports.fairness_view(conn, Scope("all"), criterion="clarity", cut=0, n_boot=100, actor=Actor("test", role="admin"))
    assert v["bands"]["bands"]["low"]["n"] == 3  # only the reference-0 items
    assert v["bands"]["cut"] == 0


def test_empty_views_say_what_to_do(conn):
    c = f.course(conn)
    item(conn, c, 2)  # a draft but no reference
    for view in (reports.agreement_view(conn, Scope("all"), actor=Actor("test", role="admin")), reports.fairness_view(conn, Scope("all"), actor=Actor("test", role="admin"))):
        assert view["empty"] and "upload expert scores, or score a calibration set blind" in view["message"]
    assert reports.costs_view(conn, Scope("all"), actor=Actor("test", role="admin"))["empty"]


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
    v = reports.agreement_view(conn, Scope("all"), n_boot=50, actor=Actor("test", role="admin"))
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
    e = reports.edit_view(conn, Scope("all"), actor=Actor("test", role="admin"))
    assert (e["n_decided"], e["n_approved"], e["approved_unchanged"]) == (5, 4, 3)
    assert e["share_unchanged"] == 0.75
    bc = e["by_criterion"].set_index("criterion")
    assert bc.loc["concept_understanding", "up"] == 1 and bc.loc["reflection_depth", "down"] == 1
    assert bc.loc["clarity", "changed"] == 0 and bc.loc["clarity", "n"] == 4
    assert e["comment_edits"]["n"] == 1 and e["comment_edits"]["mean_edit_distance"] > 0.5
    assert dict(zip(e["reason_codes"]["code"], e["reason_codes"]["n"])) == {"vague": 2, "too_harsh": 1}


def test_costs_view(conn):
    c = f.course(conn)
    run = conn.execute("INSERT INTO runs (course_id, assignment_id, provider) VALUES (?,?,?)",
                     [c["course_id"], c["assignment_id"], "openai"]).lastrowid
    s1, _ = item(conn, c, 2)
    s2, _ = item(conn, c, 2)
    call(conn, s1, "evaluator", 0.001, run=run)
    call(conn, s1, "aggregator", 0.0005, run=run, latency=500)
    call(conn, s2, "evaluator", 0.0, run=run, cache=True, latency=0)
    call(conn, None, "judge", 0.0002, run=run)  # run-level call, no submission
    v = reports.costs_view(conn, Scope("assignment", assignment_id=c["assignment_id"]), actor=Actor("test", role="admin"))
    s = v["summary"]
    assert s["calls"] == 4 and s["cost_usd"] == pytest.approx(0.0017) and s["cache_hits"] == 1
    assert s["cost_per_submission"] == pytest.approx(0.0017 / 2)
    agents = v["by_agent"].set_index("agent")
    assert agents.loc["evaluator", "cost_usd"] == pytest.approx(0.001) and agents.loc["evaluator", "calls"] == 2
    assert v["by_run"]["run"].tolist() == [f"run {run}"]
    assert v["by_course"]["course"].tolist() == ["Test course"]
    assert v["per_submission"]["n"] == 2 and v["per_submission"]["mean_cost"] == pytest.approx(0.00075)
    assert reports.costs_view(conn, Scope("assignment", assignment_id=999), actor=Actor("test", role="admin"))["empty"]


def test_costs_of_lessons_and_comparisons_are_apart_from_the_reflections(conn):
    """Finding 11: lesson review placed by its run's course, and comparison drafting by its
    submission, were counted as reflections (totals, per reflection, "Regenerate", tier 1)."""
    c = f.course(conn)

    def run(kind):
        return conn.execute("INSERT INTO runs (course_id, provider, kind) VALUES (?, 'openai', ?)",
                            [c["course_id"], kind]).lastrowid

    reflections, lessons, comparisons = run("reflections"), run("lessons"), run("comparisons")
    s1, _ = item(conn, c, 2)
    call(conn, s1, "evaluator", 0.001, run=reflections)
    call(conn, s1, "evaluator", 0.0004)                                  # Regenerate: no run
    conn.execute("UPDATE llm_calls SET tier = 1")
    call(conn, None, "lesson_judge", 0.01, run=lessons)
    call(conn, s1, "evaluator", 0.02, run=comparisons)                   # configuration A of a comparison
    call(conn, s1, "aggregator", 0.03, run=comparisons)
    conn.execute("UPDATE llm_calls SET tier = 1 WHERE run_id = ? AND agent = 'evaluator'", [comparisons])
    call(conn, None, "evaluator", 0.5)                                   # an eval-suite run: no course
    v = reports.costs_view(conn, Scope("course", course_id=c["course_id"]), actor=Actor("test", role="admin"))
    s = v["summary"]
    assert s["calls"] == 2 and s["cost_usd"] == pytest.approx(0.0014)
    assert s["cost_per_submission"] == pytest.approx(0.0014)
    assert v["by_run"]["run"].tolist() == ["Regenerate (outside runs)", f"run {reflections}"]
    assert v["tiers"]["items"] == 2 and v["tiers"]["calls"] == 2
    apart = v["apart"].set_index("what")
    assert apart.loc["Lesson review", "cost_usd"] == pytest.approx(0.01)
    assert apart.loc["Blind comparisons (drafting configurations A and B)", "calls"] == 2
    assert "Eval-suite runs and connection tests" not in apart.index     # not in this course
    everything = reports.costs_view(conn, Scope("all"), actor=Actor("test", role="admin"))
    assert everything["summary"]["cost_usd"] == pytest.approx(0.0014)
    assert everything["apart"].set_index("what").loc["Eval-suite runs and connection tests", "cost_usd"] == 0.5
    only_lessons = f.course(conn, name="Lessons only")
    lesson_run = conn.execute("INSERT INTO runs (course_id, provider, kind) VALUES (?, 'openai', 'lessons')",
                              [only_lessons["course_id"]]).lastrowid
    call(conn, None, "lesson_judge", 0.01, run=lesson_run)
    v = reports.costs_view(conn, Scope("course", course_id=only_lessons["course_id"]), actor=Actor("test", role="admin"))
    assert v["empty"] and "counted apart" in v["message"] and v["apart"]["what"].tolist() == ["Lesson review"]


def test_judge_view_krippendorff_between_versions(conn):
    c = f.course(conn)
    pairs = [(2, 2), (1, 1), (3, 2), (0, 0), (2, 3)]
    for a, b in pairs:
        sid, _ = item(conn, c, a)
        did = f.draft(conn, sid, scores(b))
        conn.execute("UPDATE drafts SET models = ? WHERE id = ?", [dumps({"evaluator": "gpt-4o"}), did])
    item(conn, c, 1)  # scored by one version only: not used
    v = reports.judge_view(conn, Scope("all"), actor=Actor("test", role="admin"))
    assert v["available"] and len(v["versions"]) == 2
    row = v["alpha"].set_index("criterion").loc["clarity"]
    assert row["submissions"] == 5
    assert row["alpha"] == pytest.approx(metrics.judge_alpha([[a for a, _ in pairs], [b for _, b in pairs]]))
    assert not reports.judge_view(conn, Scope("assignment", assignment_id=999), actor=Actor("test", role="admin"))["available"]


def test_criteria_in_scope(conn):
    c = f.course(conn)
    item(conn, c, 2, attrs={"section": "A"})
    assert reports.criteria(conn, Scope("course", c["course_id"]), actor=Actor("test", role="admin")) == KEYS
    assert reports.criteria(conn, Scope("assignment"), actor=Actor("test", role="admin")) == []


def test_fairness_page_and_metrics_command_share_one_summary(conn):
    c, rows = mixed_course(conn)
    v = reports.fairness_view(conn, Scope("course", c["course_id"]), n_boot=200, min_n=5, actor=Actor("test", role="admin"))
    cli = cli_metrics.compute(rows.assign(group=rows["a_ell"].fillna("(not recorded)")), 0, 3, group=True,
                              n_boot=200, min_n=5)
    assert cli["delta_mae"] == v["bands"]["delta_mae"] and cli["delta_mae_ci"] == v["bands"]["delta_mae_ci"]
    assert cli["bands"]["low"]["mae_ci"] == v["bands"]["bands"]["low"]["mae_ci"]
    ell = v["groups"]["ell"]
    assert cli["by_group"]["yes"]["mae_ci"] == ell["by_group"]["yes"]["mae_ci"]
    assert cli["group_difference"]["mae"] == ell["difference"]["mae"]


def test_a_rerun_on_unchanged_data_reads_the_cache(conn, monkeypatch):
    c, _ = mixed_course(conn)
    sid, did = item(conn, c, 2)
    review(conn, sid, did, scores(1), comment="Changed.")
    call(conn, sid, "evaluator", 0.001)
    scope = Scope("course", c["course_id"])
    views = (reports.agreement_view, reports.fairness_view, reports.edit_view, reports.judge_view,
             reports.costs_view)
    first = [view(conn, scope, actor=Actor("test", role="admin")) for view in views]

    def fail(*args, **kwargs):
        raise AssertionError("recomputed on unchanged data")

    for name in ("_pair_counts", "_cell_counts", "edit_counts", "judge_scores"):
        monkeypatch.setattr(analytics, name, fail)
    monkeypatch.setattr(costs_db, "cost_tables", fail)
    monkeypatch.setattr(metrics, "edit_summary", fail)
    monkeypatch.setattr(metrics, "judge_alpha", fail)
    again = [view(conn, scope, actor=Actor("test", role="admin")) for view in views]
    assert again[0]["headline"].equals(first[0]["headline"]) and again[4]["summary"] == first[4]["summary"]


def test_a_coordinators_all_courses_figures_count_only_the_granted_courses(conn):
    """Issue 13 with the kept counts (issue 18): "all courses" for a user granted some courses
    sums those courses' counted rows, never the all-courses row that counts the others too."""
    c, _ = mixed_course(conn)
    other = f.course(conn, "Another course", weeks=2)
    for i in range(5):
        item(conn, other, 0, expert=3, assignment=i % 2)
    cora = f.user(conn, "cora", "coordinator", courses=[c["course_id"]])

    def n(view):
        return int(view["headline"].set_index("criterion").loc["All criteria", "n"])

    for intervals in (False, True):
        mine = reports.agreement_view(conn, Scope("all"), n_boot=50, intervals=intervals, actor=cora)
        alone = reports.agreement_view(conn, Scope("course", c["course_id"]), n_boot=50, intervals=intervals,
                                       actor=f.actor())
        everyone = reports.agreement_view(conn, Scope("all"), n_boot=50, intervals=intervals, actor=f.actor())
        assert n(mine) == n(alone) == 84 < n(everyone)
        fair = reports.fairness_view(conn, Scope("all"), n_boot=50, intervals=intervals, actor=cora)
        assert fair["bands"]["bands"]["low"]["n"] == reports.fairness_view(
            conn, Scope("course", c["course_id"]), n_boot=50, intervals=intervals, actor=f.actor())["bands"]["bands"]["low"]["n"]
