"""A course's language: what its reflections are written in and what its feedback is written in
(one setting: the course's). Read here by everything that shows or uses it; set through
core.courses.catalogue (audited, like the course's other settings)."""
from __future__ import annotations

from core.accounts import access
from core.accounts.access import Actor
from core.errors import ConfigError
from core.language import SUPPORTED, normalise
from core.language.interface import Message, N_
from db import courses


def of_course(conn, course_id: int, *, actor: Actor) -> str:
    """The course's language code ('en' unless set)."""
    access.check(conn, actor, "read", course=course_id)
    return stored(courses.get_course(conn, course_id).get("language"))


def stored(code: str | None) -> str:
    """A stored code as a supported one; a code this version does not know (a database from a
    newer FairMark) reads as the default rather than stopping every draft."""
    try:
        return normalise(code)
    except ValueError:
        return normalise(None)


def parse(code: str | None) -> str:
    """A code a person typed: a supported code, or a ConfigError naming the supported ones."""
    if not (code or "").strip():
        raise ConfigError(Message("Give the course's language: one of {offered}.", offered=offered()))
    try:
        return normalise(code)
    except ValueError:
        raise ConfigError(unsupported(code)) from None


def offered(codes=None) -> Message:
    """The languages (the supported ones unless given) as a refusal lists them, "en (English), sv
    (Swedish), ru (Russian)", each name in the reader's language where shown."""
    return Message.joined(", ", [Message.joined("", [f"{k} (", Message(NAMES.get(k, SUPPORTED[k][0])), ")"])
                                 for k in (SUPPORTED if codes is None else codes)])


def unsupported(code) -> Message:
    """core.language.normalise's refusal of a code it does not know (a ValueError, in English), as a Message."""
    return Message("Language {code!r} is not supported. Choose one of: {offered}.", code=code, offered=offered())


def from_locale(locale) -> str | None:
    """The supported language of a locale an LMS sends ("sv-SE", "ru_RU", "en"), or None for one
    FairMark does not offer (the course then keeps the default, which its teacher can change).

    >>> from_locale("sv-SE"), from_locale("ru_RU"), from_locale("EN-gb"), from_locale("de-DE"), from_locale(None)
    ('sv', 'ru', 'en', None, None)
    """
    if not isinstance(locale, str):
        return None
    code = locale.strip().replace("_", "-").split("-")[0].lower()
    return code if code in SUPPORTED else None


def choices() -> list[str]:
    """The codes offered, in the order the Settings page lists them."""
    return list(SUPPORTED)


# The languages' English names (core.language.SUPPORTED), marked for the reader's language.
NAMES = {"en": N_("English"), "sv": N_("Swedish"), "ru": N_("Russian")}


def label(code: str, translate=None) -> str:
    """"Swedish (Svenska)" for a picker; "English" for English. `translate` (a page's `t`) names
    it in the reader's language, its own name after it unless that is the same.

    >>> label("sv"), label("en"), label("ru", {"Russian": "Русский"}.get)
    ('Swedish (Svenska)', 'English', 'Русский')
    """
    code = normalise(code)
    english, own = SUPPORTED[code]
    name = (translate or str)(NAMES.get(code, english))
    return name if name == own else f"{name} ({own})"
