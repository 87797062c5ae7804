"""Whether a draft may be approved in bulk, and why not, in a teacher's words (issue 22).

A draft is bulk-eligible only when every LLM judge's vote on every criterion equals the final
score, the scoring was confident, no veto fired, no check failed, no injection flag was raised,
and its band clears the readiness bar's band gap (core.calibration.readiness). The offline
baseline gives no confidence per item: its drafts qualify only through the assignment's
readiness measured on the baseline's own blind agreement (`offline_only`, lifted by
core.signoff.bulk when that holds).

What the draft itself decides is computed once, when the pipeline stores it (`hold_reasons`),
and kept in `drafts.held_back` as [{code, text, criteria}], so the bulk query (db.samples) is
one SQL statement at any size. What changes later (a teacher's edit, a blind score still
missing, the band gap) is added where it is read (`reasons_now`).

Reason codes are stable (the command line prints them); the texts are for teachers.

>>> from core.rubric import default_rubric
>>> r = default_rubric()
>>> k = r.keys[0]
>>> votes = [{"criterion": k, "judge": "a", "tier": 1, "score": 1.0}, {"criterion": k, "judge": "b", "tier": 2, "score": 3.0}]
>>> [x["code"] for x in hold_reasons({"scores": {**dict.fromkeys(r.keys, 2), k: 1}, "judging": {"route": "confident"}}, votes, r)]
['votes_split']
>>> hold_reasons({"scores": {**dict.fromkeys(r.keys, 2), k: 1}, "judging": {"route": "confident"}}, votes, r)[0]["text"][:33]
'The two judges gave 1 and 3 for C'
"""
from __future__ import annotations

from core.judging import judges
import re

from core.language.interface import N_, Message
from core.rubric import Rubric

VOTES_SPLIT, UNSURE, VETO, CHECK_FAILED, INJECTION = "votes_split", "unsure", "veto", "check_failed", "injection"
BAND_NOT_READY, OFFLINE_ONLY, BLIND_PENDING, EDITED = "band_not_ready", "offline_only", "blind_pending", "edited"
NEEDS_ATTENTION, NOT_DRAFTED, DECIDED = "needs_attention", "not_drafted", "decided"
COMMENT_NOT_CONFIRMED, OLDER_DRAFT = "comment_not_confirmed", "older_draft"
MODERATION_SAMPLE = "moderation_sample"    # core.moderation.blindness adds it to a sample item
CODES = (VOTES_SPLIT, UNSURE, VETO, CHECK_FAILED, INJECTION, BAND_NOT_READY, OFFLINE_ONLY, BLIND_PENDING, EDITED,
         NEEDS_ATTENTION, NOT_DRAFTED, DECIDED, COMMENT_NOT_CONFIRMED, OLDER_DRAFT, MODERATION_SAMPLE)
# Routes of core.judging.scoring where the first judge's scores stand without being confident.
_UNSURE_ROUTES = ("low_confidence", "confidence_unknown", "judges_failed", "judges_disagree")
BLOCKING_SEVERITIES = ("fail",)     # check severities that keep a draft out (core.signoff.bulk uses them)
_COUNT = {2: N_("two"), 3: N_("three"), 4: N_("four"), 5: N_("five")}


def _title(rubric: Rubric, key: str) -> str:
    return rubric.criterion(key).title if key in rubric.keys else key.replace("_", " ")


def _and(items: list[str]) -> str:
    """"a, b and c": a Message when there are several (the reader's "and"); an item that is a Message
    stays one (a check's label)."""
    return items[0] if len(items) == 1 else Message("{items} and {last}", items=Message.joined(", ", items[:-1]),
                                                    last=items[-1])


def reason(code: str, text: str, criteria: list[str] | None = None) -> dict:
    return {"code": code, "text": text, "criteria": list(criteria or [])}


def split_criteria(scores: dict, votes: list[dict]) -> dict[str, list[float]]:
    """Criterion -> the LLM judges' scores in casting order, where one of them differs from the
    final score. Free judges (tier 0, the offline scorer) are no LLM votes."""
    cast: dict[str, list[float]] = {}
    for v in votes:
        if int(v.get("tier") or 0) >= 1:
            cast.setdefault(v["criterion"], []).append(float(v["score"]))
    return {k: vals for k, vals in cast.items() if k in scores and any(x != float(scores[k]) for x in vals)}


def _split_text(rubric: Rubric, key: str, vals: list[float], final) -> str:
    values = {"levels": _and([f"{x:g}" for x in vals]), "criterion": _title(rubric, key), "final": f"{final:g}"}
    if len(vals) > 1:
        number = _COUNT.get(len(vals))
        return Message(SPLIT_MANY, number=Message(number) if number else str(len(vals)), **values)
    return Message(SPLIT_ONE, **values)


# The reasons' texts (stored in drafts.held_back in English; `text_of` reads them back as Messages).
SPLIT_ONE = N_("The judge gave {levels} for {criterion}; the draft says {final}. Check this score before approving.")
SPLIT_MANY = N_("The {number} judges gave {levels} for {criterion}; the draft says {final}. Check this score before "
                "approving.")
