"""The learned offline scorer (issue 15) on the shipped ELLIPSE sample: it beats word count on
held-out essays, stays on the rubric's levels, learns only from the teacher's own scores (never
bulk approvals or reference scores), is versioned with its data, explains its scores, and
votes as a free judge when a language model scores."""
import gzip
import json
from functools import lru_cache

import numpy as np
import pytest

import factories
from assess_script import good_llm
from conftest import ROOT
from core import metrics, pipeline
from core.offline import features, heuristics, judge, model, scorer
from core.rubric import RUBRIC_DIR, load_rubric_file, parse_rubric
from db import drafts, offline_models, votes

CRITERIA = ("cohesion", "syntax", "vocabulary", "phraseology", "grammar", "conventions")
ELLIPSE = load_rubric_file(RUBRIC_DIR / "ellipse.yaml")


@lru_cache(maxsize=1)
def sample() -> list[dict]:
    with gzip.open(ROOT / "data" / "corpus" / "ellipse_sample.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@lru_cache(maxsize=1)
def trained_on_sample():
    """120 essays as the teacher's scores, 250 others as the assignment's unscored submissions."""
    rows = sample()
    order = np.random.default_rng(0).permutation(len(rows))
    train, test = [rows[i] for i in order[:120]], [rows[i] for i in order[120:370]]
    t = model.train([r["text"] for r in train], [r["prompt"] for r in train], [[] for _ in train],
                    {k: [r["scores"][k] for r in train] for k in CRITERIA},
                    pool=([r["text"] for r in test], [r["prompt"] for r in test], [[] for _ in test]), lo=1, hi=5)
    return t, train, test


def test_the_learned_scorer_beats_word_count_on_held_out_essays():
    t, train, test = trained_on_sample()
    m = t.model
    raw = m.raw(m.rows([r["text"] for r in test], [r["prompt"] for r in test], [[] for _ in test]))
    words = np.log1p([len(r["text"].split()) for r in train])
    test_words = np.log1p([len(r["text"].split()) for r in test])
    learned, length = [], []
    for k in CRITERIA:
        ref = [r["scores"][k] for r in test]
        learned.append(metrics.qwk(m.level(k, raw[k]), ref, 1, 5))
        wc = model.word_count_levels(test_words, words, [r["scores"][k] for r in train], 1, 5)
        length.append(metrics.qwk(wc, ref, 1, 5))
        bias = float(np.mean(m.level(k, raw[k]) - np.array(ref)))
        assert abs(bias) <= 0.3, (k, bias)      # the levels follow the teacher's distribution
    assert np.mean(learned) >= np.mean(length) + 0.10, (learned, length)
    assert np.mean(learned) >= 0.35


def test_predictions_stay_on_the_rubric_levels_and_survive_storage():
    t, _, test = trained_on_sample()
    texts = [r["text"] for r in test[:40]] + ["", "ok", "word " * 3000]
    stored = model.Model.from_bytes(t.model.to_bytes())
    for text in texts:
        a, b = t.model.score(text), stored.score(text)
        assert {k: v["score"] for k, v in a.items()} == {k: v["score"] for k, v in b.items()}
        assert all(v["score"] in (1, 2, 3, 4, 5) and isinstance(v["score"], int) for v in a.values())
    # The stored form is numbers and words only: numpy refuses to load pickled objects from it.
    with np.load(__import__("io").BytesIO(t.model.to_bytes()), allow_pickle=False) as z:
        assert all(z[name].dtype != object for name in z.files)


def test_levels_take_the_teachers_proportions():
    cuts = model.cut_points(np.linspace(0, 1, 101), [0, 0, 1, 3], 0, 3)
    levels = 0 + np.searchsorted(cuts, np.linspace(0, 1, 101), side="right")
    shares = np.bincount(levels, minlength=4) / 101
    assert np.allclose(shares, [0.5, 0.25, 0.0, 0.25], atol=0.02)


def test_each_score_is_explained_by_three_features():
    t, _, test = trained_on_sample()
    out = t.model.score(test[0]["text"])
    for k in CRITERIA:
        pushes = out[k]["pushes"]
        assert len(pushes) == 3 and all(isinstance(label, str) and label for label, _ in pushes)
        assert abs(pushes[0][1]) >= abs(pushes[1][1]) >= abs(pushes[2][1])


# --- what it learns from ------------------------------------------------------------------
def essays_course(conn, n: int, rubric=ELLIPSE):
    c = factories.course(conn, rubric=rubric)
    subs = []
    for r in sample()[:n]:
        subs.append(factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]), r["text"]))
    return c, subs


def whole(scores: dict) -> dict:
    return {k: int(round(v)) for k, v in scores.items() if k in CRITERIA}


def approve(conn, sid, scores, *, bulk: bool):
    conn.execute("INSERT INTO reviews (submission_id, scores, status, approved_in_bulk, approved_by, approved_at) "
                 "VALUES (?, ?, 'approved', ?, 't', '2025-01-01')", [sid, json.dumps(scores), int(bulk)])


