"""Stage 1 of seed 001's cascade: free checks of a lesson against its specification.

    length        words within the specification's range
    reading       Flesch-Kincaid grade within ±1 of the target (English only: FK is a formula
                  fitted to English syllables and sentences, so other languages are skipped)
    drift         the grade of the last third against the first (academic jargon creeping in)
    structure     introduction -> body -> conclusion, and signposting between them
    objectives    each learning objective's distinguishing terms appear in the text

Every result has the shape of core.checks: {name, label, passed, detail, severity}. Severity
"fail" is a clear failure, settled without an LLM (far too short or long, no objective covered
at all, a reading grade more than 4 grades above the audience's: plain language does less harm); "warn" is a finding the judge and the teacher
see; "info" is a check that could not run, with the reason.

>>> spec = LessonSpec(title="Wind", target_grade=5, objectives=["Measure wind speed with an anemometer"], min_words=5)
>>> r = run("# Wind\\nWind is moving air. The sun warms the land.\\n## Summary\\nNow you know.", spec)
>>> [(c["name"], c["passed"]) for c in r]
[('length', True), ('reading', False), ('drift', True), ('structure', False), ('objectives', False)]
>>> clear_failure(r)
True
"""
from __future__ import annotations

import re

from core import checks
from core.language.interface import Message, N_
from core.lessons import sections
from core.lessons.spec import LessonSpec
from core.text import words

GRADE_TOLERANCE = 1.0      # the seed: within ±1 of the target audience
GRADE_CLEAR_FAIL = 4.0     # further off than this is settled without an LLM
DRIFT_GRADES = 2.0         # last third this much harder than the first: drift
MIN_DRIFT_SENTENCES = 6
COVERED_SHARE = 0.5        # an objective counts as covered when half its distinguishing terms appear

CONCLUSION_HEADINGS = re.compile(r"\b(conclu|summary|summing|recap|wrap|takeaway|review|what (?:we|you) (?:learned|"
                                 r"have learned)|in short|key (?:ideas|points)|remember)", re.IGNORECASE)
CONCLUSION_CUES = ("in summary", "to sum up", "to summarise", "to summarize", "in short", "today we", "today you",
                   "in this lesson we", "in this lesson you", "now you know", "remember", "you have learned",
                   "you learned", "we learned", "next time", "next lesson")
SIGNPOSTS = ("first", "second", "next", "then", "finally", "now", "let's", "let us", "in this lesson", "for example",
             "for instance", "remember", "however", "because", "so that", "this means", "in summary", "to sum up")
# Verbs of learning objectives (Bloom) and filler: they say what to do, not what it is about.
_OBJECTIVE_STOP = frozenset("""able about after also among an and any are as at be been being between both by can
compare contrast could define demonstrate describe discuss distinguish each easy explain find for from give
how identify illustrate in into is it its know learn list make many more most name of on one or other outline
predict recall recognise recognize relate say see show simple some state student students such summarise
summarize tell than that the their them these they this those through to understand use using way ways what
when where which who why will with within without would your""".split())
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def prose(text: str) -> str:
    """The lesson's running text for readability formulas: headings dropped, list markers,
    emphasis, links and code marks removed, each list item ended as a sentence."""
    out = []
    for line in (text or "").splitlines():
        s = line.strip()
        if not s or s.startswith("#") or s.startswith("```") or s.startswith("|"):
            out.append("")
            continue
        s = re.sub(r"^(?:[-*+]|\d+[.)])\s+", "", s)
        s = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", s)
        s = re.sub(r"[*_`>]+", "", s)
        if line.lstrip()[:1] in "-*+" or re.match(r"\s*\d+[.)]\s", line):
            s = s if s.endswith((".", "!", "?", ":")) else s + "."
        out.append(s)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()


def _result(name: str, label: str, passed: bool, detail: str, severity: str, **data) -> dict:
    """A check's result; its label and detail are core's Messages (or N_ labels): English as they
    read, shown in the teacher's language (core.lessons.review keeps their form with the review)."""
    return {"name": name, "label": label, "passed": passed, "detail": detail, "severity": severity, **data}


