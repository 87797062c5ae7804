"""Untrusted text (student names and reflections, comments, notes, file names) shown by
Streamlit elements that render Markdown (st.markdown, st.success, st.error, st.caption, ...),
and the word count every page and check shares."""
from __future__ import annotations

import re

_WORD_CHAR = re.compile(r"[^\W_]")
_MD_SPECIAL = set("\\`*_{}[]()#+-.!|<>~$:=&@")
JOINER = "\u2060"  # WORD JOINER: invisible, no line break
_JOIN_AFTER = set(":@")
_WWW = re.compile(r"www(?=\\\.)", re.IGNORECASE)


def words(text: str | None) -> int:
    """The one word count: whitespace-separated tokens with at least one letter or digit.

    Used everywhere a number of words is shown, stored or compared with a limit (a
    submission's word count, the short-text flag, the 120-word comment limit), so the page
    and the checks never disagree. Punctuation on its own ("—") is not a word.

    >>> words("It's a well-known idea — e.g. (1) this.")
    7
    """
    # Token by token (not one regex over the text): linear whatever the text is; a regex
    # like \S*[^\W_]\S* backtracks quadratically over 20,000 characters without a letter.
    return sum(1 for token in (text or "").split() if _WORD_CHAR.search(token))


def escape_markdown(text: str) -> str:
    r"""User text as Markdown that Streamlit shows as the same text, interpreting nothing.

    Backslash escapes stop CommonMark (emphasis, links, headings, HTML, code, `$` maths), but
    Streamlit's own shortcodes (`:material/delete:`, `:smile:`, `:red[...]`) and the bare-URL
    and e-mail autolinks are matched on the text *after* escapes are resolved. An invisible
    WORD JOINER (U+2060) after every `:` and `@` and inside `www.` breaks those patterns
    without changing what the reader sees.

    >>> escape_markdown("**Zoë** :material/delete: www.x.io")
    '\\*\\*Zoë\\*\\* \\:\u2060material/delete\\:\u2060 www\u2060\\.x\\.io'
    """
    out = []
    for ch in str(text):
        out.append("\\" + ch if ch in _MD_SPECIAL else ch)
        if ch in _JOIN_AFTER:
            out.append(JOINER)
    return _WWW.sub("www" + JOINER, "".join(out))


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


def format_timestamp(value) -> str:
    """A stored UTC timestamp ("2026-11-29T21:27:43.687677Z") as "2026-11-29 21:27 UTC".
    Empty for None or ""; text that is not a timestamp is returned unchanged."""
    from datetime import datetime, timezone

    if value is None or value == "":
        return ""
    text = str(value).strip()
    try:
        at = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return text
    if at.tzinfo is not None:
        at = at.astimezone(timezone.utc)
    return at.strftime("%Y-%m-%d %H:%M") + " UTC"