def test_bulk_approvals_and_reference_scores_never_enter_training(conn):
    c, subs = essays_course(conn, 60)
    rows = sample()[:60]
    for sid, r in zip(subs[:22], rows[:22]):
        factories.blind(conn, sid, whole(r["scores"]))
    for sid, r in zip(subs[22:32], rows[22:32]):
        factories.reference(conn, sid, r["scores"])            # expert scores: agreement only
    for sid, r in zip(subs[32:42], rows[32:42]):
        approve(conn, sid, whole(r["scores"]), bulk=True)      # the AI's scores, approved in bulk
    for sid, r in zip(subs[42:47], rows[42:47]):
        approve(conn, sid, whole(r["scores"]), bulk=False)     # one by one: only with use_edits
    s = scorer.current(conn, c["assignment_id"])
    first = offline_models.latest(conn, c["assignment_id"])
    trained = {r["submission_id"] for r in offline_models.training_of(conn, first["id"])}
    assert trained == set(subs[:22]) and s.kind("grammar") == "learned" and s.scores["grammar"] == 22
    scorer.save_options(conn, c["assignment_id"], scorer.Options(use_edits=True), actor=factories.actor("t"))
    s2 = scorer.current(conn, c["assignment_id"])
    latest = offline_models.latest(conn, c["assignment_id"])
    trained = {r["submission_id"] for r in offline_models.training_of(conn, latest["id"])}
    assert trained == set(subs[:22]) | set(subs[42:47]) and s2.version == s.version + 1
    assert not trained & (set(subs[22:42]))


def test_versions_follow_the_data_and_too_few_scores_keep_a_labelled_calibrated_heuristic(conn, db_path):
    c, subs = essays_course(conn, 40)
    rows = sample()[:40]
    aid = c["assignment_id"]
    assert scorer.current(conn, aid).version is None            # nothing scored: plain heuristic, nothing stored
    for sid, r in zip(subs[:8], rows[:8]):
        factories.blind(conn, sid, whole(r["scores"]))
    s = scorer.current(conn, aid)
    assert s.version == 1 and s.model is None and s.kind("syntax") == "calibrated"
    assert scorer.current(conn, aid) is s                      # same data: the same version, not retrained
    ev = heuristics.evaluate(rows[30]["text"], ELLIPSE, [], scorer=s)
    assert "Heuristic calibrated on 8 teacher score(s) (a learned model needs 20)" in ev["syntax"]["reasoning"]
    for sid, r in zip(subs[8:24], rows[8:24]):
        factories.blind(conn, sid, whole(r["scores"]))
    s = scorer.current(conn, aid)
    assert s.version == 2 and s.kind("syntax") == "learned"
    # The offline pipeline uses it: the reasoning says what it learned from and what pushed the score.
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, subs[35]))
    reason = d["outputs"]["evaluator"]["grammar"]["reasoning"]
    assert "24 teacher scores (offline scorer v2): pushed " in reason
    assert s.scored_by("grammar").startswith("Scored by ") and s.scored_by("grammar") in reason
    assert d["scores"]["grammar"] in range(1, 6)
    status = scorer.status(conn, aid, actor=factories.actor())
    row = status["agreement"]["grammar"]
    assert row["kind"] == "learned" and row["model"]["n"] == 24 and row["word_count"]["n"] == 24
    assert row["model"]["qwk_ci"] is None or len(row["model"]["qwk_ci"]) == 2


def test_assignments_on_the_same_rubric_pool_their_scores_when_the_teacher_chooses(conn):
    c = factories.course(conn, rubric=ELLIPSE, weeks=2)
    week1, week2 = c["assignment_ids"]
    rows = sample()[:40]
    for r in rows[:21]:
        sid = factories.submission(conn, week1, factories.student(conn, c["course_id"]), r["text"])
        factories.blind(conn, sid, whole(r["scores"]))
    for r in rows[21:40]:
        factories.submission(conn, week2, factories.student(conn, c["course_id"]), r["text"])
    assert scorer.current(conn, week2).version is None           # week 2 has no scores of its own
    scorer.save_options(conn, week2, scorer.Options(pool=True), actor=factories.actor("t"))
    pooled = scorer.current(conn, week2)
    assert pooled.kind("grammar") == "learned" and pooled.scores["grammar"] == 21
    assert {r["assignment_id"] for r in offline_models.training_of(conn, offline_models.latest(conn, week2)["id"])} \
        == {week1}


def test_options_are_checked(conn):
    c, _ = essays_course(conn, 1)
    with pytest.raises(Exception, match="min_per_criterion"):
        scorer.save_options(conn, c["assignment_id"], scorer.Options(min_per_criterion=2), actor=factories.actor("t"))


# --- the rubric says which signal -----------------------------------------------------------
CLEAN = ("Technology changes how students learn. First, online lessons let them study at their own pace. "
         "However, they also need discipline, because nobody checks on them every day. In conclusion, "
         "schools should combine online and classroom lessons so that every student can benefit.")
MISSPELT = ("tecnology change how studens lern. first, onlin lesons let them studdy at there own pase. "
            "howeverr, they also need disiplin, becuase nobody chek on them evry day. in conclusoin, "
            "scools shuld combin onlin and clasroom lesons so that evry studnt can benifit.")