OFF_SCORER = N_("The learned offline scorer's score for {criteria} is more than one level from the draft's: check it.")
NOT_SURE = N_("The AI was not sure of its score for {criteria}; no other judge settled it.")
NO_SURE_SCORE = N_("The AI gave no sure score for this draft and no other judge confirmed it.")
VETOED = N_("{criterion} scored {score}, below the rubric's veto level.")
FAILED_CHECK = N_("A check failed: {checks}.")
STEERING = N_("The text seems to give the AI instructions: check the scores were not steered.")
OFFLINE_TEXT = N_("Drafted by the offline baseline, which says nothing about how sure it is of one item: it can be "
                  "approved in bulk only once the baseline's own blind agreement on this assignment clears the "
                  "readiness bar.")


def hold_reasons(draft: dict, votes: list[dict], rubric: Rubric) -> list[dict]:
    """What keeps this draft out of bulk approval by itself (before any teacher touched it):
    [{code, text, criteria}], empty when nothing does."""
    scores, judging = draft.get("scores") or {}, draft.get("judging") or {}
    out = []
    offline = bool(draft.get("is_offline")) or judging.get("route") == "offline"
    for key, vals in split_criteria(scores, votes).items():
        out.append(reason(VOTES_SPLIT, _split_text(rubric, key, vals, scores[key]), [key]))
    split = {c for r in out for c in r["criteria"]}
    named = set(judging.get("unsure") or [])
    unsure = [k for k in [*rubric.keys, *sorted(named - set(rubric.keys))] if k in named and k not in split]
    # The free judge (the learned offline scorer) more than FREE_TOLERANCE from the draft makes its
    # criteria unsure; the others are unsure because the AI was (unknown confidence names them all).
    far = {v["criterion"] for v in votes if judges.is_free(v) and v["criterion"] in scores
           and not judges.FREE_TOLERANCE.agree(float(v["score"]), float(scores[v["criterion"]]))}
    off = [k for k in unsure if k in far]
    if off:
        out.append(reason(UNSURE, Message(OFF_SCORER, criteria=_and([_title(rubric, k) for k in off])), off))
    if rest := [k for k in unsure if k not in far]:
        out.append(reason(UNSURE, Message(NOT_SURE, criteria=_and([_title(rubric, k) for k in rest])), rest))
    if not out and not offline and (not judging or judging.get("route") in _UNSURE_ROUTES):
        out.append(reason(UNSURE, Message(NO_SURE_SCORE)))
    vetoed = judging.get("vetoed") or rubric.vetoed({k: int(v) for k, v in scores.items()}) if scores else []
    for key in vetoed:
        out.append(reason(VETO, Message(VETOED, criterion=_title(rubric, key), score=f"{scores[key]:g}"), [key]))
    failed = [c for c in draft.get("checks") or [] if isinstance(c, dict) and c.get("passed") is False
              and c.get("name") != "injection" and c.get("severity") in BLOCKING_SEVERITIES]
    if failed:
        out.append(reason(CHECK_FAILED, Message(FAILED_CHECK, checks=_and([_label(c) for c in failed]))))
    if "injection" in (draft.get("flags") or []):
        out.append(reason(INJECTION, Message(STEERING)))
    if offline:
        out.append(reason(OFFLINE_ONLY, Message(OFFLINE_TEXT)))
    return out


# What the queue's row says in a word or two (the item says it in full); a page shows it with t().
SHORT = {VOTES_SPLIT: N_("judges disagree"), UNSURE: N_("AI unsure"), VETO: N_("veto"),
         CHECK_FAILED: N_("failed check"), INJECTION: N_("instructions to the AI"),
         OFFLINE_ONLY: N_("offline baseline"), BAND_NOT_READY: N_("band not ready")}


BAND_TEXTS = {
    "low": N_("The AI's error is larger for weaker students (low band) than the readiness bar allows, so drafts in "
              "that band need a teacher's eyes."),
    "high": N_("The AI's error is larger for stronger students (high band) than the readiness bar allows, so drafts "
               "in that band need a teacher's eyes."),
}


def band_reason(band: str) -> dict:
    if band in BAND_TEXTS:
        return reason(BAND_NOT_READY, Message(BAND_TEXTS[band]))
    who = "weaker" if band == "low" else "stronger"
    return reason(BAND_NOT_READY, f"The AI's error is larger for {who} students ({band} band) than the readiness bar "
                                  "allows, so drafts in that band need a teacher's eyes.")


