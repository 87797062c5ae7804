"""How well the offline scorer agrees with the teacher, beside word count alone.

Per criterion, on the teacher's own scores: the learned model's leave-one-out levels (each
text scored by a model that never saw its score) and word count alone spread over the levels
in the teacher's proportions. QWK, MAE and bias (scorer − teacher) with 95% intervals that
resample students (core.metrics), so a teacher sees whether the model beats length before
trusting it. For a criterion with too few scores for a model, the calibrated heuristic's
figures on those scores (its cut points used only their proportions).

A learned criterion is scored by whichever of the learned model, word count alone or a blend
agreed best (core.offline.levels.choose): the row names it (`method`, `weight`), has the
blend's figures when a blend won, and the figures of that choice made without each text's
score (`chosen`, the honest estimate); `scored_by` says it in a teacher's words.
"""
from __future__ import annotations

import math

import numpy as np

from core import metrics
from core.language.interface import Message

N_BOOT = 500
STATS = ("qwk", "mae", "bias")


def figures(levels, scores, students, lo: int, hi: int, *, seed: int = 0) -> dict:
    """{n, students, qwk, mae, bias, qwk_ci, mae_ci, bias_ci} of scorer levels against the teacher."""
    table = metrics.pair_counts(list(levels), list(scores), keys={"student": list(students)})
    a = metrics.agreement(table, lo, hi)
    out = {"n": int(a["n"]), "students": len(set(students))}
    out.update({s: _num(a[s]) for s in STATS})
    ci = metrics.agreement_cis(table, lo, hi, n_boot=N_BOOT, seed=seed, which=STATS) if a["n"] >= 3 else {}
    out.update({f"{s}_ci": ci.get(s) for s in STATS})
    return out


def _num(x) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 4)


def beats_length(row: dict) -> bool:
    """The model's QWK is above word count's (what the free judge and the page ask)."""
    m, w = (row.get("model") or {}).get("qwk"), (row.get("word_count") or {}).get("qwk")
    return m is not None and (w is None or m > w)


def trusted(row: dict) -> bool:
    """The criterion's scorer is a model that beat word count alone in cross-validation (the
    free judge votes on these only; word count is no judge). A row from before the switch:
    the learned model beat word count."""
    if "method" not in row:
        return beats_length(row)
    best = (row.get("blend") or row.get("model") or {}).get("qwk")
    w = (row.get("word_count") or {}).get("qwk")
    return row["method"] != "word_count" and best is not None and (w is None or best > w)


def _q(f: dict | None) -> str:
    return "—" if not f or f.get("qwk") is None else f"{f['qwk']:.2f}"


def scored_by(row: dict) -> str:
    """Which scorer a learned criterion uses and why, in a teacher's words ("" for a heuristic): a
    Message (English on the command line and in a draft's stored reasoning, translated on a page).

    >>> scored_by({"method": "word_count", "weight": 0.0, "model": {"n": 100, "qwk": 0.6},
    ...            "word_count": {"n": 100, "qwk": 0.62}})
    'Scored by word count: it agreed better with your scores than the learned model (QWK 0.62 vs 0.60, leave-one-out on 100 scores).'
    """
    method, n = row.get("method"), (row.get("model") or {}).get("n") or 0
    if method is None:
        return ""
    model, words = _q(row.get("model")), _q(row.get("word_count"))
    if method == "word_count":
        return Message.plural(*SCORED_BY["word_count"], n, words=words, model=model)
    if method == "blend":
        share = round(100 * row["weight"])
        return Message.plural(*SCORED_BY["blend"], n, share=share, rest=100 - share, blend=_q(row.get("blend")),
                              model=model, words=words)
    return Message.plural(*SCORED_BY["learned"], n, model=model, words=words)


def plural(singular: str, many: str) -> tuple[str, str]:
    """A plural message's two English forms (tests/i18n_scan.py finds them by this name)."""
    return singular, many


# Which scorer a learned criterion uses, and why (`scored_by`; core.offline.reasoning reads it back
# in a draft's stored reasoning).
SCORED_BY = {
    "word_count": plural("Scored by word count: it agreed better with your scores than the learned model (QWK "
                         "{words} vs {model}, leave-one-out on {count} score).",
                         "Scored by word count: it agreed better with your scores than the learned model (QWK "
                         "{words} vs {model}, leave-one-out on {count} scores)."),
    "blend": plural("Scored by the learned model blended with word count ({share}% model, {rest}% word "
                    "count): the blend agreed better with your scores than either alone (QWK {blend} vs "
                    "{model} for the model and {words} for word count, leave-one-out on {count} score).",
                    "Scored by the learned model blended with word count ({share}% model, {rest}% word "
                    "count): the blend agreed better with your scores than either alone (QWK {blend} vs "
                    "{model} for the model and {words} for word count, leave-one-out on {count} scores)."),
    "learned": plural("Scored by the learned model: it agreed better with your scores than word count or a blend "
                      "(QWK {model} vs {words} for word count, leave-one-out on {count} score).",
                      "Scored by the learned model: it agreed better with your scores than word count or a blend "
                      "(QWK {model} vs {words} for word count, leave-one-out on {count} scores)."),
}


def criterion_row(kind: str, levels, word_levels, scores, students, lo: int, hi: int, choice=None) -> dict:
    """One criterion's figures: the scorer's (learned: leave-one-out; calibrated: its levels)
    and word count alone's, on the same scores; with a learned criterion's `choice`
    (core.offline.levels.Choice, over the same scored texts) the winner's."""
    keep = np.asarray(levels) >= lo

    def pick(seq):
        return [v for v, k in zip(seq, keep) if k]
    row = {"kind": kind,
           "model": figures(pick(levels), pick(scores), pick(students), lo, hi),
           "word_count": figures(pick(word_levels), pick(scores), pick(students), lo, hi)}
    if choice is not None:
        w = choice.weight
        row.update(method="learned" if w == 1.0 else "word_count" if w == 0.0 else "blend", weight=w,
                   chosen=figures(choice.nested.tolist(), scores, students, lo, hi))
        if row["method"] == "blend":
            row["blend"] = figures(choice.levels[w].tolist(), scores, students, lo, hi)
    return row
