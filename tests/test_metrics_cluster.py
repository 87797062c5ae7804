"""Honest statistics (issue 12): the bootstrap resamples students, and group differences come
with an interval that includes 0 when there is no difference, and a permutation p-value."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core import metrics
from core.metrics import pair_counts


def students(n_students: int, rng, *, criteria: int = 4, weeks: int = 3, error=None, group=None) -> pd.DataFrame:
    """Rows of (student, ai, reference, group): each student has a level and an AI error
    that is shared by all of their pairs (so pairs within a student are correlated)."""
    rows = []
    for s in range(n_students):
        level = rng.integers(0, 4)
        shift = rng.choice([-1, 0, 0, 1]) if error is None else error(s, rng)
        for _ in range(criteria * weeks):
            ref = int(np.clip(level + rng.choice([-1, 0, 0, 1]), 0, 3))
            ai = int(np.clip(ref + shift + rng.choice([0, 0, 0, 1]), 0, 3))
            rows.append({"student": f"s{s:04d}", "ai": ai, "reference": ref,
                         "group": group(s) if group else "all"})
    return pd.DataFrame(rows)


def counts(rows: pd.DataFrame, keys=("student",)) -> pd.DataFrame:
    return pair_counts(rows["ai"], rows["reference"], keys={k: rows[k] for k in keys})


def width(ci) -> float:
    return ci[1] - ci[0]


def test_duplicating_rows_within_students_leaves_the_cluster_ci_unchanged_but_shrinks_the_pair_ci():
    rows = students(60, np.random.default_rng(1))
    four = pd.concat([rows] * 4, ignore_index=True)  # every row four times, inside its own student
    for stat in ("mae", "qwk", "bias"):
        once = metrics.agreement_cis(counts(rows), 0, 3, n_boot=1000, seed=3)[stat]
        dup = metrics.agreement_cis(counts(four), 0, 3, n_boot=1000, seed=3)[stat]
        assert width(dup) == pytest.approx(width(once), rel=0.15), stat
        pair_once = metrics.agreement_cis(counts(rows, ()), 0, 3, n_boot=1000, seed=3)[stat]
        pair_dup = metrics.agreement_cis(counts(four, ()), 0, 3, n_boot=1000, seed=3)[stat]
        assert width(pair_dup) < 0.6 * width(pair_once), stat  # the pair bootstrap believes 4x the data
        assert width(pair_once) < width(once)  # and is too narrow even without duplicates


def test_small_sample_warnings_count_students_not_pairs():
    rows = students(6, np.random.default_rng(2), weeks=5)  # 6 students, 120 pairs
    r = metrics.band_report(counts(rows), 0, 3, n_boot=200, min_n=10)
    assert r["units"] == "students"
    assert all(b["n"] > 10 for b in r["bands"].values())
    assert any("students (fewer than 10)" in w for w in r["warnings"])


def _labelled(rows: pd.DataFrame, labels: dict) -> pd.DataFrame:
    return rows.assign(group=rows["student"].map(labels))


def test_random_group_labels_give_a_gap_ci_that_contains_zero():
    rows = students(300, np.random.default_rng(5))
    ids = rows["student"].unique()
    contains, small_p = 0, 0
    for seed in range(20):
        labels = dict(zip(ids, np.random.default_rng(100 + seed).choice(["A", "B"], size=len(ids))))
        g = metrics.group_report(counts(_labelled(rows, labels), ("student", "group")), 0, 3, n_boot=500,
                                 seed=seed, permutations=500)
        test = next(t for t in g["tests"] if t["group"] == "A" and t["metric"] == "mae")
        contains += test["ci"][0] <= 0 <= test["ci"][1]
        small_p += test["p_value"] < 0.05
        lo, hi = g["difference"]["mae_ci"]  # the page's "largest gap": signed between the two groups
        assert lo < g["difference"]["mae"] < hi
    assert contains >= 18  # at least 90 % of 20 seeds
    assert small_p <= 3


def test_a_planted_mae_gap_between_two_groups_of_400_students_is_detected():
    rng = np.random.default_rng(9)
    # Group B's AI is off by one level for 30 % more of its students: MAE gap about 0.3.
    rows = students(800, rng, error=lambda s, r: (r.random() < (0.3 if s < 400 else 0.6)) * 1,
                    group=lambda s: "A" if s < 400 else "B")
    g = metrics.group_report(counts(rows, ("student", "group")), 0, 3, n_boot=1000, seed=0, permutations=1000)
    b = next(t for t in g["tests"] if t["group"] == "B" and t["metric"] == "mae")
    assert b["vs"] == "rest" and 0.2 < b["diff"] < 0.4
    assert b["ci"][0] > 0 and b["p_value"] < 0.01
    assert g["by_group"]["A"]["students"] == 400


def test_three_groups_add_the_largest_pair_with_a_p_value_for_having_picked_it():
    rng = np.random.default_rng(4)
    rows = students(240, rng, group=lambda s: "ABC"[s % 3])
    g = metrics.group_report(counts(rows, ("student", "group")), 0, 3, n_boot=300, permutations=300)
    pair = [t for t in g["tests"] if t["vs"] != "rest"]
    assert {t["metric"] for t in pair} == {"mae", "bias"}
    mae = next(t for t in pair if t["metric"] == "mae")
    assert mae["diff"] == pytest.approx(g["difference"]["mae"])
    # the largest of three gaps is not "significant" just for being the largest
    assert mae["p_value"] > 0.05


def test_a_group_split_within_a_student_is_refused():
    t = pair_counts([1, 2], [1, 2], keys={"student": ["s1", "s1"], "group": ["a", "b"]})
    with pytest.raises(metrics.MetricsInputError, match="constant within a cluster"):
        metrics.group_report(t, 0, 3, n_boot=10)


def test_the_cluster_bootstrap_is_seeded_and_independent_of_row_order():
    rows = students(30, np.random.default_rng(7))
    t = counts(rows)
    shuffled = t.sample(frac=1, random_state=1)
    assert metrics.agreement_cis(t, 0, 3, seed=4) == metrics.agreement_cis(shuffled, 0, 3, seed=4)
    assert metrics.band_report(t, 0, 3, seed=4)["delta_mae_ci"] == metrics.band_report(shuffled, 0, 3,
                                                                                         seed=4)["delta_mae_ci"]


def test_with_many_students_the_normal_limit_gives_the_same_intervals(monkeypatch):
    """From NORMAL_FROM students on, resampled sums come from their normal limit (fast at
    25,000 students); it must agree with drawing students (both computed here)."""
    from core.metrics import bootstrap

    rows = students(2500, np.random.default_rng(11), weeks=1)
    t = counts(rows.assign(group=rows["student"].str[-1].isin(list("01234")).map({True: "A", False: "B"})),
               ("student", "group"))
    normal = metrics.group_report(t, 0, 3, n_boot=1000, seed=1, permutations=0)
    assert bootstrap.NORMAL_FROM <= 2500
    monkeypatch.setattr(bootstrap, "NORMAL_FROM", 10**9)
    drawn = metrics.group_report(t, 0, 3, n_boot=1000, seed=1, permutations=0)
    for block in ("overall",):
        for stat in ("mae", "qwk", "bias"):
            a, b = normal[block][f"{stat}_ci"], drawn[block][f"{stat}_ci"]
            assert width(a) == pytest.approx(width(b), rel=0.12), stat
            assert a[0] == pytest.approx(b[0], abs=0.25 * width(b)), stat
    a, b = normal["difference"]["mae_ci"], drawn["difference"]["mae_ci"]
    assert width(a) == pytest.approx(width(b), rel=0.12)


def test_permutations_stop_early_only_when_nothing_is_remarkable():
    from core.metrics.permutation import permutation_p

    rng = np.random.default_rng(0)
    n = np.ones(400)
    err = rng.random(400)
    null = permutation_p(np.column_stack([n, err, err - 0.5]), np.array(["a", "b"] * 200), ["a", "b"], ("mae",),
                         permutations=1000, seed=0)
    assert null["permutations"] < 1000 and null["vs_rest"]["a"]["mae"] > 0.05
    shifted = np.where(np.arange(400) % 2, err + 0.3, err)
    real = permutation_p(np.column_stack([n, shifted, shifted - 0.5]), np.array(["a", "b"] * 200), ["a", "b"],
                         ("mae",), permutations=1000, seed=0)
    assert real["permutations"] == 1000 and real["vs_rest"]["a"]["mae"] == pytest.approx(1 / 1001)
