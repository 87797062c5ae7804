"""Untrusted text (student names and reflections, comments, notes, file names) shown by
Streamlit elements that render Markdown (st.markdown, st.success, st.error, st.caption, ...),
and the word count every page and check shares."""
from __future__ import annotations

import re

from core.language import words as _words

_MD_SPECIAL = set("\\`*_{}[]()#+-.!|<>~$:=&@/")
JOINER = "\u2060"  # WORD JOINER: invisible, no line break
# Where Streamlit's renderer still transforms the text after backslash escapes are resolved
# (it matches on the text itself): emoji and icon shortcodes (:smile:, :material_home:,
# :streamlit:), bare-URL and e-mail autolinks (www., https://, a@b.co) and typographic
# arrows (" -> "). A WORD JOINER goes in at these places only: it travels with copied text,
# so text without them is shown, and copies, exactly as typed.
_NEEDS_JOINER = re.compile(r"(?<=:)(?=[\w+-]+:)|(?<=www)(?=\.)|(?<=:)(?=//)|(?<=[\w.+-]@)"
                           r"|(?:(?<=^[<>~-])|(?<=\s[<>~-]))(?=(?:->|[-=>])(?:\s|$))", re.IGNORECASE)


def words(text: str | None, language: str = "en") -> int:
    """The one word count (core.language.words: letters of any script, hyphens and apostrophes
    inside a word; the same rule for English, Swedish and Russian).

    Used everywhere a number of words is shown, stored or compared with a limit (a
    submission's word count, the short-text flag, the 120-word comment limit), so the page
    and the checks never disagree. Punctuation on its own ("—") is not a word.

    >>> words("It's a well-known idea — e.g. (1) this."), words("Я понял,что ёлка — это из-за ветра.", "ru")
    (7, 7)
    """
    return _words.count(text, language)


def count(n, noun: str, plural: str | None = None) -> str:
    """A number with its noun, singular for one: the one place pages say "1 word", "3 words".

    >>> count(1, "word"), count(3, "word"), count(0, "reply", "replies"), count(1.0, "item")
    ('1 word', '3 words', '0 replies', '1 item')
    """
    shown = f"{n:g}" if isinstance(n, float) else str(n)
    return f"{shown} {noun if n == 1 else plural or noun + 's'}"


def article(noun: str) -> str:
    """The noun with "a" or "an" ("an item", "a run", "an AI draft"): by its first letter, and
    for an abbreviation by how its first letter is spoken.

    >>> article("item"), article("run"), article("LLM call"), article("user")
    ('an item', 'a run', 'an LLM call', 'a user')
    """
    word = str(noun).split(" ")[0]
    spoken_vowel = word[:1].lower() in "aeio" if not word.isupper() or len(word) < 2 else word[:1] in "AEFHILMNORSX"
    return ("an " if spoken_vowel else "a ") + str(noun)


def escape_markdown(text: str) -> str:
    r"""User text as Markdown that Streamlit shows as the same text, interpreting nothing.

    Backslash escapes stop CommonMark (emphasis, links, headings, HTML, code, `$` maths) and
    Streamlit's directives and icons (`:red[...]`, `:material/delete:`; the `/` is escaped as
    Streamlit rewrites ":material/" in the source). What Streamlit matches on the text *after*
    escapes are resolved (see `_NEEDS_JOINER`) gets an invisible WORD JOINER (U+2060) as well;
    nothing else does, so a name like "Physics: :material/home:" copies as typed.

    >>> escape_markdown("**Zoë** :material/delete: 10:30")
    '\\*\\*Zoë\\*\\* \\:material\\/delete\\: 10\\:30'
    >>> escape_markdown(":smile: www.x.io") == "\\:" + JOINER + "smile\\: www" + JOINER + "\\.x\\.io"
    True
    """
    text = str(text)
    joins = {m.start() for m in _NEEDS_JOINER.finditer(text)}
    out = []
    for i, ch in enumerate(text):
        if i in joins:
            out.append(JOINER)
        out.append("\\" + ch if ch in _MD_SPECIAL else ch)
    if len(text) in joins:
        out.append(JOINER)
    return "".join(out)


def shows_exactly(text: str) -> bool:
    """Whether `escape_markdown` shows (and the browser copies) the text with nothing added:
    where not, and the exact text matters (a name to type back), show it with st.text.

    >>> shows_exactly("Physics: :material/home: 10:30"), shows_exactly("see www.x.io")
    (True, False)
    """
    return _NEEDS_JOINER.search(str(text)) is None


_FILE_SPECIAL = set("\\`*_[]<>|~$&#")
_LINE_START = re.compile(r"^([ \t]*)(?:([-+=])|(\d+)[.)])")


def escape_commonmark(text: str) -> str:
    r"""User text for a Markdown *file* (the feedback ZIP), read by any Markdown viewer: every
    character that can start emphasis, a link or image, raw HTML, code, a table cell, maths, an
    entity or a heading is backslash-escaped, and so is a list marker at a line start;
    indentation becomes non-breaking spaces (never a code block). Unlike `escape_markdown` it
    adds no invisible characters: the file also reads cleanly as plain text.

    >>> escape_commonmark('<img src=x onerror=alert(1)> [x](javascript:alert(1)) Zoë')
    '\\<img src=x onerror=alert(1)\\> \\[x\\](javascript:alert(1)) Zoë'
    >>> escape_commonmark("- one\n  2. two")
    '\\- one\n\xa0\xa02\\. two'
    """
    lines = []
    for line in str(text).split("\n"):
        body = "".join("\\" + ch if ch in _FILE_SPECIAL else ch for ch in line)
        m = _LINE_START.match(body)
        if m and m.group(2):
            body = m.group(1) + "\\" + body[m.end(1):]
        elif m:
            body = body[:m.end(3)] + "\\" + body[m.end(3):]
        stripped = body.lstrip(" \t")
        lines.append("\u00a0" * (len(body) - len(stripped)) + stripped)
    return "\n".join(lines)


def _utc(value):
    """A stored timestamp as an aware UTC datetime; None for None or ""; the text itself when
    it is not a timestamp (a naive one is taken as UTC, as the database stores them)."""
    from datetime import datetime, timezone

    if value is None or value == "":
        return None
    text = str(value).strip()
    try:
        at = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return text
    return at.replace(tzinfo=timezone.utc) if at.tzinfo is None else at.astimezone(timezone.utc)


def format_timestamp(value) -> str:
    """A stored UTC timestamp ("2026-11-29T21:27:43.687677Z") as "2026-11-29 21:27 UTC".
    Empty for None or ""; text that is not a timestamp is returned unchanged."""
    at = _utc(value)
    return "" if at is None else at if isinstance(at, str) else at.strftime("%Y-%m-%d %H:%M") + " UTC"


def format_date(value) -> str:
    """The day of a stored UTC timestamp in words: "2026-11-29T21:27:43Z" -> "29 November 2026".
    Empty for None or ""; text that is not a timestamp is returned unchanged.

    >>> format_date("2026-11-29T21:27:43.687677Z"), format_date("2025-01-01"), format_date(None)
    ('29 November 2026', '1 January 2025', '')
    """
    at = _utc(value)
    return "" if at is None else at if isinstance(at, str) else f"{at.day} {at:%B %Y}"
