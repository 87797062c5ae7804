"""Judge agreement: how well the judges of seed 001's cascade agree, per assignment and
criterion, and what follows from it. The thresholds are Krippendorff's own guideline (Content
Analysis, 2004: rely on alpha >= .800, draw only tentative conclusions from .667 to .800), not the
seed's: seed 001 sets no threshold on agreement between judges (it reports 80-85 % agreement of
its judge with experts).

Krippendorff's alpha (ordinal) between the judges, computed on every item that got two or more
votes (the items the first judge could not settle alone, so the hard ones: alpha here is lower
than it would be on every item, and the figures say so):

    alpha >= 0.80          fine
    0.67 <= alpha < 0.80   flagged (shown on the Agreement page)
    alpha < 0.67           poor: every item whose judges disagreed on that criterion goes to a
                           teacher (needs attention, out of bulk approval) and the assignment is
                           marked (table judge_agreement)

A verdict needs at least MIN_ITEMS such items; fewer are reported with their alpha but judged
"too few items". `review_run` applies the rule to the assignments of a finished run.

Alpha is among the LLM judges: the free judge's votes (the learned offline scorer, tier 0,
core.judging.judges.is_free) never enter it. Counted with zero tolerance they would make every
item it scores "two or more votes" and let one-level differences, which its own tolerance calls
meaningless, send whole assignments to teachers; it keeps its tolerance in the scoring instead.

>>> rows = [{"submission_id": i, "criterion": "x", "judge": j, "score": s}
...         for i, pair in enumerate([(1, 1), (2, 2), (3, 3), (0, 0), (2, 3)]) for j, s in zip("ab", pair)]
>>> a = alpha_by_criterion(rows)["x"]
>>> a["items"], round(a["alpha"], 3), verdict(a["alpha"], a["items"])
(5, 0.895, 'fine')
>>> verdict(0.7, 5), verdict(0.5, 5), verdict(0.5, 2), verdict(None, 5)
('flagged', 'poor', 'too_few_items', 'all_agree')
"""
from __future__ import annotations

from collections import defaultdict

from sqlite_utils import Database

from core.accounts import access
from core import metrics
from core.signoff import triage
from core.accounts.access import Actor
from core.judging.judges import is_free
from core.language.interface import N_, Message, form_of
from core.rubric import Rubric
from db import analytics, courses, drafts, now, votes

FINE, FLAGGED = 0.80, 0.67      # Krippendorff's .800 and .667
MIN_ITEMS = 5
VERDICTS = {"fine": N_("fine (alpha >= 0.80)"), "flagged": N_("flagged (0.67 <= alpha < 0.80)"),   # shown with t()
            "poor": N_("poor (alpha < 0.67): items whose judges disagreed went to a teacher"),
            "too_few_items": N_("too few items with two or more votes (under 5)"),   # MIN_ITEMS
            "all_agree": N_("every vote agreed"), "not_enough_votes": N_("no item got two or more votes")}
assert f"(under {MIN_ITEMS})" in VERDICTS["too_few_items"]
_ORDER = ("poor", "flagged", "too_few_items", "fine", "all_agree", "not_enough_votes")


def _items(rows: list[dict]) -> dict[tuple[int, str], dict[str, float]]:
    """(submission, criterion) -> {judge: score} (a judge's first vote on it)."""
    items: dict[tuple[int, str], dict[str, float]] = defaultdict(dict)
    for r in rows:
        items[(r["submission_id"], r["criterion"])].setdefault(r["judge"], float(r["score"]))
    return items


def alpha_by_criterion(rows: list[dict]) -> dict[str, dict]:
    """{criterion: {"alpha": float | None, "items": n with two or more LLM votes, "disagreed": [submission ids]}}
    (the free judge's votes left out)."""
    items = _items([r for r in rows if not is_free(r)])
    out = {}
    for criterion in sorted({k[1] for k in items}):
        voted = {sid: v for (sid, c), v in items.items() if c == criterion and len(v) >= 2}
        judges = sorted({j for v in voted.values() for j in v})
        matrix = [[v.get(j, float("nan")) for v in voted.values()] for j in judges]
        alpha = metrics.judge_alpha(matrix) if voted else float("nan")
        out[criterion] = {"alpha": None if alpha != alpha else alpha, "items": len(voted),
                          "disagreed": [sid for sid, v in voted.items() if len(set(v.values())) > 1]}
    return out


