"""The same name in Cyrillic and Latin letters, and the forms a name takes in a Swedish or
Russian sentence: what the roster's masking (core.privacy.pseudonym) adds to exact matching.

Cyrillic and Latin: both spellings are reduced to one Latin skeleton and compared there.
Cyrillic is transliterated letter by letter (a GOST 7.79-B / ICAO 9303 style table, below),
then the skeleton folds what the romanisations in use write differently, so "Сергей",
"Sergey", "Sergei" and "Sergej" are one name, as are "Юлия", "Yulia", "Yuliya", "Julia" and
"Iuliia", "Щукин", "Shchukin" and "Schukin", or "Бьорн Линдквист" and "Björn Lindqvist" (ьо =
yo): x = ks, q = k, w = v, kh = h, zh = z, ts/tz = c, sh = s, ch = c, j and y = i, "ie" at the
start or after a vowel = e ("Yelena", "Andreyev"), io = e ("Fyodor" and "Фёдор"), and doubled
letters count once. The fold is lossy on purpose and is used only across scripts (a Latin word
against a roster name written in Cyrillic, a Cyrillic word against a Latin one), never between
two Latin spellings, so it changes nothing for a roster and a text in the same script. No
library does this: Unidecode (GPL) and transliterate give one romanisation, not the skeleton
that several romanisations share, and transliterate has had no release since 2018.

Declension: a Russian name changes its ending with its case ("с Иваном Петровым", "у Анны",
"Марии"), so a capitalised Cyrillic word is also tried with the case endings taken off and the
nominative ones put back (`russian_bases`). A Swedish genitive adds "s" without an apostrophe
("Annas text"): `swedish_base`.

>>> skeleton("Сергей") == skeleton("Sergey") == skeleton("Sergej"), skeleton("Юлия") == skeleton("Iuliia")
(True, True)
>>> skeleton("Щукин") == skeleton("Schukin"), skeleton("Фёдор") == skeleton("Fyodor"), skeleton("Иван")
(True, True, 'ivan')
>>> russian_bases("Иваном")[0], "Анна" in russian_bases("Анной"), "Достоевский" in russian_bases("Достоевского")
('Иван', True, True)
>>> russian_bases("иваном")[0]
'иван'
"""
from __future__ import annotations

import functools
import re
import unicodedata

_CYRILLIC = {
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh", "з": "z", "и": "i", "й": "i",
    "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f",
    "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu",
    "я": "ya", "і": "i", "ї": "i", "є": "e", "ґ": "g",
}
_FOLD = ((re.compile("x"), "ks"), (re.compile("q"), "k"), (re.compile("w"), "v"), (re.compile("kh"), "h"),
         (re.compile("zh"), "z"), (re.compile("t[sz]"), "c"), (re.compile("sh"), "s"), (re.compile("ch"), "c"),
         (re.compile("[jy]"), "i"),
         (re.compile(r"(?:^|(?<=[aeiou]))ie"), "e"), (re.compile("io"), "e"), (re.compile(r"(.)\1+"), r"\1"))
_CYRILLIC_LETTER = re.compile(r"[\u0400-\u04ff]")


def _plain(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word.casefold()) if c.isalpha() and not unicodedata.combining(c))


def is_cyrillic(word: str) -> bool:
    return bool(_CYRILLIC_LETTER.search(word or ""))


@functools.lru_cache(maxsize=1 << 16)
def skeleton(word: str) -> str:
    """A name in either script as its Latin skeleton (see the module's rules)."""
    low = unicodedata.normalize("NFC", word or "").casefold().replace("ьо", "yo")   # "Бьорн": Björn
    latin = "".join(_CYRILLIC.get(c, c) for c in low)
    latin = "".join(c for c in unicodedata.normalize("NFD", latin) if not unicodedata.combining(c))
    latin = "".join(c for c in latin if c.isalpha() or c == "-")
    for rx, to in _FOLD:
        latin = rx.sub(to, latin)
    return latin


