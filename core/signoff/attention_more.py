"""The older attention reasons read back by FairMark's templates (`core.signoff.attention.reason_of`
hands them here): a failed agent's, the revision rounds', the grounding and pedagogy judges', a
veto's and the agreement rule's. A draft since these were Messages keeps their forms
(`drafts.attention_said`); one from before has the English only, and reads translated where it is
one of these sentences. What a model or a provider wrote (an error, a judge's claims, the Reviewer's
fixes) and a criterion's title stay as they are inside the sentence.

    >>> from core.language.interface import Interface
    >>> Interface("sv").said(reason_of("The Reviser (round 2) failed (LLMError: timeout); the last comment is kept "
    ...                                "unrevised"))
    'Agenten Omarbetare (omgång 2) misslyckades (LLMError: timeout); den senaste kommentaren behålls utan omarbetning'
    >>> reason_of("The model said so.")
    'The model said so.'
"""
from __future__ import annotations

import re

from core.language.interface import Message

_DEGRADED = re.compile(r"The (?P<role>.+?) failed \((?P<error_type>\w+): (?P<error>.*)\); (?P<consequence>.+)", re.S)
_ROUND = re.compile(r"(?P<role>.+) \(round (?P<round>\d+)\)")
_FAILING = re.compile(r"After (?P<count>\d+) revision round\(s\) these checks still fail: (?P<checks>.+)", re.S)
_REVISE = re.compile(r"After (?P<count>\d+) revision round\(s\) the Reviewer still asks for changes: (?P<fixes>.*)",
                     re.S)
_GROUNDING = re.compile(r"The grounding judge found claims that neither the student's text nor the source supports: "
                        r"(?P<claims>.*)", re.S)
_PEDAGOGY = re.compile(r"The pedagogy judge rated the comment low on: (?P<criteria>.+?)\.(?: (?P<justification>.+))?",
                       re.S)
_RATED = re.compile(r"(?P<criterion>.+) \((?P<score>\d+)/5\)")
_VETO = re.compile(r"Veto: (?P<criterion>.+) scored (?P<score>\S+), below its veto level (?P<veto>\S+)\. The rubric "
                   r"fails the item on this criterion whatever the total: check the score before approving\.", re.S)
_POORLY = re.compile(r"The judges agree poorly on (?P<criterion>.+) in this assignment \(Krippendorff's alpha "
                     r"(?P<alpha>\S+) < (?P<flagged>\S+) over (?P<count>\d+) items with two or more votes\) and "
                     r"disagreed on this item: a teacher decides\.", re.S)


def degraded(role, error_type: str, error, consequence: str) -> Message:
    """Why a later agent's fault sends the item to a teacher: FairMark's sentence (the agent's name
    and what is lost said in the reader's language), the provider's error inside it as it is."""
    return Message("The {role} failed ({error_type}: {error}); {consequence}", role=role if isinstance(role, Message) else Message(role),
                   error_type=error_type, error=error, consequence=Message(consequence))


def in_round(role: str, rounds: int) -> Message:
    """An agent's name in a revision round: "Reviser (round 2)"."""
    return Message("{role} (round {round})", role=Message(role), round=rounds)


def still_failing(rounds: int, bad: list[dict]) -> Message:
    """The revision rounds left checks failing: each check's label and detail (Messages) named."""
    named = Message.joined("; ", [Message("{label} ({detail})", label=c["label"], detail=c["detail"]) for c in bad])
    return Message.plural("After {count} revision round(s) these checks still fail: {checks}",
                          "After {count} revision round(s) these checks still fail: {checks}", rounds, checks=named)


def still_revise(rounds: int, fixes: str) -> Message:
    """The Reviewer still asks for changes after the rounds: its fixes (a model's words) as they are."""
    return Message.plural("After {count} revision round(s) the Reviewer still asks for changes: {fixes}",
                          "After {count} revision round(s) the Reviewer still asks for changes: {fixes}", rounds,
                          fixes=fixes)


def reason_of(text: str):
    """One stored English reason as a Message by these templates; any other text as it is."""
    for read in (_degraded, _failing, _revise, _grounding, _pedagogy, _veto, _poorly):
        if (found := read(text)) is not None:
            return found
    return text


def _degraded(text: str):
    from core.agents import registry

    if not (found := _DEGRADED.fullmatch(text)):
        return None
    labels = {r.label for r in registry._ROLES.values()}
    costs = {r.if_failed for r in registry._ROLES.values()}
    role, rounds = found["role"], _ROUND.fullmatch(found["role"])
    if found["consequence"] not in costs or not (role in labels or (rounds and rounds["role"] in labels)):
        return None
    label = role if role in labels else in_round(rounds["role"], int(rounds["round"]))
    return degraded(label, found["error_type"], found["error"], found["consequence"])


def _failing(text: str):
    if not (found := _FAILING.fullmatch(text)) or (bad := _checks(found["checks"])) is None:
        return None
    return still_failing(int(found["count"]), bad)


def _checks(text: str) -> list[dict] | None:
    """ "label (detail); label (detail)": each label one a draft's checks give (core.evals.rules.label_of; a
    detail may hold "; " too), else None."""
    from core.evals import rules

    known = sorted(rules.known_labels(), key=len, reverse=True)
    items: list[str] = []
    for piece in text.split("; "):
        if items and not any(piece.startswith(label + " (") for label in known):
            items[-1] += "; " + piece
        else:
            items.append(piece)
    out = []
    for item in items:
        label = next((k for k in known if item.startswith(k + " (") and item.endswith(")")), None)
        if label is None:
            return None
        out.append({"label": rules.label_of(label), "detail": item[len(label) + 2:-1]})
    return out


def _revise(text: str):
    found = _REVISE.fullmatch(text)
    return still_revise(int(found["count"]), found["fixes"]) if found else None


def _grounding(text: str):
    from core.agents import grounding

    if not (found := _GROUNDING.fullmatch(text)):
        return None
    claims = Message(grounding.SEE_NOTE) if found["claims"] == grounding.SEE_NOTE else found["claims"]
    return Message(grounding.UNSUPPORTED, claims=claims)


def _pedagogy(text: str):
    from core.agents import pedagogy

    if not (found := _PEDAGOGY.fullmatch(text)):
        return None
    keys = {v: k for k, v in pedagogy.CRITERIA.items()}
    rated = [_RATED.fullmatch(part) for part in found["criteria"].split(", ")]
    if not all(r and r["criterion"] in keys for r in rated):
        return None
    criteria = Message.joined(", ", [pedagogy.rated(keys[r["criterion"]], int(r["score"])) for r in rated])
    return pedagogy.low_reason(criteria, found["justification"] or "")


def _veto(text: str):
    from core.judging import scoring

    found = _VETO.fullmatch(text)
    return scoring.vetoed(found["criterion"], found["score"], found["veto"]) if found else None


def _poorly(text: str):
    from core.judging import agreement

    found = _POORLY.fullmatch(text)
    return agreement.poorly(found["criterion"], found["alpha"], found["flagged"], int(found["count"])) if found else None
