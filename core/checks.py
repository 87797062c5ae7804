"""Deterministic checks: free, run on every draft, shown to the Reviewer and to the teacher.

Two kinds:
- `comment_checks(...)` look at the feedback draft (word limit, actions, question,
  readability, quotes, discouraging language). A failed check with severity "fail" sends the
  comment back for a targeted revision; "warn" is shown but does not.
- `submission_flags(text)` look at the student's text (empty, short, injection attempt,
  code/formulas): these are the seed's known weak spots, so the draft goes to a teacher.

Readability decision: the feedback's Flesch-Kincaid grade may be up to 2 grades above the
assignment's target; more than that is a *fail* (a student who cannot read the feedback cannot
act on it, and a revision can simplify it). Reading more than 2 grades *below* target is only a
*warn*: plain language does no harm, and FK is noisy on 120-word texts.

The eval runner's free rules (core.evals.rules) run on every real draft too, with a severity
chosen for what a miss costs the student (a "fail" is repaired by the Reviser first and keeps the
item out of bulk approval; a "warn" is shown and never blocks):

    specifics        warn  a name, year or number that neither the student's text, the source,
                           the question nor the rubric contains may be an invented fact (the free
                           twin of the grounding judge), but it may as well be a useful pointer
                           outside the text ("try Kolb's cycle"), which a capitalisation rule
                           cannot tell apart: the teacher sees it, and the grounding judge (an
                           LLM reading the texts) is the one that sends an item to a teacher
    next_step        fail  neither a question nor a concrete step leaves the student nothing to
                           do next (seed 003's third pedagogy criterion)
    coach_question   warn  the comment carries one of the Coach's questions (not just any "?"):
                           the metacognitive prompt is what the Coach exists for, but the
                           Aggregator may rightly rephrase it in the student's words, which a
                           word-overlap rule cannot always tell from dropping it; a false "fail"
                           would cost a revision round (two more calls) and bulk approval, so the
                           teacher sees the warning and the question checks (the "?" rule) block
    sentence_length  warn  a sentence over 20 words is harder to read, but the readability
                           check already blocks a comment that is too hard as a whole
    no_terms         warn  assessment jargon or a raw criterion key ("reflection_depth") reads
                           badly, but does not mislead
    strengths_first  warn  opening with what the student did well is the seed's advice, but a
                           phrasing rule this simple misreads some openings

The four eval rules are core.evals.rules.draft_checks (the pipeline adds them to these); the
checks that need the draft's context (the source, the question, the Coach's questions) run when
it is given (the pipeline gives it; the teacher's live edit checks run without them).

Every result has the shape {name, label, passed, detail, severity} (docs/contracts.md). Its label
and detail are Messages (core.language.interface), which read as their English; a stored draft
keeps their forms beside them (core.evals.rules.with_forms, read back by core.evals.rules.said:
an older draft's English label by exact match), so a teacher reads them in their language.

Every comment check and rule takes the course's `language` (a code from core.language, English
by default): words and sentences come from core.language.words, the word lists from
core.language.phrases and core.language.lexicon, the reading level from
core.language.readability (LIX for Swedish, Oborneva's Flesch for Russian), quotes are matched
by core.language.quotes.

>>> r = comment_checks("Good start. Next: (1) add an example, (2) proofread. What surprised you?", "x")
>>> [c["name"] for c in r if not c["passed"]]
[]
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from types import SimpleNamespace

from core import injection, leakage
from core.language import lexicon, phrases, quotes, readability, readability_said
from core.language import normalise as language_code
from core.language import words as language_words
from core.language import detect as language_detect
from core.language.interface import Message
from core.prompts import DELIMITERS
from core.text import words  # the project's one word count

MAX_WORDS = 120
MIN_SUBMISSION_WORDS = 100
READABILITY_TOLERANCE = 2.0

# Person-directed or discouraging phrases, per language: core.language.lexicon (the Equity
# Monitor's offline twin reads the same lexicon).
LEXICON = lexicon.LEXICON["en"]

# Instructions aimed at the model rather than the teacher: core.injection (patterns, the views
# that undo obfuscation, and the benchmark they were written and measured with).
injection_hits = injection.hits
for_matching = injection.for_matching

_CODE_LINE = re.compile(
    r"^\s*(?:def |class |import |from \S+ import|for .+ in .+:|if .+:\s*$|return\b|print\(|#include|"
    r"public |function |var |let |const |SELECT |[{}]\s*$)|;\s*$|(?<!\w)\w+\s*\([^\n]*\)\s*\{",
)
_FORMULA = re.compile(r"\$[^$\n]+\$|\\(?:frac|sum|int|sqrt|alpha|beta|sigma)\b|[=<>]\s*[-+]?\d+(?:\.\d+)?\s*[*/^+-]\s*\w|\w\s*\^\s*\d")
# A quotation in any of the three languages' quote marks: "…", “…”, ”…” (Swedish), «…», „…“.
_QUOTE_MARKS = "\"\u201c\u201d\u201e\u00ab\u00bb"
_QUOTED = re.compile(rf"[{_QUOTE_MARKS}]([^{_QUOTE_MARKS}]{{3,}}?)[{_QUOTE_MARKS}]")


def result(name: str, label: str, passed: bool, detail: str, severity: str) -> dict:
    """One check result; a passed check is "info" whatever its severity when missed."""
    return {"name": name, "label": label, "passed": bool(passed), "detail": detail,
            "severity": "info" if passed else severity}


_result = result


def status(result: dict) -> str:
    """How to show one check result: "pass", "warn" (shown, never blocks or sends the comment
    back) or "fail" (must be repaired). A warn-level miss is not a failure.

    >>> status({"passed": False, "severity": "warn"}), status({"passed": True, "severity": "info"})
    ('warn', 'pass')
    """
    if result.get("passed"):
        return "pass"
    return "fail" if result.get("severity") == "fail" else "warn"  # the same rule as failed()


# Quotes are matched on normalised text (any language's quote marks and dashes, ё/е):
# core.language.quotes.
normalise = quotes.normalise
quote_found = quotes.quote_found


fk_grade = readability.fk_grade     # the Flesch-Kincaid grade (English): core.language.readability


def grade_text(grade: float) -> Message:
    """A Flesch-Kincaid grade as a teacher reads it. The formula runs past any school grade
    (93.6 for a text without full stops, -3.4 for "Yes. No."): outside grades 1-18 it says
    only that the sentences are very long or very short, so no number is shown there.

    >>> grade_text(8.0), grade_text(93.6), grade_text(-3.4)
    ('grade 8', 'above grade 18 (very long sentences)', 'below grade 1 (very short sentences)')
    """
    if grade > 18:
        return Message("above grade 18 (very long sentences)")
    if grade < 1:
        return Message("below grade 1 (very short sentences)")
    return Message("grade {grade}", grade=f"{grade:g}")


# --- the comment -----------------------------------------------------------------------
# Every comment check takes the course's language (a code from core.language; English by
# default): words and sentences are split by core.language.words, the word lists are
# core.language.phrases', readability is the language's formula (core.language.readability).
def check_word_count(comment: str, language: str = "en") -> dict:
    n = words(comment, language)
    return _result("word_count", Message.plural("At most {count} word", "At most {count} words", MAX_WORDS), n <= MAX_WORDS,
                   Message.plural("{count} word", "{count} words", n), "fail")   # core.text.count's English


def action_items(comment: str, language: str = "en") -> int:
    """Numbered or bulleted steps ("(1)", "1.", "- ", and in Swedish and Russian "– " and "— ")."""
    return len(phrases.action_item(language).findall(comment or ""))


def check_actions(comment: str, language: str = "en") -> dict:
    n = action_items(comment, language)
    return _result("actions", Message("2-3 concrete actions"), 2 <= n <= 3,
                   Message.plural("{count} numbered or bulleted action(s) found",
                                  "{count} numbered or bulleted action(s) found", n), "fail")


def questions_asked(comment: str, language: str = "en") -> int:
    """Question marks the comment itself asks: one inside a quotation of the student's words
    ("…?", «…?», „…?“, ”…?”) is the student's question, not the comment's."""
    return _QUOTED.sub(" ", comment or "").count("?")


def check_question(comment: str, language: str = "en") -> dict:
    n = questions_asked(comment, language)
    return _result("question", Message("Asks at least one question"), n >= 1,
                   Message.plural("{count} question mark(s)", "{count} question mark(s)", n), "fail")


def check_readability(comment: str, target_grade: float | None, language: str = "en") -> dict:
    """English: the Flesch-Kincaid grade (below); Swedish LIX and Russian Oborneva-Flesch
    against the target grade's band (core.language.readability), with the same severities:
    harder is a fail, easier a warn."""
    if language_code(language) != "en":
        return _readability_other(comment, target_grade, language)
    grade = fk_grade(comment)
    if target_grade is None:
        return _result("readability", Message("Reading level"), True, grade_text(grade), "warn")
    diff, shown, target = grade - float(target_grade), grade_text(grade), f"{target_grade:g}"
    label = Message("Reads at grade {grade} ±{tolerance}", grade=target, tolerance=f"{READABILITY_TOLERANCE:g}")
    if diff > READABILITY_TOLERANCE:
        return _result("readability", label, False, Message("{grade}: harder than the target {target}; use shorter "
                       "sentences and plainer words", grade=shown, target=target), "fail")
    if diff < -READABILITY_TOLERANCE:
        return _result("readability", label, False, Message("{grade}: simpler than the target {target} — fine unless "
                       "far below", grade=shown, target=target), "warn")
    return _result("readability", label, True, shown, "fail")


def _readability_other(comment: str, target_grade: float | None, language: str) -> dict:
    found = readability.assess(comment, target_grade, language)
    shown = readability_said.value_shown(found["value"], language)
    if target_grade is None:
        return _result("readability", Message("Reading level"), True, shown, "warn")
    label = Message("Reads at {target}", target=readability_said.target_shown(target_grade, language))
    if found["verdict"] == "harder":
        return _result("readability", label, False, Message("{value}: harder than the target; use shorter sentences "
                       "and shorter words", value=shown), "fail")
    if found["verdict"] == "easier":
        return _result("readability", label, False, Message("{value}: simpler than the target — fine unless far below",
                                                            value=shown), "warn")
    return _result("readability", label, True, shown, "fail")


def check_comment_quotes(comment: str, submission: str, language: str = "en") -> dict:
    quotes = [q for q in _QUOTED.findall(comment or "") if words(q, language) >= 2]
    missing = [q for q in quotes if not quote_found(q, submission)]
    return _result("quotes", Message("Quotes occur in the submission"), not missing,
                   Message("not in the submission: {quotes}", quotes="; ".join(f'"{q}"' for q in missing)) if missing
                   else Message.plural("{count} quote(s) checked", "{count} quote(s) checked", len(quotes)), "fail")


def check_evidence_quotes(evaluation: dict | None, submission: str, language: str = "en") -> dict:
    """Evidence quotes come from the Evaluator. A made-up quote is a fail: the scores it supports
    are suspect, so the item goes to a teacher and out of bulk approval (core.pipeline checks
    it once after scoring; a revision of the comment cannot repair it). The quote may come in
    any language's quote marks and typography (`normalise`: « » „ “ ” ’, dashes, ё/е)."""
    missing = []
    for key, item in (evaluation or {}).items():
        q = (item or {}).get("evidence_quote") or ""
        if q and not quote_found(q, submission):
            missing.append(f"{key}: \"{q}\"")
    return _result("evidence", Message("Evidence quotes occur in the submission"), not missing,
                   Message("not in the submission: {quotes}", quotes="; ".join(missing)) if missing
                   else Message("all evidence found"), "fail")


