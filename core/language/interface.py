"""The interface's words in the reader's language: English is the source (every message in the
code is its English text) and the fallback; Swedish and Russian come from gettext catalogues,
core/language/catalogues/<code>.po, read with Babel and compiled in memory once per process (no
compiled .mo file to keep in step). An empty or fuzzy translation shows the English.

The page layer picks the language (the user's choice, else the browser's) and asks for an
`Interface`; core never imports streamlit.

    >>> sv = Interface("sv")
    >>> sv("Sign in")
    'Logga in'
    >>> Interface("en")("Total: {total} of {max}", total=7, max=12)
    'Total: 7 of 12'
    >>> [Interface("ru").plural("{count} week", "{count} weeks", n) for n in (1, 3, 5, 21)]
    ['1 неделя', '3 недели', '5 недель', '21 неделя']
    >>> Interface("ru").date("2026-03-01T10:00:00Z"), Interface("en").date("2026-03-01T10:00:00Z")
    ('1 марта 2026', '1 March 2026')
    >>> from_browser("sv-SE", None), from_browser("de-DE", "de, ru;q=0.8"), from_browser(None, None)
    ('sv', 'ru', None)
"""
from __future__ import annotations

import gettext
import json
import io
import string
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.dates import format_date as babel_date
from babel.numbers import format_decimal

from core.language import DEFAULT, SUPPORTED, normalise
from core.text import format_date
from db.message import Message   # the one Message class (db/ gives Messages too); imported from here outside db/

CATALOGUES = Path(__file__).resolve().parent / "catalogues"
TRANSLATED = tuple(code for code in SUPPORTED if code != DEFAULT)   # the languages with a catalogue


def N_(message: str) -> str:
    """Marks a message for translation where it is defined (a module-level table), translated
    where it is shown: `t(STATUS[key])`. The scan of the pages finds these too."""
    return message


def hidden(message, hide):
    """A Message with `hide` (a function of text, e.g. a pseudonymiser's) applied to the text it quotes (its values and its plain parts), so
    that it still reads in the reader's language; any other text hidden as a whole."""
    if not isinstance(message, Message):
        return hide(message) if isinstance(message, str) else message
    if message.msgid is None:   # Message.joined
        return Message.joined(message.separator, [hidden(part, hide) for part in message.parts])
    values = {k: hidden(v, hide) for k, v in message.values.items()}
    if message.plural_id is not None:
        return Message.plural(message.msgid, message.plural_id, message.count, **values)
    return in_context(getattr(message, "context", None), message.msgid, **values)


IN_SENTENCE = "in a sentence"   # gettext's context (msgctxt) of a name that stands inside a sentence


def in_context(context: str | None, message: str, /, **values) -> Message:
    """A Message whose translation depends on where it stands (gettext's msgctxt): it reads as the
    same English, and the catalogues translate it under `context` (None: none, a plain Message).
    A language's name inside a sentence is one: Swedish and Russian write it in lower case there
    ("språk: svenska"), while the name alone, a label, is capitalised ("Svenska").

    >>> m = in_context(IN_SENTENCE, "Swedish")
    >>> m, Interface("sv").said(m), Interface("sv").said(Message("Swedish")), reread(stored(m)).context
    ('Swedish', 'svenska', 'Svenska', 'in a sentence')
    """
    found = Message(message, **values)
    if context is not None:
        found.context = context
    return found


def stored(message) -> dict | str:
    """A Message as the database keeps it beside its English: a Message's form (msgid, values; nested ones too), so the
    page can show it translated; any other text as it is."""
    if not isinstance(message, Message):
        return str(message)
    if message.msgid is None:   # Message.joined: its parts, each in its form
        return {"joined": message.separator, "parts": [stored(part) for part in message.parts]}
    context = getattr(message, "context", None)
    return {"msgid": message.msgid, "plural": message.plural_id, "count": message.count,
            "values": {k: stored(v) if isinstance(v, Message) else v for k, v in message.values.items()},
            **({"context": context} if context is not None else {})}


def form_of(message) -> dict | None:
    """A Message's stored form (`stored`) if it is JSON-able; None for plain text or a Message with a
    value only Python reads (its English alone is kept then)."""
    if not isinstance(message, Message):
        return None
    form = stored(message)
    try:
        json.dumps(form)
    except (TypeError, ValueError):
        return None
    return form


def read_back(form, english, limit: int | None = None):
    """The Message a stored form gives back (`reread`) while it still reads as the English stored
    beside it (its first `limit` characters, where the English was cut); else the English as it is:
    a form this code cannot read, or one that no longer matches the English (names put back or
    hidden since), never shows something other than what the English says.

    >>> m = Message("{count} words", count=3)
    >>> read_back(stored(m), "3 words").msgid, read_back(stored(m), "4 words")
    ('{count} words', '4 words')
    >>> read_back({"msgid": "{Student-0001} words", "plural": None, "count": None, "values": {}}, "x")
    'x'
    """
    if not form:
        return english
    try:
        message = reread(form)
        text = str(message)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return english
    return message if english is not None and text[:limit] == str(english)[:limit] else english


def message_of(error: BaseException):
    """An error's message: the Message it carries (said in the reader's language where shown), else its text."""
    return error.args[0] if len(error.args) == 1 and isinstance(error.args[0], Message) else str(error)


