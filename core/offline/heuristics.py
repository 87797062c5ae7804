"""The offline baseline's answers: each agent role computed from text features, no LLM.

Each function takes the role's structured inputs (rubric, key concepts, text, the Evaluator's
output); `core.offline.provider.OfflineLLM` calls them through the role registry:

- evaluator: per criterion the text signal its rubric names (`Criterion.signal`: key concepts,
  examples, questions, structure, cohesion, sentences, vocabulary, grammar, spelling, length;
  "overall" without one), from seed-001 Stage-1 features and core.offline.features; reasoning
  names the features. With the assignment's scorer (core.offline.scorer) a criterion the teacher
  scored often enough is scored by the learned model instead, and one with a few scores keeps
  the heuristic spread over the levels like those scores.
- equity: the checks' lexicon applied to the Evaluator's notes.
- coach: a question bank, picked by what the text lacks.
- aggregator: templates from the rubric's `improvement_hint`s, strengths first, <= 120 words.
- reviewer / reviser: REVISE exactly when a check failed; a rule-based repair.

Deterministic: the same text gives the same draft.
"""
from __future__ import annotations

import math
import re

import numpy as np

from core import checks, injection
from core.language import normalise as language_code
from core.language.interface import Message
from core.offline import features as text_features
from core.offline import reading_level
from core.offline import reasoning as said
from core.offline import wording
from core.offline.features import EXAMPLE_MARKERS, QUESTION_MARKERS
from core.rubric import Rubric

CONNECTIVES = ("first", "second", "then", "however", "therefore", "because", "finally", "in conclusion",
               "on the other hand", "for this reason", "as a result", "overall")

# The English words (every language's: core.offline.wording).
QUESTION_BANK = wording.WORDING["en"].questions
GENERIC_ACTIONS = wording.WORDING["en"].generic_actions
REWRITES = {
    "default": wording.WORDING["en"].rewrite,
}

_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")


# --- features ------------------------------------------------------------------------
def features(text: str, key_concepts: list[str], *, grade: bool = True, language: str = "en") -> dict:
    """Seed-001 Stage-1 features (`grade=False` skips the reading grade: its syllable count is
    the slow part, and only the structure signal reads it). A text in another language than
    English gets no reading grade (an English formula: None) and no English phrase counts; its
    questions are its question marks."""
    low = (text or "").lower()
    if language != "en":
        return {"words": checks.words(text), "concepts_total": len(key_concepts),
                "paragraphs": len([p for p in re.split(r"\n\s*\n", text or "") if p.strip()]),
                "grade": None, "concepts_found": [c for c in key_concepts if text_features.concept_found(c, low)],
                "examples": 0, "questions": low.count("?"), "connectives": 0}
    n = checks.words(text)
    paragraphs = len([p for p in re.split(r"\n\s*\n", text or "") if p.strip()])
    found = [c for c in key_concepts if text_features.concept_found(c, low)]
    return {
        "words": n,
        "paragraphs": paragraphs,
        "grade": checks.fk_grade(text) if n and grade else 0.0,
        "concepts_found": found,
        "concepts_total": len(key_concepts),
        "examples": sum(low.count(m) for m in EXAMPLE_MARKERS),
        "questions": sum(low.count(m) for m in QUESTION_MARKERS),
        "connectives": sum(len(re.findall(rf"\b{re.escape(m)}\b", low)) for m in CONNECTIVES),
    }


def signal_of(c) -> str:
    """The text signal a criterion is scored on: the rubric's `signal`, else "overall". The
    criterion's wording is never parsed for it ("accurate" in a grammar descriptor is no
    reason to count key concepts)."""
    return c.signal or "overall"


def _clip(x: float) -> float:
    return max(0.0, min(1.0, x))


