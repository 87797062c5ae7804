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

Each detail is a Message (core.language.interface): it reads as its English text (the command
line, the JSON, the report) and a page says it in the reader's language; the eval run's report and
a draft's checks keep its form beside the English (`detail_said`).

>>> from types import SimpleNamespace as NS
>>> inp = NS(reflection="I read about attention in transformers.", source="", question="", level=8, answer_key=None)
>>> specifics("Vaswani introduced attention in 2017.", inp, NS())
(False, 'not in the student’s text, the source or the question: Vaswani, 2017')
>>> specifics("How does attention help the transformers you read about?", inp, NS())[0]
True
"""
from __future__ import annotations

import functools
import re
from types import SimpleNamespace

from core import checks, leakage
from core.language import SUPPORTED
from core.language import normalise as language_code
from core.language import phrases
from core.language import readability as reading
from core.language import readability_said
from core.language import words as language_words
from core.language import detect as language_detect
from core.language.interface import Message, form_of, read_back
from core.text import words

_STEP_MARK = re.compile(r"\(\d\)\s*")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_NUMBER = re.compile(r"(?<![\w.,])\d{2,}(?:[.,]\d+)?\b|\b\d+[.,]\d+\b")
# A capitalised word in Latin or Cyrillic letters: also McCarthy, Al-Farabi, Выготский, Åström.
_CAPITALISED = re.compile(r"\b[A-ZÅÄÖÉÜА-ЯЁ][a-zåäöéüßа-яё]+(?:[A-ZА-ЯЁ][a-zа-яё]+)*(?:[-'][A-ZА-ЯЁ][a-zа-яё]+)?\b")
# Capitalised words that are not names of people, places or works: core.language.phrases.
_NOT_NAMES = phrases.not_names("en")
# Russian nouns decline: "Выготского" is the "Выготский" of the student's text.
_RU_ENDING = re.compile(r"(?:ого|его|ему|ому|ыми|ими|ой|ей|ом|ем|ым|им|ую|юю|ая|яя|ий|ый|а|я|у|ю|е|ы|и|о)$")


# The languages the detector names (core.language.detect.name_of), said inside a sentence in the
# reader's language (lower case in Swedish and Russian: core.language.detect.named).
LANGUAGE_NAMES = tuple(language_detect.IN_SENTENCE_NAMES)
# The reading-ease bands of Swedish LIX and Russian Flesch, said in the reader's language.
BAND_NAMES = readability_said.BAND_NAMES
value_shown, target_shown = readability_said.value_shown, readability_said.target_shown


def _quoted(found) -> str:
    return ", ".join(f'"{f}"' for f in found)


def _language(inp, check) -> str:
    """The rule's language: the draft check's, else the eval case's, else English."""
    return getattr(check, "language", None) or getattr(inp, "language", None) or "en"


def sentence_pieces(comment: str, language: str = "en") -> list[str]:
    """The comment's sentences, a numbered step "(1)" starting a piece of its own."""
    return [p for s in language_words.sentences(comment, language) for p in _STEP_MARK.split(s) if p.strip()]


def leakage_rule(comment: str, inp, check) -> tuple[bool, str]:
    key = inp.answer_key
    ak = leakage.AnswerKey(key.kind, key.value, key.tolerance / 100, inp.question)
    found = leakage.leaks(comment, ak.answer, question=ak.question, tolerance=ak.tolerance)
    return (not found, Message("answer key not in the comment") if not found
            else Message("gives the answer away: {found}", found=_quoted(found)))


def readability(comment: str, inp, check) -> tuple[bool, str]:
    language = _language(inp, check)
    if language_code(language) != "en":     # LIX (Swedish), Oborneva's Flesch (Russian): not harder
        found = reading.assess(comment, float(inp.level), language)
        return (found["verdict"] != "harder", Message("{value} (target {target})", value=value_shown(found["value"], language),
                                                      target=target_shown(float(inp.level), language)))
    grade = checks.fk_grade(comment)
    limit = float(inp.level) + (check.max if getattr(check, "max", None) is not None else checks.READABILITY_TOLERANCE)
    return grade <= limit, Message("Flesch-Kincaid grade {grade} (at most {limit})", grade=grade, limit=f"{limit:g}")


