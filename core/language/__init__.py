"""The languages FairMark assesses: the course's language is the language of the reflections
and of the feedback (issue: teachers' own languages).

One place names the supported languages; everything language-specific (word splitting,
readability, detection, prompt wording, the Equity Monitor's lexicon) takes one of these codes.
"""
from __future__ import annotations

# ISO 639-1 code -> the language's name in English (for prompts) and in itself (for the interface).
SUPPORTED: dict[str, tuple[str, str]] = {
    "en": ("English", "English"),
    "sv": ("Swedish", "Svenska"),
    "ru": ("Russian", "Русский"),
}
DEFAULT = "en"


def normalise(code: str | None) -> str:
    """A supported language code from user input ("SV", " sv ", None -> "en"); ValueError names
    what is supported."""
    c = (code or DEFAULT).strip().lower()
    if c not in SUPPORTED:
        offered = ", ".join(f"{k} ({v[0]})" for k, v in SUPPORTED.items())
        raise ValueError(f"Language {code!r} is not supported. Choose one of: {offered}.")
    return c


def english_name(code: str) -> str:
    return SUPPORTED[normalise(code)][0]


def prompt_line(code: str) -> str:
    """The agents' language slot ({{language}} in every reflection role's prompt): the language
    of the reflection and of what they write, the same words for every language.

    >>> prompt_line("sv")
    'Language: the student wrote in Swedish and the feedback is in Swedish: write everything you return in Swedish; quotes stay as the student wrote them.'
    """
    name = english_name(code)
    return (f"Language: the student wrote in {name} and the feedback is in {name}: write everything you return "
            f"in {name}; quotes stay as the student wrote them.")
