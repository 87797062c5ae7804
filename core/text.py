"""Untrusted text (student names and reflections, comments, notes, file names) shown by
Streamlit elements that render Markdown (st.markdown, st.success, st.error, st.caption, ...),
and the word count every page and check shares."""
from __future__ import annotations

import re

_WORD_CHAR = re.compile(r"[^\W_]")
_MD_SPECIAL = set("\\`*_{}[]()#+-.!|<>~$:=&")


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
    """Backslash-escape every Markdown/Streamlit special so student text renders as text."""
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in str(text))


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