def quality(signal: str, f: dict, d: dict) -> tuple[float, Message]:
    """0..1 for one signal, and the feature-based reason for it (`f`: `features`, `d`:
    core.offline.features.dense of the same text): one of core.offline.reasoning's sentences."""
    length = min(1.0, f["words"] / 250)
    if signal == "length":
        return length, said.LENGTH.said(count=f["words"])
    if signal == "concepts":
        cov = len(f["concepts_found"]) / f["concepts_total"] if f["concepts_total"] else length
        named = ", ".join(f["concepts_found"]) or Message(said.NONE)
        return 0.7 * min(1.0, cov * 1.6) + 0.3 * length, said.CONCEPTS.said(
            found=len(f["concepts_found"]), count=f["concepts_total"], named=named,
            words=said.WORDS_IN.said(count=f["words"]))
    if signal == "examples":
        return 0.75 * min(1.0, f["examples"] / 2) + 0.25 * length, said.EXAMPLES.said(count=f["examples"])
    if signal == "questions":
        return 0.75 * min(1.0, f["questions"] / 2) + 0.25 * length, said.QUESTIONS.said(count=f["questions"])
    paragraphs = said.PARAGRAPHS.said(count=f["paragraphs"])
    if signal == "structure" and f["grade"] is None:     # not English: paragraphs and sentences only
        fits = 1.0 if 10 <= d["sentence_length"] <= 25 else 0.4
        return 0.4 * min(1.0, f["paragraphs"] / 3) + 0.3 * fits + 0.3 * length, said.STRUCTURE_OTHER.said(
            paragraphs=paragraphs, length=f"{d['sentence_length']:.0f}")
    if signal == "structure":
        readable = 1.0 if 5 <= f["grade"] <= 14 else 0.4
        score = (0.3 * min(1.0, f["paragraphs"] / 3) + 0.3 * readable + 0.2 * min(1.0, f["connectives"] / 3)
                 + 0.2 * length)
        grade = checks.grade_text(f["grade"])
        return score, said.STRUCTURE.said(paragraphs=paragraphs, grade=said.grade_said(grade),
                                          linking=said.LINKING.said(count=f["connectives"]))
    if signal == "cohesion":
        return (0.35 * min(1.0, f["paragraphs"] / 3) + 0.4 * min(1.0, d["linking_words"] / 2.5) + 0.25 * length), (
            said.COHESION.said(paragraphs=paragraphs, rate=f"{d['linking_words']:.1f}"))
    if signal == "sentences":
        fits = 1.0 if 10 <= d["sentence_length"] <= 25 else 0.4
        return (0.35 * fits + 0.25 * min(1.0, d["sentence_variety"] / 8) + 0.2 * (1 - d["long_sentences"])
                + 0.2 * length), said.SENTENCES.said(length=f"{d['sentence_length']:.0f}",
                                                      share=f"{d['long_sentences']:.0%}")
    if signal == "vocabulary":
        return (0.4 * _clip((d["lexical_variety"] - 4) / 6) + 0.4 * _clip(d["less_common_words"] / 0.4)
                + 0.2 * length), said.VOCABULARY.said(variety=f"{d['lexical_variety']:.1f}",
                                                       share=f"{d['less_common_words']:.0%}")
    if signal == "grammar":
        return 0.75 * _clip(1 - d["grammar_slips"] / 3) + 0.25 * length, said.GRAMMAR.said(
            rate=f"{d['grammar_slips']:.1f}")
    if signal == "spelling":
        errors = d["spelling_errors"] + d["lowercase_i"] + d["missing_apostrophes"] + 10 * d["lowercase_starts"]
        return 0.8 * _clip(1 - errors / 8) + 0.2 * length, said.SPELLING.said(
            rate=f"{d['spelling_errors']:.1f}", share=f"{d['lowercase_starts']:.0%}")
    parts = [quality(a, f, d)[0] for a in ("concepts", "examples", "questions", "structure")
             if not (a == "examples" and f["grade"] is None)]
    return sum(parts) / len(parts), said.OVERALL.said(count=f["words"])