def one_criterion(signal: str | None, description: str = "") -> object:
    crit = {"key": "conventions", "title": "Conventions", "description": description,
            "levels": {i: f"level {i}" for i in range(1, 6)}}
    if signal:
        crit["signal"] = signal
    return parse_rubric({"name": "One", "scale_min": 1, "scale_max": 5, "criteria": [crit]})


def test_the_rubrics_signal_decides_what_the_heuristic_reads():
    spelling = one_criterion("spelling")
    clean, misspelt = (heuristics.evaluate(t, spelling, [])["conventions"] for t in (CLEAN, MISSPELT))
    assert clean["score"] > misspelt["score"] and "spelling errors per 100 words" in misspelt["reasoning"]
    # Wording is never parsed: "accurate knowledge" without a signal is the overall mix, not key concepts.
    plain = heuristics.evaluate(CLEAN, one_criterion(None, "Accurate knowledge of the content"), ["online"])
    assert "Average of length" in plain["conventions"]["reasoning"]
    assert [c.signal for c in ELLIPSE.criteria] == ["cohesion", "sentences", "vocabulary", "vocabulary", "grammar",
                                                    "spelling"]


def test_a_signal_outside_the_list_is_refused():
    with pytest.raises(Exception, match="signal"):
        one_criterion("vibes")


# --- the free judge ----------------------------------------------------------------------------
def test_the_learned_scorer_votes_as_a_free_judge_when_a_model_scores(conn, db_path):
    rubric = parse_rubric({"name": "Two", "scale_min": 0, "scale_max": 3, "criteria": [
        {"key": k, "title": k.title(), "levels": {i: f"l{i}" for i in range(4)}}
        for k in ("concept_understanding", "real_world_application", "reflection_depth", "clarity")]})
    c = factories.course(conn, rubric=rubric)
    rows = sample()[:70]
    subs = [factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]), r["text"])
            for r in rows]
    # A teacher who scores by spelling: a signal the model reads and word count does not.
    errors = [features.dense(r["text"])["spelling_errors"] for r in rows[:60]]
    cuts = np.quantile(errors, [0.25, 0.5, 0.75])
    for sid, e in zip(subs[:60], errors):
        factories.blind(conn, sid, dict.fromkeys(rubric.keys, 3 - int(np.searchsorted(cuts, e))))
    s = scorer.current(conn, c["assignment_id"])
    assert s.model is not None
    def job(i):
        return type("J", (), {"assignment": {"offline_scorer": s, "prompt": ""}, "text": rows[i]["text"],
                              "key_concepts": []})()
    assert s.trusted()          # it beat word count in cross-validation on these scores
    # An unscored essay the learned scorer puts at 0 somewhere: two levels from the model's 2.
    i = next(i for i in range(60, 70) if 0 in judge.vote(job(i)).scores.values())
    v = judge.vote(job(i))
    assert v.judge == f"{scorer.JUDGE} v{s.version}" and v.tier == 0 and set(v.scores) == set(s.trusted())
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, subs[i], llm=good_llm()))
    cast = votes.of(conn, "submission", subs[i], draft_id=d["id"])
    assert {x["judge"] for x in cast if x["tier"] == 0} == {v.judge}
    far = [k for k in v.scores if abs(v.scores[k] - d["scores"][k]) > 1]
    assert far and sorted(d["judging"]["unsure"]) == sorted(far)
    said = [n for n in d["judging"]["notes"] if n.startswith(v.judge)]
    assert len(said) == len(far) and all("more than one level from 2" in n for n in said)


# --- the pages ------------------------------------------------------------------------------
def test_assess_page_trains_the_scorer_and_shows_it_beside_word_count(app_test, conn):
    c, subs = essays_course(conn, 30)
    for sid, r in zip(subs[:22], sample()[:22]):
        factories.blind(conn, sid, whole(r["scores"]))
    at = app_test("pages/assess.py")
    at.session_state["course_id"] = c["course_id"]
    at.session_state["assignment_id"] = c["assignment_id"]
    at = at.run()
    assert not at.exception, at.exception
    assert any("Offline scorer: not trained yet" in e.label for e in at.expander)
    at = next(b for b in at.button if b.label == "Save and train now").click().run()
    assert not at.exception, at.exception
    assert any("Offline scorer version 1 is in use" in s.value for s in at.success)
    shown = at.dataframe[0].value
    assert list(shown["Criterion"]) == [c.title for c in ELLIPSE.criteria]
    assert set(shown["Scored by"]) == {scorer.KINDS["learned"]} and set(shown["Your scores"]) == {22}
    assert all(v != "—" for v in shown["Word count alone: QWK"])
    # The readiness gate on Calibrate shows the same figures.
    cal = app_test("pages/calibrate.py")
    cal.session_state["course_id"] = c["course_id"]
    cal.session_state["assignment_id"] = c["assignment_id"]
    cal = cal.run()
    assert not cal.exception, cal.exception
    assert any("Offline scorer v1 against your scores, cross-validated" in x.value for x in cal.caption)
