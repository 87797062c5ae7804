"""Where an item goes in the review queue: the ones that most need a human come first.

Groups (lower = earlier): -1 a student's open appeal (core.appeals: first in line, whatever the
item's status; set by the appeal, not by `priority`); 0 needs attention or failed; 1 low confidence or judges disagree;
2 predicted low band (the seed's fairness gap is for weaker students); 3 the rest;
then items a teacher has finished with. Stored in `submissions.priority` so the queue is an
indexed, paginated SQL read at any size.

"Unsure" (group 1) is what the judge cascade (core.judging.scoring) concluded and stored in
the draft's `judging`: the first judge was not confident and nobody settled it, or judges could
not agree (`is_unsure(draft)`). A draft with only a confidence number (no judging record) is
unsure below LOW_CONFIDENCE.

>>> from core.rubric import default_rubric
>>> r = default_rubric()
>>> priority("needs_attention", {"concept_understanding": 3}, r)
0
>>> priority("drafted", dict.fromkeys(r.keys, 1), r)
2
>>> priority("drafted", dict.fromkeys(r.keys, 3), r, confidence=0.4)
1
>>> priority("drafted", dict.fromkeys(r.keys, 3), r, unsure=True), priority("approved", dict.fromkeys(r.keys, 3), r)
(1, 7)
>>> is_unsure({"judging": {"unsure": ["clarity"], "disagree": True}}), is_unsure({"judging": {}}), is_unsure(None)
(True, False, False)
"""
from __future__ import annotations

from core.language.interface import N_
from core.rubric import Rubric

APPEALS, NEEDS_ATTENTION, UNSURE, LOW_BAND, REST = -1, 0, 1, 2, 3
REJECTED, APPROVED, RELEASED, NOT_DRAFTED = 4, 7, 8, 9
LABELS = {
    APPEALS: N_("Appeals"),
    NEEDS_ATTENTION: N_("Needs attention"),
    UNSURE: N_("Low confidence / judges disagree"),
    LOW_BAND: N_("Predicted low band"),
    REST: N_("Other drafts"),
    REJECTED: N_("Rejected - back in the queue"),
    APPROVED: N_("Approved"),
    RELEASED: N_("Released"),
    NOT_DRAFTED: N_("Not yet drafted"),
}
# Stable names of the groups (the command line prints them; later groups get their own names).
GROUP_NAMES = {APPEALS: "appeals", NEEDS_ATTENTION: "needs_attention", UNSURE: "unsure", LOW_BAND: "low_band",
               REST: "other",
               REJECTED: "rejected", APPROVED: "approved", RELEASED: "released", NOT_DRAFTED: "not_drafted"}
LOW_CONFIDENCE = 0.6


def is_unsure(draft: dict | None) -> bool:
    """Whether a draft's judging left it unsure (low confidence nobody settled, or judges that
    disagreed on a criterion)."""
    judging = (draft or {}).get("judging") or {}
    return bool(judging.get("unsure") or judging.get("disagree"))


def priority(status: str, scores: dict[str, int] | None, rubric: Rubric, *,
             confidence: float | None = None, judges_disagree: bool = False, unsure: bool = False) -> int:
    if status in ("needs_attention", "failed"):
        return NEEDS_ATTENTION
    if status == "rejected":
        return REJECTED
    if status == "approved":
        return APPROVED
    if status == "released":
        return RELEASED
    if status == "uploaded" or not scores:
        return NOT_DRAFTED
    if unsure or judges_disagree or (confidence is not None and confidence < LOW_CONFIDENCE):
        return UNSURE
    mean = sum(scores.values()) / len(scores)
    if rubric.low_band(mean):
        return LOW_BAND
    return REST
