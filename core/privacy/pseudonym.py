"""Names, e-mails and phone numbers out before any LLM call; back in for the teacher.

Every student of the course is masked, not only the author: a reflection that names a
classmate ("I worked with Ana López") sends "I worked with Student-7Q2XK" to the model. Each
student becomes their own pseudonym (set at import), their e-mail address their pseudonymous
address, any other e-mail "[email]" and any phone number "[phone]" (core.privacy.pii_spans).

Matching is tolerant of how people actually type, because a single miss sends a real name to
the model:
- text and roster are normalised to NFC first ("José" typed with a combining accent, as macOS
  produces, still matches); accents are optional ("Jose", "Nunez"), case does not matter
  ("anna", "ÅSA"), and the apostrophes ' ’ ‘ ʼ are interchangeable or may be left out
  ("O’Connor", "OConnor", "O Connor"); possessives keep their ending ("O'Connor's" ->
  "Student-7Q2XK's");
- each part of a name is masked on its own (a first name alone, a surname alone, each piece of
  "Anne-Marie"), the full name as one phrase, and initials with a surname ("J. Núñez") or a
  first name with an initial ("Ana L.");
- e-mails in obfuscated forms: "anna.berg [at] uni.se", "anna dot berg at uni dot se", ...
- across alphabets and languages (core.privacy.scripts): a Cyrillic roster name in Latin letters
  and the other way round, in any usual romanisation ("Иван Петров" / "Ivan Petrov", "Сергей" /
  "Sergei" / "Sergej"), a declined Russian name ("с Иваном Петровым"), a Swedish genitive
  ("Annas"); neighbouring words of one person become one placeholder;

Two deliberate exceptions: a name part that is also a common English word ("Will", "Mark",
"Rose", "May", "Grace", "Hope", ...; see COMMON_WORDS) is masked only when written Capitalised,
as a name is, since hiding every "will" or "mark" would change what the model assesses; and
particles ("de", "van", see PARTICLES) only as part of the name ("de la Cruz"), never alone.

What is NOT masked: names of people who are not on the course's roster (a teacher, a family
member, a celebrity). No named-entity model is used: none that installs from the package
registries with its model is well kept (see docs/admin.md). Postal addresses are not masked.

Linear time: the text is read once, token by token, against one dictionary of every roster
name variant (and the e-mail and phone finders are anchored), so 20,000 characters of any
content take milliseconds against a 300-student roster (`python -m bench.masking`).

Restoring touches only what FairMark inserted: each placeholder is recorded with the original
text it replaced. A quote from the text comes back as the student's own words (`Masked.quote`:
"My surname Student-0001" -> "My surname Silva"); any other placeholder becomes the person's
first name ("Well done, Student-0001" -> "Well done, Ana").

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

import bisect
import functools
import re
import unicodedata
from dataclasses import dataclass, field

from core.privacy import pii_spans, scripts
from core.privacy.masked import (COMMON_WORDS, EMAIL_PLACEHOLDER, PARTICLES, PHONE_PLACEHOLDER, Masked,  # noqa: F401
                                 Person, Span)


_APOSTROPHES = "'\u2019\u2018\u02bc"
_HYPHENS = "-\u2010\u2011\u2013"
# A word: letters, with apostrophes or hyphens inside ("O'Connor", "Anne-Marie").
_TOKEN = re.compile(rf"[^\W\d_]+(?:[{re.escape(_APOSTROPHES + _HYPHENS)}][^\W\d_]+)*")
_LETTERS_BEYOND_NFD = str.maketrans({"ø": "o", "Ø": "o", "ł": "l", "Ł": "l", "đ": "d", "Đ": "d", "æ": "ae",
                                     "Æ": "ae", "œ": "oe", "Œ": "oe", "ı": "i", "ß": "ss"})
_STRIP = str.maketrans({**dict.fromkeys(_APOSTROPHES, ""), **dict.fromkeys(_HYPHENS, "-")})
_MAX_GAP = 12                 # whitespace allowed between the words of a name phrase


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text or "")


@functools.lru_cache(maxsize=1 << 16)
def key(word: str) -> str:
    """How a word is compared: no accents, no apostrophes, one hyphen, casefolded.

    >>> key("O’Connor"), key("Núñez"), key("ÅSA"), key("Anne‐Marie")
    ('oconnor', 'nunez', 'asa', 'anne-marie')
    """
    if word.isascii():
        return word.lower().replace("'", "")
    base = "".join(c for c in unicodedata.normalize("NFD", word.translate(_LETTERS_BEYOND_NFD))
                   if not unicodedata.combining(c))
    return base.casefold().translate(_STRIP)


@dataclass(frozen=True)
class _Phrase:
    keys: tuple[str, ...]
    person: int
    common: tuple[int, ...]        # positions of common-word parts (Capitalised unless all caps)
    initial_at: int = -1           # position of a one-letter initial (upper case; "." may follow)


class Roster:
    """A course's students compiled for masking: one dictionary of every name variant."""

    def __init__(self, people: list[Person]):
        self.people = [Person(" ".join(_nfc(p.name).split()), _nfc(p.email).strip(), p.pseudonym) for p in people]
        self._words: dict[str, list[tuple[int, bool]]] = {}     # key -> [(person, needs capital)]
        self._phrases: dict[tuple[str, str], list[_Phrase]] = {}  # first two keys -> phrases, longest first
        self._emails: dict[str, int] = {}
        for i, person in enumerate(self.people):
            self._add(i, person)
        for phrases in self._phrases.values():
            phrases.sort(key=lambda ph: -len(ph.keys))
        self._firsts = frozenset(k[0] for k in self._phrases)
        self._across = scripts.Across([p.name for p in self.people], lambda part: key(part) in COMMON_WORDS,
                                      lambda part: len(part) >= 2 and part.casefold() not in PARTICLES)
        self._forms: dict[str, tuple] = {}      # word -> what _other_forms found (texts repeat their words)

    # -- building ------------------------------------------------------------------------------
    def _add(self, i: int, person: Person) -> None:
        if "@" in person.email:
            self._emails.setdefault(pii_spans.emails(person.email)[0].address if pii_spans.emails(person.email)
                                    else person.email.lower(), i)
        words = person.name.split(" ") if person.name else []
        parts = [w for w in words if len(w) >= 2 and w.casefold() not in PARTICLES]
        for part in parts:
            pieces = [part] + [p for p in re.split(f"[{_HYPHENS}]", part) if len(p) >= 2] if any(
                h in part for h in _HYPHENS) else [part]
            for piece in pieces:
                self._word(key(piece), i, key(piece) in COMMON_WORDS)
            k = key(part)
            if "-" in k:                                  # "Anne-Marie" written "AnneMarie" or "Anne Marie"
                self._word(k.replace("-", ""), i, False)
                self._phrase(tuple(k.split("-")), i, words=None)
            apostrophe = next((a for a in _APOSTROPHES if a in part), None)
            if apostrophe:                                # "O'Connor" written "O Connor"; "Connor" alone
                head, _, tail = part.partition(apostrophe)
                self._phrase((key(head), key(tail)), i, words=None)
                if len(tail) >= 3:
                    self._word(key(tail), i, key(tail) in COMMON_WORDS)
        if len(words) > 1:
            self._phrase(tuple(key(w) for w in words), i, words=words, parts=parts)
        # The particle tail ("van Dijk", "de la Cruz") as a phrase of its own.
        for j in range(1, len(words)):
            if words[j].casefold() in PARTICLES and words[j - 1].casefold() not in PARTICLES \
                    and any(w in parts for w in words[j:]):
                self._phrase(tuple(key(w) for w in words[j:]), i, words=words[j:], parts=parts)
        # Initials: "J. Núñez", "J Núñez" (first initial + last part) and "Ana L." (first + last initial).
        if len(parts) >= 2:
            first, last = parts[0], parts[-1]
            for ph in (_Phrase((key(first[0]), key(last)), i, (), initial_at=0),
                       _Phrase((key(first), key(last[0])), i, (), initial_at=1)):
                self._phrases.setdefault(ph.keys[:2], []).append(ph)

    def _word(self, k: str, i: int, common: bool) -> None:
        entries = self._words.setdefault(k, [])
        if (i, common) not in entries:
            entries.append((i, common))

    def _phrase(self, keys: tuple[str, ...], i: int, *, words: list[str] | None, parts: list[str] = ()) -> None:
        common: tuple[int, ...] = ()
        if words is not None:
            common_pos = tuple(j for j, w in enumerate(words) if w in parts and key(w) in COMMON_WORDS)
            # A phrase with any part that is not a common word is the student in any case.
            if not any(w in parts and j not in common_pos for j, w in enumerate(words)):
                common = common_pos or (-1,)
        if len(keys) >= 2:
            self._phrases.setdefault(keys[:2], []).append(_Phrase(keys, i, common))

    # -- masking -------------------------------------------------------------------------------
    def mask(self, text: str, author: int | None = None) -> "Masked":
        """Mask every roster name, e-mail and phone number in `text`. `author` (an index into
        `people`) wins where a variant belongs to several students ("Ana")."""
        text = _nfc(text)
        spans: list[tuple[int, int, str, int | None]] = []
        for e in pii_spans.emails(text, frozenset(self._emails)):
            person = self._emails.get(e.address)
            spans.append((e.start, e.end, self.people[person].pseudo_email if person is not None
                          else EMAIL_PLACEHOLDER, person))
        for start, end in pii_spans.phones(text):
            spans.append((start, end, PHONE_PLACEHOLDER, None))
        spans.sort()
        taken_starts = [s[0] for s in spans]
        taken = list(spans)
        spans += self._names(text, taken, taken_starts, author)
        spans.sort()
        return Masked.build(text, spans, self.people)

    def _names(self, text: str, taken, taken_starts, author) -> list[tuple[int, int, str, int | None]]:
        out = []
        tokens = list(_TOKEN.finditer(text))
        words, firsts, no_form = self._words, self._firsts, self._forms
        skip_to = 0
        for i, m in enumerate(tokens):
            if i < skip_to:
                continue
            word = m.group(0)
            k = key(word)
            # Most words are no name: one dictionary look-up and on (possessives and
            # hyphenated words take the longer way; a word seen before, one more look-up).
            if k not in words and "-" not in k and not _possessive(word):
                if k not in firsts or i + 1 == len(tokens):
                    if no_form.get(word) != ():
                        out += self._other_form_at(m, author, taken, taken_starts)
                    continue
                second = tokens[i + 1].group(0)
                if (k, key(second)) not in self._phrases and not (
                        _possessive(second) and (k, key(second[:-2])) in self._phrases):
                    out += self._other_form_at(m, author, taken, taken_starts)
                    continue                                 # "a" of "a.a.a.": no phrase goes on with "a"
            if _inside(m.start(), m.end(), taken, taken_starts):
                continue
            hit = self._phrase_at(text, tokens, i, author) if k in firsts else None
            if hit is not None:
                end_index, person, possessive = hit
                end = tokens[end_index].end() - (2 if possessive else 0)   # "Anna Berg's": not the "'s"
                if self._ends_with_initial(tokens[end_index].group(0), text, end):
                    end += 1                                 # "Ana L.": the initial's full stop
                out.append((m.start(), end, self.people[person].pseudonym, person))
                skip_to = end_index + 1
                continue
            out += self._word_at(m, author) or self._other_form_at(m, author, taken, taken_starts)
        return scripts.joined(text, out, _MAX_GAP)

    def _other_form_at(self, m: re.Match, author, taken, taken_starts) -> list[tuple[int, int, str, int | None]]:
        """A word that is no roster name as written: the same name in the other script, a
        declined Russian name or a Swedish genitive (core.privacy.scripts)."""
        word = m.group(0)
        found = self._forms.get(word)
        if found is None:
            if len(self._forms) > 50_000:
                self._forms.clear()
            found = self._forms[word] = self._other_forms(word)
        if not found:
            return []                                      # the common case: one look-up
        people, trim = found
        end = m.end() - trim
        if _inside(m.start(), end, taken, taken_starts):
            return []
        hit = author if author in people else people[0]
        return [(m.start(), end, self.people[hit].pseudonym, hit)]

    def _other_forms(self, word: str) -> tuple[list[int], int] | tuple:
        """(the people the word may name, characters to leave unmasked at its end), or ()."""
        cyrillic, trim = scripts.is_cyrillic(word), 0
        if _possessive(word):
            word, trim = word[:-2], 2                      # "Ivan's": the name, not the "'s"
        forms = [word, *scripts.russian_bases(word)] if cyrillic else [word]
        if not cyrillic and (base := scripts.swedish_base(word)):
            forms.append(base)                             # "Annas": the name, not the "s"
        for form in forms:
            entries = [*(() if form == word else self._words.get(key(form), ())),
                       *self._across.entries(form, cyrillic)]
            people = [person for person, common in entries if not common or form.istitle()]
            if people:
                return people, trim + (1 if form != word and not cyrillic else 0)
        return ()

    def _phrase_at(self, text: str, tokens, i: int, author) -> tuple[int, int, bool] | None:
        if i + 1 >= len(tokens):
            return None
        k0, second = key(tokens[i].group(0)), tokens[i + 1].group(0)
        candidates = self._phrases.get((k0, key(second)), [])
        if _possessive(second):
            candidates = candidates + self._phrases.get((k0, key(second[:-2])), [])
        if not candidates:
            return None
        best = None
        for ph in candidates:
            last = i + len(ph.keys) - 1
            if last >= len(tokens) or (best is not None and len(ph.keys) < best[2]):
                continue
            ok = self._phrase_matches(text, tokens, i, ph)
            if not ok:
                continue
            if best is None or (ph.person == author and best[1] != author and len(ph.keys) == best[2]):
                best = (last, ph.person, len(ph.keys), ok == "possessive")
        return None if best is None else (best[0], best[1], best[3])

    @staticmethod
    def _ends_with_initial(word: str, text: str, end: int) -> bool:
        return len(word) == 1 and word.isupper() and text[end:end + 1] == "."

    @staticmethod
    def _phrase_matches(text: str, tokens, i: int, ph: _Phrase) -> bool | str:
        """False, True, or "possessive" when the last word carries an "'s"."""
        words = [tokens[i + j].group(0) for j in range(len(ph.keys))]
        possessive = False
        for j, k in enumerate(ph.keys):
            if key(words[j]) != k:
                if j == len(ph.keys) - 1 and _possessive(words[j]) and key(words[j][:-2]) == k:
                    possessive = True
                    words[j] = words[j][:-2]
                else:
                    return False
            if j:
                gap = text[tokens[i + j - 1].end():tokens[i + j].start()]
                if ph.initial_at == j - 1 and gap.startswith("."):
                    gap = gap[1:]
                if len(gap) > _MAX_GAP or (gap and not gap.isspace()) or (not gap and ph.initial_at < 0):
                    return False
        if ph.initial_at >= 0:
            initial = words[ph.initial_at]
            if len(initial) != 1 or not initial.isupper():
                return False
            if ph.initial_at == len(ph.keys) - 1:      # "Ana L." needs the full stop
                end = tokens[i + ph.initial_at].end()
                if text[end:end + 1] != ".":
                    return False
        if ph.common:
            phrase = " ".join(words)
            if not (phrase.isupper() and len(words) > 1) and not all(words[j].istitle() for j in ph.common if j >= 0):
                return False
        return "possessive" if possessive else True

    def _word_at(self, m: re.Match, author) -> list[tuple[int, int, str, int | None]]:
        word = m.group(0)
        start = m.start()
        entries = self._words.get(key(word))
        if entries is None and _possessive(word):
            word = word[:-2]                               # "O'Connor's": the name, not the "'s"
            entries = self._words.get(key(word))
        if entries is None:
            if any(h in word for h in _HYPHENS):            # "Ana-and-Zoë" pieces one by one
                out, pos = [], start
                for piece in re.split(f"([{_HYPHENS}])", word):
                    if piece and piece not in _HYPHENS:
                        hit = self._pick(self._words.get(key(piece)), piece, author)
                        if hit is not None:
                            out.append((pos, pos + len(piece), self.people[hit].pseudonym, hit))
                    pos += len(piece)
                return out
            return []
        hit = self._pick(entries, word, author)
        return [] if hit is None else [(start, start + len(word), self.people[hit].pseudonym, hit)]

    @staticmethod
    def _pick(entries, word: str, author) -> int | None:
        if not entries:
            return None
        ok = [person for person, common in entries if not common or word.istitle()]
        if not ok:
            return None
        return author if author in ok else ok[0]