def qualities(text: str, rubric: Rubric, key_concepts: list[str], prompt: str = "",
              language: str = "en") -> dict[str, float]:
    """The heuristic's 0..1 value per criterion (what a calibration spreads over the levels)."""
    f = features(text, key_concepts, language=language)
    d = text_features.dense(text, prompt, key_concepts, language)
    return {c.key: _clip(quality(signal_for(c, language), f, d)[0]) for c in rubric.criteria}


# Signals that read English (phrases, patterns, the English word list): on a text in another
# language their criterion is scored on its sentences instead (core.offline.features.signals_note).
ENGLISH_SIGNALS = ("grammar", "spelling", "examples", "cohesion", "vocabulary")


def signal_for(c, language: str = "en") -> str:
    """The signal a criterion is scored on for a text in `language`."""
    signal = signal_of(c)
    return "sentences" if language != "en" and signal in ENGLISH_SIGNALS else signal


def _evidence(text: str, signal: str, f: dict) -> str:
    """An exact quote of at most 12 words: the first sentence showing the feature."""
    cues = {"examples": EXAMPLE_MARKERS, "questions": QUESTION_MARKERS,
            "concepts": tuple(c.lower() for c in f["concepts_found"])}.get(signal, ())
    sentences = [m.group(0).strip() for m in _SENTENCE.finditer(text or "") if m.group(0).strip()]
    pick = next((s for s in sentences if any(cue in s.lower() for cue in cues)), None) if cues else None
    if pick is None:
        pick = sentences[0] if sentences and signal in ("structure", "cohesion", "sentences") else None
    if not pick:
        return ""
    spans = list(re.finditer(r"\S+", pick))[:12]
    return pick[spans[0].start():spans[-1].end()].strip(" ,;:") if spans else ""


def evaluate(text: str, rubric: Rubric, key_concepts: list[str], *, prompt: str = "", scorer=None,
             language: str = "en") -> dict:
    """Scores per criterion from text features. With a `scorer` (core.offline.scorer.Scorer),
    a criterion the teacher scored often enough gets the learned model's level (or word
    count's, or a blend's, when that agreed better with the teacher: said first) and the three
    features that pushed it; one with fewer scores keeps the heuristic, spread over the levels
    like the teacher's scores that exist (labelled so); without, the plain heuristic. A text in
    another language than English is read only by the signals that work on it, said on every
    criterion (core.offline.features.signals_note)."""
    learned = scorer.model.score(text, prompt, key_concepts) if scorer is not None and scorer.model else {}
    heuristic = [c for c in rubric.criteria if c.key not in learned]
    f = features(text, key_concepts, grade=any(signal_of(c) in ("structure", "overall") for c in heuristic),
                 language=language)
    d = text_features.dense(text, prompt, key_concepts, language) if heuristic else {}
    note = text_features.signals_note(language)
    out = {}
    span = rubric.scale_max - rubric.scale_min
    # The seed's weak spot: brevity must not pass for depth or clarity, so a short text stays in
    # the low band (at most the rubric's band_cut) on any scale: 1 on 0-3, 2 on 1-5.
    short_cap = math.floor(rubric.band_cut) if f["words"] < checks.MIN_SUBMISSION_WORDS else rubric.scale_max
    for c in rubric.criteria:
        signal = signal_for(c, language)
        q, found = quality(signal, f, d) if c.key not in learned else (0.0, "")
        why = [found, note or None]   # the reasoning's sentences (core.offline.reasoning), one space between
        q = _clip(q)
        calibration = scorer.calibration.get(c.key) if scorer is not None else None
        if c.key in learned:
            score = learned[c.key]["score"]
            pushes, scored_by = said.pushes_said(learned[c.key]["pushes"]), scorer.scored_by(c.key)
            figures = {"count": scorer.scores[c.key], "version": scorer.version, "pushes": pushes}
            if scorer.model.method(c.key) == "learned":
                why = [said.LEARNED.said(**figures), scored_by or None]
            else:   # word count or a blend won in cross-validation: that comes first
                why = [scored_by, said.FROM.said(**figures)]
        elif calibration:
            score = min(short_cap, rubric.scale_min + int(np.searchsorted(calibration["cuts"], q, side="right")))
            why.append(said.CALIBRATED.said(count=calibration["scores"], needed=scorer.min_per_criterion))
        else:
            score = min(short_cap, rubric.scale_min + int(round(q * span)))
        out[c.key] = {
            "score": score,
            "reasoning": said.reasoning(why + [said.TAIL.said(score=score, level=c.levels[score])]),
            "areas_for_improvement": [c.improvement_hint
                                      or wording.of(language).strengthen.format(c.title.lower())],
            "evidence_quote": _evidence(text, signal, f),
        }
    return out


