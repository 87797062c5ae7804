"""core.metrics against independent computations: scikit-learn, scipy, hand-worked cases and the
published Kaggle ASAP reference values."""
import doctest
import importlib
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from sklearn.metrics import cohen_kappa_score, confusion_matrix, mean_absolute_error

from core import metrics
from core.metrics import MetricsInputError, pair_counts
from core.rubric import Rubric, default_rubric

MODULES = ["core.metrics.agreement", "core.metrics.bootstrap", "core.metrics.fairness", "core.metrics.length",
           "core.metrics.edits", "core.metrics.judges", "core.charts", "core.reports.table"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0


# --- QWK ------------------------------------------------------------------------------------
def test_qwk_matches_the_kaggle_asap_reference_values():
    assert metrics.qwk([1, 2, 1], [1, 2, 2], 1, 2) == pytest.approx(0.4)
    assert metrics.qwk([1, 2, 3, 1, 2, 2, 3], [1, 2, 3, 1, 2, 3, 2], 1, 3) == pytest.approx(0.75)


@pytest.mark.parametrize("seed", range(5))
def test_every_agreement_figure_matches_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    ref = rng.integers(0, 5, 200)
    ai = np.clip(ref + rng.integers(-2, 3, 200), 0, 4)
    ai[ai == 2] = 3  # a level the AI never uses
    a = metrics.agreement(pair_counts(ai, ref), 0, 4)
    assert a["n"] == 200
    assert a["mae"] == pytest.approx(mean_absolute_error(ref, ai))
    assert a["bias"] == pytest.approx(np.mean(ai - ref))
    assert a["qwk"] == pytest.approx(cohen_kappa_score(ai, ref, weights="quadratic", labels=list(range(5))))
    assert a["exact"] == pytest.approx(np.mean(ai == ref))
    assert a["adjacent"] == pytest.approx(np.mean(np.abs(ai - ref) <= 1))
    cm = metrics.confusion(pair_counts(ai, ref), 0, 4)
    assert (cm.to_numpy() == confusion_matrix(ai, ref, labels=list(range(5)))).all()


def test_qwk_uses_the_full_label_range_which_differs_when_a_middle_level_never_occurs():
    ai, ref = [0, 1, 3, 3, 1, 0], [0, 3, 1, 3, 1, 1]  # level 2 never used
    full = metrics.qwk(ai, ref, 0, 3)
    observed = cohen_kappa_score(ai, ref, weights="quadratic")  # sklearn default: observed labels only
    assert full == pytest.approx(cohen_kappa_score(ai, ref, weights="quadratic", labels=[0, 1, 2, 3]))
    assert abs(full - observed) > 0.05
    assert metrics.qwk_observed_labels(pair_counts(ai, ref), 0, 3) == pytest.approx(observed)


def test_single_label_gives_nan_qwk_with_an_explanation_not_a_crash():
    a = metrics.agreement(pair_counts([2, 2, 2], [2, 2, 2]), 0, 3)
    assert math.isnan(a["qwk"]) and a["mae"] == 0 and a["exact"] == 1
    assert "same level (2)" in a["notes"][0]


def test_no_pairs_gives_nan_and_a_note():
    a = metrics.agreement(pair_counts([], []), 0, 3)
    assert a["n"] == 0 and math.isnan(a["mae"]) and "no pairs" in a["notes"][0]


def test_scores_outside_the_scale_are_refused_with_the_value():
    with pytest.raises(MetricsInputError, match="AI score 5 is outside the scale 0-3"):
        metrics.agreement(pair_counts([5], [1]), 0, 3)


def test_half_point_references_keep_exact_mae_and_round_halves_up_for_kappa():
    # reference = mean of two raters: 1.5 and 2.5
    t = pair_counts([2, 2], [1.5, 2.5])
    a = metrics.agreement(t, 0, 3)
    assert a["mae"] == pytest.approx(0.5)
    assert a["bias"] == pytest.approx(0.0)
    cm = metrics.confusion(t, 0, 3)
    assert cm.loc[2, 2] == 1 and cm.loc[2, 3] == 1  # 1.5 -> 2, 2.5 -> 3
    assert a["exact"] == pytest.approx(0.5)


def test_missing_values_are_skipped_and_counted():
    t = pair_counts([1, None, 2, float("nan")], [1, 2, None, 3])
    assert int(t["n"].sum()) == 1 and t.attrs["skipped"] == 3


# --- bands ----------------------------------------------------------------------------------
def test_default_band_cut_is_the_rubric_rule():
    for lo, hi in [(0, 3), (1, 6), (0, 4), (1, 5), (0, 12), (0, 30), (1, 2)]:
        levels = {i: "x" for i in range(lo, hi + 1)}
        r = Rubric(name="r", scale_min=lo, scale_max=hi, criteria=[{"key": "a", "title": "A", "levels": levels}])
        assert metrics.default_band_cut(lo, hi) == r.band_cut
    assert default_rubric().band_cut == 1


def test_band_split_hand_worked():
    # low band (ref 0-1): errors 2, 1, 0 -> MAE 1, bias +1; high band (2-3): errors 0, -1 -> MAE 0.5, bias -0.5
    ai, ref = [2, 2, 1, 2, 2], [0, 1, 1, 2, 3]
    r = metrics.band_report(pair_counts(ai, ref), 0, 3, n_boot=200, min_n=2)
    low, high = r["bands"]["low"], r["bands"]["high"]
    assert (low["n"], low["mae"], low["bias"]) == (3, 1.0, 1.0)
    assert (high["n"], high["mae"], high["bias"]) == (2, 0.5, -0.5)
    assert r["delta_mae"] == pytest.approx(0.5)
    assert low["range"] == "0–1" and high["range"] == "2–3"


def test_band_cut_is_configurable():
    ai, ref = [2, 2, 1, 2, 2], [0, 1, 1, 2, 3]
    r = metrics.band_report(pair_counts(ai, ref), 0, 3, cut=0, n_boot=100, min_n=1)
    assert r["bands"]["low"]["n"] == 1 and r["bands"]["high"]["n"] == 4


def test_small_band_is_flagged_never_dropped():
    ai = [1] * 20 + [3, 2]
    ref = [2] * 20 + [0, 1]
    r = metrics.band_report(pair_counts(ai, ref), 0, 3, n_boot=200)
    assert r["bands"]["low"]["n"] == 2
    assert "only 2 items (fewer than 10)" in r["bands"]["low"]["warning"]
    assert r["warnings"] == [r["bands"]["low"]["warning"]]
    assert not math.isnan(r["delta_mae"])


def test_ci_is_unavailable_for_n_below_two_and_for_all_equal_errors():
    r = metrics.band_report(pair_counts([3, 2, 2, 2], [0, 2, 2, 2]), 0, 3, n_boot=200)
    low, high = r["bands"]["low"], r["bands"]["high"]
    assert low["n"] == 1 and low["mae_ci"] is None and "n = 1" in low["notes"]["mae"]
    assert high["n"] == 3 and high["mae_ci"] is None and "same value" in high["notes"]["mae"]
    assert r["delta_mae_ci"] is None and r["delta_mae_note"]


def test_empty_band_gives_no_delta_and_says_why():
    r = metrics.band_report(pair_counts([2, 3], [2, 3]), 0, 3, n_boot=100)
    assert math.isnan(r["delta_mae"]) and r["delta_mae_ci"] is None
    assert "both bands" in r["delta_mae_note"]
    assert "no items" in r["bands"]["low"]["warning"]


def _sample(n=300, seed=1):
    rng = np.random.default_rng(seed)
    ref = rng.integers(0, 4, n)
    ai = np.clip(ref + rng.choice([-1, 0, 0, 1, 2], n) * (ref < 2), 0, 3)
    return ai, ref


def test_bootstrap_is_deterministic_with_a_seed_and_changes_with_another():
    ai, ref = _sample()
    t = pair_counts(ai, ref)
    a = metrics.band_report(t, 0, 3, n_boot=500, seed=7)
    b = metrics.band_report(t, 0, 3, n_boot=500, seed=7)
    c = metrics.band_report(t, 0, 3, n_boot=500, seed=8)
    assert a["delta_mae_ci"] == b["delta_mae_ci"]
    assert a["delta_mae_ci"] != c["delta_mae_ci"]
    # the order the counts arrive in does not matter
    shuffled = t.sample(frac=1, random_state=3).reset_index(drop=True)
    assert metrics.agreement_cis(shuffled, 0, 3, seed=2) == metrics.agreement_cis(t, 0, 3, seed=2)


def test_count_based_path_equals_the_row_based_one():
    ai, ref = _sample(500, seed=4)
    rows = pd.DataFrame({"ai": ai, "reference": ref})
    counts = rows.value_counts().rename("n").reset_index()  # an independent contingency table
    assert metrics.agreement(counts, 0, 3) == metrics.agreement_from_rows(ai, ref, 0, 3)
    assert metrics.band_report(counts, 0, 3, seed=0)["delta_mae"] == pytest.approx(
        metrics.band_report(pair_counts(ai, ref), 0, 3, seed=0)["delta_mae"])


def test_multinomial_bootstrap_matches_resampling_rows():
    """Resampling counts multinomially is the row bootstrap: the CIs agree within Monte Carlo error."""
    ai, ref = _sample(400, seed=5)
    diff = np.abs(ai - ref).astype(float)
    rng = np.random.default_rng(11)
    row_means = np.array([diff[rng.integers(0, len(diff), len(diff))].mean() for _ in range(4000)])
    row_ci = np.percentile(row_means, [2.5, 97.5])
    count_ci = metrics.agreement_cis(pair_counts(ai, ref), 0, 3, n_boot=4000, seed=0)["mae"]
    assert count_ci == pytest.approx(row_ci, abs=0.012)
    # and scipy's percentile bootstrap agrees too
    sp = sps.bootstrap((diff,), np.mean, n_resamples=4000, method="percentile", random_state=1).confidence_interval
    assert count_ci == pytest.approx([sp.low, sp.high], abs=0.012)


# --- groups ---------------------------------------------------------------------------------
def test_group_report_has_the_metricframe_shape_and_hand_worked_values():
    ai = [1, 2, 3, 3] * 10 + [0, 1]
    ref = [1, 2, 2, 1] * 10 + [3, 3]
    grp = ["a", "a", "b", "b"] * 10 + ["c", "c"]
    g = metrics.group_report(pair_counts(ai, ref, keys={"group": grp}), 0, 3, n_boot=300)
    assert set(g) == {"overall", "by_group", "difference", "tests", "warnings", "units"}
    assert g["by_group"]["a"]["mae"] == 0.0 and g["by_group"]["b"]["mae"] == 1.5
    assert g["by_group"]["c"]["n"] == 2 and "too few" in g["by_group"]["c"]["warning"]
    # c is too small: left out of the difference, and the warning says so
    assert g["difference"]["groups"] == ["a", "b"]
    assert g["difference"]["mae"] == pytest.approx(1.5)
    assert any("left out of the difference" in w for w in g["warnings"])
    assert g["overall"]["n"] == 42
    assert g["overall"]["mae"] == pytest.approx(mean_absolute_error(ref, ai))


def test_group_difference_needs_two_groups_big_enough():
    g = metrics.group_report(pair_counts([1, 2], [1, 3], keys={"group": ["a", "b"]}), 0, 3, n_boot=50)
    assert math.isnan(g["difference"]["mae"]) and "at least two groups" in g["difference"]["notes"]["mae"]


def test_by_key_per_criterion_matches_rows():
    t = pair_counts([1, 2, 3, 0, 0], [1, 3, 3, 2, 0], keys={"criterion": ["x", "x", "x", "y", "y"]})
    f = metrics.by_key(t, "criterion", 0, 3, n_boot=100)
    y = f[f["criterion"] == "y"].iloc[0]
    assert y["n"] == 2 and y["mae"] == 1.0 and y["exact"] == 0.5


# --- length bias ------------------------------------------------------------------------------
def test_length_bias_matches_scipy_on_the_rows():
    rng = np.random.default_rng(3)
    wc = rng.integers(20, 300, 250)
    ref = rng.integers(0, 4, 250)
    ai = np.clip(ref + (wc < 100) * rng.integers(0, 2, 250), 0, 3)
    rows = pd.DataFrame({"word_count": wc, "ai": ai, "reference": ref})
    cells = rows.value_counts().rename("n").reset_index()
    r = metrics.length_bias(cells, 0, 3, n_boot=300)
    p = sps.pearsonr(wc, ai - ref)
    s = sps.spearmanr(wc, ai - ref)
    assert r["n"] == 250
    assert r["pearson"] == pytest.approx(p.statistic) and r["pearson_p"] == pytest.approx(p.pvalue)
    assert r["pearson_ci"] == pytest.approx(list(p.confidence_interval()), abs=1e-4)
    assert r["spearman"] == pytest.approx(s.statistic) and r["spearman_p"] == pytest.approx(s.pvalue)
    short = rows[rows.word_count < 100]
    assert r["short"]["n"] == len(short)
    assert r["short"]["mae"] == pytest.approx(np.abs(short.ai - short.reference).mean())
    assert r["short_minus_rest_mae_ci"] is not None


def test_length_bias_without_variation_says_so():
    cells = pd.DataFrame({"word_count": [50, 150], "ai": [1, 1], "reference": [1, 1], "n": [3, 3]})
    r = metrics.length_bias(cells, 0, 3, n_boot=50)
    assert math.isnan(r["pearson"]) and any("do not vary" in n for n in r["notes"])


# --- edits and judges -----------------------------------------------------------------------
def test_edit_summary_hand_worked():
    outcomes = pd.DataFrame({"status": ["approved", "approved", "approved", "rejected"],
                             "scores_changed": [0, 1, 0, 0], "comment_changed": [0, 0, 1, 1], "n": [5, 3, 2, 1]})
    changes = pd.DataFrame({"criterion": ["a", "a", "a", "b"], "ai": [1, 2, 3, 2], "teacher": [2, 2, 1, 2],
                            "n": [1, 6, 1, 8]})
    s = metrics.edit_summary(outcomes, changes, [("abc", "abc"), ("abcd", "xbcd")],
                             pd.DataFrame({"code": ["too_harsh", "vague"], "n": [1, 4]}))
    assert (s["n_decided"], s["n_approved"], s["approved_unchanged"]) == (11, 10, 5)
    assert s["share_unchanged"] == 0.5
    a = s["by_criterion"].set_index("criterion").loc["a"]
    assert (a["n"], a["changed"], a["up"], a["down"]) == (8, 2, 1, 1)
    assert a["mean_change"] == pytest.approx((1 - 2) / 8)
    assert s["comment_edits"]["n"] == 2
    assert s["comment_edits"]["mean_similarity"] == pytest.approx((1 + 0.75) / 2)
    assert s["reason_codes"]["code"].tolist() == ["vague", "too_harsh"]


def test_judge_alpha():
    assert metrics.judge_alpha([[1, 2, 3, 0], [1, 2, 3, 0]]) == pytest.approx(1.0)
    assert metrics.judge_alpha([[1, 2, 3, np.nan], [1, 2, 2, 3]]) < 1
    assert math.isnan(metrics.judge_alpha([[1, 2, 3]]))
