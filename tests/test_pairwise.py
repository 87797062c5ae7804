"""Blind pairwise comparison of two AI configurations: a stratified sample drafted with A and B
(the submissions' own drafts untouched), pairs shown without labels on random sides, choices
stored as A/B/tie, B's win rate with a CI per dimension and per teacher, and the pedagogy
judge's agreement with the teachers against the admin's threshold."""
from collections import Counter

import pytest

import factories as f
from assess_script import RICH_TEXT, good_llm
from core import prompts
from core.courses import browse
from core.errors import ConflictError, FairMarkError, GateError
from core.evals import pairwise
from db import comparisons as cmp_db
from core.accounts.access import Actor
from waits import WAIT_S

A_TEXT = "Version A: you explain temperature clearly. Next: (1) add bias, (2) add a question. What next?"
B_TEXT = "Version B: your example from work is vivid. Next: (1) say why, (2) test it twice. What changed?"


@pytest.fixture
def variant_dir(tmp_path, monkeypatch):
    root = tmp_path / "variants"
    (root / "warmer").mkdir(parents=True)
    text = (prompts.PROMPT_DIR / "aggregator.md").read_text().replace("Start with 1-2 specific strengths.",
                                                                      "Start with 2 warm, specific strengths.")
    (root / "warmer" / "aggregator.md").write_text(text)
    from core.evals import config as ai_config

    monkeypatch.setattr(ai_config, "VARIANTS_DIR", root)
    return root / "warmer"


def _course(conn, n=12):
    c = f.course(conn)
    subs = []
    for i in range(n):
        sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT + f" ({i})")
        if i < 8:   # 8 drafted (half low, half high), 4 never drafted
            f.draft(conn, sid, dict.fromkeys(c["rubric"].keys, 1 if i < 4 else 3))
        subs.append(sid)
    return c, subs


def _llms(judge_a=None, judge_b=None):
    a = good_llm().always("aggregator", {"comment": A_TEXT})
    b = good_llm().always("aggregator", {"comment": B_TEXT})
    if judge_a is not None:   # the judge of the configuration in use rates both comments
        def rate(messages, schema):
            return judge_a if "Version A" in messages[-1]["content"] else judge_b
        a.always("pedagogy", rate)
    return a, b


def test_the_sample_is_stratified_and_the_sides_random(conn, variant_dir):
    c, subs = _course(conn)
    cid = pairwise.create(conn, course_id=c["course_id"], variant_b="warmer", sample_size=6, seed=7,
                          provider="openai", actor=Actor("Coordinator C", role="admin"))
    pairs = cmp_db.pairs(conn, cid)
    assert len(pairs) == 6 and sorted(p["position"] for p in pairs) == list(range(6))
    assert {p["stratum"] for p in pairs} == {"low", "high", "undrafted"}
    assert 0 < sum(p["b_on_left"] for p in pairs) < 6
    comp = cmp_db.get(conn, cid)
    assert comp["config_a"] != comp["config_b"] and comp["variant_b"] == "warmer"
    with pytest.raises(FairMarkError, match="does not change anything"):
        (variant_dir / "aggregator.md").write_text((prompts.PROMPT_DIR / "aggregator.md").read_text())
        pairwise.create(conn, course_id=c["course_id"], variant_b="warmer", provider="openai", actor=Actor("C", role="admin"))


def test_drafting_leaves_the_submissions_own_drafts_alone(conn, db_path, variant_dir):
    c, subs = _course(conn)
    before = list(conn.query("SELECT id, status, current_draft_id FROM submissions ORDER BY id"))
    cid = pairwise.create(conn, course_id=c["course_id"], variant_b="warmer", sample_size=4, seed=1,
                          provider="openai", actor=Actor("C", role="admin"))
    a, b = _llms()
    done = pairwise.draft(db_path, cid, llm_a=a, llm_b=b, actor=Actor("test", role="admin"))
    assert done["status"] == "ready"
    assert list(conn.query("SELECT id, status, current_draft_id FROM submissions ORDER BY id")) == before
    b_prompts = [m for call in b.calls_for("aggregator") for m in call.messages if m["role"] == "system"]
    assert b_prompts and all("2 warm, specific strengths" in m["content"] for m in b_prompts)   # B's prompt
    assert all("2 warm" not in call.messages[0]["content"] for call in a.calls_for("aggregator"))


