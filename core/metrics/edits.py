"""Edit analytics: what teachers changed in the AI's drafts — the live signal of where it fails them.

Inputs are small aggregates from the database (or any source):
- outcomes: DataFrame(status, scores_changed, comment_changed, n) — one row per combination;
- score_changes: DataFrame(criterion, ai, teacher, n) — AI draft score vs the teacher's score;
- comment_pairs: [(draft comment, teacher comment), ...] for edited comments (a sample is fine);
- reason_codes: DataFrame(code, n).

>>> out = pd.DataFrame({"status": ["approved", "approved", "rejected"], "scores_changed": [0, 1, 0],
...                     "comment_changed": [0, 0, 0], "n": [6, 2, 2]})
>>> ch = pd.DataFrame({"criterion": ["clarity", "clarity"], "ai": [2, 3], "teacher": [2, 1], "n": [7, 1]})
>>> s = edit_summary(out, ch, [("Good work.", "Good work!")], pd.DataFrame({"code": ["too_harsh"], "n": [1]}))
>>> s["n_approved"], s["approved_unchanged"], s["share_unchanged"]
(8, 6, 0.75)
>>> s["by_criterion"][["criterion", "n", "changed", "down", "mean_change"]].values.tolist()
[['clarity', 8, 1, 1, -0.25]]
"""
from __future__ import annotations

import difflib

import numpy as np
import pandas as pd


def comment_similarity(draft: str, final: str) -> float:
    """difflib similarity of two comments, 0 (nothing kept) .. 1 (unchanged).

    >>> comment_similarity("Add one example.", "Add one example."), round(comment_similarity("abcd", "abxy"), 2)
    (1.0, 0.5)
    """
    return difflib.SequenceMatcher(None, draft or "", final or "", autojunk=False).ratio()


def edit_summary(outcomes: pd.DataFrame, score_changes: pd.DataFrame, comment_pairs,
                 reason_codes: pd.DataFrame) -> dict:
    """Share approved unchanged, per-criterion score changes, comment edit distance, reason codes."""
    approved = outcomes[outcomes["status"] == "approved"]
    n_approved = int(approved["n"].sum())
    unchanged = int(approved.loc[(approved["scores_changed"] == 0) & (approved["comment_changed"] == 0), "n"].sum())
    rows = []
    for crit, part in score_changes.groupby("criterion", sort=True):
        delta = part["teacher"].to_numpy(float) - part["ai"].to_numpy(float)
        n = part["n"].to_numpy(float)
        total = int(n.sum())
        rows.append({"criterion": crit, "n": total, "changed": int(n[delta != 0].sum()),
                     "up": int(n[delta > 0].sum()), "down": int(n[delta < 0].sum()),
                     "mean_change": float(n @ delta / total) if total else np.nan,
                     "mean_abs_change": float(n @ np.abs(delta) / total) if total else np.nan})
    by_criterion = pd.DataFrame(rows, columns=["criterion", "n", "changed", "up", "down", "mean_change",
                                               "mean_abs_change"])
    sims = [comment_similarity(a, b) for a, b in comment_pairs]
    return {
        "n_decided": int(outcomes["n"].sum()),
        "n_approved": n_approved,
        "approved_unchanged": unchanged,
        "share_unchanged": unchanged / n_approved if n_approved else float("nan"),
        "by_criterion": by_criterion,
        "comment_edits": {"n": len(sims),
                          "mean_similarity": float(np.mean(sims)) if sims else float("nan"),
                          "mean_edit_distance": float(1 - np.mean(sims)) if sims else float("nan")},
        "reason_codes": reason_codes.sort_values(["n", "code"], ascending=[False, True]).reset_index(drop=True),
    }
