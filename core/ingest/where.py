"""A problem of one uploaded file, named after it ("week1.csv: the first sheet is empty; …"),
and the same problem without the name, for a ZIP member's row of the preview, which names
the member itself. Both stay Messages, so a page shows them in the reader's language."""
from __future__ import annotations

from core.errors import IngestError
from core.language.interface import Message

IN_FILE = "{file}: {problem}"


def in_file(name: str, problem: Message) -> Message:
    """`problem` (a Message) in the file `name`.

    >>> in_file("week1.csv", Message("broken UTF-16 text; save it as UTF-8"))
    'week1.csv: broken UTF-16 text; save it as UTF-8'
    """
    return Message("{file}: {problem}", file=name, problem=problem)


def without_file(error: IngestError, label: str) -> str:
    """An error's problem without the file's name in front; a Message stays one.

    >>> without_file(IngestError(in_file("a.zip/b.csv", Message("the first sheet is empty"))), "a.zip/b.csv")
    'the first sheet is empty'
    """
    m = error.args[0] if len(error.args) == 1 else str(error)
    if isinstance(m, Message):
        return m.values["problem"] if m.msgid == IN_FILE and m.values.get("file") == label else m
    return str(m).removeprefix(f"{label}: ")
