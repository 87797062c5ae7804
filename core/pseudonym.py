"""Names and e-mails out before any LLM call, back in for the teacher.

The student's full name, each part of it (a first name mentioned inside the reflection) and
their e-mail become the pseudonym set at import; any other e-mail address becomes "[email]".

Matching is tolerant of how people actually type, because a single miss sends a real name to
the model:
- name, e-mail and text are normalised to NFC first, so "José" typed with a combining accent
  (NFD, as macOS and some web forms produce) still matches; accents are optional ("Jose" matches
  "José"), since students often drop them;
- name parts match whole words in any case ("anna", "ÅSA"), and the apostrophes ' ’ ‘ ʼ (and the
  hyphens - ‐ ‑ –) are interchangeable, so "O’Brien" matches a roster "O'Brien";
- hyphenated names also match by piece ("Anne-Marie" hides "Anne" and "Marie");
- e-mails are caught in obfuscated forms too: "anna.berg [at] uni.se", "anna dot berg at uni dot
  se", "anna.berg (at) uni (dot) se", "anna.berg @ uni.se".

One deliberate exception: a name part that is also a common English word ("Will", "Mark",
"Rose", "May", "Grace", "Hope", "Memory", ...; see COMMON_WORDS) is hidden only when written
Capitalised, as a name is. Hiding every "will" or "mark" would mangle ordinary sentences and
change what the model assesses; a lower-case "rose" is far more often the verb than the student.
Particles ("de", "van", see PARTICLES) are hidden only as part of the name ("de la Cruz"),
never on their own.

>>> p = Pseudonymizer("Anna Berg", "anna.berg@uni.se", "Student-0007")
>>> p.hide("I am Anna (anna.berg@uni.se); Anna Berg's view, cc bob@x.org")
"I am Student-0007 (student-0007@example.invalid); Student-0007's view, cc [email]"
>>> p.hide("anna here, write to anna dot berg at uni dot se")
'Student-0007 here, write to student-0007@example.invalid'
>>> p.restore("Well done, Student-0007.")
'Well done, Anna.'
>>> Pseudonymizer("Hope van Dijk", "", "Student-0008").hide("I hope Hope van Dijk took the van.")
'I hope Student-0008 took the van.'
"""
from __future__ import annotations

import re
import unicodedata

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")

# Interchangeable characters inside a name.
_APOSTROPHES = "'\u2019\u2018\u02bc"
_HYPHENS = "-\u2010\u2011\u2013"
_CHAR_CLASSES = {c: f"[{re.escape(_APOSTROPHES)}]" for c in _APOSTROPHES}
_CHAR_CLASSES.update({c: f"[{re.escape(_HYPHENS)}]" for c in _HYPHENS})

# Name particles: matched only as part of the full name, whatever case the roster uses.
PARTICLES = frozenset("""
af al av bin bint da das de dei del della der des di dos du el ibn la le lo ten ter van von y zu
""".split())

# Name parts that are also ordinary English words: hidden only when Capitalised.
COMMON_WORDS = frozenset("""
ace ai amber an angel april art ash august autumn baker banks bay bear beauty bell best bill bird
black blessing bob bond brook brown buck bud bush butler can carol case cash chance charity chase
church cliff comfort cook cross crystal daisy dale dawn day dean do don dove drew eve else faith
fair favor favour field fields fisher ford fox frank frost gay gene gift glen gold good grace
grant gray green grey guy hale hall hand happy hardy hart hazel head heather hill holly honey honor
honour hope house hunt hunter innocent iris ivy jack jade jan job joy june justice king lamb lane
law lee light lily little long love lucky mark marsh mason max may memory mercy miles mills moon
moss norm north olive page park parks pat patience peace pearl penny per pool power precious
price promise read reed rice rich river rivers rob robin rock rose ruby rush sage said sandy
sharp silence sky small sol sparks star steel stone storm street strong sue summer sun sunny swift
violet wade ward warren wells west white will winter wisdom wise wolf wood woods young
""".split())


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text or "")


def _base(ch: str) -> str:
    """The letter without its accents ("é" -> "e"), or the letter itself."""
    return "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c))


def _letters(part: str) -> str:
    """Regex for one name part: accents optional, apostrophes and hyphens interchangeable."""
    out = []
    for ch in part:
        if ch in _CHAR_CLASSES:
            out.append(_CHAR_CLASSES[ch])
        elif (base := _base(ch)) and base != ch:
            out.append(f"(?:{re.escape(ch)}|{re.escape(base)})")
        else:
            out.append(re.escape(ch))
    return "".join(out)


def _word(pattern: str) -> re.Pattern:
    return re.compile(rf"(?<!\w){pattern}(?!\w)", re.IGNORECASE)


# E-mail obfuscations: "[at]", "(at)", " at ", "@" with spaces; "[dot]", " dot ".
_OPEN, _CLOSE = r"[\[\(\{<]", r"[\]\)\}>]"
_AT_BRACKETED = rf"\s*(?:[@\uff20]|{_OPEN}\s*(?:at|@)\s*{_CLOSE})\s*"
_AT_WORD = r"\s+at\s+"
_DOT_WORD = rf"(?:\s*{_OPEN}\s*(?:dot|\.)\s*{_CLOSE}\s*|\s+dot\s+)"
_DOT_ANY = rf"(?:\s*\.\s*|{_DOT_WORD})"
_LABEL = r"[\w+%-]+"
_TLD = r"[^\W\d_]{2,24}(?!\w)"
# Any address written with a symbol or a bracketed "at" ("bob [at] x.org", "bob @ x dot org")...
_OBFUSCATED_EMAIL = re.compile(
    rf"{_LABEL}(?:(?:\.|{_DOT_WORD}){_LABEL})*{_AT_BRACKETED}{_LABEL}(?:(?:\.|{_DOT_WORD}){_LABEL})*(?:\.|{_DOT_WORD}){_TLD}",
    re.IGNORECASE)