def reread(form) -> str:
    """The Message back from its stored form (`stored`): it reads as the same English.

    >>> m = Message("{dimension} was vetoed.", dimension=Message("Factual integrity"))
    >>> again = reread(stored(m))
    >>> again == m, again.values["dimension"].msgid
    (True, 'Factual integrity')
    >>> both = reread(stored(Message.joined("; ", [m, Message("No judge gave a verdict.")])))
    >>> both.parts[1].msgid, both == m + "; No judge gave a verdict."
    ('No judge gave a verdict.', True)
    """
    if not isinstance(form, dict):
        return form
    if "parts" in form:
        return Message.joined(form["joined"], [reread(part) for part in form["parts"]])
    values = {k: reread(v) for k, v in form["values"].items()}
    if form["plural"] is not None:
        return Message.plural(form["msgid"], form["plural"], form["count"], **values)
    return in_context(form.get("context"), form["msgid"], **values)


def catalogue_path(code: str) -> Path:
    return CATALOGUES / f"{normalise(code)}.po"


def catalogue_files(code: str) -> list[Path]:
    """A language's catalogue: <code>.po, then any parts in <code>/*.po (one per area of the
    interface, so that work on different pages does not edit the same file)."""
    return [catalogue_path(code)] + sorted((CATALOGUES / normalise(code)).glob("*.po"))


def read_catalogue(code: str):
    """The Babel catalogue of one language (msgid -> message), its files joined. A message
    translated in two files is refused: which one the reader sees would depend on the order."""
    first, *parts = catalogue_files(code)
    with open(first, "rb") as fh:
        catalogue = read_po(fh, locale=code)
    for path in parts:
        with open(path, "rb") as fh:
            part = read_po(fh, locale=code)
        if part.num_plurals != catalogue.num_plurals:
            raise ValueError(f"{path}: its Plural-Forms header differs from {first.name}'s")
        for message in part:
            if not message.id:
                continue
            if catalogue.get(message.id, context=message.context) is not None:   # a msgctxt's is its own
                raise ValueError(f"{path}: {message.id!r} is translated in another file of {code} too")
            catalogue[message.id] = message
    return catalogue


@lru_cache(maxsize=None)
def _translations(code: str) -> gettext.NullTranslations:
    if code == DEFAULT:
        return gettext.NullTranslations()
    buffer = io.BytesIO()
    write_mo(buffer, read_catalogue(code), use_fuzzy=False)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def placeholders(message: str) -> set[str]:
    """The `{name}` fields of a message ("{count:,}" -> "count")."""
    return {field.split(":")[0].split("!")[0] for _, field, _, _ in string.Formatter().parse(message)
            if field is not None}


@dataclass(frozen=True)
class Interface:
    """The messages of one language: `t("Week {week}", week=3)`, `t.plural(one, many, n)`."""
    language: str = DEFAULT

    def __post_init__(self):
        object.__setattr__(self, "language", normalise(self.language))

    def __call__(self, message: str, /, **values) -> str:
        text = _translations(self.language).gettext(message)
        return text.format(**values) if values else text

    def plural(self, singular: str, plural: str, count: int, /, **values) -> str:
        """The form the language uses for `count` (Russian has three); `{count}` is filled in."""
        text = _translations(self.language).ngettext(singular, plural, count)
        return text.format(count=self.number(count), **values)

    def said(self, message) -> str:
        """A Message of core or db/ (or an error carrying one) in this language; any other text as it is.

        >>> m = Message.plural("Wait {count} second.", "Wait {count} seconds.", 3)
        >>> m, Interface("en").said(m) == m
        ('Wait 3 seconds.', True)
        >>> Interface("sv").said(Message("Saved: {bar}.", bar=Message("Sign in")))   # a Message value is said too
        'Sparat: Logga in.'
        >>> m = Message.joined("; ", [Message("Sign in"), Message("{n} and {m}", n=Message("Sign in"), m=2)])
        >>> m, Interface("sv").said(m)
        ('Sign in; Sign in and 2', 'Logga in; Logga in and 2')
        """
        if isinstance(message, BaseException):
            message = message.args[0] if len(message.args) == 1 else str(message)
        if not isinstance(message, Message):
            return str(message)
        if message.msgid is None:   # Message.joined
            return message.separator.join(self.said(part) for part in message.parts)
        values = {k: self.said(v) if isinstance(v, Message) else v for k, v in message.values.items()}
        if message.plural_id is not None:   # a value that is a Message itself is said in this language too
            return self.plural(message.msgid, message.plural_id, message.count, **values)
        if getattr(message, "context", None) is not None:   # core.language.interface.in_context
            text = _translations(self.language).pgettext(message.context, message.msgid)
            return text.format(**values) if values else text
        return self(message.msgid, **values)

    def number(self, value) -> str:
        """A number as the language writes it: 1,000 · 1 000."""
        return format_decimal(value, locale=self.language)

    def date(self, value) -> str:
        """The day of a stored timestamp in words: 1 March 2026 · 1 mars 2026 · 1 марта 2026."""
        text = format_date(value)
        if self.language == DEFAULT or not text:
            return text
        try:
            day = datetime.strptime(text, "%d %B %Y").date()
        except ValueError:   # not a timestamp: shown as it is
            return text
        return babel_date(day, "d MMMM y", locale=self.language)


def from_browser(locale: str | None, accept_language: str | None) -> str | None:
    """The first supported language the browser asks for: its own language (navigator.language,
    e.g. "sv-SE"), then its Accept-Language list in the order of its q-values. None: none of them."""
    wanted: list[tuple[float, int, str]] = []
    for i, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        if tag and q > 0:
            wanted.append((-q, i, tag))
    tags = [locale or ""] + [tag for _, _, tag in sorted(wanted)]
    for tag in tags:
        code = tag.strip().replace("_", "-").split("-")[0].lower()
        if code in SUPPORTED:
            return code
    return None


def choose(preference: str | None, locale: str | None = None, accept_language: str | None = None) -> str:
    """The interface's language: the user's own choice, else the browser's, else English."""
    if preference in SUPPORTED:
        return preference
    return from_browser(locale, accept_language) or DEFAULT
