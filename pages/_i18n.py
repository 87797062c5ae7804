"""The page layer's side of the interface's languages: which language this browser session reads
(the signed-in user's choice, else the browser's, else English) and `t`, the one function every
converted page passes its words through (core.language.interface does the translating).

    t("Sign in")                         the message, in this session's language
    t("Total: {total} of {max}", total=7, max=12)
    tn("{count} character", "{count} characters", n)
    N_("Upload")                         marks a message kept in a table; t(...) where it is shown
    said(error)                          an error whose message core made a Message, translated

The language is kept in the session state for the run (a widget's callback, which runs before
the script, reads the one its page was drawn in). tests/test_i18n.py lists the converted modules
and fails on a string reaching Streamlit without `t`, or on a message with no translation.
"""
from __future__ import annotations

import streamlit as st

from core.accounts import preferences
from core.language import interface
from core.language.interface import N_  # noqa: F401  (re-exported for the pages)

KEY = "_ui_language"
CHOSEN = "_ui_language_chosen"   # the signed-in user's own choice (None: the browser's), read once a run


def browser_language() -> str:
    """The browser's language (its own, then its Accept-Language list), English when unsupported."""
    return browser_offered() or interface.DEFAULT


def browser_offered() -> str | None:
    """The browser's language when FairMark offers it, else None (the caller picks the fallback)."""
    try:
        locale = st.context.locale
    except (AttributeError, RuntimeError):
        locale = None
    try:
        accept = st.context.headers.get("Accept-Language")
    except (AttributeError, RuntimeError, KeyError):
        accept = None
    return interface.from_browser(locale, accept)


def use(code: str) -> str:
    st.session_state[KEY] = code
    return code


def choose(conn, me) -> str:
    """This run's language: the signed-in user's own choice, else the browser's."""
    chosen = preferences.language(conn, actor=me) if me is not None else None
    st.session_state[CHOSEN] = chosen
    return use(chosen or browser_language())


def chosen() -> str | None:
    return st.session_state.get(CHOSEN)


def language() -> str:
    code = st.session_state.get(KEY)
    return code if code in interface.SUPPORTED else browser_language()


def here() -> interface.Interface:
    return interface.Interface(language())


def t(message: str, /, **values) -> str:
    return here()(message, **values)


def tn(singular: str, plural: str, count: int, /, **values) -> str:
    return here().plural(singular, plural, count, **values)


def said(message) -> str:
    """A message from core (an error, a core.language.interface.Message) in this session's language."""
    return here().said(message)


def number(value) -> str:
    return here().number(value)


def date(value) -> str:
    return here().date(value)