def instructions_report(text: str) -> dict:
    """The Evaluator's report on instructions aimed at the AI: offline, the patterns' finding."""
    found = injection.hits(text)
    return {"found": bool(found), "quote": found[0][:200] if found else ""}


# --- the comment -----------------------------------------------------------------------
def _action(s: str) -> str:
    """An action as a numbered item starts: with a capital ("(1) Explain …")."""
    s = s.strip().rstrip(".")
    return s[:1].upper() + s[1:]


# Ways to lay out the same comment, from short sentences to long ones. Flesch-Kincaid grade
# grows with words per sentence, so they read at about grade 6, 8, 10 and 12 on the rubric's
# hints; `compose_comment` takes the one nearest the assignment's target reading level (in
# Swedish and Russian by the language's formula, LIX and Oborneva's Flesch: core.language.readability).
# In Swedish and Russian the opening stays a sentence of its own in every layout (the
# strengths-first check reads the first sentence).
def _layouts(opening: str, actions: list[str], question: str, language: str = "en") -> list[str]:
    words_ = wording.of(language)
    listed = "; ".join(f"({i}) {_action(a)}" for i, a in enumerate(actions, 1))
    return [
        f"{opening} {words_.steps} " + " ".join(f"({i}) {_action(a)}." for i, a in enumerate(actions, 1))
        + f" {question}",
        f"{opening} {words_.steps} {listed}. {question}",
        f"{opening} {words_.build_on} {listed}. {question}",
        words_.long_form.format(opening=opening, opening_no_stop=opening.rstrip("."), listed=listed) + f" {question}",
    ]


# What the offline comment says about last week: only the teacher's own mark on this reflection
# (the baseline cannot read whether a step was followed); nothing when unmarked or "no".
FOLLOW_THROUGH = wording.WORDING["en"].follow_through


def compose_comment(rubric: Rubric, evaluation: dict, questions: list[str], target_grade: float | None = None,
                    *, acted: str | None = None, language: str = "en") -> str:
    """The comment in the course's `language` (core.offline.wording; the rubric's titles and
    hints are its own: a course's default rubric is in its language)."""
    language = language_code(language)
    words_ = wording.of(language)
    scores = {k: evaluation[k]["score"] for k in rubric.keys}   # not its report on instructions
    # Strengths: the (at most two) best criteria above the low band. Actions: the weakest
    # other criteria with room to improve, so the comment never praises what it then fixes.
    strong = sorted((k for k in rubric.keys if not rubric.low_band(scores[k])),
                    key=lambda k: (-scores[k], rubric.keys.index(k)))[:2]
    opening = words_.opening([rubric.criterion(k).title.lower() for k in strong])
    if acted in words_.follow_through:
        opening += " " + words_.follow_through[acted]
    weakest = sorted((k for k in rubric.keys if scores[k] < rubric.scale_max and k not in strong),
                     key=lambda k: (scores[k], rubric.keys.index(k)))
    actions = []
    for k in weakest:
        hint = (evaluation[k]["areas_for_improvement"] or [""])[0]
        if hint and hint not in actions:
            actions.append(hint)
        if len(actions) == 3:
            break
    for generic in words_.generic_actions:
        if len(actions) >= 2:
            break
        actions.append(generic)
    question = (questions or [words_.questions["default"]])[0]
    actions = actions[:3]
    while len(actions) > 2 and checks.words(_layouts(opening, actions, question, language)[0],
                                            language) > checks.MAX_WORDS:
        actions.pop()
    layouts = [_trim(c, language) for c in _layouts(opening, actions, question, language)]
    if target_grade is None:
        return layouts[0]
    if language != "en":
        return reading_level.nearest_level(layouts, float(target_grade), language)
    return reading_level.nearest_grade(layouts, float(target_grade))