def _stem(word: str) -> str:
    """A crude English stem, enough to match "heating" with "heats" and "causes" with "cause".

    >>> [_stem(w) for w in ("heating", "heats", "causes", "cause", "speed", "evaporation")]
    ['heat', 'heat', 'caus', 'caus', 'speed', 'evapo']
    """
    w = word.lower()
    for suffix in ("ing", "ed", "es", "s", "e"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            w = w[:-len(suffix)]
            break
    return w[:5]


def objective_terms(objective: str, title: str = "", others: list[str] = ()) -> list[str]:
    """The words that tell this objective apart: not objective verbs or filler, not the
    lesson's title words or words every other objective shares (the topic itself is no
    evidence that this objective is covered). Falls back to all content words.

    >>> objective_terms("Measure wind speed with an anemometer", "Wind")
    ['measure', 'speed', 'anemometer']
    """
    content = [w.lower() for w in _WORD.findall(objective) if len(w) > 2 and w.lower() not in _OBJECTIVE_STOP]
    common = {_stem(w) for w in _WORD.findall(title)}
    for other in others:
        common |= {_stem(w) for w in _WORD.findall(other)} & {_stem(w) for w in content}
    distinct = [w for w in content if _stem(w) not in common]
    return list(dict.fromkeys(distinct or content))


def _covered(terms: list[str], stems: set[str]) -> list[str]:
    return [t for t in terms if _stem(t) in stems]


def check_length(text: str, spec: LessonSpec) -> dict:
    n = words(text)
    ok = spec.min_words <= n <= spec.max_words
    clear = n < spec.min_words / 2 or n > spec.max_words * 2
    if ok:
        detail = Message.plural("{count} word", "{count} words", n)
    elif n < spec.min_words:
        detail = Message.plural("{count} word (too short)", "{count} words (too short)", n)
    else:
        detail = Message.plural("{count} word (too long)", "{count} words (too long)", n)
    return _result("length", Message("Length {min}-{max} words", min=spec.min_words, max=spec.max_words), ok,
                   detail, "fail" if clear else "warn", words=n)


def _english(text: str, spec: LessonSpec) -> bool:
    return spec.language.lower().startswith("en") and not checks.looks_non_english(text)


def check_reading(text: str, spec: LessonSpec) -> dict:
    body = prose(text)
    if not _english(body, spec):
        return _result("reading", N_("Reading grade"), True, N_("skipped: Flesch-Kincaid only fits English text"),
                       "info", skipped=True)
    grade = checks.fk_grade(body)
    off = grade - spec.target_grade
    ok = abs(off) <= GRADE_TOLERANCE
    values = {"grade": f"{grade:g}", "target": f"{spec.target_grade:g}"}
    if ok:
        detail = Message("Flesch-Kincaid grade {grade} for a target of {target}", **values)
    elif off > 0:
        detail = Message("Flesch-Kincaid grade {grade} for a target of {target} (harder than the audience reads)",
                         **values)
    else:
        detail = Message("Flesch-Kincaid grade {grade} for a target of {target} (easier than the target)", **values)
    label = Message("Reading grade within ±{tolerance} of {target}", tolerance=f"{GRADE_TOLERANCE:g}",
                    target=values["target"])
    return _result("reading", label, ok, detail, "fail" if off > GRADE_CLEAR_FAIL else "warn", grade=grade)


def check_drift(text: str, spec: LessonSpec) -> dict:
    body = prose(text)
    label = N_("Reading grade steady from start to end")
    if not _english(body, spec):
        return _result("drift", label, True, N_("skipped: Flesch-Kincaid only fits English text"), "info", skipped=True)
    sents = [s.text for s in sections.sentences(body)]
    if len(sents) < MIN_DRIFT_SENTENCES:
        return _result("drift", label, True, Message.plural("skipped: {count} sentences are too few to compare",
                                                            "skipped: {count} sentences are too few to compare",
                                                            len(sents)), "info", skipped=True)
    third = len(sents) // 3
    first, last = checks.fk_grade(" ".join(sents[:third])), checks.fk_grade(" ".join(sents[-third:]))
    drift = round(last - first, 1)
    ok = not (drift > DRIFT_GRADES and last > spec.target_grade + GRADE_TOLERANCE)
    grades = {"first": f"{first:g}", "last": f"{last:g}"}
    detail = (Message("grade {first} in the first third, {last} in the last", **grades) if ok else
              Message("grade {first} in the first third, {last} in the last: {drift} grades harder by the end",
                      drift=f"{drift:g}", **grades))
    return _result("drift", label, ok, detail, "warn", first=first, last=last)


def check_structure(text: str, spec: LessonSpec) -> dict:
    parts = sections.split(text)
    low = prose(text).lower()
    last = parts[-1] if parts else None
    conclusion = bool(last and len(parts) >= 2 and (CONCLUSION_HEADINGS.search(last.title)
                                                    or any(c in last.body.lower() for c in CONCLUSION_CUES)))
    signposts = sum(len(re.findall(rf"\b{re.escape(s)}\b", low)) for s in SIGNPOSTS)
    missing = []
    if len(parts) < 3:
        missing.append(Message.plural("only {count} section(s): an introduction, a body and a conclusion need three",
                                      "only {count} section(s): an introduction, a body and a conclusion need three",
                                      len(parts)))
    if not conclusion:
        missing.append(Message("no conclusion (a closing section that sums up)"))
    if signposts < 2:
        missing.append(Message("hardly any signposting (first, next, for example, in summary ...)"))
    # nothing missing: at least three sections and two signposts (the plural forms in English)
    found = Message("{sections}, a conclusion, {signposts}",
                    sections=Message.plural("{count} section", "{count} sections", len(parts)),
                    signposts=Message.plural("{count} signpost", "{count} signposts", signposts))
    return _result("structure", N_("Introduction, body and conclusion, with signposting"), not missing,
                   Message.joined("; ", missing) if missing else found, "warn",
                   sections=len(parts), signposts=signposts)


def check_objectives(text: str, spec: LessonSpec) -> dict:
    label = N_("Every learning objective is covered")
    if not spec.objectives:
        return _result("objectives", label, True, N_("skipped: the specification lists no objectives"), "info",
                       skipped=True, missing=[])
    stems = {_stem(w) for w in _WORD.findall(text)}
    missing, covered = [], 0
    for i, obj in enumerate(spec.objectives):
        terms = objective_terms(obj, spec.title, spec.objectives[:i] + spec.objectives[i + 1:])
        found = _covered(terms, stems)
        if terms and len(found) / len(terms) >= COVERED_SHARE:
            covered += 1
        else:
            missing.append({"objective": obj, "absent": [t for t in terms if t not in found]})
    detail = Message("{covered} of {total} covered", covered=covered, total=len(spec.objectives))
    if missing:   # the objectives are the teacher's words, the terms taken from them
        detail = Message("{covered} of {total} covered; missing: {missing}", covered=covered,
                         total=len(spec.objectives), missing=Message.joined("; ", [
                             Message("\"{objective}\" (no {terms})", objective=m["objective"],
                                     terms=", ".join(m["absent"])) for m in missing]))
    return _result("objectives", label, not missing, detail, "fail" if covered == 0 else "warn", missing=missing)


CHECKS = (check_length, check_reading, check_drift, check_structure, check_objectives)


def run(text: str, spec: LessonSpec) -> list[dict]:
    return [check(text, spec) for check in CHECKS]


def clear_failure(results: list[dict]) -> bool:
    """A failure so plain that no judge is needed (the seed's free pre-filter)."""
    return any(not r["passed"] and r["severity"] == "fail" for r in results)


def problems(results: list[dict]) -> list[dict]:
    return [r for r in results if not r["passed"]]


# Stage 1 score for the offline baseline: a passed check counts fully, a warning half, a clear
# failure nothing; checks that could not run are left out.
WEIGHTS = {"length": 0.2, "reading": 0.25, "drift": 0.15, "structure": 0.2, "objectives": 0.2}


def score(results: list[dict]) -> float:
    """The weighted share of Stage 1 checks passed (0..1).

    >>> score([{"name": "length", "passed": True, "severity": "warn"},
    ...        {"name": "reading", "passed": False, "severity": "warn"}])
    0.722
    """
    total = got = 0.0
    for r in results:
        if r["severity"] == "info":
            continue
        w = WEIGHTS.get(r["name"], 0.0)
        total += w
        got += w if r["passed"] else (0.5 * w if r["severity"] == "warn" else 0.0)
    return round(got / total, 3) if total else 0.0


def summary(results: list[dict]) -> str:
    """One line per finding, for the judge's prompt."""
    lines = [f"- {r['label']}: {r['detail']}" for r in results if not r["passed"] or r["severity"] == "info"]
    return "\n".join(lines) or "- all Stage 1 checks passed"