def test_teachers_see_pairs_without_labels_and_the_results_count_b(conn, db_path, variant_dir):
    c, _ = _course(conn)
    cid = pairwise.create(conn, course_id=c["course_id"], variant_b="warmer", sample_size=8, seed=3,
                          provider="openai", actor=Actor("C", role="admin"))
    good = {"leads": 5, "level": 4, "next_step": 5, "justification": "x"}
    weak = {"leads": 2, "level": 3, "next_step": 3, "justification": "y"}
    a, b = _llms(judge_a=weak, judge_b=good)          # the judge prefers B's comments
    pairwise.draft(db_path, cid, llm_a=a, llm_b=b, actor=Actor("test", role="admin"))
    b_left = {p["id"]: p["b_on_left"] for p in cmp_db.pairs(conn, cid)}
    for teacher in ("Ms T", "Mr U"):
        while (pair := pairwise.next_pair(conn, cid, actor=Actor(teacher, role="admin"))) is not None:
            assert set(pair) == {"pair_id", "position", "submission_id", "submission", "left_comment", "right_comment"}
            assert {pair["left_comment"], pair["right_comment"]} == {A_TEXT, B_TEXT}
            assert (pair["left_comment"] == B_TEXT) == bool(b_left[pair["pair_id"]])
            # Ms T always prefers B's text (wherever it is); Mr U always picks the left side.
            side = ("left" if pair["left_comment"] == B_TEXT else "right") if teacher == "Ms T" else "left"
            pairwise.choose(conn, pair["pair_id"], level=side, pedagogy="tie" if teacher == "Mr U"
                            else side, actor=Actor(teacher, role="admin"))
    r = pairwise.results(conn, cid, actor=Actor("test", role="admin"))
    lefts = sum(b_left.values())
    level = r["by_dimension"]["level"]
    assert level["n"] == 16 and level["b_wins"] == 8 + lefts and level["win_rate"] == (8 + lefts) / 16
    assert level["ci"][0] <= level["win_rate"] <= level["ci"][1]
    per = {(t["teacher"], t["dimension"]): t for t in r["by_teacher"]}
    assert per[("Ms T", "level")]["win_rate"] == 1.0 and per[("Mr U", "pedagogy")]["win_rate"] == 0.5
    assert per[("Mr U", "level")]["win_rate"] == lefts / 8
    judge = r["judge"]       # judge chose B everywhere: agrees with Ms T (B) on 8, never with Mr U (tie)
    assert (judge["n"], judge["agreement"], judge["trusted"]) == (16, 0.5, False)
    pairwise.set_trust_threshold(conn, 0.5, actor=Actor("Admin A", role="admin"))
    # 50 % agreement on 16 choices: neither enough choices nor an interval above 0.5 (issue 22)
    trust = pairwise.judge_trust(conn)
    assert trust["trusted"] is False and "only 16 teacher choices (at least 20" in trust["why"]
    with pytest.raises(ConflictError):
        first = cmp_db.pairs(conn, cid)[0]["id"]
        pairwise.choose(conn, first, actor=Actor("Ms T", role="admin"), level="left", pedagogy="left")


def test_the_offline_baseline_is_refused_up_front_saying_why_and_what_to_change(conn, variant_dir):
    c, _ = _course(conn)
    with pytest.raises(GateError, match="offline baseline .* ignores prompts, models and temperature.*"
                                        "Set up a language model"):
        pairwise.create(conn, course_id=c["course_id"], variant_b="warmer", sample_size=6, provider="offline",
                        actor=Actor("C", role="admin"))
    assert conn.execute("SELECT COUNT(*) FROM comparisons").fetchone()[0] == 0      # nothing written
    assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0


