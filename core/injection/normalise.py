"""Undoing obfuscation before the patterns and the classifier read a text (core.injection.patterns,
core.injection.classifier): each view of the text is linear in its length. NFKC (full-width and
styled letters), invisible format characters removed (zero-width spaces, soft hyphens), look-alike
letters from other scripts folded to Latin inside mixed-script words ("іgnоre"), letters spelled
out one by one joined ("i g n o r e", "i-g-n-o-r-e"), digits read as letters in words ("1gn0r3"),
and encodings decoded: base64, hex, %-escapes, rot13.
"""
from __future__ import annotations

import base64
import binascii
import codecs
import re
import unicodedata
from urllib.parse import unquote


# --- normalising --------------------------------------------------------------------------------
_APOSTROPHES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})
# Look-alikes (Cyrillic, Greek) -> Latin, applied only inside words that also have Latin letters.
_CONFUSABLES = str.maketrans({
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "х": "x", "і": "i", "у": "y", "ѕ": "s", "ј": "j",
    "ԁ": "d", "ɡ": "g", "һ": "h", "ո": "n", "ν": "v", "ο": "o", "α": "a", "ε": "e", "ι": "i", "κ": "k",
    "τ": "t", "ρ": "p", "м": "m", "т": "t", "н": "h", "к": "k", "в": "b", "г": "r", "ӏ": "l"})
_MIXED_WORD = re.compile(r"\w*[a-z]\w*")
_SPELLED = re.compile(r"(?<!\w)(?:\w[ .\-_*·]{1,2}){3,}\w(?!\w)")
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_HAS_LEET = re.compile(r"[a-z][013457@$]|[013457@$][a-z]")
_LEET_WORD = re.compile(r"\b(?=\w*[a-z])(?=\w*[013457])\w+\b")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
_HEX = re.compile(r"\b(?:[0-9a-fA-F]{2}){10,}\b")
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2}[^\s%]{0,12}){4,}")
SQUASH = re.compile(r"[^a-z]+")


def for_matching(text: str) -> str:
    """The text as the patterns see it: NFKC, invisible format characters (Unicode category Cf)
    removed, runs of spaces collapsed (line breaks kept, because a fake "System:" turn starts a
    line), casefolded, curly quotes straightened.

    >>> for_matching("Ig\u200bnore  PREVIOUS\u00a0instructions")
    'ignore previous instructions'
    """
    return _collapse(_uncollapsed(text))


def _uncollapsed(text: str) -> str:
    text = text or ""
    if not text.isascii():                 # ASCII is already NFKC and has no format characters
        text = unicodedata.normalize("NFKC", text)
        text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return text.translate(_APOSTROPHES).casefold()


def _collapse(text: str) -> str:
    text = re.sub(r"[^\S\n]+", " ", text)
    text = re.sub(r" ?\n[\s]*", "\n", text)
    return text.strip()


def _fold_lookalikes(text: str) -> str:
    return _MIXED_WORD.sub(lambda m: m.group(0).translate(_CONFUSABLES), text)


def _join_spelled(text: str) -> str:
    """ "i g n o r e  p r e v i o u s" -> "ignore previous": letters spelled one by one are joined;
    a wider gap (two spaces, or a space between dashed letters) stays a word break."""
    def join(m: re.Match) -> str:
        s = m.group(0)
        words = re.split(r" {2,}|(?<=\w)[ ](?=\w[\-.·_*])|(?<=[\-.·_*]\w) ", s)
        return " ".join(re.sub(r"[ .\-_*·]", "", w) for w in words)
    return _SPELLED.sub(join, text)


_ENGLISH = frozenset("""a about after all also an and are as at be because but by can could did do does
for from had has have he her his how i if in into is it its just like me more my no not of on one or our
so some than that the their them then there they this to too us very was we were what when which who will
with would you your""".split())
_SENTENCE = re.compile(r"[^.!?\n]{12,}")


def _unreadable(text: str) -> str:
    """Sentences of four or more words without one common English word (rot13 of English looks
    like this; English, and most other prose, does not)."""
    out = []
    for m in _SENTENCE.finditer(text):
        words = re.findall(r"[a-z]+", m.group(0))
        if len(words) >= 4 and not any(w in _ENGLISH for w in words):
            out.append(m.group(0))
    return "\n".join(out)


def _decoded(text: str) -> list[str]:
    """Texts hidden in encodings: base64 and hex runs, %-escapes, and rot13 of the sentences
    that read as no language."""
    out = []
    for m in _BASE64.finditer(text):
        token = m.group(0)
        try:
            raw = base64.b64decode(token + "=" * (-len(token) % 4), validate=True)
            decoded = raw.decode("utf-8")
        except (binascii.Error, ValueError, UnicodeDecodeError):
            continue
        if decoded and sum(c.isprintable() or c.isspace() for c in decoded) / len(decoded) > 0.95:
            out.append(decoded)
    for m in _HEX.finditer(text):
        try:
            out.append(bytes.fromhex(m.group(0)).decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
    if "%" in text:
        for m in _PERCENT.finditer(text):
            out.append(unquote(m.group(0)))
    hidden = _unreadable(text.casefold())
    if hidden:
        out.append(codecs.decode(hidden, "rot13"))
    return out


def views(text: str) -> list[str]:
    """Every way the text is read: as written (normalised) and with each obfuscation undone."""
    raw = _uncollapsed(text)
    plain = _collapse(raw)
    seen = [plain]
    # Each view only when the text has what it undoes (a cheap test first: most texts have none).
    candidates = (_fold_lookalikes(plain) if not plain.isascii() else plain,
                  _collapse(_join_spelled(raw)),
                  _LEET_WORD.sub(lambda m: m.group(0).translate(_LEET), plain) if _HAS_LEET.search(plain) else plain)
    for view in candidates:
        if view not in seen:
            seen.append(view)
    seen += [for_matching(d) for d in _decoded(text)]
    return seen