def lexicon_hits(text: str, language: str = "en") -> list[str]:
    """The person-directed or discouraging phrases in `text` (the language's and English's)."""
    return lexicon.hits(text, language)


def check_lexicon(comment: str, language: str = "en") -> dict:
    hits = lexicon_hits(comment, language)
    return _result("lexicon", Message("No person-directed or discouraging phrases"), not hits,
                   Message("found: {found}", found=", ".join(f'"{h}"' for h in hits)) if hits else Message("none found"),
                   "fail")


def comment_checks(comment: str, submission: str, *, evaluation: dict | None = None,
                   target_grade: float | None = None, answer_key: leakage.AnswerKey | None = None,
                   context: DraftContext | None = None, language: str = "en") -> list[dict]:
    """All checks on a feedback comment (and the Evaluator's evidence quotes, when given; the
    leakage rule when the assignment has an answer key; the Coach's question when the draft's
    `context` is given). The pipeline adds the eval rules as draft checks
    (core.evals.rules.draft_checks: they build on this module). `language` is the course's
    (core.language), which the pipeline passes: the language the comment is written in."""
    return [
        check_word_count(comment, language),
        check_actions(comment, language),
        check_question(comment, language),
        check_readability(comment, target_grade, language),
        check_comment_quotes(comment, submission, language),
        check_evidence_quotes(evaluation, submission, language),
        check_lexicon(comment, language),
        check_strengths_first(comment, language),
        *([] if context is None else [check_coach_question(comment, context.coach_questions, language)]),
        *leakage.check(comment, answer_key),
    ]


