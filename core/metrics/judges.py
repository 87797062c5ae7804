"""Agreement between judges (models or prompt versions) that scored the same submissions.

Krippendorff's alpha (ordinal), which allows missing ratings: a judge that did not score an
item leaves a gap rather than dropping the item.

>>> round(judge_alpha([[1, 2, 3, 3], [1, 2, 3, 2]]), 3)
0.79
>>> import math; math.isnan(judge_alpha([[1, 2]]))
True
"""
from __future__ import annotations

import numpy as np


def judge_alpha(ratings, level: str = "ordinal") -> float:
    """Krippendorff's alpha of a judges x items matrix (NaN = not rated); NaN if fewer than 2 judges
    or no item rated by two of them."""
    import krippendorff

    m = np.asarray(ratings, dtype=float)
    if m.ndim != 2 or m.shape[0] < 2:
        return float("nan")
    pairable = (np.isfinite(m).sum(axis=0) >= 2)
    if not pairable.any() or len(np.unique(m[:, pairable][np.isfinite(m[:, pairable])])) < 2:
        return float("nan")
    return float(krippendorff.alpha(reliability_data=m[:, pairable], level_of_measurement=level))
