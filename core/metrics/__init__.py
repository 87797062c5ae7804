"""Agreement and fairness metrics. Pure functions, no database, no UI.

Everything is computed from a *contingency table*: a DataFrame with one row per distinct
(ai, reference[, keys...]) and its count `n`. The database aggregates to that table in SQL,
the command line builds it from CSV rows with `pair_counts`, and every metric, confidence
interval and chart then costs the same whether there are 100 or 100,000 submissions.

Conventions (used everywhere, tested):
- MAE and signed bias (AI - reference) use the reference exactly as given (a mean of two
  raters may be 2.5).
- Kappa, the confusion matrix, exact and adjacent agreement need whole levels: a
  non-integer score is rounded to the nearest level, halves upwards (2.5 -> 3), see `to_level`.
- QWK uses the rubric's full label range, so levels nobody used still count in the weights.
- Bootstrap CIs resample students (the `student` column: a student's criteria and weeks are not
  independent) and, without one, rows; multinomial weights from a seeded numpy Generator: same
  seed, same interval. Small-sample warnings count students when there are students.
- Group differences: each group against the rest with a bootstrap CI that can include 0 and a
  permutation p-value (labels shuffled across students), `fairness.group_report`'s `tests`.

Modules: `agreement` (n, MAE, bias, QWK, exact, adjacent, confusion), `bootstrap` (by student or
by row), `permutation` (group tests), `fairness` (bands, groups), `length` (length bias), `edits`
(what teachers changed), `judges` (Krippendorff's alpha between models).
"""
# Re-exported: the public API of the package.
from core.metrics.agreement import (  # noqa: F401
    MetricsInputError,
    agreement,
    agreement_from_rows,
    confusion,
    default_band_cut,
    pair_counts,
    qwk,
    qwk_observed_labels,
    to_level,
)
from core.metrics.bootstrap import agreement_cis  # noqa: F401
from core.metrics.edits import comment_similarity, edit_summary  # noqa: F401
from core.metrics.fairness import band_report, by_key, group_report  # noqa: F401
from core.metrics.judges import judge_alpha  # noqa: F401
from core.metrics.length import length_bias  # noqa: F401
from core.metrics.permutation import permutation_p  # noqa: F401
