"""The offline baseline's answers: each agent role computed from text features, no LLM.

Each function takes the role's structured inputs (rubric, key concepts, text, the Evaluator's
output); `core.offline.provider.OfflineLLM` calls them through the role registry:

- evaluator: seed-001 Stage-1 heuristics: length, readability, coverage of the assignment's
  key concepts, example markers, question markers, structure; reasoning names the features.
- equity: the checks' lexicon applied to the Evaluator's notes.
- coach: a question bank, picked by what the text lacks.
- aggregator: templates from the rubric's `improvement_hint`s, strengths first, <= 120 words.
- reviewer / reviser: REVISE exactly when a check failed; a rule-based repair.

Deterministic: the same text gives the same draft.
"""
from __future__ import annotations

import math
import re

from core import checks, injection
from core.rubric import Rubric

EXAMPLE_MARKERS = ("for example", "for instance", "e.g.", "such as", "at work", "in my ", "at my ", "my team",
                   "my company", "my manager", "in practice", "last week", "yesterday", "i used", "i tried",
                   "i applied", "when i", "we use", "our ")
QUESTION_MARKERS = ("?", "i wonder", "not sure", "what if", "how can", "how could", "how might", "what would",
                    "why ", "whether", "should ", "assum", "i question", "curious", "challenge", "unclear",
                    "i doubt", "i realised", "i realized", "i used to think")
CONNECTIVES = ("first", "second", "then", "however", "therefore", "because", "finally", "in conclusion",
               "on the other hand", "for this reason", "as a result", "overall")

QUESTION_BANK = {
    "examples": "Where at work or in daily life could you try this idea next week, and what would you watch for?",
    "questions": "Which part of this topic is still unclear to you, and how could you find out more?",
    "concepts": "Which key idea from this week was hardest to put into your own words, and why?",
    "structure": "How did you decide what to write first, and would a plan help you next time?",
    "default": "What helped you most to understand this week's topic, and how will you use that next time?",
    "process": "What would you do differently the next time you study a new topic like this one?",
}
GENERIC_ACTIONS = (
    "Add one sentence on what you will do differently because of this topic.",
    "Reread your text once and cut anything that does not support your main point.",
)
REWRITES = {
    "default": "Describe what the work does or lacks, and one concrete step to improve it.",
}

_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")


# --- features ------------------------------------------------------------------------
def features(text: str, key_concepts: list[str]) -> dict:
    low = (text or "").lower()
    n = checks.words(text)
    paragraphs = len([p for p in re.split(r"\n\s*\n", text or "") if p.strip()])
    found = [c for c in key_concepts if _concept_in(c, low)]
    return {
        "words": n,
        "paragraphs": paragraphs,
        "grade": checks.fk_grade(text) if n else 0.0,
        "concepts_found": found,
        "concepts_total": len(key_concepts),
        "examples": sum(low.count(m) for m in EXAMPLE_MARKERS),
        "questions": sum(low.count(m) for m in QUESTION_MARKERS),
        "connectives": sum(len(re.findall(rf"\b{re.escape(m)}\b", low)) for m in CONNECTIVES),
    }


def _concept_in(concept: str, low_text: str) -> bool:
    """Every content word of the concept appears (by its first 5 letters, so plurals count)."""
    parts = [w[:5] for w in re.findall(r"[a-z0-9]+", concept.lower()) if len(w) > 2]
    return bool(parts) and all(re.search(rf"\b{re.escape(p)}", low_text) for p in parts)


def _aspect(c) -> str:
    """Which feature family a criterion is about, from its key, title and description."""
    words = f"{c.key} {c.title} {c.description}".lower()
    for aspect, cues in (("application", ("applica", "example", "real", "practice", "transfer")),
                         ("depth", ("depth", "reflect", "question", "critical", "insight")),
                         ("clarity", ("clarity", "clear", "structure", "writing", "organi", "style")),
                         ("concepts", ("concept", "understand", "knowledge", "accura", "content"))):
        if any(cue in words for cue in cues):
            return aspect
    return "overall"