@dataclass(frozen=True)
class DraftContext:
    """What the context-dependent checks need besides the comment and the student's text."""
    source: str = ""
    question: str = ""
    coach_questions: tuple[str, ...] = ()
    criterion_keys: tuple[str, ...] = ()

    answer: str = ""            # the answer key's answer: the leakage rule, not specifics, judges it
    known: str = ""             # the rubric's titles, the assignment's title and key concepts
    previous: str = ""          # the student's previous released comment ("": none, so no history to claim)

    def inputs(self, submission: str) -> SimpleNamespace:
        return SimpleNamespace(reflection=submission, source=f"{self.source} {self.answer} {self.known} {self.previous}",
                               question=self.question, previous=self.previous)


def first_sentence(comment: str, language: str = "en") -> str:
    found = language_words.sentences(comment, language)
    return found[0] if found else ""


def check_strengths_first(comment: str, language: str = "en") -> dict:
    """The first sentence names something the student did well, and nothing to fix yet (the
    language's praise and critique words, core.language.phrases)."""
    first = first_sentence(comment, language)
    ok = bool(first) and bool(phrases.praise(language).search(first)) and not phrases.critique(language).search(first)
    return _result("strengths_first", Message("Opens with a strength"), ok,
                   Message("opens with a strength") if ok
                   else Message('the first sentence names no strength: "{first}"', first=first[:80]), "warn")


