"""A user's own preferences (the teachers' own languages): the language they read the interface
in. Unset, the interface follows the browser's language (core.language.interface.choose).

A user sets their own; an admin may set anyone's (the command line acts as an admin).
"""
from __future__ import annotations

import db
from core.accounts.access import Actor, require
from core.errors import ConfigError
from core.language import SUPPORTED, normalise
from core.language.course import unsupported
from core.language.interface import Message
from db import users as users_db

BROWSER = "browser"   # what clears the choice on the command line


def language(conn, *, actor: Actor) -> str | None:
    """The signed-in user's chosen language (None: not chosen, or not a user: the browser's). A student
    has no account and no preference: refused (their page follows the browser)."""
    require(actor, "read")
    user_id = getattr(actor, "user_id", None)
    if user_id is None:
        return None
    code = users_db.language(conn, user_id)
    return code if code in SUPPORTED else None


def set_language(conn, user_id: int, choice: str | None, *, actor: Actor) -> str | None:
    """Set (or, with None, "" or "browser", clear) a user's interface language; returns what is stored."""
    require(actor, "read")                 # who the actor is is read only once they pass a check
    if getattr(actor, "user_id", None) != user_id:
        require(actor, "users")
    if choice is None or not str(choice).strip() or str(choice).strip().lower() == BROWSER:
        stored = None
    else:
        try:
            stored = normalise(choice)
        except ValueError:
            raise ConfigError(Message("{refusal} Or `{browser}` to follow the browser's language.",
                                      refusal=unsupported(choice), browser=BROWSER)) from None
    with db.write_transaction(conn):
        users_db.set_language(conn, user_id, stored, actor=actor)
    return stored
