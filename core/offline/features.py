"""Text features a teacher can read, for the offline scorer (learned and heuristic alike).

Every feature has a plain name (`LABELS`): the review item says "spelling errors per word
pushed Conventions down", so nothing here is an opaque embedding. Three groups:

- length and structure: words, sentences, sentence length and its variety, run-on sentences,
  paragraphs, linking words;
- vocabulary: lexical variety, word length, less common words (by their frequency in
  pyspellchecker's English word list);
- conventions and grammar signals: spelling errors (pyspellchecker; British spellings count as
  correct), a lower-case "i", sentences starting in lower case, missing apostrophes ("dont"),
  a space before punctuation, and likely grammar slips found by patterns ("he have", "a apple");
- the assignment: overlap with its prompt, its key concepts, example and question markers.

`dense(text, prompt, key_concepts)` returns {name: value}; `function_words(text)` the text's
sentence pattern (function words kept, other words as "X") for the learned model's
"sentence patterns" n-grams. Linear in the text's length; about a millisecond per essay.
"""
from __future__ import annotations

import math
import re
import threading
from functools import lru_cache

from core import text as text_mod
from core.language.interface import N_, Message

WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_PARAGRAPH = re.compile(r"\n\s*\n")
LINKING = ("however", "therefore", "because", "although", "first", "second", "finally", "in conclusion",
           "for example", "for instance", "moreover", "furthermore", "as a result", "on the other hand",
           "in addition", "for this reason", "overall", "instead", "while", "since")
_LINKING = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in LINKING) + r")\b")
_NO_APOSTROPHE = re.compile(r"\b(?:dont|doesnt|didnt|cant|wont|isnt|arent|wasnt|werent|im|ive|thats|theres|"
                            r"wouldnt|couldnt|shouldnt|hasnt|havent|youre|theyre|lets)\b")
_SPACE_PUNCT = re.compile(r"\s[,.!?;:](?!\S)|\s[,;:]")
# Likely grammar slips, found by pattern (no parser): agreement, articles, comparatives,
# modal + inflected verb, "for + verb" (for find), a plural after a singular determiner.
GRAMMAR_PATTERNS = tuple(re.compile(p) for p in (
    r"\b(?:he|she|it|this|everyone|everybody|somebody|someone|nobody)\s+(?:have|do|go|make|want|need|think|say|"
    r"get|like|know|take|give|come|help|are|were)\b",
    r"\b(?:i|you|we|they)\s+(?:has|does|goes|makes|wants|needs|thinks|says|gets|likes|knows|takes|gives|comes|"
    r"helps|is|was)\b",
    r"\b(?:people|students|kids|parents|teachers)\s+(?:is|was|has|does)\b",
    r"\ba\s+[aeiou][a-z]+", r"\ban\s+[^aeiouh\s][a-z]+", r"\bmore\s+[a-z]+er\b", r"\bmost\s+[a-z]+est\b",
    r"\b(?:can|could|will|would|should|must|might)\s+(?:to\s+)?[a-z]+(?:ed|s)\b",
    r"\b(?:don't|doesn't|didn't|dont|doesnt|didnt)\s+[a-z]+ed\b",
    r"\bfor\s+(?:find|get|make|do|learn|help|have|know|see)\b",
    r"\b(?:is|are|was|were)\s+(?:go|do|make|have|get)\b",
    r"\b(\w+)\s+\1\b",
))
FUNCTION_WORDS = frozenset(
    "the a an of to in on at for with by from and or but so because if when while that which who what this these "
    "those it he she they we you i me him her them us my your his its our their is are was were be been being have "
    "has had do does did can could will would should may might must not no very more most some any all many much "
    "there here as than then also just only".split())
EXAMPLE_MARKERS = ("for example", "for instance", "e.g.", "such as", "at work", "in my ", "at my ", "my team",
                   "my company", "my manager", "in practice", "last week", "yesterday", "i used", "i tried",
                   "i applied", "when i", "we use", "our ")
QUESTION_MARKERS = ("?", "i wonder", "not sure", "what if", "how can", "how could", "how might", "what would",
                    "why ", "whether", "should ", "assum", "i question", "curious", "challenge", "unclear",
                    "i doubt", "i realised", "i realized", "i used to think")