def _content_words(text: str, language: str = "en") -> set[str]:
    return {w for w in language_words.tokens(normalise(text), language) if len(w) > 3}


def check_coach_question(comment: str, coach_questions, language: str = "en") -> dict:
    """One of the Coach's questions is in the comment: verbatim, or a question sentence sharing
    at least two thirds of its content words (the Aggregator may adjust a word to fit)."""
    wanted, label = [q for q in coach_questions or () if q.strip()], Message("Carries one of the Coach's questions")
    if not wanted:
        return _result("coach_question", label, True,
                       Message("the Coach asked no question"), "warn")
    asked = re.findall(r"[^.!?]*\?", comment or "")
    for q in wanted:
        need = _content_words(q, language)
        if normalise(q) in normalise(comment) or any(
                need and len(need & _content_words(a, language)) >= 2 / 3 * len(need) for a in asked):
            return _result("coach_question", label, True,
                           Message('carries "{question}"', question=q), "warn")
    return _result("coach_question", label, False,
                   Message("none of the Coach's questions is in the comment: {questions}",
                           questions="; ".join(f'"{q}"' for q in wanted)), "warn")


def failed(checks: list[dict]) -> list[dict]:
    """Checks that must be repaired (severity fail)."""
    return [c for c in checks if not c["passed"] and c["severity"] == "fail"]