def _trim(comment: str, language: str = "en") -> str:
    """Keep the comment within the word limit, keeping its closing question."""
    if checks.words(comment, language) <= checks.MAX_WORDS:
        return comment
    q_start = comment.rfind(". ", 0, comment.rfind("?")) + 2 if "?" in comment else len(comment)
    head, question = comment[:q_start], comment[q_start:]
    budget = checks.MAX_WORDS - checks.words(question, language)
    tokens = head.split()
    while tokens and checks.words(" ".join(tokens), language) > budget:
        tokens.pop()
    return (" ".join(tokens).rstrip(",;:") + ". " + question).strip()


def revise(comment: str, fixes: list[str], language: str = "en") -> str:
    for hit in checks.lexicon_hits(comment, language):
        comment = re.sub(rf"\b{re.escape(hit)}\b\s*", "", comment, flags=re.IGNORECASE)
    if "?" not in comment:
        comment = comment.rstrip() + " " + wording.of(language).questions["process"]
    # Quotes that are not the student's words are dropped (keep the words, lose the quotation).
    if any("not in the submission" in f for f in fixes):
        comment = re.sub(r"[\"\u201c\u201d]", "", comment)
    return _trim(re.sub(r"\s{2,}", " ", comment).strip(), language)


# --- the other roles --------------------------------------------------------------------
def equity_flags(notes: str, language: str = "en") -> dict:
    """The checks' lexicon (the language's and English's) applied to the Evaluator's notes."""
    hits = checks.lexicon_hits(notes, language)
    words_ = wording.of(language)
    return {"flags": [{"phrase": h, "why": words_.why, "rewrite": words_.rewrite} for h in hits[:5]]}


def coach_questions(text: str, key_concepts: list[str], language: str = "en") -> list[str]:
    """Two questions from the bank, in the course's `language`, picked by what the text lacks
    (in Swedish and Russian its examples and open questions are the language's markers,
    core.offline.wording)."""
    language = language_code(language)
    words_ = wording.of(language)
    bank = words_.questions
    f = features(text, key_concepts, grade=False, language=language)
    if language != "en":
        low = (text or "").lower()
        f = {**f, "examples": sum(low.count(m) for m in words_.example_markers),
             "questions": sum(low.count(m) for m in words_.question_markers)}
    picks = []
    if f["examples"] == 0:
        picks.append(bank["examples"])
    if f["questions"] == 0:
        picks.append(bank["questions"])
    if key_concepts and len(f["concepts_found"]) < len(key_concepts):
        picks.append(bank["concepts"])
    if f["paragraphs"] < 2:
        picks.append(bank["structure"])
    picks += [bank["default"], bank["process"]]
    return picks[:2]


def review(failed_checks: list[dict]) -> dict:
    """REVISE exactly when a check failed (severity fail); warnings are mentioned, not acted on."""
    fails = [c for c in failed_checks if c.get("severity") == "fail"]
    if fails:
        return {"verdict": "REVISE", "fixes": [f"{c['check']}: {c['detail']}" for c in fails],
                "explanation": "Rule-based review: some checks failed."}
    warns = [str(c.get("check", "")) for c in failed_checks if c.get("severity") == "warn"]
    if warns:
        return {"verdict": "CONFIDENT", "fixes": [],
                "explanation": "Rule-based review: no check failed; worth a look (warning only): "
                               + ", ".join(warns) + "."}
    return {"verdict": "CONFIDENT", "fixes": [], "explanation": "Rule-based review: all checks pass."}