def sentence_length(comment: str, inp, check) -> tuple[bool, str]:
    limit = int(check.max or 20)
    language = _language(inp, check)
    longest = max((words(s, language) for s in sentence_pieces(comment, language)), default=0)
    return longest <= limit, Message.plural("longest sentence {count} word (at most {limit})",
                                            "longest sentence {count} words (at most {limit})", longest, limit=limit)


def no_terms(comment: str, inp, check) -> tuple[bool, str]:
    low = (comment or "").lower()
    # A term of several words matches them in order with any ending ("языков модел" finds
    # "языковой модели"); one word matches as a prefix ("kriteri" finds "kriterierna").
    found = [t for t in check.terms
             if re.search(r"\b" + r"\w*\s+".join(re.escape(p) for p in t.lower().split()), low)]
    return not found, Message("uses {terms}", terms=_quoted(found)) if found else Message("no listed term used")


def next_step(comment: str, inp, check) -> tuple[bool, str]:
    language = _language(inp, check)
    asks = checks.check_question(comment, language)["passed"]
    actions = checks.action_items(comment, language)
    ok = asks or actions >= 1
    return ok, (Message("asks a question") if asks
                else Message.plural("{count} numbered step(s)", "{count} numbered step(s)", actions) if actions
                else Message("neither a question nor a concrete next step"))


def _sentences_without_first_word(comment: str, language: str = "en") -> str:
    """The comment with each sentence's first word dropped (it is capitalised anyway), unless
    it reads as a name: followed by another capitalised word or by "introduced", "wrote", ...
    (the language's verbs, core.language.phrases)."""
    parts = []
    for s in sentence_pieces(comment, language):
        if not phrases.attribution(language).match(s):
            s = re.sub(r"^[\s\"'“„«(\-*\u2022\u2013\u2014\d.)]*\S+", " ", s)
        parts.append(s)
    return " ".join(parts)


def _known(word: str, known: str, language: str) -> bool:
    low = word.lower().replace("ё", "е")
    if low in known:
        return True
    stem = _RU_ENDING.sub("", low) if language == "ru" else low
    return len(stem) >= 4 and stem in known


def specifics(comment: str, inp, check) -> tuple[bool, str]:
    language = language_code(_language(inp, check))
    known = " ".join([inp.reflection or "", inp.source or "", inp.question or ""]).lower().replace("ё", "е")
    rest = _sentences_without_first_word(comment, language)
    not_names = phrases.not_names(language)
    found: list[str] = []
    for m in _CAPITALISED.finditer(rest):
        w = m.group(0)
        if w not in not_names and not _known(w, known, language) and w not in found:
            found.append(w)
    for rx in (_YEAR, _NUMBER):
        for m in rx.finditer(comment or ""):
            n = m.group(0)
            if n not in known and n not in found:
                found.append(n)
    return (not found, Message("no unsupported name, year or number") if not found
            else Message("not in the student’s text, the source or the question: {found}", found=", ".join(found)))


def history_claims(comment: str, language: str = "en") -> list[str]:
    """The comment's claims about earlier feedback (the language's phrases and English's:
    core.language.phrases.HISTORY).

    >>> history_claims("Last week you planned to add an example; this week's example does that.")
    ['Last week you planned']
    >>> history_claims("Last week you read about attention, you say.")
    []
    """
    return [m.group(0) for m in phrases.history(language).finditer(comment or "")]


def history(comment: str, inp, check) -> tuple[bool, str]:
    found = history_claims(comment, _language(inp, check))
    if getattr(inp, "previous", ""):
        return True, Message("the student has earlier feedback to refer to")
    return (not found, Message("no claim about earlier feedback") if not found else
            Message("refers to earlier feedback the student was never given: {found}", found=_quoted(found)))


def follow_through(comment: str, inp, check) -> tuple[bool, str]:
    found = history_claims(comment, _language(inp, check))
    return (bool(found), Message("refers to last week's feedback: {found}", found=_quoted(found)) if found
            else Message("says nothing about last week's next step, which this reflection follows"))


# --- the same rules on every real draft (issue 22): severities argued in core.checks ----------
# Words a student has not met in class: the assessment's own vocabulary (per language:
# core.language.phrases.JARGON).
JARGON = phrases.JARGON["en"]