STATE_REASONS = {
    BLIND_PENDING: N_("Waiting for a teacher's blind calibration score."),
    EDITED: N_("A teacher edited this draft."),
    NEEDS_ATTENTION: N_("The draft needs a teacher's attention (see the reasons on the item)."),
    NOT_DRAFTED: N_("There is no AI draft yet."),
    DECIDED: N_("A teacher already decided on this item."),
    COMMENT_NOT_CONFIRMED: N_("The Reviewer did not confirm the drafted comment."),
    OLDER_DRAFT: N_("The teacher's review is of an earlier draft than the current one."),
}
# Every text a reason of this code can have, for `text_of` (the stored English read back).
TEMPLATES = {VOTES_SPLIT: (SPLIT_ONE, SPLIT_MANY), UNSURE: (OFF_SCORER, NOT_SURE, NO_SURE_SCORE), VETO: (VETOED,),
             CHECK_FAILED: (FAILED_CHECK,), INJECTION: (STEERING,), OFFLINE_ONLY: (OFFLINE_TEXT,),
             BAND_NOT_READY: tuple(BAND_TEXTS.values()), **{code: (text,) for code, text in STATE_REASONS.items()}}


def _pattern(template: str) -> re.Pattern:
    parts = re.split(r"\{(\w+)\}", template)   # literal, field, literal, ...
    return re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts)))


def text_of(r: dict, rubric: Rubric | None = None):
    """A reason's text as a Message a page shows in the reader's language: stored reasons (drafts.held_back)
    are English text, read back by their code's templates; a text none matches is shown as it is.

    >>> from core.language.interface import Interface
    >>> m = text_of({"code": VETO, "text": "Clarity scored 0, below the rubric's veto level.", "criteria": []})
    >>> m == "Clarity scored 0, below the rubric's veto level.", type(m).__name__
    (True, 'Message')
    """
    text = r.get("text") or ""
    if isinstance(text, Message):
        return text
    for template in TEMPLATES.get(r.get("code"), ()):
        if found := _pattern(template).fullmatch(text):
            return Message(template, **{k: _value(k, v, r, rubric) for k, v in found.groupdict().items()})
    return text


def _label(check: dict):
    """A failed check's label, a Message (a stored English one by `core.evals.rules.label_of`)."""
    from core.evals import rules     # it runs the checks to know their labels: imported when needed

    label = check.get("label") or check.get("name")
    return rules.label_of(label) if isinstance(label, str) else str(label)


def _checks_named(value: str):
    """The labels named in a stored "A check failed: a, b and c." (a label may hold a comma or "and"):
    read against the labels the checks give, each a Message; None when one is not among them."""
    from core.evals import rules

    known = sorted(rules.known_labels(), key=len, reverse=True)

    def parse(rest: str, alone: bool = True) -> list[str] | None:   # "a" | "a and b" | "a, " + (b and c ...)
        if alone and rest in known:
            return [rest]
        for label in known:
            if rest.startswith(label + " and ") and rest[len(label) + 5:] in known:
                return [label, rest[len(label) + 5:]]
            if rest.startswith(label + ", ") and (found := parse(rest[len(label) + 2:], False)):
                return [label, *found]
        return None

    labels = parse(value)
    return _and([rules.label_of(label) for label in labels]) if labels else None


def _value(field: str, value: str, r: dict, rubric: Rubric | None):
    """A field of a stored reason: its list's "and" and the judges' number in the reader's words."""
    if field == "checks" and (named := _checks_named(value)) is not None:
        return named
    if field == "number" and value in _COUNT.values():
        return Message(value)
    if field == "levels" and " and " in value:
        return _and(value.replace(" and ", ", ").split(", "))
    criteria = list(r.get("criteria") or [])
    if field == "criteria" and rubric is not None and len(criteria) > 1:
        titles = [_title(rubric, k) for k in criteria]
        if str(_and(titles)) == value:
            return _and(titles)
    return value


def reasons_now(held: list[dict], *, status: str, band: str | None, blocked_bands=(), blind_pending: bool = False,
                edited: bool = False, older_draft: bool = False, comment_confirmed: bool = True) -> list[dict]:
    """The stored reasons with what holds the item back now: its status, a blind score still
    missing, a teacher's edit or review of an earlier draft, a comment the Reviewer did not
    confirm, the band gap of the readiness bar (`blocked_bands`)."""
    if blind_pending:
        return [reason(BLIND_PENDING, Message(STATE_REASONS[BLIND_PENDING]))]   # nothing the AI produced is shown
    if status == "uploaded":
        return [reason(NOT_DRAFTED, Message(STATE_REASONS[NOT_DRAFTED]))]
    out = list(held)
    if status in ("needs_attention", "failed"):
        out.append(reason(NEEDS_ATTENTION, Message(STATE_REASONS[NEEDS_ATTENTION])))
    elif status in ("approved", "rejected", "released"):
        out.append(reason(DECIDED, Message(STATE_REASONS[DECIDED])))
    if status == "drafted" and not comment_confirmed:
        out.append(reason(COMMENT_NOT_CONFIRMED, Message(STATE_REASONS[COMMENT_NOT_CONFIRMED])))
    if edited:
        out.append(reason(EDITED, Message(STATE_REASONS[EDITED])))
    if older_draft:
        out.append(reason(OLDER_DRAFT, Message(STATE_REASONS[OLDER_DRAFT])))
    if band in blocked_bands:
        out.append(band_reason(band))
    return out