def verdict(alpha: float | None, items: int) -> str:
    if items == 0:
        return "not_enough_votes"
    if alpha is None:          # nothing varied: every vote agreed
        return "all_agree"
    if items < MIN_ITEMS:
        return "too_few_items"
    return "fine" if alpha >= FINE else "flagged" if alpha >= FLAGGED else "poor"


def worst(verdicts: list[str]) -> str:
    return min(verdicts, key=_ORDER.index) if verdicts else "not_enough_votes"


def review_assignment(conn: Database, assignment_id: int, *, actor: Actor) -> dict:
    """Apply the agreement rule to one assignment's current votes: store its mark and send every
    item whose judges disagreed on a poorly agreed criterion to a teacher. Returns the mark."""
    access.check(conn, actor, "assess", assignment=assignment_id)
    return _review_assignment(conn, assignment_id, actor)


def _review_assignment(conn: Database, assignment_id: int, actor) -> dict:
    rows = votes.current(conn, analytics.Scope("assignment", assignment_id=assignment_id))
    per = alpha_by_criterion(rows)
    rubric = courses.assignment_rubric(conn, assignment_id)
    sent = 0
    for criterion, a in per.items():
        a["verdict"] = verdict(a["alpha"], a["items"])
        if a["verdict"] != "poor":
            continue
        for sid in a["disagreed"]:
            draft_id = next(r["draft_id"] for r in rows if r["submission_id"] == sid)
            why = _reason(rubric, criterion, a)
            sent += drafts.send_to_teacher(conn, draft_id, why, priority=triage.NEEDS_ATTENTION, said=form_of(why))
    mark = {"verdict": worst([a["verdict"] for a in per.values()]),
            "alpha": {c: a["alpha"] for c, a in per.items()},
            "items": max((a["items"] for a in per.values()), default=0), "sent_to_teacher": sent}
    with conn.atomic():
        votes.save_agreement(conn, assignment_id, at=now(), **mark)
    return mark


def review_run(conn: Database, run_id: int) -> dict[int, dict]:
    """The rule on every assignment a run drafted (core.runs.reflections calls it when a run ends, for the
    run its creator was allowed to start; the audit names the rule, not a person)."""
    return {aid: _review_assignment(conn, aid, "judge agreement") for aid in votes.assignments_of_run(conn, run_id)}


def _reason(rubric: Rubric, criterion: str, a: dict) -> Message:
    title = rubric.criterion(criterion).title if criterion in rubric.keys else criterion
    return poorly(title, f"{a['alpha']:.2f}", f"{FLAGGED}", a["items"])


def poorly(criterion: str, alpha: str, flagged: str, items: int) -> Message:
    """The rule's reason on an item (the criterion's title, the teacher's, as it is; "items" in English
    whatever the count, the count's form in a language that has several)."""
    return Message.plural("The judges agree poorly on {criterion} in this assignment (Krippendorff's alpha {alpha} < "
                          "{flagged} over {count} items with two or more votes) and disagreed on this item: a teacher "
                          "decides.", "The judges agree poorly on {criterion} in this assignment (Krippendorff's alpha "
                          "{alpha} < {flagged} over {count} items with two or more votes) and disagreed on this item: "
                          "a teacher decides.", items, criterion=criterion, alpha=alpha, flagged=flagged)


def judges_vs_reference(rows: list[dict], reference: list[dict]) -> dict[str, dict]:
    """Each judge's votes against reference scores ({submission_id, criterion, score}):
    {judge: {"n", "exact", "mae"}} over the (item, criterion) pairs both have.

    >>> judges_vs_reference([{"submission_id": 1, "criterion": "x", "judge": "a", "score": 2},
    ...                      {"submission_id": 2, "criterion": "x", "judge": "a", "score": 1}],
    ...                     [{"submission_id": 1, "criterion": "x", "score": 2.0},
    ...                      {"submission_id": 2, "criterion": "x", "score": 3.0}])
    {'a': {'n': 2, 'exact': 0.5, 'mae': 1.0}}
    """
    ref = {(r["submission_id"], r["criterion"]): float(r["score"]) for r in reference}
    diffs: dict[str, list[float]] = defaultdict(list)
    for (sid, criterion), by_judge in _items(rows).items():
        if (sid, criterion) in ref:
            for judge, score in by_judge.items():
                diffs[judge].append(score - ref[(sid, criterion)])
    return {j: {"n": len(d), "exact": round(sum(abs(x) < 0.5 for x in d) / len(d), 3),
                "mae": round(sum(abs(x) for x in d) / len(d), 3)} for j, d in sorted(diffs.items())}
