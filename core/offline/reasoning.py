"""The offline baseline's reasoning on a criterion: FairMark's own sentences, said in the reader's language.

A draft keeps the Evaluator's reasoning as English text (drafts.outputs: the command line, exports
and the model boundary read it; the offline Evaluator answers through the same schema as a model).
The offline baseline writes it from the fixed templates here (core.offline.heuristics), so the
review item reads it back by them (`text_of`) and shows it translated, a draft written before this
module too. What the templates quote stays as it is: the rubric's level, the key concepts found,
numbers. A reasoning none of them reads (a model's) is shown as it is; one the Evaluator's schema
cut short (core.agents.evaluator.REASONING_CHARS: a learned criterion's runs longer) reads its whole
sentences translated and keeps the cut one as it is.

    >>> from core.language.interface import Interface
    >>> r = "12 words. Offline baseline: text features, not a reading of the meaning; level 1 means \\"Brief\\""
    >>> Interface("sv").said(text_of(r))
    '12 ord. Offline-bas: textdrag, inte en läsning av innebörden; nivå 1 betyder ”Brief”'
    >>> text_of("The student explains it well.")
    'The student explains it well.'
"""
from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product
from typing import Callable

from core.language.interface import N_, Message
from core.offline import crossval, features as text_features, model as offline_model


@dataclass(frozen=True)
class Template:
    """One sentence: its English template, a plural one's plural (`count` picks the form), and how
    its fields read back from the text (field -> text -> value; any other field as it is)."""
    singular: str
    plural: str | None = None
    fields: dict[str, Callable] = field(default_factory=dict, compare=False, hash=False)

    def said(self, **values) -> Message:
        if self.plural is None:
            return Message(self.singular, **values)
        return Message.plural(self.singular, self.plural, values.pop("count"), **values)

    def forms(self) -> tuple[str, ...]:
        return (self.singular,) if self.plural in (None, self.singular) else (self.singular, self.plural)


def plural(singular: str, many: str) -> tuple[str, str]:
    """A plural message's two English forms (tests/i18n_scan.py finds them by this name)."""
    return singular, many


def _one(templates: tuple[Template, ...]):
    """A field that is one of these sentences itself (read back as its Message, else as it is)."""
    return lambda text: read(text, [list(templates)]) or text


def _fixed(*messages: str):
    """A field that is one of these fixed messages."""
    return lambda text: Message(text) if text in messages else text


# --- what a text signal found (core.offline.heuristics.quality) ------------------------------------
WORDS_IN = Template(*plural("{count} word", "{count} words"))
PARAGRAPHS = Template(*plural("{count} paragraph(s)", "{count} paragraph(s)"))
LINKING = Template(*plural("{count} linking word(s)", "{count} linking word(s)"))
GRADE = (Template(N_("grade {grade}")), Template(N_("above grade 18 (very long sentences)")),
         Template(N_("below grade 1 (very short sentences)")))
NONE = N_("none")

LENGTH = Template(*plural("{count} word.", "{count} words."))
CONCEPTS = Template(*plural("Mentions {found} of {count} key concepts ({named}) in {words}.",
                            "Mentions {found} of {count} key concepts ({named}) in {words}."),
                    fields={"named": _fixed(NONE), "words": _one((WORDS_IN,))})
EXAMPLES = Template(*plural("Found {count} example marker(s) such as 'for example' or 'at work'.",
                            "Found {count} example marker(s) such as 'for example' or 'at work'."))
QUESTIONS = Template(*plural("Found {count} question or uncertainty marker(s) such as '?' or 'I wonder'.",
                             "Found {count} question or uncertainty marker(s) such as '?' or 'I wonder'."))
STRUCTURE_OTHER = Template(N_("{paragraphs}, sentences of {length} words on average."),
                           fields={"paragraphs": _one((PARAGRAPHS,))})
