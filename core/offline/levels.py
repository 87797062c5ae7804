"""From raw predictions to the rubric's levels, and the choice between the learned model and
word count alone.

- `cut_points`: the assignment's texts get the teacher's proportions of each level, so a
  prediction's distribution matches the teacher's and the mean bias is about 0.
- `word_count_levels`: word count alone in those proportions (longer texts higher), the
  baseline the learned model has to beat.
- `choose`: per criterion, the learned model, word count, or a blend of the two, whichever
  agreed best (QWK) with the teacher's scores in cross-validation. Held out on real student
  writing the learned model sometimes scored below word count alone; the free judge must never
  lose to its own baseline on the teacher's own scores. `Choice.nested` is the honest figure
  of that procedure: each text's level comes from the weight chosen without its score.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core.metrics.agreement import qwk_from_confusions, to_level

# The learned model's share in the scorer, in the order a tie is settled: the learned model
# first (it explains itself by more than length), word count alone (0.0) last.
WEIGHTS = (1.0, 0.75, 0.5, 0.25, 0.0)


def target_shares(scores, lo: int, hi: int, prior: float = 0.0) -> np.ndarray:
    """The teacher's share of each level; a half point (2.5, the mean of two raters) counts
    half to each neighbour, so the mapped levels keep the teacher's mean. `prior` adds that
    many scores to every level (a few scores should not close a level off).

    >>> target_shares([1, 2, 2.5, 3], 1, 3).round(3).tolist()
    [0.25, 0.375, 0.375]
    """
    mass = np.full(hi - lo + 1, float(prior))
    for y in scores:
        f, c = math.floor(y), math.ceil(y)
        if f == c:
            mass[int(f) - lo] += 1
        else:
            mass[int(f) - lo] += c - y
            mass[int(c) - lo] += y - f
    return mass / mass.sum()


def cut_points(pool_predictions: np.ndarray, scores, lo: int, hi: int, prior: float = 0.0) -> np.ndarray:
    """Cut points on the raw predictions that give the assignment's texts the teacher's
    proportions of each level.

    >>> cut_points(np.arange(10.0), [1, 1, 2, 3], 1, 3).tolist()
    [4.5, 6.75]
    """
    return np.quantile(pool_predictions, np.cumsum(target_shares(scores, lo, hi, prior))[:-1])


def word_count_levels(words: np.ndarray, pool_words: np.ndarray, scores, lo: int, hi: int) -> np.ndarray:
    """Word count alone, given the teacher's proportions of each level (the baseline a learned
    model has to beat): longer texts get higher levels."""
    cuts = cut_points(np.concatenate([pool_words, words]).astype(float), scores, lo, hi)
    return lo + np.searchsorted(cuts, np.asarray(words, dtype=float), side="right")


@dataclass
class Choice:
    """Which scorer a criterion uses, and the cross-validated evidence for it."""
    weight: float                        # the learned model's share: 1 learned, 0 word count alone
    qwk: dict[float, float]              # each weight's cross-validated QWK on the teacher's scores
    levels: dict[float, np.ndarray]      # each weight's cross-validated levels of the scored texts
    nested: np.ndarray                   # each text's level by the weight chosen without its score


def _confusions(levels: np.ndarray, ref: np.ndarray, lo: int, hi: int) -> np.ndarray:
    L = hi - lo + 1
    return np.bincount((levels - lo) * L + (ref - lo), minlength=L * L).reshape(L, L).astype(float)


def _best(qwks: np.ndarray) -> np.ndarray:
    """Index of the first weight with the highest QWK (NaN never wins), per row."""
    return np.argmax(np.nan_to_num(qwks, nan=-np.inf), axis=-1)


def choose(learned_cv: np.ndarray, learned_all: np.ndarray, length_cv: np.ndarray, length_all: np.ndarray,
           scores, lo: int, hi: int) -> Choice:
    """Pick the learned model's share by the cross-validated QWK of each blend.

    `learned_cv`: the learned model's cross-validated raw predictions of the scored texts;
    `learned_all`: its raw predictions of all the assignment's texts (where the cut points are
    set); `length_cv`, `length_all`: word count's, on the same scale (a line fitted to the
    scores). A blend is w x learned + (1 - w) x word count, put on the levels like the model.

    >>> y = np.array([1, 1, 2, 2, 3, 3, 4, 4, 5, 5])
    >>> words = y + np.array([.1, -.1] * 5)          # the teacher follows length
    >>> noise = np.array([3, 1, 5, 2, 4, 1, 2, 5, 3, 4.])
    >>> c = choose(noise, noise, words, words, y, 1, 5)
    >>> c.weight, round(c.qwk[0.0], 2), round(c.qwk[1.0], 2)
    (0.0, 1.0, 0.3)
    """
    y = np.asarray(scores, dtype=float)
    ref = np.clip(to_level(y), lo, hi)
    levels, conf = {}, []
    for w in WEIGHTS:
        cuts = cut_points(w * learned_all + (1 - w) * length_all, y, lo, hi)
        levels[w] = lo + np.searchsorted(cuts, w * learned_cv + (1 - w) * length_cv, side="right")
        conf.append(_confusions(levels[w], ref, lo, hi))
    conf = np.array(conf)                                            # (weights, L, L)
    qwk = qwk_from_confusions(conf)
    # Nested: text i's weight is chosen on the other texts' levels (its own cell taken out).
    L = hi - lo + 1
    own = np.zeros((len(WEIGHTS), len(y), L, L))
    for j, w in enumerate(WEIGHTS):
        own[j, np.arange(len(y)), levels[w] - lo, ref - lo] = 1.0
    without = qwk_from_confusions((conf[:, None] - own).reshape(-1, L, L)).reshape(len(WEIGHTS), len(y))
    picked = _best(without.T)
    nested = np.array([levels[WEIGHTS[p]][i] for i, p in enumerate(picked)])
    return Choice(WEIGHTS[int(_best(qwk))], {w: float(q) for w, q in zip(WEIGHTS, qwk)}, levels, nested)