def test_pairs_whose_two_comments_are_the_same_are_skipped_and_counted(conn, db_path, variant_dir):
    c, subs = _course(conn)
    cid = pairwise.create(conn, course_id=c["course_id"], variant_b="warmer", sample_size=8, seed=3,
                          provider="openai", actor=Actor("C", role="admin"))
    a, b = _llms()
    b.script("aggregator", *[{"comment": A_TEXT + "\n"}] * 3)   # on 3 pairs B writes A's comment (and a line break)
    pairwise.draft(db_path, cid, llm_a=a, llm_b=b, actor=Actor("test", role="admin"))
    same = {p["submission_id"] for p in conn.query("SELECT submission_id FROM comparison_pairs WHERE comment_b = ?",
                                                   [A_TEXT + "\n"])}
    skipped = len(same)
    assert skipped == 3 and cmp_db.progress(conn, cid, "Ms T") == {"pairs": 5, "skipped": 3, "judged": 0}
    judged = {p["submission_id"]: p["judge_a"] is not None for p in cmp_db.pairs(conn, cid)}
    assert judged == {sid: sid not in same for sid in judged}
    calls = Counter(call.ctx.submission_id for call in a.calls_for("pedagogy"))   # drafting's own, + 2 to judge
    assert {calls[sid] + 2 * (sid in same) for sid in judged} == {max(calls.values())}
    seen = []
    while (pair := pairwise.next_pair(conn, cid, actor=Actor("Ms T", role="admin"))) is not None:
        assert {pair["left_comment"], pair["right_comment"]} == {A_TEXT, B_TEXT}
        seen.append(pair["submission_id"])
        pairwise.choose(conn, pair["pair_id"], level="left", pedagogy="left", actor=Actor("Ms T", role="admin"))
    assert len(seen) == 8 - skipped and not set(seen) & same
    r = pairwise.results(conn, cid, actor=Actor("test", role="admin"))
    assert r["skipped"] == skipped and r["by_dimension"]["level"]["n"] == 8 - skipped
    assert next(x for x in browse.comparisons_of(conn, c["course_id"], actor=Actor("C", role="admin"))
                if x["id"] == cid)["skipped"] == skipped
    assert pairwise.skipped_note(skipped).startswith(f"{skipped} pair")


def test_an_offline_comparison_made_before_the_refusal_skips_every_pair_and_the_judge(conn, db_path, variant_dir):
    c, subs = _course(conn)
    cid = f.offline_comparison(conn, c, subs[:2], "warmer")
    pairwise.draft(db_path, cid, actor=Actor("test", role="admin"))          # both sides offline: the same comment
    assert pairwise.next_pair(conn, cid, actor=Actor("Ms T", role="admin")) is None
    r = pairwise.results(conn, cid, actor=Actor("test", role="admin"))
    assert r["status"] == "ready" and (r["pairs"], r["skipped"]) == (2, 2)
    assert all(p["judge_a"] is None and p["judge_choice"] is None for p in cmp_db.pairs(conn, cid))
    j = pairwise.agreement([{"pair_id": 1, "choice": "A", "judge_choice": None}])
    assert j["agreement"] is None and j["not_run"] == 1 and "did not run" in j["ci_note"]


