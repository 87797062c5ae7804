"""Token log-probability entropy per sentence (seed 001): a cheap signal of where a model was
unsure. Two uses:

- the lesson text, scored by a completions endpoint that echoes the prompt's logprobs
  (core.llm.echo): a sentence with a factual claim and a high mean entropy is flagged
  "possible hallucination" and only those sentences are checked against the sources;
- the judge's own answer (chat logprobs): the share of its sentences under the threshold is
  the vote's confidence, and its unsure sentences are shown to the teacher.

Entropy of one token is Shannon's, in bits, over its top alternatives plus one bucket for the
probability mass they leave out (a lower bound of the true entropy). A sentence's entropy is
the mean over the tokens that start inside it. The threshold is HIGH_BITS or the lesson's
median plus MARGIN_BITS, whichever is higher: a scoring model that did not write the lesson is
unsure everywhere, and then only the sentences that stand out count. Both are ours, not the
seed's: seed 001 flags a sentence whose mean entropy is above 0.8 (it names no unit, no log
base and no count of alternatives, so its 0.8 cannot be carried over to this lower bound in
bits); 2.0 bits is the spread of four equally likely tokens.

>>> round(token_entropy(-0.01, [{"token": "a", "logprob": -0.01}]), 3)
0.08
>>> round(token_entropy(math.log(0.5), {"a": math.log(0.5), "b": math.log(0.5)}), 3)
1.0
>>> has_factual_claim("Isaac Newton was hit by a watermelon in 1666."), has_factual_claim("Rain is nice.")
(True, False)
"""
from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass

from core.lessons import sections

HIGH_BITS = 2.0        # ours (four equally likely tokens); seed 001 uses 0.8 in unstated units
MARGIN_BITS = 1.0


@dataclass(frozen=True)
class Token:
    start: int                 # character offset in the text
    entropy: float | None      # bits; None when the server gave nothing for it (the first token)


@dataclass(frozen=True)
class SentenceEntropy:
    start: int
    end: int
    text: str
    bits: float | None         # mean token entropy; None when no token was scored
    tokens: int


def token_entropy(logprob: float | None, top) -> float | None:
    """Entropy in bits of one token's distribution, from its top alternatives (a list of
    {token, logprob} or a {token: logprob} dict); the chosen token alone gives -log2 p."""
    if logprob is None and not top:
        return None
    if isinstance(top, dict):
        lps = list(top.values())
    else:
        lps = [t.get("logprob") for t in (top or [])]
    probs = [math.exp(lp) for lp in lps if lp is not None and lp > -50]
    if not probs:
        p = math.exp(logprob)
        return -math.log2(p) if 0 < p <= 1 else None
    rest = max(0.0, 1.0 - sum(probs))
    return -sum(p * math.log2(p) for p in probs + [rest] if p > 0)


def from_chat(text: str, logprobs: list[dict] | None) -> list[Token]:
    """Tokens of a chat answer (RawCompletion.logprobs) placed in its text. The tokens may
    carry fences the answer lost (```json): they are aligned on where the text begins."""
    if not logprobs:
        return []
    joined = "".join(t.get("token", "") for t in logprobs)
    shift = 0 if joined == text else joined.find(text)
    if shift < 0:
        return []
    out, pos = [], -shift
    for t in logprobs:
        out.append(Token(pos, token_entropy(t.get("logprob"), t.get("top_logprobs"))))
        pos += len(t.get("token", ""))
    return out


def from_echo(echo: dict) -> list[Token]:
    """Tokens of an echoed prompt (core.llm.echo: tokens, text_offset, token_logprobs, top_logprobs)."""
    offsets, lps, tops = echo.get("text_offset") or [], echo.get("token_logprobs") or [], echo.get("top_logprobs") or []
    return [Token(int(off), token_entropy(lp, top)) for off, lp, top in zip(offsets, lps, tops)]


def per_sentence(spans: list[sections.Sentence], tokens: list[Token]) -> list[SentenceEntropy]:
    out = []
    for s in spans:
        inside = [t.entropy for t in tokens if s.start <= t.start < s.end and t.entropy is not None]
        out.append(SentenceEntropy(s.start, s.end, s.text, round(statistics.fmean(inside), 3) if inside else None,
                                   len(inside)))
    return out


def threshold(scored: list[SentenceEntropy]) -> float:
    values = [s.bits for s in scored if s.bits is not None]
    if not values:
        return HIGH_BITS
    return round(max(HIGH_BITS, statistics.median(values) + MARGIN_BITS), 3)


_CLAIM = re.compile(
    r"\d|\b(?:invent|discover|found|first|largest|biggest|smallest|tallest|highest|fastest|oldest|"
    r"percent|million|billion|thousand|hundred|always|never|every|all|proved?|scientists?|century|"
    r"years? ago|named|called)\w*", re.IGNORECASE)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]{2,}")


def has_factual_claim(sentence: str) -> bool:
    """A number, a date, a superlative or discovery word, or a capitalised name inside the
    sentence (a stand-in for named-entity recognition, which would need a model)."""
    s = sentence.strip()
    return bool(_CLAIM.search(s) or _NAME.search(s[1:]))


def flags(scored: list[SentenceEntropy]) -> list[dict]:
    """Sentences with a factual claim and an entropy at or above the threshold."""
    cut = threshold(scored)
    return [{"sentence": s.text, "start": s.start, "end": s.end, "bits": s.bits, "threshold": cut}
            for s in scored if s.bits is not None and s.bits >= cut and has_factual_claim(s.text)]


def lesson_entropy(text: str, echo: dict) -> dict:
    """The lesson's sentences with their entropy, and the flagged ones."""
    scored = per_sentence(sections.sentences(text), [t for t in from_echo(echo) if t.start < len(text)])
    return {"sentences": [vars(s) for s in scored], "threshold": threshold(scored), "flags": flags(scored)}


_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def answer_sentences(raw: str) -> list[sections.Sentence]:
    """The free-text sentences of a JSON answer (its string values with a space in them: keys
    and enum values have none)."""
    out = []
    for m in _STRING.finditer(raw):
        if " " in m.group(1) and len(m.group(1)) > 20:
            out += sections.sentences(m.group(1), offset=m.start(1))
    return out


def judge_confidence(raw: str, logprobs: list[dict] | None) -> dict:
    """{confidence, unsure}: the share of the answer's sentences under the threshold (None
    without logprobs, e.g. a cached answer) and the sentences above it."""
    tokens = from_chat(raw, logprobs)
    if not tokens:
        return {"confidence": None, "unsure": []}
    scored = [s for s in per_sentence(answer_sentences(raw), tokens) if s.bits is not None]
    if not scored:      # no free-text sentence (terse reasons): the whole answer is the one span
        scored = [s for s in per_sentence([sections.Sentence(0, len(raw), raw)], tokens) if s.bits is not None]
    if not scored:
        return {"confidence": None, "unsure": []}
    unsure = [s for s in scored if s.bits >= HIGH_BITS]
    return {"confidence": round(1 - len(unsure) / len(scored), 3),
            "unsure": [{"sentence": s.text, "bits": s.bits} for s in unsure]}
