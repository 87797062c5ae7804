"""The rule checks an eval case can ask for: free, deterministic, preferred over a judge
wherever a rule can decide. Each takes (comment, case input, check) and returns
(passed, detail).

    leakage        the answer key is not in the comment (core.leakage, the seed's rule)
    readability    Flesch-Kincaid grade at most `max` (default 2) above the case's level
    sentence_length  no sentence longer than `max` words (default 20)
    no_terms       none of `terms` (jargon the student has not met) occurs
    next_step      the comment asks a question or gives a numbered / bulleted next step
    specifics      no year, name or multi-digit number that neither the student's text, the
                   source nor the question contains (invented facts the grounding judge
                   would also catch, caught for free)
    history        no claim about last week's feedback ("last week you planned ...") when the
                   student has no earlier released feedback: invented history
    follow_through the comment refers to last week's feedback (a case whose reflection follows
                   its next step)
    in_language    the comment is written in the case's language (the course's: core.language)

>>> from types import SimpleNamespace as NS
>>> inp = NS(reflection="I read about attention in transformers.", source="", question="", level=8, answer_key=None)
>>> specifics("Vaswani introduced attention in 2017.", inp, NS())
(False, 'not in the student’s text, the source or the question: Vaswani, 2017')
>>> specifics("How does attention help the transformers you read about?", inp, NS())[0]
True
"""
from __future__ import annotations

import re
from types import SimpleNamespace

from core import checks, leakage
from core.language import detect as language_detect
from core.text import count, words

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+|\(\d\)\s*")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_NUMBER = re.compile(r"(?<![\w.,])\d{2,}(?:[.,]\d+)?\b|\b\d+[.,]\d+\b")
_CAPITALISED = re.compile(r"\b[A-ZÅÄÖÉÜ][a-zåäöéüß]+(?:[A-Z][a-z]+)*(?:[-'][A-Z][a-z]+)?\b")   # also McCarthy, Al-Farabi
# Capitalised words that are not names of people, places or works.
_NOT_NAMES = frozenset("""I You Your Yours We Our The This That These Those It Its A An And But Or So Next Then
First Second Third Finally Also Try Keep Think Consider Add Write Ask Look Check Start Use Great Good Well
Nice What Why How When Where Which Who Can Could Would Should Could Do Does Did Is Are Was Were Be Have Has
If In On At For With From To Of As By Your Yes No Not Now Here There One Two Three Step Steps Hint Tip
English Monday Tuesday Wednesday Thursday Friday Saturday Sunday""".split())


def leakage_rule(comment: str, inp, check) -> tuple[bool, str]:
    key = inp.answer_key
    ak = leakage.AnswerKey(key.kind, key.value, key.tolerance / 100, inp.question)
    found = leakage.leaks(comment, ak.answer, question=ak.question, tolerance=ak.tolerance)
    return (not found, "answer key not in the comment" if not found
            else "gives the answer away: " + ", ".join(f'"{f}"' for f in found))


def readability(comment: str, inp, check) -> tuple[bool, str]:
    grade = checks.fk_grade(comment)
    limit = float(inp.level) + (check.max if getattr(check, "max", None) is not None else checks.READABILITY_TOLERANCE)
    return grade <= limit, f"Flesch-Kincaid grade {grade} (at most {limit:g})"


def sentence_length(comment: str, inp, check) -> tuple[bool, str]:
    limit = int(check.max or 20)
    longest = max((words(s) for s in _SENTENCE_END.split(comment or "") if s.strip()), default=0)
    return longest <= limit, f"longest sentence {count(longest, 'word')} (at most {limit})"


def no_terms(comment: str, inp, check) -> tuple[bool, str]:
    low = (comment or "").lower()
    found = [t for t in check.terms if re.search(rf"\b{re.escape(t.lower())}", low)]
    return not found, ("uses " + ", ".join(f'"{t}"' for t in found)) if found else "no listed term used"


def next_step(comment: str, inp, check) -> tuple[bool, str]:
    asks = checks.check_question(comment)["passed"]
    actions = len(re.findall(r"\(\d\)|(?:^|\n)\s*(?:\d[.)]|[-*\u2022])\s+\S", comment or ""))
    ok = asks or actions >= 1
    return ok, ("asks a question" if asks else f"{actions} numbered step(s)" if actions
                else "neither a question nor a concrete next step")


_ATTRIBUTION = re.compile(r"^[\s\"'“(\-*\u2022\d.)]*([A-Z]\S*)\s+(?:[A-Z]|(?:first |also )?(?:introduced|invented|"
                          r"wrote|said|showed|proposed|found|discovered|argued|developed|created|coined|described)\b)")