def test_the_compare_page_hides_the_sides_and_shows_the_results_at_the_end(conn, db_path, variant_dir, app_test):
    c, _ = _course(conn)
    cid = pairwise.create(conn, course_id=c["course_id"], variant_b="warmer", sample_size=2, seed=5,
                          provider="openai", actor=Actor("C", role="admin"))
    a, b = _llms()
    pairwise.draft(db_path, cid, llm_a=a, llm_b=b, actor=Actor("test", role="admin"))
    at = app_test("pages/compare.py", user="ms.t")
    at.run()
    assert not at.exception
    page_text = " ".join(str(e.value) for e in at.markdown) + " ".join(str(e.value) for e in at.caption)
    assert "warmer" not in page_text and cmp_db.get(conn, cid)["config_b"] not in page_text
    for _ in range(2):
        pid = pairwise.next_pair(conn, cid, actor=Actor("ms.t", role="admin"))["pair_id"]
        at.radio(key=f"cmp_level_{pid}").set_value("left")
        at.radio(key=f"cmp_pedagogy_{pid}").set_value("right")
        next(b for b in at.button if b.label == "Save and next pair").click().run()
        assert not at.exception
    assert any("judged all 2 pairs" in s.value for s in at.success)
    assert [m.label for m in at.metric] == ["Level fit: B's win rate", "Pedagogy: B's win rate"]
    assert all("95 % CI" in cap.value or "CI unavailable" in cap.value for cap in at.caption
               if "n = " in cap.value)


# --- drafting is a run (core.evals.comparison_runs) -----------------------------------------
def test_configuration_a_drafts_as_the_configuration_in_use_with_the_assignments_examples(conn, db_path,
                                                                                           variant_dir):
    from core.calibration import blind
    from db import calibration

    c, subs = _course(conn)
    for sid, level in zip(subs[:2], (1, 3)):      # a calibrated assignment: the Evaluator gets examples
        calibration.add_items(conn, c["assignment_id"], [(sid, None, "test")], actor=Actor("ann", role="admin"), at="2025-01-01")
        blind.save(conn, sid, dict.fromkeys(c["rubric"].keys, level), actor=Actor("ann", role="admin"))
    cid = pairwise.create(conn, course_id=c["course_id"], variant_b="warmer", sample_size=4, seed=1,
                          provider="openai", actor=Actor("C", role="admin"))
    a, b = _llms()
    pairwise.draft(db_path, cid, llm_a=a, llm_b=b, actor=Actor("test", role="admin"))
    for llm in (a, b):
        prompts_seen = [call.messages[0]["content"] for call in llm.calls_for("evaluator")]
        assert len(prompts_seen) == 4 and all("<examples>" in p and "(none yet)" not in p for p in prompts_seen)
    run_id = cmp_db.get(conn, cid)["run_id"]
    assert {call.ctx.run_id for llm in (a, b) for call in llm.calls} == {run_id}   # every call carries the run
    assert conn.execute("SELECT kind, status FROM runs WHERE id = ?", [run_id]).fetchone() == ("comparisons", "done")


def test_a_comparison_whose_worker_died_is_resumed_and_finished(conn, db_path, variant_dir):
    from core.runs import engine as run_engine
    from core.evals import comparison_runs

    c, subs = _course(conn)
    cid = f.offline_comparison(conn, c, subs[:3], "warmer")     # drafted for real, in the background
    run_id = cmp_db.get(conn, cid)["run_id"]
    # A worker on this host claimed it and died (a server restart): the run still says running.
    conn.execute("UPDATE runs SET status = 'running', worker = 'gone', worker_pid = 999999999, worker_host = ?, "
                 "heartbeat_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?",
                 [__import__("core.runs.worker", fromlist=["HOST"]).HOST, run_id])
    assert cmp_db.get(conn, cid)["status"] == "drafting" and pairwise.is_resumable(conn, db_path, cid, actor=Actor("test", role="admin"))
    pairwise.resume(db_path, cid, actor=Actor("test", role="admin"))
    assert run_engine.wait_for(db_path, run_id, timeout=WAIT_S)
    assert cmp_db.get(conn, cid)["status"] == "ready"
    assert comparison_runs.KIND.counts(conn, run_id) == {"pending": 0, "done": 3, "failed": 0}
    assert not pairwise.is_resumable(conn, db_path, cid, actor=Actor("test", role="admin"))


