"""Is a reflection written in its course's language? (the `non_english` flag, which now means
"not in the course's language"; the stored code is kept so older drafts read the same).

The detector is Lingua (lingua-language-detector), restricted to the offered languages and the
ones a course's students are likeliest to write instead (neighbours of Swedish, of Russian, and
Europe's largest), in its low-accuracy mode: trigram models only, about 15 MB and a tenth of a
second to load, ~1 ms a reflection (python -m bench.language). A language outside this list is
read as the closest one in it, which is not the course's language unless it is very close.
Texts under MIN_WORDS words are not judged: too few words to tell (the short-text check sees them).
"""
from __future__ import annotations

import re
from functools import lru_cache

from core.language import SUPPORTED, english_name, normalise
from core.language.interface import IN_SENTENCE, Message, in_context

MIN_WORDS = 20
# ISO 639-1 codes besides the offered ones that the detector may answer.
OTHERS = ("de", "fr", "es", "it", "pt", "nl", "pl", "da", "nb", "nn", "fi", "uk", "be", "bg")
_NAMES = {"de": "German", "fr": "French", "es": "Spanish", "it": "Italian", "pt": "Portuguese", "nl": "Dutch",
          "pl": "Polish", "da": "Danish", "nb": "Norwegian", "nn": "Norwegian", "fi": "Finnish",
          "uk": "Ukrainian", "be": "Belarusian", "bg": "Bulgarian"}
_WORD = re.compile(r"[^\W\d_]+")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")


@lru_cache(maxsize=1)
def _detector():
    from lingua import IsoCode639_1, LanguageDetectorBuilder

    codes = [getattr(IsoCode639_1, c.upper()) for c in (*SUPPORTED, *OTHERS)]
    return LanguageDetectorBuilder.from_iso_codes_639_1(*codes).with_low_accuracy_mode().build()


def main_script(text: str) -> str:
    """The words of the text's main alphabet (Cyrillic or Latin, whichever has more words): a
    Russian reflection on AI work writes its terms in English ("prompt engineering", "fine-tuning"),
    and those words alone could tip the detector to English; an English one may quote a Russian title.

    >>> main_script("Я изучал prompt engineering и fine-tuning для моделей.")
    'Я изучал и для моделей'
    """
    words = _WORD.findall(text or "")
    cyrillic = [w for w in words if _CYRILLIC.search(w)]
    latin = [w for w in words if not _CYRILLIC.search(w)]
    return " ".join(cyrillic if len(cyrillic) > len(latin) else latin)


def detect(text: str) -> str | None:
    """The ISO 639-1 code of the text's language, read on the words of its main alphabet
    (`main_script`), or None when it cannot tell (no letters).

    >>> detect("Den här veckan lärde jag mig hur språkmodeller fungerar och varför de ibland hittar på.")
    'sv'
    >>> detect("На этой неделе я узнал, как работают языковые модели и почему они иногда ошибаются.")
    'ru'
    """
    found = _detector().detect_language_of(main_script(text))
    return found.iso_code_639_1.name.lower() if found is not None else None


def name_of(code: str | None) -> str:
    """A detected code's name in English ("another language" for none)."""
    if code in SUPPORTED:
        return english_name(code)
    return _NAMES.get(code or "", "another language")


# Every name `name_of` gives, as it reads inside a sentence ("written in Swedish, not Russian"):
# Swedish and Russian write it in lower case there ("svenska", "шведский"), the name alone (a
# label, core_labels.po) is capitalised; gettext's context IN_SENTENCE tells the two apart.
IN_SENTENCE_NAMES = {m: m for m in (
    in_context(IN_SENTENCE, "English"), in_context(IN_SENTENCE, "Swedish"), in_context(IN_SENTENCE, "Russian"),
    in_context(IN_SENTENCE, "German"), in_context(IN_SENTENCE, "French"), in_context(IN_SENTENCE, "Spanish"),
    in_context(IN_SENTENCE, "Italian"), in_context(IN_SENTENCE, "Portuguese"), in_context(IN_SENTENCE, "Dutch"),
    in_context(IN_SENTENCE, "Polish"), in_context(IN_SENTENCE, "Danish"), in_context(IN_SENTENCE, "Norwegian"),
    in_context(IN_SENTENCE, "Finnish"), in_context(IN_SENTENCE, "Ukrainian"), in_context(IN_SENTENCE, "Belarusian"),
    in_context(IN_SENTENCE, "Bulgarian"), in_context(IN_SENTENCE, "another language"))}


def named(code: str | None) -> Message:
    """A detected code's name inside a sentence, said in the reader's language (English: `name_of`).

    >>> from core.language.interface import Interface
    >>> named("sv"), Interface("sv").said(named("ru")), Interface("ru").said(named("sv"))
    ('Swedish', 'ryska', 'шведский')
    """
    return IN_SENTENCE_NAMES[name_of(code)]


def judged(text: str) -> bool:
    """Long enough to tell its language."""
    return len(_WORD.findall(text or "")) >= MIN_WORDS


def in_language(text: str, language: str) -> bool:
    """False only for a text long enough to tell that is in another language than `language`."""
    return not judged(text) or detect(text) == normalise(language)


def check(text: str, language: str = "en") -> dict:
    """The submission check (core.checks.submission_checks' shape) of the course's language."""
    language = normalise(language)
    course = named(language)
    if not judged(text):
        return _result(True, course, Message("too short to tell its language"))
    found = detect(text)
    if found == language:
        return _result(True, course, Message("looks like {language}", language=course))
    return _result(False, course, Message("looks like {language}, not {course} (the course's language): a reflection "
                                          "in another language is a known weak spot of the AI",
                                          language=named(found), course=course))


def attention_text(language: str = "en") -> Message:
    """Why the item goes to a teacher (the draft's attention reason): the language's name in a sentence."""
    return Message("Not in the course's language ({language}): the AI assesses a reflection in another language less "
                   "reliably.", language=in_context(IN_SENTENCE, english_name(language)))


def _result(passed: bool, course: Message, detail: Message) -> dict:
    return {"name": "non_english", "label": Message("Written in {language}", language=course), "passed": passed,
            "detail": detail, "severity": "warn"}