# What each feature is, in a teacher's words (the review item's explanations use these).
LABELS = {
    "length": N_("length (number of words)"),
    "sentences": N_("number of sentences"),
    "sentence_length": N_("average sentence length"),
    "sentence_variety": N_("variety of sentence lengths"),
    "long_sentences": N_("share of very long (run-on) sentences"),
    "paragraphs": N_("number of paragraphs"),
    "linking_words": N_("linking words (however, because, ...)"),
    "lexical_variety": N_("lexical variety (different words used)"),
    "word_length": N_("average word length"),
    "less_common_words": N_("share of less common words"),
    "rare_word_types": N_("range of less common words"),
    "spelling_errors": N_("spelling errors per word"),
    "lowercase_i": N_("'i' written in lower case"),
    "lowercase_starts": N_("sentences starting in lower case"),
    "missing_apostrophes": N_("missing apostrophes (dont, im)"),
    "space_before_punctuation": N_("spaces before punctuation"),
    "commas": N_("commas per sentence"),
    "grammar_slips": N_("likely grammar slips (he have, a apple)"),
    "prompt_overlap": N_("overlap with the assignment's prompt"),
    "key_concepts": N_("key concepts mentioned"),
    "examples": N_("example markers (for example, at work)"),
    "questions": N_("question and doubt markers (?, I wonder)"),
}
NAMES = tuple(LABELS)
COMMON_RANK = 1000      # words beyond the 1,000 most frequent English words count as less common
_STOP = FUNCTION_WORDS | {"also", "about", "would", "there", "their", "what", "your", "think", "people"}


class _Dictionary:
    """pyspellchecker's English word list, loaded once per process (about 0.1 s)."""
    _lock = threading.Lock()
    _checker = None
    _rank: dict[str, int] = {}

    @classmethod
    def get(cls):
        if cls._checker is None:
            with cls._lock:
                if cls._checker is None:
                    cls._checker, cls._rank = _load_word_list("en")
        return cls._checker, cls._rank


def _load_word_list(language: str):
    from spellchecker import SpellChecker  # lazy: only the offline scorer needs it

    checker = SpellChecker(language=language)
    freq = checker.word_frequency.dictionary
    return checker, {w: i for i, (w, _) in enumerate(sorted(freq.items(), key=lambda kv: -kv[1]))}


# --- other languages (core.language) -------------------------------------------------------
# Signals that read English words, patterns or phrases, or the English word list: 0 on a text
# in another language. pyspellchecker has no Swedish list; its Russian one (about 20,000 word
# forms) misses most inflected forms (6 of 32 correct words in one test sentence), so a
# Russian text's spelling is not judged either.
ENGLISH_ONLY = ("linking_words", "lowercase_i", "missing_apostrophes", "grammar_slips", "examples",
                "spelling_errors", "less_common_words", "rare_word_types")
ANY_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
# Why spelling is not checked in a language (core.offline.reasoning reads the note back on a draft).
NO_WORD_LIST = {"sv": N_("no Swedish word list"),
                "ru": N_("pyspellchecker's Russian word list misses most inflected forms")}
NOTE = N_("Spelling not checked: {why}. English-only signals (linking words, grammar patterns, example phrases, "
          "word rarity) not used; length, sentences, paragraphs, lexical variety, questions and key concepts are.")


def signals_note(language: str = "en") -> str:
    """What the offline scorer could read of a text in `language`, said on the item ("" for English).

    >>> signals_note("sv")[:44]
    'Spelling not checked: no Swedish word list. '
    """
    from core.language import english_name

    if language == "en":
        return ""
    why = NO_WORD_LIST.get(language)
    return Message(NOTE, why=Message(why) if why else f"no {english_name(language)} word list")


def _other_language(text: str, prompt: str, key_concepts, language: str) -> dict[str, float]:
    """dense() of a text not in English: Unicode words and the language-neutral signals; the
    English-only signals are 0."""
    tokens = ANY_WORD.findall(text)
    low = [t.lower() for t in tokens]
    n = max(len(low), 1)
    sents = sentences(text)
    ns = max(len(sents), 1)
    lengths = [len(ANY_WORD.findall(s)) for s in sents] or [0]
    mean_len = sum(lengths) / len(lengths)
    lowtext = text.lower()
    out = dict.fromkeys(NAMES, 0.0)     # ENGLISH_ONLY stay 0
    words_of = {w[:6] for w in low if len(w) > 3}
    prompt_words = {w[:6] for w in (t.lower() for t in ANY_WORD.findall(prompt or "")) if len(w) > 3}
    concepts = [c for c in key_concepts if all(p[:5] in lowtext for p in ANY_WORD.findall(c.lower()) if len(p) > 2)]
    out.update({
        "length": math.log1p(text_mod.words(text)),
        "sentences": math.log1p(len(sents)),
        "sentence_length": mean_len,
        "sentence_variety": math.sqrt(sum((x - mean_len) ** 2 for x in lengths) / len(lengths)),
        "long_sentences": sum(x > 35 for x in lengths) / ns,
        "paragraphs": math.log1p(len([p for p in _PARAGRAPH.split(text) if p.strip()])),
        "lexical_variety": len(set(low)) / math.sqrt(n),
        "word_length": sum(len(w) for w in low) / n,
        "lowercase_starts": sum(1 for s in sents if s.lstrip()[:1].islower()) / ns,
        "space_before_punctuation": len(_SPACE_PUNCT.findall(text)) / n * 100,
        "commas": text.count(",") / ns,
        "prompt_overlap": (len(words_of & prompt_words) / len(prompt_words)) if prompt_words else 0.0,
        "key_concepts": (len(concepts) / len(key_concepts)) if key_concepts else 0.0,
        "questions": text.count("?") / n * 100,
    })
    return out


