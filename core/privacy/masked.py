"""One masked text and how to undo it (core.privacy.pseudonym masks; this restores).

Every replacement is a `Span`: the original text it replaced and the placeholder that took its
place. Restoring touches only those placeholders: a quote from the masked text comes back as
the student wrote it (`Masked.quote`), any other placeholder of a person as their first name,
their pseudonymous e-mail as their address. "[email]" and "[phone]" stay as they are.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

EMAIL_PLACEHOLDER = "[email]"
PHONE_PLACEHOLDER = "[phone]"
# Name particles: matched only as part of the full name (core.privacy.pseudonym), never a first name.
PARTICLES = frozenset("""
af al av bin bint da das de dei del della der des di dos du el ibn la le lo ten ter van von y zu
""".split())


# Name parts that are also ordinary English words: masked only when Capitalised (core.privacy.pseudonym).
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


@dataclass(frozen=True)
class Person:
    name: str
    email: str
    pseudonym: str

    @property
    def first(self) -> str:
        parts = [w for w in self.name.split() if len(w) >= 2 and w.casefold() not in PARTICLES]
        return parts[0] if parts else ""

    @property
    def pseudo_email(self) -> str:
        return f"{self.pseudonym.lower()}@example.invalid"


@dataclass
class Span:
    """One replacement: original text[start:end] became masked text[mstart:mend]."""
    start: int
    end: int
    mstart: int
    mend: int
    placeholder: str
    person: int | None = None


@dataclass
class Masked:
    """One masked text and how to undo it."""
    original: str
    text: str
    spans: list[Span] = field(default_factory=list)
    people: list[Person] = field(default_factory=list)

    @classmethod
    def build(cls, original: str, found: list[tuple[int, int, str, int | None]], people: list[Person]) -> "Masked":
        pieces, spans, pos, mpos = [], [], 0, 0
        for start, end, placeholder, person in found:
            if start < pos:
                continue                                   # overlaps an earlier span
            pieces.append(original[pos:start])
            mpos += start - pos
            pieces.append(placeholder)
            spans.append(Span(start, end, mpos, mpos + len(placeholder), placeholder, person))
            mpos += len(placeholder)
            pos = end
        pieces.append(original[pos:])
        return cls(original, "".join(pieces), spans, people)

    # -- back to the original --------------------------------------------------------------------
    def _to_original(self, mpos: int, *, end: bool) -> int:
        """An offset in the masked text as an offset in the original (a placeholder maps to
        the whole text it replaced)."""
        delta = 0
        for s in self.spans:
            if mpos <= s.mstart or (end and mpos == s.mstart):
                break
            if mpos < s.mend:
                return s.end if end else s.start
            delta = s.end - s.mend
        return mpos + delta

    def quote(self, quote: str) -> str:
        """A quote from the masked text as the student wrote it ("..." omissions kept); a quote
        the masked text does not contain gets the names of `restore` (the evidence check then
        reports it as not found, as it should)."""
        if not quote or not self.spans:
            return quote
        pieces = re.split(r"(\.\.\.|\u2026)", quote)
        out = []
        for piece in pieces:
            core = piece.strip()
            if not core or core in ("...", "\u2026") or not any(s.placeholder in core for s in self.spans):
                out.append(piece)
                continue
            pattern = r"\s+".join(re.escape(w) for w in core.split())
            m = re.search(pattern, self.text, re.IGNORECASE)
            if m is None:
                out.append(self._names(piece))
                continue
            a, b = self._to_original(m.start(), end=False), self._to_original(m.end(), end=True)
            lead, trail = piece[:len(piece) - len(piece.lstrip())], piece[len(piece.rstrip()):]
            out.append(lead + self.original[a:b] + trail)
        return "".join(out)

    _QUOTED = re.compile(r"([\"\u201c\u201d\u00ab\u00bb])([^\"\u201c\u201d\u00ab\u00bb\n]{3,400}?)([\"\u201c\u201d\u00ab\u00bb])")

    def restore(self, text: str) -> str:
        """Quoted passages back to the student's words, then the other placeholders FairMark
        inserted to the person's first name (e-mails to the address)."""
        if not text or not self.spans:
            return text
        text = self._QUOTED.sub(lambda m: m.group(1) + self.quote(m.group(2)) + m.group(3), text)
        return self._names(text)

    def _names(self, text: str) -> str:
        back = {}
        for s in self.spans:
            if s.person is None:
                continue
            person = self.people[s.person]
            if s.placeholder == person.pseudo_email:
                back[s.placeholder] = person.email or EMAIL_PLACEHOLDER
            else:
                back[s.placeholder] = person.first or person.pseudonym
        if not back:
            return text
        rx = re.compile("|".join(re.escape(p) for p in sorted(back, key=len, reverse=True)), re.IGNORECASE)
        return rx.sub(lambda m: back.get(m.group(0)) or back.get(m.group(0).lower()) or m.group(0), text)

    def restore_obj(self, obj, quote_keys: tuple[str, ...] = ("evidence_quote",)):
        """Restore every string inside a JSON-like structure (agent outputs); the values of
        `quote_keys` are quotes from the text and come back as the student wrote them."""
        if isinstance(obj, str):
            return self.restore(obj)
        if isinstance(obj, list):
            return [self.restore_obj(x, quote_keys) for x in obj]
        if isinstance(obj, dict):
            return {k: (self.quote(v) if k in quote_keys and isinstance(v, str) else self.restore_obj(v, quote_keys))
                    for k, v in obj.items()}
        return obj
