"""What the teacher taught: blind-scored items as the Evaluator's few-shot examples.

For each criterion and level at most one example: an item every blind rater gave that level
on that criterion. Items are chosen greedily to cover as many (criterion, level) pairs as
possible with few texts (an example shows only the criteria it stands for), at most
MAX_ANCHORS texts of at most ANCHOR_WORDS words each. Texts are pseudonymised like the scored
submission: every student of the course (the example's author and any classmate it names)
becomes their pseudonym, e-mails and phone numbers are masked. The
submission being scored is never its own example, so the AI's scores on calibration items
stay leave-one-out. A text flagged for instructions aimed at the AI is never an example.
"""
from __future__ import annotations

from sqlite_utils import Database

from core.privacy.pseudonym import Pseudonymizer
from core.rubric import Rubric
from db import calibration
from db import roster as roster_db

MAX_ANCHORS = 6
ANCHOR_WORDS = 150


def excerpt(text: str, limit: int = ANCHOR_WORDS) -> str:
    """The first `limit` words (an ellipsis marks a cut).

    >>> excerpt("one two three", 2)
    'one two …'
    """
    words = (text or "").split()
    return " ".join(words[:limit]) + (" …" if len(words) > limit else "")


def choose(rows: list[dict], rubric: Rubric, max_anchors: int = MAX_ANCHORS) -> list[dict]:
    """Examples from blind-score rows {submission_id, criterion, score, ...}: at most one per
    (criterion, level), greedy cover, in rubric order: [{submission_id, scores}].

    >>> rows = [{"submission_id": 1, "criterion": "a", "score": 2}, {"submission_id": 1, "criterion": "b", "score": 0},
    ...         {"submission_id": 2, "criterion": "a", "score": 2}, {"submission_id": 3, "criterion": "a", "score": 0}]
    >>> r = Rubric(name="x", scale_min=0, scale_max=2, criteria=[
    ...     {"key": k, "title": k, "levels": {0: "no", 1: "some", 2: "yes"}} for k in "ab"])
    >>> choose(rows, r)
    [{'submission_id': 1, 'scores': {'a': 2, 'b': 0}}, {'submission_id': 3, 'scores': {'a': 0}}]
    """
    keys = set(rubric.keys)
    by_item: dict[int, dict[str, int]] = {}
    for r in rows:
        if r["criterion"] in keys and rubric.scale_min <= r["score"] <= rubric.scale_max:
            by_item.setdefault(r["submission_id"], {})[r["criterion"]] = int(r["score"])
    uncovered = {(k, v) for scores in by_item.values() for k, v in scores.items()}
    chosen = []
    while uncovered and by_item and len(chosen) < max_anchors:
        sid = max(sorted(by_item), key=lambda i: len(uncovered & set(by_item[i].items())))
        gain = uncovered & set(by_item.pop(sid).items())
        if not gain:
            break
        uncovered -= gain
        chosen.append({"submission_id": sid, "scores": {k: dict(gain)[k] for k in rubric.keys if k in dict(gain)}})
    return chosen


def for_submission(conn: Database, submission_id: int | None, assignment_id: int, rubric: Rubric) -> list[dict]:
    """The examples for scoring one submission: [{"submission_id", "scores", "text"}],
    pseudonymised, never the submission itself (`None`: the examples of the assignment as a
    whole, for the run estimate)."""
    rows = calibration.anchor_rows(conn, assignment_id, exclude_submission_id=submission_id)
    texts = {r["submission_id"]: r for r in rows}
    out = []
    chosen = choose(rows, rubric)
    people = roster_db.of_submission(conn, chosen[0]["submission_id"]) if chosen else []   # the course's
    for a in chosen:
        r = texts[a["submission_id"]]
        hidden = Pseudonymizer(r["name"], r["email"], r["pseudonym"], people).hide(r["text"])
        out.append({**a, "text": excerpt(hidden)})
    return out