# --- the submission ------------------------------------------------------------------------
def has_code(text: str) -> bool:
    lines = (text or "").splitlines()
    code_lines = sum(1 for line in lines if _CODE_LINE.search(line))
    return "```" in (text or "") or code_lines >= 2 or len(_FORMULA.findall(text or "")) >= 2


# Common English function words: ordinary English prose, learners' included, is 30-50% these.
_ENGLISH = frozenset("""a about after all also an and are as at be because but by can could did do does
for from had has have he her his how i if in into is it it's its just like many me more most my no not
of on one or our so some than that the their them then there they this to too us very was we were what
when which who will with would you your""".split())
_WORD_RX = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def english_share(text: str) -> float:
    """Share of words that are common English function words (0..1).

    >>> english_share("This is what I learned about the model and its output.") > 0.4
    True
    >>> english_share("Den här veckan lärde jag mig hur språkmodeller fungerar och varför.") < 0.1
    True
    """
    tokens = [t.casefold() for t in _WORD_RX.findall(text or "")]
    return sum(t in _ENGLISH for t in tokens) / len(tokens) if tokens else 1.0


def looks_non_english(text: str, *, min_words: int = 20, threshold: float = 0.12) -> bool:
    """Non-English submissions are a known weak spot of the AI: they go to a teacher.
    Short texts are left to the short-text check (too few words to tell)."""
    return len(_WORD_RX.findall(text or "")) >= min_words and english_share(text) < threshold


def submission_checks(text: str, language: str = "en") -> list[dict]:
    """The submission's own checks; `language` is the course's (core.language: the text is
    checked to be in it)."""
    n = words(text)
    inj = injection_hits(text)
    code = has_code(text)
    return [
        _result("empty", Message("Submission has text"), n > 0, Message.plural("{count} words", "{count} words", n),
                "fail"),
        _result("short_text", Message.plural("At least {count} word", "At least {count} words", MIN_SUBMISSION_WORDS),
                n == 0 or n >= MIN_SUBMISSION_WORDS, Message.plural(
                    "{count} words: short texts are a known weak spot (brevity can pass for clarity)",
                    "{count} words: short texts are a known weak spot (brevity can pass for clarity)", n), "warn"),
        _result("injection", Message("No instructions aimed at the AI"), not inj,
                Message("found: {found}", found="; ".join(injection.shown(h) for h in inj)) if inj
                else Message("none found"), "warn"),
        _result("code", Message("No code or formulas"), not code,
                Message("contains code or formulas, a known weak spot of the AI") if code else Message("none found"),
                "warn"),
        language_detect.check(text, language),
    ]


def submission_flags(text: str, language: str = "en") -> list[str]:
    """Names of the submission checks that did not pass: empty, short_text, injection, code,
    non_english (not in the course's language)."""
    return [c["name"] for c in submission_checks(text, language) if not c["passed"]]


ATTENTION_TEXT = {   # Messages (the same English): a page says them in the reader's language (core.signoff.attention)
    "empty": Message("The submission is empty: scored at the bottom of the scale without an AI call."),
    "short_text": Message.plural("Short submission (under {count} word): the AI tends to mistake brevity for clarity.",
                                 "Short submission (under {count} words): the AI tends to mistake brevity for "
                                 "clarity.", MIN_SUBMISSION_WORDS),
    "injection": Message("The submission contains instructions aimed at the AI; check the scores were not steered."),
    "code": Message("The submission contains code or formulas, which the AI assesses less reliably."),
    "non_english": language_detect.attention_text("en"),
}
