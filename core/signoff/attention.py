"""A draft's attention reasons (why it went to a teacher), in the reader's language.

The database keeps the English (`drafts.attention_reasons`: the command line, exports and the
evals read it) and, since migration m030t, each reason's Message in its stored form beside it
(`drafts.attention_said`, a list parallel to the reasons; an item None for a reason given as plain
text). A reason without a form is read back by FairMark's fixed sentences (`TEMPLATES`), so a draft
from before reads translated too where its English is one of them; any other text (a model's, a
judge's) is shown as it is. What a model or a provider wrote stays as it is inside the sentence.

    >>> from core.language.interface import Interface
    >>> Interface("sv").said(reason_of(str(checks.ATTENTION_TEXT["code"])))
    'Inlämningen innehåller kod eller formler, som AI:n bedömer mindre tillförlitligt.'
    >>> reason_of("The model said so.")
    'The model said so.'
"""
from __future__ import annotations

import re

from core import checks
from core.language import SUPPORTED
from core.language import detect as language_detect
from core.language.interface import Message, form_of, read_back
from core.signoff import attention_more as more

# core.injection's two reasons (plain English there): read back here, and given their form by the pipeline.
REPORTED = "The Evaluator reports instructions aimed at the AI in the text: check the scores were not steered."
STEERED = ("Every criterion is at the top of the scale, as the instructions in the text asked: mark this one "
           "yourself before approving it.")
_FAILED = re.compile(r"The AI assessment failed \((?P<error>.*)\)\. Regenerate it or mark it by hand\.", re.S)
_QUOTED = re.compile(r"The Evaluator reports instructions aimed at the AI in the text \(\u201c(?P<quote>.*)\u201d\): "
                     r"check the scores were not steered\.", re.S)


def failed(error) -> Message:
    """Why a failed draft goes to a teacher: the error (FairMark's sentence, the provider's text inside it)."""
    return Message("The AI assessment failed ({error}). Regenerate it or mark it by hand.", error=error)


def evidence(detail) -> Message:
    return Message("The AI's evidence quotes are not in the submission ({detail}): check the scores they support.",
                   detail=detail)


def _fixed() -> dict[str, Message]:
    found = {str(m): m for m in checks.ATTENTION_TEXT.values() if isinstance(m, Message)}
    found.update({str(m): m for m in (language_detect.attention_text(code) for code in SUPPORTED)})
    found[REPORTED] = Message("The Evaluator reports instructions aimed at the AI in the text: check the scores were "
                              "not steered.")
    found[STEERED] = Message("Every criterion is at the top of the scale, as the instructions in the text asked: "
                             "mark this one yourself before approving it.")
    return found


def reason_of(text):
    """One stored English reason as a Message by FairMark's templates; any other text as it is."""
    if not isinstance(text, str) or isinstance(text, Message):
        return text
    if (found := _fixed().get(text)) is not None:
        return found
    if found := _QUOTED.fullmatch(text):
        return Message("The Evaluator reports instructions aimed at the AI in the text (\u201c{quote}\u201d): check "
                       "the scores were not steered.", quote=found["quote"])
    if found := _FAILED.fullmatch(text):
        return failed(found["error"])
    return more.reason_of(text)


def said_forms(reasons: list) -> list:
    """The reasons' forms, as drafts.attention_said keeps them (None: plain text)."""
    return [form_of(reason_of(r)) for r in reasons]


def reasons_of(draft: dict) -> list:
    """A draft's attention reasons, each a Message where FairMark said it: its stored form while it
    reads as the stored English, else its template; any other text as it is."""
    english = list(draft.get("attention_reasons") or [])
    forms = list(draft.get("attention_said") or [])
    out = []
    for i, text in enumerate(english):
        form = forms[i] if i < len(forms) else None
        message = read_back(form, text)
        out.append(message if isinstance(message, Message) else reason_of(text))
    return out
