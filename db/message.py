"""A message FairMark gives a person: a str that reads as its English text, and carries its form
(the English template and its values) so that a page can show it in the reader's language.

It lives at the bottom layer, as db/errors.py does, so that db/ can give its refusals as Messages
without importing core/: `raise NotFound(Message("No course {id}.", id=7))`. It is pure (no
gettext, no Babel): the translation is core's, `core.language.interface.Interface.said`, and code
outside db/ imports this same class from `core.language.interface`.

    >>> m = Message("Price row {row}: {field} cannot be negative.", row=2, field="input_per_mtok")
    >>> m, m.msgid, m.values["row"]
    ('Price row 2: input_per_mtok cannot be negative.', 'Price row {row}: {field} cannot be negative.', 2)
    >>> isinstance(m, str), m == "Price row 2: input_per_mtok cannot be negative."
    (True, True)
    >>> p = Message.plural("Wait {count} second.", "Wait {count} seconds.", 3)
    >>> p, p.msgid, p.plural_id, p.count
    ('Wait 3 seconds.', 'Wait {count} second.', 'Wait {count} seconds.', 3)
    >>> both = Message.joined("; ", [Message("Sign in"), p])
    >>> both, both.msgid, [part.msgid for part in both.parts]
    ('Sign in; Wait 3 seconds.', None, ['Sign in', 'Wait {count} second.'])
"""
from __future__ import annotations


class Message(str):
    """A message given to a person (an error, a refusal): it reads as its English text (the
    command line, logs, JSON, tests), and carries its template and values so a page can show it in
    the reader's language (`core.language.interface.Interface.said`). tests/i18n_scan.py collects
    these from the modules of core/ and db/."""
    msgid: str | None
    plural_id: str | None
    count: int | None
    values: dict
    parts: tuple = ()      # Message.joined: the messages shown one after another
    separator: str = ""

    def __new__(cls, message: str, /, **values):
        self = super().__new__(cls, message.format(**values) if values else message)
        self.msgid, self.plural_id, self.count, self.values = message, None, None, values
        return self

    @classmethod
    def plural(cls, singular: str, plural: str, count: int, /, **values) -> "Message":
        self = super().__new__(cls, (singular if count == 1 else plural).format(count=count, **values))
        self.msgid, self.plural_id, self.count, self.values = singular, plural, count, values
        return self

    @classmethod
    def joined(cls, separator: str, parts) -> "Message":
        """Several messages read as one, `separator` between them, each translated where shown.
        A value of a Message may be a Message too: it is translated first where shown."""
        parts = tuple(parts)
        self = super().__new__(cls, separator.join(parts))
        self.msgid, self.plural_id, self.count, self.values = None, None, None, {}
        self.parts, self.separator = parts, separator
        return self
