"""Honest numbers (issue 12): the demo course's Agreement and Fairness with and without
resampling students, and how often a group-gap interval contains 0 when groups are random.

    python -m bench.honest_numbers [--boot 1000] [--seeds 20] [--asap ../shared/datasets/asap_aes/asap_aes_scores.csv]

1. The synthetic demo course (28 students x 4 weeks x 4 criteria) is assessed with the offline
   baseline; its drafts are compared with the expert scores (course scope) through the same
   report code as the dashboards (`core.reports.summary`), once with the `student` column
   (intervals resample students: the dashboards' way) and once without (pairs resampled as if
   independent: the old way).
2. Random A/B labels per student, `--seeds` times: the share of seeds whose interval for the
   gap between the groups contains 0 — the old interval (percentile bootstrap of max - min of
   the group MAEs, pairs resampled) against the new one (each group vs the rest, students
   resampled) and the permutation p-value.
3. With --asap: the same random-label experiment on real essays (ASAP set 3, 0-3 scale, rater 1
   as "AI" vs rater 2; one essay per student).

Prints one JSON object.
"""
from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from core.accounts.access import Actor


def demo_pairs(db_path: str) -> pd.DataFrame:
    """(student, criterion, ai, reference, ell, section, n) of the offline baseline on the demo course."""
    import db
    from core import demo
    from core.runs import reflections as runs
    from core.llm import make_llm
    from db import analytics

    conn = db.connect(db_path)
    info = demo.load_demo(conn, actor=Actor("test", role="admin"))
    run_id = runs.create(conn, course_id=info["course_id"], provider="offline", actor=Actor("bench", role="admin"))
    runs.execute(db_path, run_id, make_llm("offline", db_path), actor=Actor("test", role="admin"))
    scope = analytics.Scope("course", info["course_id"])
    return analytics.pair_counts(conn, scope, reference="expert", by=("student",), attributes=True)


def _round(x):
    if isinstance(x, dict):
        return {k: _round(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_round(v) for v in x]
    if isinstance(x, (float, np.floating)):
        return None if np.isnan(x) else round(float(x), 3)
    return x


def figures(pairs: pd.DataFrame, clustered: bool, n_boot: int) -> dict:
    from core import reports

    keep = ["student"] if clustered else []
    base = pairs[pairs["attribute"] == pairs["attribute"].iloc[0]]  # each pair once
    table = base.groupby([*keep, "ai", "reference"], as_index=False)["n"].sum()
    groups = {a: part.groupby([*keep, "group", "ai", "reference"], as_index=False)["n"].sum()
              for a, part in pairs.groupby("attribute")}
    s = reports.summary(table, 0, 3, groups=groups, n_boot=n_boot)
    out = {"n": s["n"], "students": s["students"], "mae": s["mae"], "mae_ci": s["ci"]["mae"], "qwk": s["qwk"],
           "qwk_ci": s["ci"]["qwk"], "exact": s["exact"], "delta_mae": s["bands"]["delta_mae"],
           "delta_mae_ci": s["bands"]["delta_mae_ci"], "groups": {}}
    for name, g in s["groups"].items():
        out["groups"][name] = {
            "mae_by_group": {k: v["mae"] for k, v in g["by_group"].items()},
            "largest_gap": g["difference"]["mae"], "largest_gap_ci": g["difference"]["mae_ci"],
            "tests": [{k: t[k] for k in ("group", "vs", "diff", "ci", "p_value")} for t in g["tests"]
                      if t["metric"] == "mae"]}
    return out


def old_gap_ci(table: pd.DataFrame, n_boot: int, seed: int) -> list[float]:
    """The interval the Fairness page showed before: percentile bootstrap of max - min of the
    group MAEs, pairs resampled within each group (biased upward: it cannot contain 0)."""
    rng = np.random.default_rng(seed)
    reps = []
    for name in sorted(table["group"].unique()):
        part = table[table["group"] == name]
        n, err = part["n"].to_numpy(), (part["ai"] - part["reference"]).abs().to_numpy()
        counts = rng.multinomial(int(n.sum()), n / n.sum(), size=n_boot)
        reps.append(counts @ err / n.sum())
    gap = np.max(reps, axis=0) - np.min(reps, axis=0)
    return [float(np.percentile(gap, 2.5)), float(np.percentile(gap, 97.5))]


def random_labels(pairs: pd.DataFrame, seeds: int, n_boot: int) -> dict:
    """Share of seeds whose gap interval contains 0 under random A/B student labels."""
    from core import metrics

    students = sorted(pairs["student"].unique())
    old = new = small_p = 0
    for seed in range(seeds):
        labels = dict(zip(students, np.random.default_rng(1000 + seed).choice(["A", "B"], len(students))))
        t = pairs.assign(group=pairs["student"].map(labels)).groupby(
            ["student", "group", "ai", "reference"], as_index=False)["n"].sum()
        lo, _ = old_gap_ci(t.groupby(["group", "ai", "reference"], as_index=False)["n"].sum(), n_boot, seed)
        old += lo <= 0
        g = metrics.group_report(t, 0, int(max(t["ai"].max(), t["reference"].max())), n_boot=n_boot, seed=seed,
                                 min_n=2)
        test = next(x for x in g["tests"] if x["group"] == "A" and x["metric"] == "mae")
        new += test["ci"][0] <= 0 <= test["ci"][1]
        small_p += test["p_value"] < 0.05
    return {"seeds": seeds, "students": len(students), "old_ci_contains_0": old, "new_ci_contains_0": new,
            "p_below_0.05": small_p}


def asap(path: str, seeds: int, n_boot: int) -> dict:
    d = pd.read_csv(path)
    d = d[(d["essay_set"] == 3) & d["rater1_domain1"].notna() & d["rater2_domain1"].notna()]
    pairs = pd.DataFrame({"student": d["essay_id"].astype(str), "ai": d["rater1_domain1"].astype(float),
                          "reference": d["rater2_domain1"].astype(float), "n": 1})
    return {"essays": len(pairs), **random_labels(pairs, seeds, n_boot)}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--asap", help="ASAP-AES scores CSV (optional: the random-label check on real essays)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        pairs = demo_pairs(str(Path(tmp) / "demo.db"))
    pairs = pairs.astype({"student": str})
    one = pairs[pairs["attribute"] == pairs["attribute"].iloc[0]]
    out = {"demo": {"by_student": figures(pairs, True, args.boot), "by_pair": figures(pairs, False, args.boot)},
           "random_labels_demo": random_labels(one.groupby(["student", "ai", "reference"], as_index=False)["n"].sum(),
                                               args.seeds, args.boot)}
    if args.asap:
        out["random_labels_asap_set3"] = asap(args.asap, args.seeds, args.boot)
    out = _round(out)
    print(json.dumps(out, ensure_ascii=False))
    return out


if __name__ == "__main__":
    main()
