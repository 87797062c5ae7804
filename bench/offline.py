"""The learned offline scorer on real essays: does it beat word count on assignments it was not
developed on, and is it fast enough?

    nice python -m bench.offline [--folds 5] [--min-essays 80] [--speed-n 2000] [--no-speed] [--no-accuracy]
                                 [--mixed-sizes 50 100 200 --seeds 5]

Accuracy, leave one prompt out (the default): ELLIPSE (../shared/datasets/ellipse/, 2,571
English-learner essays, six criteria 1-5, each the mean of two raters, 44 prompts). Each prompt
with at least `--min-essays` essays is one assignment: its essays are split in `--folds` folds;
the scorer (core.offline.model.train, as the app trains it, with its choice of learned model,
word count or a blend) learns from the other folds' scores, with the whole prompt's essays as
the assignment's unscored submissions, and scores the held-out fold; word count alone (longer
essays higher, in the training scores' proportions) likewise. Per prompt: QWK of each, per
criterion and their mean, the gain (scorer − word count) with a 95% interval resampling the
prompt's essays, and how many criteria each scorer won. Over prompts: the mean gain with a 95%
interval resampling prompts (what a new assignment can expect). Goal: mean gain >= +0.03.
The prompts are listed largest first; those at even places were the development prompts
(looked at while the scorer was built), the others were not, and are summarised apart.

`--mixed-sizes` adds the older measure: that many essays of all prompts mixed as the teacher's
scores, measured on all the others (in-sample-style: a mixed pool, where word count is weak).

Speed: a real offline run (core.runs.reflections) over `--speed-n` ELLIPSE essays of one assignment on
the ELLIPSE rubric, 100 of them with calibration scores, on a temporary database: the first
item trains the scorer (stored as a version), every item is scored by it through the whole
offline pipeline (all roles, checks, call log, drafts). Reports submissions per second
including that training, and the training time. The run is pure Python, so it keeps one core
busy (the GIL): on a machine other work shares, wall time grows with the load, so the CPU
seconds the process used and the load average before and after are reported beside it
(submissions per CPU-second is what an otherwise idle machine gives).

Prints one JSON object; the README's Performance section has the table.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "datasets" / "ellipse" / "ELLIPSE_Final_github_test.csv"
CRITERIA = ("cohesion", "syntax", "vocabulary", "phraseology", "grammar", "conventions")
LO, HI = 1, 5
GOAL_GAIN_AT_100, GOAL_BIAS_AT_100, GOAL_QWK_AT_200 = 0.10, 0.20, 0.45
GOAL_HELD_OUT_GAIN = 0.03
N_BOOT = 1000


def load(path: Path) -> list[dict]:
    if not path.exists():
        raise SystemExit(f"bench: {path} not found (the ELLIPSE test split in ../shared/datasets/ellipse/)")
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return [{"text": r["full_text"], "prompt": r.get("prompt") or "", "id": r.get("text_id_kaggle") or "",
             "scores": {k: float(r[k.capitalize()]) for k in CRITERIA}} for r in rows]


def _figures(levels, ref) -> dict:
    from core import metrics

    a = metrics.agreement_from_rows(levels, ref, LO, HI)
    return {"qwk": a["qwk"], "mae": a["mae"], "bias": a["bias"]}


def one_split(essays: list[dict], n: int, seed: int) -> dict:
    """Train on `n` essays drawn by `seed`, measure on the rest: {criterion: {learned, word_count}}."""
    from core import text
    from core.offline import model

    order = np.random.default_rng(seed).permutation(len(essays))
    train, test = [essays[i] for i in order[:n]], [essays[i] for i in order[n:]]
    started = time.perf_counter()
    trained = model.train([e["text"] for e in train], [e["prompt"] for e in train], [[] for _ in train],
                          {k: [e["scores"][k] for e in train] for k in CRITERIA},
                          pool=([e["text"] for e in test], [e["prompt"] for e in test], [[] for _ in test]),
                          lo=LO, hi=HI)
    seconds = time.perf_counter() - started
    m = trained.model
    raw = m.raw(m.rows([e["text"] for e in test], [e["prompt"] for e in test], [[] for _ in test]))
    words = np.log1p([text.words(e["text"]) for e in train])
    test_words = np.log1p([text.words(e["text"]) for e in test])
    out = {"seconds": seconds}
    for k in CRITERIA:
        ref = [e["scores"][k] for e in test]
        wc = model.word_count_levels(test_words, words, [e["scores"][k] for e in train], LO, HI)
        out[k] = {"learned": _figures(m.level(k, raw[k]).tolist(), ref), "word_count": _figures(wc.tolist(), ref)}
    return out


def accuracy(essays: list[dict], sizes: list[int], seeds: int) -> dict:
    result = {}
    for n in sizes:
        runs = [one_split(essays, n, seed) for seed in range(seeds)]
        table = {}
        for k in CRITERIA:
            table[k] = {who: {s: round(float(np.mean([r[k][who][s] for r in runs])), 3) for s in ("qwk", "mae", "bias")}
                        for who in ("learned", "word_count")}
            table[k]["learned"]["max_abs_bias_any_seed"] = round(max(abs(r[k]["learned"]["bias"]) for r in runs), 3)
        mean_learned = float(np.mean([table[k]["learned"]["qwk"] for k in CRITERIA]))
        mean_wc = float(np.mean([table[k]["word_count"]["qwk"] for k in CRITERIA]))
        result[str(n)] = {"criteria": table, "mean_qwk_learned": round(mean_learned, 3),
                          "mean_qwk_word_count": round(mean_wc, 3),
                          "sd_mean_qwk_over_seeds": round(float(np.std(
                              [np.mean([r[k]["learned"]["qwk"] for k in CRITERIA]) for r in runs])), 3),
                          "train_seconds": round(float(np.mean([r["seconds"] for r in runs])), 2)}
    goals = {}
    if "100" in result:
        r = result["100"]
        goals["gain_at_100"] = round(r["mean_qwk_learned"] - r["mean_qwk_word_count"], 3)
        goals["gain_at_100_met"] = goals["gain_at_100"] >= GOAL_GAIN_AT_100
        goals["max_abs_bias_at_100"] = max(abs(r["criteria"][k]["learned"]["bias"]) for k in CRITERIA)
        goals["bias_at_100_met"] = goals["max_abs_bias_at_100"] <= GOAL_BIAS_AT_100
    if "200" in result:
        goals["mean_qwk_at_200"] = result["200"]["mean_qwk_learned"]
        goals["qwk_at_200_met"] = goals["mean_qwk_at_200"] >= GOAL_QWK_AT_200
    return {"sizes": result, "goals": goals}


def _qwk_mean(levels: dict, ref: dict, idx: np.ndarray) -> float:
    from core import metrics

    return float(np.mean([metrics.qwk(levels[k][idx], ref[k][idx], LO, HI) for k in CRITERIA]))


def one_prompt(essays: list[dict], folds: int, seed: int = 0) -> dict:
    """One prompt as one assignment: `folds`-fold cross-validation of the scorer and of word count."""
    from core import text
    from core.offline import model

    n = len(essays)
    fold = np.random.default_rng(seed).permutation(n) % folds
    texts = [e["text"] for e in essays]
    words = np.log1p([text.words(t) for t in texts])
    ref = {k: np.array([e["scores"][k] for e in essays]) for k in CRITERIA}
    scorer = {k: np.zeros(n, int) for k in CRITERIA}
    length = {k: np.zeros(n, int) for k in CRITERIA}
    won = {"learned": 0, "blend": 0, "word_count": 0}
    for f in range(folds):
        tr, te = np.flatnonzero(fold != f), np.flatnonzero(fold == f)
        none = [[] for _ in range(n)]
        trained = model.train([texts[i] for i in tr], [""] * len(tr), none[:len(tr)],
                              {k: ref[k][tr].tolist() for k in CRITERIA},
                              pool=([texts[i] for i in te], [""] * len(te), none[:len(te)]), lo=LO, hi=HI)
        m = trained.model
        raw = m.raw(m.rows([texts[i] for i in te], [""] * len(te), none[:len(te)]))
        for k in CRITERIA:
            scorer[k][te] = m.level(k, raw[k])
            length[k][te] = model.word_count_levels(words[te], words[tr], ref[k][tr], LO, HI)
            won[m.method(k)] += 1
    everyone = np.arange(n)
    rng = np.random.default_rng(seed)
    gains = []
    for _ in range(N_BOOT):
        b = rng.integers(0, n, n)
        gains.append(_qwk_mean(scorer, ref, b) - _qwk_mean(length, ref, b))
    from core import metrics

    per = {k: {"scorer": round(metrics.qwk(scorer[k], ref[k], LO, HI), 3),
               "word_count": round(metrics.qwk(length[k], ref[k], LO, HI), 3)} for k in CRITERIA}
    q_s, q_w = _qwk_mean(scorer, ref, everyone), _qwk_mean(length, ref, everyone)
    return {"essays": n, "train_per_fold": int(round(n * (folds - 1) / folds)), "qwk_scorer": round(q_s, 3),
            "qwk_word_count": round(q_w, 3), "gain": round(q_s - q_w, 3),
            "gain_ci": [round(float(x), 3) for x in np.nanpercentile(gains, [2.5, 97.5])],
            "criteria_won": won, "criteria": per}


def _over_prompts(rows: list[dict], seed: int = 0) -> dict:
    g = np.array([r["gain"] for r in rows])
    if not len(g):
        return {"prompts": 0}
    rng = np.random.default_rng(seed)
    boot = [g[rng.integers(0, len(g), len(g))].mean() for _ in range(N_BOOT)]
    return {"prompts": len(g), "mean_gain": round(float(g.mean()), 3),
            "mean_gain_ci": [round(float(x), 3) for x in np.percentile(boot, [2.5, 97.5])],
            "prompts_gain_below_0": int((g < 0).sum()),
            "mean_qwk_scorer": round(float(np.mean([r["qwk_scorer"] for r in rows])), 3),
            "mean_qwk_word_count": round(float(np.mean([r["qwk_word_count"] for r in rows])), 3)}


def leave_one_prompt_out(essays: list[dict], folds: int, min_essays: int) -> dict:
    by_prompt: dict[str, list[dict]] = {}
    for e in essays:
        by_prompt.setdefault(e["prompt"], []).append(e)
    prompts = sorted((p for p, es in by_prompt.items() if len(es) >= min_essays), key=lambda p: (-len(by_prompt[p]), p))
    started = time.perf_counter()
    rows = {}
    for p in prompts:
        rows[p] = {"development": prompts.index(p) % 2 == 0, **one_prompt(by_prompt[p], folds)}
    everything = list(rows.values())
    summary = {"all": _over_prompts(everything),
               "development_prompts": _over_prompts([r for r in everything if r["development"]]),
               "other_prompts": _over_prompts([r for r in everything if not r["development"]])}
    summary["goal_gain"] = GOAL_HELD_OUT_GAIN
    summary["goal_met"] = summary["all"].get("mean_gain", -1) >= GOAL_HELD_OUT_GAIN
    return {"folds": folds, "min_essays": min_essays, "seconds": round(time.perf_counter() - started, 1),
            "prompts": rows, "summary": summary}


def speed(essays: list[dict], n: int, calibrated: int = 100, concurrency: int = 4) -> dict:
    """A real offline run over `n` essays of one assignment, `calibrated` of them with scores."""
    import db as dbmod
    from bench import database_env
    from core.runs import reflections as runs
    from core.accounts.access import Actor
    from core.llm import make_llm
    from core.rubric import RUBRIC_DIR, load_rubric_file
    from db import courses, offline_models

    picked = [essays[i] for i in np.random.default_rng(0).permutation(len(essays))[:n]]
    with tempfile.TemporaryDirectory(prefix="fairmark-bench-offline-") as tmp:
        path = str(Path(tmp) / "offline.db")
        with database_env(path):
            conn = dbmod.connect(path)
            rubric = load_rubric_file(RUBRIC_DIR / "ellipse.yaml")
            with conn.atomic():
                rid = courses.save_rubric(conn, rubric)
                cid = courses.ensure_course(conn, f"ELLIPSE ({n})", is_synthetic=True)
                aid = courses.ensure_assignment(conn, cid, "Essay", rubric_id=rid, week=1,
                                                prompt="Write an essay on the topic you were given.")
                conn.conn.executemany(
                    "INSERT INTO students (id, course_id, external_id, name, email, pseudonym) VALUES (?,?,?,?,?,?)",
                    [(i + 1, cid, f"e{i:05d}", f"Writer {i}", f"e{i}@example.edu", f"Student-{i:05d}")
                     for i in range(n)])
                conn.conn.executemany(
                    "INSERT INTO submissions (id, assignment_id, student_id, text, text_hash, word_count) "
                    "VALUES (?,?,?,?,?,?)",
                    [(i + 1, aid, i + 1, e["text"], hashlib.sha256(e["text"].encode()).hexdigest(),
                      len(e["text"].split())) for i, e in enumerate(picked)])
                conn.conn.executemany(
                    "INSERT INTO calibration_scores (submission_id, criterion, rater, score, source, scored_by, "
                    "scored_at) VALUES (?,?,?,?,?,?,?)",
                    [(i + 1, k, "ellipse", e["scores"][k], "upload", "bench", "2025-01-01")
                     for i, e in enumerate(picked[:calibrated]) for k in CRITERIA])
            bench = Actor("bench", role="admin")
            run_id = runs.create(conn, course_id=cid, assignment_id=aid, provider="offline", concurrency=concurrency,
                                 actor=bench)
            load_before = os.getloadavg()[0]
            started, cpu = time.perf_counter(), time.process_time()
            p = runs.execute(path, run_id, make_llm("offline", path), actor=bench)
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu
            version = offline_models.latest(conn, aid)
            conn.close()
            dbmod.forget_migrated(path)
    if p["status"] != "done" or p["failed"]:
        raise SystemExit(f"bench: the offline run did not finish cleanly: {json.dumps(p, default=str)[:600]}")
    return {"submissions": n, "calibrated": calibrated, "seconds": round(wall, 1),
            "per_second": round(n / wall, 1), "cpu_seconds": round(cpu, 1), "per_cpu_second": round(n / cpu, 1),
            "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)],
            "training_seconds": version["seconds"] if version else None,
            "learned_criteria": sorted(k for k, v in (version or {}).get("criteria", {}).items()
                                       if v["kind"] == "learned"), "goal_met": n / wall >= 20}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m bench.offline", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the ELLIPSE test split CSV")
    ap.add_argument("--folds", type=int, default=5, help="folds within each prompt")
    ap.add_argument("--min-essays", type=int, default=80, help="prompts with at least this many essays")
    ap.add_argument("--mixed-sizes", type=int, nargs="*", default=[], help="also: training essays of mixed prompts")
    ap.add_argument("--seeds", type=int, default=5, help="draws per mixed size")
    ap.add_argument("--speed-n", type=int, default=2000, help="submissions in the speed run")
    ap.add_argument("--no-speed", action="store_true", help="skip the speed run")
    ap.add_argument("--no-accuracy", action="store_true", help="skip leave one prompt out")
    args = ap.parse_args(argv)
    from threadpoolctl import threadpool_limits

    essays = load(args.data)
    out = {"essays": len(essays)}
    with threadpool_limits(1):      # a shared machine: one BLAS thread (the run is one core anyway)
        if not args.no_accuracy:
            out["leave_one_prompt_out"] = leave_one_prompt_out(essays, args.folds, args.min_essays)
        if args.mixed_sizes:
            out["mixed_prompts"] = {"seeds": args.seeds, **accuracy(essays, args.mixed_sizes, args.seeds)}
        if not args.no_speed:
            out["speed"] = speed(essays, min(args.speed_n, len(essays)))
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