_BRITISH = ((r"our$", "or"), (r"our(s|ed|ing|ite|ites|able)$", r"or\1"), (r"is(e|ed|es|ing|ation|ations)$", r"iz\1"),
            (r"ys(e|ed|es|ing)$", r"yz\1"), (r"tre$", "ter"), (r"tres$", "ters"), (r"ll(ed|ing|er)$", r"l\1"),
            (r"ogue$", "og"), (r"ence$", "ense"))


@lru_cache(maxsize=200_000)
def is_misspelt(word: str) -> bool:
    """A lower-case word not in the dictionary, also under its American spelling ("colour")."""
    checker, rank = _Dictionary.get()
    if word in rank:
        return False
    for pattern, repl in _BRITISH:
        us = re.sub(pattern, repl, word)
        if us != word and us in rank:
            return False
    return bool(checker.unknown([word]))


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text or "") if s.strip()]


def _content_words(text: str) -> set[str]:
    return {w[:6] for w in (m.lower() for m in WORD.findall(text or "")) if len(w) > 3 and w not in _STOP}


def concept_found(concept: str, low_text: str) -> bool:
    """Every content word of the concept appears (by its first 5 letters, so plurals count)."""
    parts = [w[:5] for w in re.findall(r"[a-z0-9]+", concept.lower()) if len(w) > 2]
    return bool(parts) and all(re.search(rf"\b{re.escape(p)}", low_text) for p in parts)


def dense(text: str, prompt: str = "", key_concepts: tuple[str, ...] | list[str] = (),
          language: str = "en") -> dict[str, float]:
    """The named features of one text (see LABELS), as plain numbers; a text in another language
    than English gets only the signals that read it (`signals_note`)."""
    text = text or ""
    if language != "en":
        return _other_language(text, prompt, key_concepts, language)
    _, rank = _Dictionary.get()
    tokens = WORD.findall(text)
    low = [t.lower() for t in tokens]
    n = max(len(low), 1)
    sents = sentences(text)
    ns = max(len(sents), 1)
    lengths = [len(WORD.findall(s)) for s in sents] or [0]
    mean_len = sum(lengths) / len(lengths)
    lowtext = text.lower()
    # Spelling: lower-case words only (names and sentence starts are not judged), without apostrophes.
    checked = [w for t, w in zip(tokens, low) if t[:1].islower() and "'" not in w and len(w) > 1]
    misspelt = sum(1 for w in checked if is_misspelt(w))
    known = [rank[w] for w in low if w in rank]
    rare_types = {w for w in low if rank.get(w, 0) >= COMMON_RANK}
    concepts = [c for c in key_concepts if concept_found(c, lowtext)]
    prompt_words = _content_words(prompt)
    return {
        "length": math.log1p(text_mod.words(text)),
        "sentences": math.log1p(len(sents)),
        "sentence_length": mean_len,
        "sentence_variety": math.sqrt(sum((x - mean_len) ** 2 for x in lengths) / len(lengths)),
        "long_sentences": sum(x > 35 for x in lengths) / ns,
        "paragraphs": math.log1p(len([p for p in _PARAGRAPH.split(text) if p.strip()])),
        "linking_words": len(_LINKING.findall(lowtext)) / n * 100,
        "lexical_variety": len(set(low)) / math.sqrt(n),
        "word_length": sum(len(w) for w in low) / n,
        "less_common_words": (sum(r >= COMMON_RANK for r in known) / len(known)) if known else 0.0,
        "rare_word_types": len(rare_types) / math.sqrt(n),
        "spelling_errors": misspelt / max(len(checked), 1) * 100,
        "lowercase_i": len(re.findall(r"(?<![\w'])i(?![\w'])", text)) / n * 100,
        "lowercase_starts": sum(1 for s in sents if s.lstrip()[:1].islower()) / ns,
        "missing_apostrophes": len(_NO_APOSTROPHE.findall(lowtext)) / n * 100,
        "space_before_punctuation": len(_SPACE_PUNCT.findall(text)) / n * 100,
        "commas": text.count(",") / ns,
        "grammar_slips": sum(len(p.findall(lowtext)) for p in GRAMMAR_PATTERNS) / n * 100,
        "prompt_overlap": (len(_content_words(text) & prompt_words) / len(prompt_words)) if prompt_words else 0.0,
        "key_concepts": (len(concepts) / len(key_concepts)) if key_concepts else 0.0,
        "examples": sum(lowtext.count(m) for m in EXAMPLE_MARKERS) / n * 100,
        "questions": sum(lowtext.count(m) for m in QUESTION_MARKERS) / n * 100,
    }


def function_words(text: str) -> str:
    """The sentence pattern: function words kept, every other word an "X", sentence ends kept
    ("he have a X X ." -> n-grams of structure, not of topic)."""
    out = []
    for s in sentences(text):
        out += [w if w in FUNCTION_WORDS else "X" for w in (t.lower() for t in WORD.findall(s))]
        out.append("|")
    return " ".join(out)