def _possessive(word: str) -> bool:
    return len(word) > 2 and word[-1] in "sS" and word[-2] in _APOSTROPHES


def _inside(start: int, end: int, taken, taken_starts) -> bool:
    j = bisect.bisect_right(taken_starts, start) - 1
    return (j >= 0 and taken[j][1] > start) or (j + 1 < len(taken) and taken[j + 1][0] < end)


@functools.lru_cache(maxsize=32)
def _compiled(people: tuple[Person, ...]) -> Roster:
    return Roster(list(people))


def roster(people) -> Roster:
    """The compiled roster for these people (cached: a run compiles its course once)."""
    return _compiled(tuple(Person(p["name"] or "", p["email"] or "", p["pseudonym"]) if isinstance(p, dict) else p
                           for p in people))


class Pseudonymizer:
    """One student's text masked against the roster (the student alone when no roster is given).
    `hide` returns the masked text; `restore` / `restore_obj` undo the last `hide`."""

    def __init__(self, name: str, email: str, pseudonym: str, roster_people=()):
        author = Person(name or "", email or "", pseudonym)
        people = list(roster_people)
        key_of = [(p["pseudonym"] if isinstance(p, dict) else p.pseudonym) for p in people]
        if pseudonym not in key_of:
            people.append(author)
            key_of.append(pseudonym)
        self.roster = roster(people)
        self.author = key_of.index(pseudonym)
        self.masked = Masked("", "", [], self.roster.people)

    def hide(self, text: str) -> str:
        if not text:
            return text
        self.masked = self.roster.mask(text, self.author)
        return self.masked.text

    def restore(self, text: str) -> str:
        return self.masked.restore(text)

    def quote(self, text: str) -> str:
        return self.masked.quote(text)

    def restore_obj(self, obj):
        return self.masked.restore_obj(obj)