def _quality(aspect: str, f: dict) -> tuple[float, str]:
    """0..1 and the feature-based reason for it."""
    length = min(1.0, f["words"] / 250)
    if aspect == "concepts":
        cov = len(f["concepts_found"]) / f["concepts_total"] if f["concepts_total"] else length
        named = ", ".join(f["concepts_found"]) or "none"
        return 0.7 * min(1.0, cov * 1.6) + 0.3 * length, (
            f"Mentions {len(f['concepts_found'])} of {f['concepts_total']} key concepts ({named}) in {f['words']} words.")
    if aspect == "application":
        return 0.75 * min(1.0, f["examples"] / 2) + 0.25 * length, (
            f"Found {f['examples']} example marker(s) such as 'for example' or 'at work'.")
    if aspect == "depth":
        return 0.75 * min(1.0, f["questions"] / 2) + 0.25 * length, (
            f"Found {f['questions']} question or uncertainty marker(s) such as '?' or 'I wonder'.")
    if aspect == "clarity":
        readable = 1.0 if 5 <= f["grade"] <= 14 else 0.4
        score = (0.3 * min(1.0, f["paragraphs"] / 3) + 0.3 * readable + 0.2 * min(1.0, f["connectives"] / 3)
                 + 0.2 * length)
        return score, (f"{f['paragraphs']} paragraph(s), reading grade {f['grade']}, "
                       f"{f['connectives']} linking word(s).")
    parts = [_quality(a, f)[0] for a in ("concepts", "application", "depth", "clarity")]
    return sum(parts) / len(parts), f"Average of length, concept, example, question and structure features ({f['words']} words)."


def _evidence(text: str, aspect: str, f: dict) -> str:
    """An exact quote of at most 12 words: the first sentence showing the feature."""
    cues = {"application": EXAMPLE_MARKERS, "depth": QUESTION_MARKERS,
            "concepts": tuple(c.lower() for c in f["concepts_found"])}.get(aspect, ())
    sentences = [m.group(0).strip() for m in _SENTENCE.finditer(text or "") if m.group(0).strip()]
    pick = next((s for s in sentences if any(cue in s.lower() for cue in cues)), None) if cues else None
    if pick is None:
        pick = sentences[0] if sentences and aspect == "clarity" else None
    if not pick:
        return ""
    spans = list(re.finditer(r"\S+", pick))[:12]
    return pick[spans[0].start():spans[-1].end()].strip(" ,;:") if spans else ""