def test_an_unknown_model_stops_the_drafting_with_every_pair_waiting(conn, db_path, variant_dir, monkeypatch):
    from core.evals import comparison_runs
    from core.runs.engine import RunStopped
    from fake_openai_server import FakeOpenAI

    c, _ = _course(conn)
    with FakeOpenAI(models={"some-other-model"}) as server:
        monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("FAIRMARK_CONCURRENCY", "1")
        cid = pairwise.create(conn, course_id=c["course_id"], variant_b="warmer", sample_size=5, seed=2,
                              provider="openai", actor=Actor("C", role="admin"))
        with pytest.raises(RunStopped, match="does not exist"):
            pairwise.draft(db_path, cid, actor=Actor("test", role="admin"))
    comp = cmp_db.get(conn, cid)
    assert comp["status"] == "failed" and comp["error"].startswith("stopped:")
    assert comparison_runs.KIND.counts(conn, comp["run_id"]) == {"pending": 5, "done": 0, "failed": 0}
    assert pairwise.is_resumable(conn, db_path, cid, actor=Actor("test", role="admin"))


def test_a_changed_configuration_in_use_is_no_longer_configuration_a(conn, db_path, variant_dir, monkeypatch):
    from core.runs.engine import RunStopped

    c, _ = _course(conn)
    monkeypatch.setenv("FAIRMARK_LLM_API_KEY", "sk-test")
    cid = pairwise.create(conn, course_id=c["course_id"], variant_b="warmer", sample_size=2, seed=2,
                          provider="openai", actor=Actor("C", role="admin"))
    monkeypatch.setenv("FAIRMARK_MODEL_AGGREGATOR", "another-model")
    with pytest.raises(RunStopped, match="no longer comparison .* configuration A"):
        pairwise.draft(db_path, cid, actor=Actor("test", role="admin"))
    assert cmp_db.get(conn, cid)["status"] == "failed"


def test_a_comparison_left_drafting_before_the_migration_gets_a_run_to_resume(tmp_path, variant_dir):
    import sqlite3

    from sqlite_utils import Database

    import db as dbmod
    from core.evals import config as ai_config
    from db import evals as evals_db
    from db.schema import migrations

    path = tmp_path / "old.db"
    old = Database(sqlite3.connect(path))
    migrations.apply(old, stop_before="m018a_comparison_runs")
    c, subs = _course(old, n=3)
    hashes = []
    for defn in (ai_config.current("offline"), ai_config.current("offline", variant=ai_config.load_variant("warmer"))):
        hashes.append(ai_config.config_hash(defn))
        evals_db.record_config(old, hashes[-1], defn)
    old.execute("INSERT INTO comparisons (course_id, config_a, config_b, variant_b, sample_size, seed, status, "
                "created_by, created_at) VALUES (?, ?, ?, 'warmer', 3, 1, 'drafting', 'C', '2025-01-01')",
                [c["course_id"], *hashes])
    old.conn.executemany("INSERT INTO comparison_pairs (comparison_id, submission_id, stratum, position, b_on_left) "
                         "VALUES (1, ?, 'low', ?, 0)", [(sid, i) for i, sid in enumerate(subs)])
    old.conn.commit()
    old.close()
    conn = dbmod.connect(path)          # migrates: the stuck comparison gets a stopped run
    try:
        comp = cmp_db.get(conn, 1)
        assert comp["status"] == "failed" and "resume" in comp["error"]
        assert pairwise.is_resumable(conn, str(path), 1, actor=Actor("test", role="admin"))
        assert pairwise.draft(str(path), 1, actor=Actor("test", role="admin"))["status"] == "ready"
        assert len(cmp_db.pairs(conn, 1)) == 3   # drafted offline on both sides: the same comment, all skipped
        assert cmp_db.progress(conn, 1, "x") == {"pairs": 0, "skipped": 3, "judged": 0}
    finally:
        conn.close()
        dbmod.forget_migrated(path)