STRUCTURE = Template(N_("{paragraphs}, reading {grade}, {linking}."),
                     fields={"paragraphs": _one((PARAGRAPHS,)), "grade": _one(GRADE), "linking": _one((LINKING,))})
COHESION = Template(N_("{paragraphs}, {rate} linking words per 100 words."), fields={"paragraphs": _one((PARAGRAPHS,))})
SENTENCES = Template(N_("Sentences of {length} words on average, {share} very long ones."))
VOCABULARY = Template(N_("Lexical variety {variety}, {share} less common words."))
GRAMMAR = Template(N_("{rate} likely grammar slips per 100 words (patterns such as 'he have')."))
SPELLING = Template(N_("{rate} spelling errors per 100 words, {share} of sentences starting in lower case."))
OVERALL = Template(*plural("Average of length, concept, example, question and structure features ({count} words).",
                           "Average of length, concept, example, question and structure features ({count} words)."))
FOUND = (LENGTH, CONCEPTS, EXAMPLES, QUESTIONS, STRUCTURE_OTHER, STRUCTURE, COHESION, SENTENCES, VOCABULARY,
         GRAMMAR, SPELLING, OVERALL)

# --- what the scorer could read of a text not in English (core.offline.features.signals_note) -------
NOTE = Template(text_features.NOTE, fields={"why": _fixed(*text_features.NO_WORD_LIST.values())})

# --- the teacher's scores the assignment's scorer learned from (core.offline.scorer) -----------------
CALIBRATED = Template(*plural("Heuristic calibrated on {count} teacher score(s) (a learned model needs {needed}).",
                              "Heuristic calibrated on {count} teacher score(s) (a learned model needs {needed})."))
CLOSE = N_("close to the average of the texts it learned from")
PUSHED = (N_("pushed up by {features}"), N_("pushed down by {features}"))
LABELS = frozenset(text_features.LABELS.values()) | {b["label"] for b in offline_model.BLOCKS.values()}
_PUSH = re.compile(r"(?P<label>.+?) \((?P<push>[+\u2212]\d+\.\d\d)\)(?:, |$)", re.S)


def pushes_said(pushes: list[tuple[str, float]]) -> Message:
    """The learned model's largest pushes: "pushed up by spelling errors per word (+0.31); pushed down by …"."""
    up = [_push(label, f"{v:+.2f}") for label, v in pushes if v > 0]
    down = [_push(label, f"\u2212{abs(v):.2f}") for label, v in pushes if v < 0]
    parts = ([Message(PUSHED[0], features=Message.joined(", ", up))] if up else []) + \
            ([Message(PUSHED[1], features=Message.joined(", ", down))] if down else [])
    return Message.joined("; ", parts) if parts else Message(CLOSE)


def _push(label: str, push: str) -> Message:
    """One feature's push: its label (translated where it is one of FairMark's), the number as it is."""
    return Message.joined("", [Message(label) if label in LABELS else label, f" ({push})"])


def _pushes(text: str):
    if text == CLOSE:
        return Message(CLOSE)
    parts = []
    for part in text.split("; "):
        for i, lead in enumerate(("pushed up by ", "pushed down by ")):
            if part.startswith(lead):
                rest, found = part[len(lead):], []
                for m in _PUSH.finditer(rest):
                    found.append(_push(m["label"], m["push"]))
                parts.append(Message(PUSHED[i], features=Message.joined(", ", found)))
                break
        else:
            return text
    message = Message.joined("; ", parts)
    return message if message == text else text


LEARNED = Template(*plural("Learned from {count} teacher scores (offline scorer v{version}): {pushes}.",
                           "Learned from {count} teacher scores (offline scorer v{version}): {pushes}."),
                   fields={"pushes": _pushes})
FROM = Template(*plural("From {count} teacher scores (offline scorer v{version}): {pushes}.",
                        "From {count} teacher scores (offline scorer v{version}): {pushes}."),
                fields={"pushes": _pushes})