# ...or with a plain " at " only when "dot" is spelled out too ("bob at x dot org"): a plain
# "looked at chatgpt.com" is an ordinary sentence, not an address (see _spelled_out).
_SPELLED_EMAIL = re.compile(
    rf"{_LABEL}(?:(?:\.|{_DOT_WORD}){_LABEL})*{_AT_WORD}{_LABEL}(?:(?:\.|{_DOT_WORD}){_LABEL})*(?:\.|{_DOT_WORD}){_TLD}",
    re.IGNORECASE)
_SPELLED_DOT = re.compile(r"(?<!\w)dot(?!\w)", re.IGNORECASE)


def _spelled_out(replace):
    """Replace a _SPELLED_EMAIL match only if its domain (after " at ") spells out "dot"."""
    def sub(m: re.Match) -> str:
        domain = re.split(_AT_WORD, m.group(0), maxsplit=1, flags=re.IGNORECASE)[-1]
        return replace(m) if _SPELLED_DOT.search(domain) else m.group(0)
    return sub


def _email_pattern(email: str) -> re.Pattern:
    """The student's own address in any of the obfuscated forms (including a plain " at ")."""
    local, _, domain = email.partition("@")

    def dotted(s: str) -> str:
        return _DOT_ANY.join(re.escape(piece) for piece in s.split("."))

    return re.compile(rf"(?<![\w.+-]){dotted(local)}(?:{_AT_BRACKETED}|{_AT_WORD}){dotted(domain)}(?![\w-])",
                      re.IGNORECASE)


class Pseudonymizer:
    def __init__(self, name: str, email: str, pseudonym: str):
        self.name = " ".join(_nfc(name).split())
        self.email = _nfc(email).strip()
        self.pseudonym = pseudonym
        self.pseudo_email = f"{pseudonym.lower()}@example.invalid"
        words = self.name.split(" ") if self.name else []
        # Particles ("de", "van") are matched only as part of the name, whatever the roster's case.
        parts = [w for w in words if len(w) >= 2 and w.casefold() not in PARTICLES]
        self.first = parts[0] if parts else ""
        pieces = {piece for w in parts for piece in re.split(f"[{re.escape(_HYPHENS)}]", w) if len(piece) >= 2}
        candidates = set(parts) | {p for p in pieces if p.casefold() not in PARTICLES}
        # The full name and its particle tail ("van Dijk", "de la Cruz") are matched as phrases.
        tails = [words[i:] for i in range(1, len(words))
                 if words[i].casefold() in PARTICLES and words[i - 1].casefold() not in PARTICLES
                 and any(w in parts for w in words[i:])]
        self._phrases = [self._phrase(ws, parts) for ws in ([words] if words else []) + tails]
        # Longest parts first so "Anne-Marie" wins over "Anne".
        self._parts = [(_word(_letters(p)), _base_word(p) in COMMON_WORDS)
                       for p in sorted(candidates, key=lambda p: (-len(p), p))]
        self._own_email = _email_pattern(self.email) if "@" in self.email else None

    def hide(self, text: str) -> str:
        if not text:
            return text
        text = _nfc(text)
        if self._own_email is not None:
            text = self._own_email.sub(self.pseudo_email, text)

        def other(m: re.Match) -> str:
            return m.group(0) if m.group(0).lower() == self.pseudo_email else "[email]"

        text = _EMAIL.sub(other, text)
        text = _OBFUSCATED_EMAIL.sub(other, text)
        text = _SPELLED_EMAIL.sub(_spelled_out(other), text)
        for rx, check in self._phrases:
            text = rx.sub(lambda m, check=check: self.pseudonym if check(m.group(0)) else m.group(0), text)
        for rx, common in self._parts:
            if common:
                text = rx.sub(lambda m: self.pseudonym if m.group(0).istitle() else m.group(0), text)
            else:
                text = rx.sub(self.pseudonym, text)
        return text

    @staticmethod
    def _phrase(words: list[str], parts: list[str]):
        """Regex for a multi-word name and the test a match must pass.

        A phrase made only of common words ("will rose", "mark may") needs those words
        Capitalised, or the whole phrase in capitals ("WILL ROSE" is a signature); a phrase
        with any other part ("hope van dijk") is the student in any case."""
        rx = _word(r"\s+".join(_letters(w) for w in words))
        common = [i for i, w in enumerate(words) if w in parts and _base_word(w) in COMMON_WORDS]
        if any(w in parts and i not in common for i, w in enumerate(words)):
            return rx, lambda found: True

        def check(found: str) -> bool:
            tokens = found.split()
            return (found.isupper() and len(tokens) > 1) or all(tokens[i].istitle() for i in common)

        return rx, check

    def restore(self, text: str) -> str:
        if not text:
            return text
        text = re.sub(re.escape(self.pseudo_email), lambda _: self.email or "[email]", text, flags=re.IGNORECASE)
        return text.replace(self.pseudonym, self.first or self.pseudonym)

    def restore_obj(self, obj):
        """Restore every string inside a JSON-like structure (agent outputs)."""
        if isinstance(obj, str):
            return self.restore(obj)
        if isinstance(obj, list):
            return [self.restore_obj(x) for x in obj]
        if isinstance(obj, dict):
            return {k: self.restore_obj(v) for k, v in obj.items()}
        return obj


def _base_word(word: str) -> str:
    return "".join(_base(c) for c in word).casefold()