# Case ending -> the nominative endings it may stand for ("" = none: "Иван", "Петров").
_RU_ENDINGS = (
    ("ого", ("ий", "ый", "ой", "")), ("его", ("ий", "")), ("ому", ("ий", "ый", "ой", "")), ("ему", ("ий", "")),
    ("ым", ("", "ый")), ("им", ("ий", "")), ("ом", ("", "ий", "ый", "ой")), ("ем", ("й", "ь", "")), ("ём", ("ь", "")),
    ("ой", ("а", "ая", "")), ("ей", ("я", "ь", "ая")), ("ою", ("а",)), ("ую", ("ая",)), ("юю", ("яя",)),
    ("а", ("", "й", "ь")), ("я", ("й", "ь", "")), ("у", ("", "а")), ("ю", ("й", "ь", "я")), ("е", ("", "а", "я", "й", "ь")),
    ("и", ("я", "ь", "а")), ("ы", ("а",)),
)


@functools.lru_cache(maxsize=1 << 16)
def russian_bases(word: str) -> list[str]:
    """The nominative forms a declined Cyrillic name may have, most likely first; [] for a word
    too short. A word in lower case too: a name written "иван" is masked as it stands, so "с
    иваном" must be (a name that is also a common word still needs its capital: the caller's rule)."""
    if len(word) < 4 or not is_cyrillic(word):
        return []
    out: list[str] = []
    low = word.casefold()
    for ending, bases in _RU_ENDINGS:
        if low.endswith(ending) and len(word) - len(ending) >= 2:
            stem = word[:len(word) - len(ending)]
            out += [stem + b for b in bases if stem + b != word and stem + b not in out]
    return out


def swedish_base(word: str) -> str | None:
    """The name in a Swedish genitive ("Annas" -> "Anna"), or None: a capitalised Latin word of
    at least four letters ending in a lower-case s."""
    if len(word) >= 4 and word[:1].isupper() and word.endswith("s") and not is_cyrillic(word) and word[-2].isalpha():
        return word[:-1]
    return None


class Across:
    """A roster's name parts by skeleton, for matching across scripts: a word is looked up
    against the parts written in the other script, and a capitalised Latin word also against
    the Latin parts that are one romanisation among several ("Sergey": also "Sergei", "Sergej"),
    i.e. whose skeleton differs from their plain spelling. Other Latin names ("Ian") keep their
    one spelling: "Jan" is not "Ian"."""

    def __init__(self, names: list[str], common, counts):
        self._by: dict[str, list[tuple[int, bool, bool, bool]]] = {}   # skeleton -> [(person, common, Cyrillic, variant)]
        for i, name in enumerate(names):
            for part in re.split(r"[\s\-\u2010\u2011\u2013]+", name or ""):
                cyr = is_cyrillic(part)
                entry = (i, common(part), cyr, not cyr and skeleton(part) != _plain(part))
                if counts(part) and entry not in self._by.setdefault(skeleton(part), []):
                    self._by[skeleton(part)].append(entry)
        self.cyrillic = any(e[2] for entries in self._by.values() for e in entries)
        self.variants = any(e[3] for entries in self._by.values() for e in entries)

    def entries(self, word: str, cyrillic: bool) -> list[tuple[int, bool]]:
        capitalised = word[:1].isupper()
        return [(person, common) for person, common, c, variant in self._by.get(skeleton(word), ())
                if c != cyrillic or (variant and capitalised and not cyrillic)]


def joined(text: str, spans: list, max_gap: int) -> list:
    """Neighbouring spans (start, end, placeholder, person) of one person with only spaces
    between ("Иваном Петровым", each word found on its own) as one span: one placeholder, as
    for a full name."""
    out: list = []
    for span in spans:
        if out and span[3] is not None and out[-1][3] == span[3] and text[out[-1][1]:span[0]].isspace() \
                and span[0] - out[-1][1] <= max_gap:
            out[-1] = (out[-1][0], span[1], out[-1][2], span[3])
        else:
            out.append(span)
    return out