SCORED_BY = tuple(Template(*forms) for forms in crossval.SCORED_BY.values())   # which scorer, and why

# --- the end of every criterion's reasoning ----------------------------------------------------------
TAIL = Template(N_("Offline baseline: text features, not a reading of the meaning; level {score} means "
                   "\"{level}\""))

# The reasoning's shapes, sentence by sentence (None: the sentence may be missing): a heuristic's,
# a learned model's, and a word-count or blend scorer's (which says so first).
SHAPES = ((FOUND, (NOTE, None), (CALIBRATED, None), (TAIL,)),
          ((LEARNED,), SCORED_BY + (None,), (TAIL,)),
          (SCORED_BY, (FROM,), (TAIL,)))


def reasoning(parts: list) -> str:
    """The reasoning's English from its sentences (Messages; None left out), one space between."""
    return str(Message.joined(" ", [p for p in parts if p is not None]))


def grade_said(text: str):
    """A reading grade as core.checks.grade_text says it, as a Message (else as it is)."""
    return _one(GRADE)(text)


def text_of(reasoning_text: str, cut_at: int | None = None):
    """A stored offline reasoning as a Message the page says in the reader's language; any other
    text as it is. One the Evaluator's schema cut short (at `cut_at` characters: the cut falls in
    a sentence) reads its whole sentences translated and the cut one as it is."""
    if not isinstance(reasoning_text, str):
        return reasoning_text
    ours = "Offline baseline: text features" in reasoning_text
    if ours:
        for shape in SHAPES:
            found = read(reasoning_text, [list(choices) for choices in shape])
            if found is not None:
                return found
    if ours or (cut_at is not None and len(reasoning_text) == cut_at):
        for shape in SHAPES:
            for k in range(len(shape) - 1, 0, -1):   # its first k sentences whole, then the cut one
                found = read(reasoning_text, [list(choices) for choices in shape[:k]], cut=True)
                if found is not None:
                    return found
    return reasoning_text


def read(text: str, slots: list[list], cut: bool = False) -> Message | None:
    """`text` as sentences, one from each slot in turn (a slot's None: none there), joined by one
    space, as the Message that reads the same; None when no choice of them does. `cut`: a last,
    cut sentence follows, kept as it is."""
    for choice in product(*[[(t, form) for t in slot if t is not None for form in t.forms()]
                            + ([None] if None in slot else []) for slot in slots]):
        used = [c for c in choice if c is not None]
        if not used:
            continue
        found = _regex(tuple(form for _, form in used), cut).fullmatch(text)
        if found is None:
            continue
        parts = []
        for i, (template, form) in enumerate(used):
            values = {}
            for name in _fields(form):
                raw = found[f"s{i}_{name}"]
                if name == "count" and template.plural is not None:
                    values[name] = int(raw) if raw.isdigit() else None
                else:
                    values[name] = template.fields.get(name, lambda v: v)(raw)
            if values.get("count", 0) is None:
                break
            parts.append(template.said(**values))
        else:
            if cut:
                parts.append(found["rest"])
            message = parts[0] if len(parts) == 1 else Message.joined(" ", parts)
            if message == text:
                return message
    return None


def _fields(template: str) -> list[str]:
    return [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]


@lru_cache(maxsize=None)
def _regex(forms: tuple[str, ...], cut: bool = False) -> re.Pattern:
    """The sentences' English forms one after another, one space between, each field a group
    (`cut`: then any text, the cut sentence)."""
    sentences = []
    for i, form in enumerate(forms):
        out = []
        for literal, name, _, _ in string.Formatter().parse(form):
            out.append(re.escape(literal))
            if name is not None:
                out.append(rf"(?P<s{i}_{name}>\d+)" if name == "count" else rf"(?P<s{i}_{name}>.+?)")
        sentences.append("".join(out))
    return re.compile(" ".join(sentences + ([r"(?P<rest>.+)"] if cut else [])), re.S)