def _sentences_without_first_word(comment: str) -> str:
    """The comment with each sentence's first word dropped (it is capitalised anyway), unless
    it reads as a name: followed by another capitalised word or by "introduced", "wrote", ..."""
    parts = []
    for s in _SENTENCE_END.split(comment or ""):
        if not _ATTRIBUTION.match(s):
            s = re.sub(r"^[\s\"'“(\-*\u2022\d.)]*\S+", " ", s)
        parts.append(s)
    return " ".join(parts)


def specifics(comment: str, inp, check) -> tuple[bool, str]:
    known = " ".join([inp.reflection or "", inp.source or "", inp.question or ""]).lower()
    rest = _sentences_without_first_word(comment)
    found: list[str] = []
    for m in _CAPITALISED.finditer(rest):
        w = m.group(0)
        if w not in _NOT_NAMES and w.lower() not in known and w not in found:
            found.append(w)
    for rx in (_YEAR, _NUMBER):
        for m in rx.finditer(comment or ""):
            n = m.group(0)
            if n not in known and n not in found:
                found.append(n)
    return (not found, "no unsupported name, year or number" if not found
            else "not in the student’s text, the source or the question: " + ", ".join(found))


# A claim about earlier feedback or a plan made with it; "last week" alone is not one (a student
# may write about what they did last week).
_HISTORY = re.compile(
    r"\b(?:last|previous|earlier|past) (?:week|time|assignment|reflection)(?:'s|s')? (?:next steps?|feedback|comments?|"
    r"plans?|goals?|advice|actions?|suggestions?)\b"
    r"|\b(?:last|previous|earlier) (?:feedback|comments?)\b"
    r"|\blast (?:week|time),? you (?:planned|said|wanted|aimed|decided|promised|set out|were asked|were told|agreed)\b"
    r"|\b(?:as|like) (?:I|we) (?:suggested|said|mentioned|asked) (?:last|before|earlier)\b"
    r"|\b(?:acted|followed (?:up|through)) on\b", re.IGNORECASE)


def history_claims(comment: str) -> list[str]:
    """The comment's claims about earlier feedback.

    >>> history_claims("Last week you planned to add an example; this week's example does that.")
    ['Last week you planned']
    >>> history_claims("Last week you read about attention, you say.")
    []
    """
    return [m.group(0) for m in _HISTORY.finditer(comment or "")]


def history(comment: str, inp, check) -> tuple[bool, str]:
    found = history_claims(comment)
    if getattr(inp, "previous", ""):
        return True, "the student has earlier feedback to refer to"
    return (not found, "no claim about earlier feedback" if not found else
            "refers to earlier feedback the student was never given: " + ", ".join(f'"{f}"' for f in found))


def follow_through(comment: str, inp, check) -> tuple[bool, str]:
    found = history_claims(comment)
    return (bool(found), ("refers to last week's feedback: " + ", ".join(f'"{f}"' for f in found)) if found
            else "says nothing about last week's next step, which this reflection follows")


# --- the same rules on every real draft (issue 22): severities argued in core.checks ----------
# Words a student has not met in class: the assessment's own vocabulary.
JARGON = ("rubric", "criterion", "criteria", "evaluator", "aggregator", "metacognitive", "LLM", "language model")


def draft_checks(comment: str, submission: str, context: checks.DraftContext) -> list[dict]:
    """specifics, sentence_length, no_terms, next_step and history as draft checks ({name, label, passed,
    detail, severity}, as core.checks gives them)."""
    def rule(fn, inputs, name, label, severity, **check):
        passed, detail = fn(comment, inputs, SimpleNamespace(**{"max": None, "terms": (), **check}))
        return checks.result(name, label, passed, detail, severity)

    return [
        rule(next_step, None, "next_step", "Ends with a question or a next step", "fail"),
        rule(sentence_length, None, "sentence_length", "No sentence over 20 words", "warn", max=20),
        rule(specifics, context.inputs(submission), "specifics",
             "No name, year or number the student's text, the source or the question lacks", "warn"),
        rule(no_terms, None, "no_terms", "No assessment jargon or criterion codes", "warn",
             terms=[*JARGON, *context.criterion_keys]),
        rule(history, context.inputs(submission), "history", "No claim about earlier feedback the student never had",
             "fail"),
    ]


def in_language(comment: str, inp, check) -> tuple[bool, str]:
    """The comment is written in the course's language (core.language.detect), as the student's
    reflection is: feedback in the wrong language is no feedback to them."""
    want = getattr(inp, "language", "en") or "en"
    found = language_detect.detect(comment or "")
    return found == want, (f"written in {language_detect.name_of(found)}" if found == want else
                           f"written in {language_detect.name_of(found)}, not {language_detect.name_of(want)}")


RULES = {"leakage": leakage_rule, "readability": readability, "sentence_length": sentence_length,
         "no_terms": no_terms, "next_step": next_step, "specifics": specifics, "history": history,
         "follow_through": follow_through, "in_language": in_language}