def evaluate(text: str, rubric: Rubric, key_concepts: list[str]) -> dict:
    f = features(text, key_concepts)
    out = {}
    span = rubric.scale_max - rubric.scale_min
    # The seed's weak spot: brevity must not pass for depth or clarity, so a short text stays in
    # the low band (at most the rubric's band_cut) on any scale: 1 on 0-3, 2 on 1-5.
    short_cap = math.floor(rubric.band_cut) if f["words"] < checks.MIN_SUBMISSION_WORDS else rubric.scale_max
    for c in rubric.criteria:
        aspect = _aspect(c)
        q, why = _quality(aspect, f)
        score = min(short_cap, rubric.scale_min + int(round(max(0.0, min(1.0, q)) * span)))
        out[c.key] = {
            "score": score,
            "reasoning": f"{why} Offline baseline: text features, not a reading of the meaning; "
                         f"level {score} means \"{c.levels[score]}\"",
            "areas_for_improvement": [c.improvement_hint or f"Strengthen {c.title.lower()} with one concrete step."],
            "evidence_quote": _evidence(text, aspect, f),
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
# hints; `compose_comment` takes the one nearest the assignment's target reading level.
def _layouts(opening: str, actions: list[str], question: str) -> list[str]:
    listed = "; ".join(f"({i}) {_action(a)}" for i, a in enumerate(actions, 1))
    return [
        f"{opening} Next steps: " + " ".join(f"({i}) {_action(a)}." for i, a in enumerate(actions, 1)) + f" {question}",
        f"{opening} Next steps: {listed}. {question}",
        f"{opening} To build on it, your next steps are: {listed}. {question}",
        f"{opening.rstrip('.')}, and these next steps build on it: {listed}. {question}",
    ]


def compose_comment(rubric: Rubric, evaluation: dict, questions: list[str], target_grade: float | None = None) -> str:
    scores = {k: evaluation[k]["score"] for k in rubric.keys}   # not its report on instructions
    # Strengths: the (at most two) best criteria above the low band. Actions: the weakest
    # other criteria with room to improve, so the comment never praises what it then fixes.
    strong = sorted((k for k in rubric.keys if not rubric.low_band(scores[k])),
                    key=lambda k: (-scores[k], rubric.keys.index(k)))[:2]
    if strong:
        titles = [rubric.criterion(k).title.lower() for k in strong]
        opening = f"Your reflection shows strength in {' and '.join(titles)}."
    else:
        opening = "Thank you for your reflection; it gives a starting point to build on."
    weakest = sorted((k for k in rubric.keys if scores[k] < rubric.scale_max and k not in strong),
                     key=lambda k: (scores[k], rubric.keys.index(k)))
    actions = []
    for k in weakest:
        hint = (evaluation[k]["areas_for_improvement"] or [""])[0]
        if hint and hint not in actions:
            actions.append(hint)
        if len(actions) == 3:
            break
    for generic in GENERIC_ACTIONS:
        if len(actions) >= 2:
            break
        actions.append(generic)
    question = (questions or [QUESTION_BANK["default"]])[0]
    actions = actions[:3]
    while len(actions) > 2 and checks.words(_layouts(opening, actions, question)[0]) > checks.MAX_WORDS:
        actions.pop()
    layouts = [_trim(c) for c in _layouts(opening, actions, question)]
    if target_grade is None:
        return layouts[0]
    return _nearest_grade(layouts, float(target_grade))


def _nearest_grade(layouts: list[str], target: float) -> str:
    """The layout reading nearest the target grade: one within the checks' tolerance if any;
    otherwise rather simpler than harder (harder than target + tolerance fails the check)."""
    graded = [(checks.fk_grade(c), c) for c in layouts]
    ok = [g for g in graded if abs(g[0] - target) <= checks.READABILITY_TOLERANCE]
    easier = [g for g in graded if g[0] <= target + checks.READABILITY_TOLERANCE]
    return min(ok or easier or graded, key=lambda g: abs(g[0] - target))[1]


def _trim(comment: str) -> str:
    """Keep the comment within the word limit, keeping its closing question."""
    if checks.words(comment) <= checks.MAX_WORDS:
        return comment
    q_start = comment.rfind(". ", 0, comment.rfind("?")) + 2 if "?" in comment else len(comment)
    head, question = comment[:q_start], comment[q_start:]
    budget = checks.MAX_WORDS - checks.words(question)
    tokens = head.split()
    while tokens and checks.words(" ".join(tokens)) > budget:
        tokens.pop()
    return (" ".join(tokens).rstrip(",;:") + ". " + question).strip()


def revise(comment: str, fixes: list[str]) -> str:
    for hit in checks.lexicon_hits(comment):
        comment = re.sub(rf"\b{re.escape(hit)}\b\s*", "", comment, flags=re.IGNORECASE)
    if "?" not in comment:
        comment = comment.rstrip() + " " + QUESTION_BANK["process"]
    # Quotes that are not the student's words are dropped (keep the words, lose the quotation).
    if any("not in the submission" in f for f in fixes):
        comment = re.sub(r"[\"\u201c\u201d]", "", comment)
    return _trim(re.sub(r"\s{2,}", " ", comment).strip())


# --- the other roles --------------------------------------------------------------------
def equity_flags(notes: str) -> dict:
    """The checks' lexicon applied to the Evaluator's notes."""
    hits = checks.lexicon_hits(notes)
    return {"flags": [{"phrase": h, "why": "It judges the person or may discourage the student.",
                       "rewrite": REWRITES["default"]} for h in hits[:5]]}


def coach_questions(text: str, key_concepts: list[str]) -> list[str]:
    """Two questions from the bank, picked by what the text lacks."""
    f = features(text, key_concepts)
    picks = []
    if f["examples"] == 0:
        picks.append(QUESTION_BANK["examples"])
    if f["questions"] == 0:
        picks.append(QUESTION_BANK["questions"])
    if key_concepts and len(f["concepts_found"]) < len(key_concepts):
        picks.append(QUESTION_BANK["concepts"])
    if f["paragraphs"] < 2:
        picks.append(QUESTION_BANK["structure"])
    picks += [QUESTION_BANK["default"], QUESTION_BANK["process"]]
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