def draft_checks(comment: str, submission: str, context: checks.DraftContext, language: str = "en") -> list[dict]:
    """specifics, sentence_length, no_terms, next_step and history as draft checks ({name, label, passed,
    detail, severity}, as core.checks gives them), in the course's `language`."""
    def rule(fn, inputs, name, label, severity, **check):
        passed, detail = fn(comment, inputs, SimpleNamespace(**{"max": None, "terms": (), "language": language,
                                                                **check}))
        return checks.result(name, label, passed, detail, severity)

    return [
        rule(next_step, None, "next_step", Message("Ends with a question or a next step"), "fail"),
        rule(sentence_length, None, "sentence_length", Message.plural("No sentence over {count} word",
                                                                      "No sentence over {count} words", 20), "warn", max=20),
        rule(specifics, context.inputs(submission), "specifics",
             Message("No name, year or number the student's text, the source or the question lacks"), "warn"),
        rule(no_terms, None, "no_terms", Message("No assessment jargon or criterion codes"), "warn",
             terms=[*phrases.jargon(language), *context.criterion_keys]),
        rule(history, context.inputs(submission), "history",
             Message("No claim about earlier feedback the student never had"), "fail"),
    ]


# A draft's checks as stored (core.pipeline) and read back (review show, the review item): a
# Message label's and detail's form beside its English, these rules' and core.checks' alike.
FORMS = {"label": "label_said", "detail": "detail_said"}


def with_forms(results: list[dict]) -> list[dict]:
    """The results as a draft stores them: beside a Message label's and detail's English, its form
    (`label_said`, `detail_said`: core.language.interface.stored)."""
    return [{**c, **{said_key: form for key, said_key in FORMS.items() if (form := form_of(c.get(key))) is not None}}
            for c in results]


def said(results: list[dict]) -> list[dict]:
    """Stored results with each label and detail a Message again where its form was kept
    (`with_forms`), without the forms; a draft stored before keeps its English details, and its
    English labels are read back by exact match (`label_of`).

    >>> again = said(with_forms([checks.result("x", "X", False, Message("uses {terms}", terms='"rubric"'), "warn")]))
    >>> again[0]["detail"], again[0]["detail"].msgid, "detail_said" in again[0]
    ('uses "rubric"', 'uses {terms}', False)
    >>> said([{"name": "question", "label": "Asks at least one question", "detail": "0 question mark(s)"}])[0]["label"].msgid
    'Asks at least one question'
    """
    return [{**{k: v for k, v in c.items() if k not in FORMS.values()},
             "label": read_back(c["label_said"], c.get("label")) if "label_said" in c else label_of(c.get("label")),
             "detail": read_back(c.get("detail_said"), c.get("detail"))}
            if isinstance(c, dict) else c for c in results]


def label_of(label):
    """A check's label as a Message: a stored English one (a draft stored before the forms) by
    exact match with the labels the checks give (`_labels`); any other text as it is."""
    return label if isinstance(label, Message) or not isinstance(label, str) else _labels().get(label, label)


def known_labels() -> list[str]:
    """The English of every label a draft's checks give (`_labels`): what a stored sentence that names
    checks is read against (a label may hold a comma)."""
    return list(_labels())


@functools.lru_cache(maxsize=1)
def _labels() -> dict[str, Message]:
    """Every label a draft's checks give (core.checks, these rules, the answer key's, the course's
    language's), by its English: the checks run once on an empty draft, in every language and at
    every whole target grade, so the table is theirs, not a copy."""
    found = [c["label"] for language in SUPPORTED for grade in (None, *range(0, 21))
             for c in checks.comment_checks("", "", target_grade=grade, context=checks.DraftContext(), language=language,
                                            answer_key=leakage.AnswerKey("text", "x"))]
    found += [c["label"] for language in SUPPORTED for c in checks.submission_checks("", language)
              + draft_checks("", "", checks.DraftContext(), language)]
    return {str(m): m for m in found if isinstance(m, Message)}


def in_language(comment: str, inp, check) -> tuple[bool, str]:
    """The comment is written in the course's language (core.language.detect), as the student's
    reflection is: feedback in the wrong language is no feedback to them."""
    want = getattr(inp, "language", "en") or "en"
    found = language_detect.detect(comment or "")
    return found == want, (Message("written in {language}", language=language_detect.named(found)) if found == want else
                           Message("written in {language}, not {wanted}", language=language_detect.named(found),
                                   wanted=language_detect.named(want)))


RULES = {"leakage": leakage_rule, "readability": readability, "sentence_length": sentence_length,
         "no_terms": no_terms, "next_step": next_step, "specifics": specifics, "history": history,
         "follow_through": follow_through, "in_language": in_language}
