"""Where a text holds an e-mail address or a phone number: spans for core.privacy.pseudonym to mask.

Both finders are linear in the text, whatever it contains (20,000 characters of one word, of
dots, of digits or of "at at at"): they look for anchors first (an "@", a bracketed or spelled
"at"; a run of digits) and then read a bounded stretch on each side, so no pattern ever
backtracks over the whole text.

E-mails are found in the forms students write them: "anna.berg@uni.se", "anna.berg [at]
uni.se", "anna.berg(at)uni(dot)se", "anna dot berg at uni dot se", "ANNA.BERG @ UNI.SE",
"anna.berg＠uni.se". A plain " at " counts only when the domain spells out "dot" ("bob at x
dot org"), or when the address is one FairMark knows (the roster's): "I looked at chatgpt.com"
is a sentence, not an address.

Phone numbers: a run of 7-15 digits with the usual separators (spaces, dots, dashes, slashes,
parentheses, a leading + or 00), accepted when Google's libphonenumber (`phonenumbers`) finds
it a possible number as an international number or in one of PHONE_REGIONS.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import phonenumbers

# National formats understood without a leading +; any number with a country code is found too.
PHONE_REGIONS = ("US", "GB", "SE", "RU", "DE", "FR", "ES", "IN", "AU")


@dataclass(frozen=True)
class EmailSpan:
    start: int
    end: int
    address: str          # normalised: "anna.berg@uni.se"


# --- e-mails ------------------------------------------------------------------------------
_OPEN, _CLOSE = r"[\[\(\{<]", r"[\]\)\}>]"
# Anchors must be followed by what could start a domain ("@@@" or "at at at" is no address); a
# plain " at " by a label and a dot of some kind.
_ANCHOR = re.compile(rf"(?:[@\uff20]|\s*{_OPEN}\s*(?:at|@)\s*{_CLOSE})(?=\s*[^\W_])"
                     rf"|\s+at\s+(?=[\w+%-]{{1,64}}(?:\s*\.|\s*{_OPEN}\s*(?:dot|\.)|\s+dot\s))", re.IGNORECASE)
_DOT_WORD = rf"\s*{_OPEN}\s*(?:dot|\.)\s*{_CLOSE}\s*|\s+dot\s+"
_LABEL = r"[^\W_][\w+%-]{0,63}"
# Strict: literal dots without spaces, or "dot" spelled or bracketed (the general case).
_DOMAIN = re.compile(rf"\s*({_LABEL}(?:(?:\.|{_DOT_WORD}){_LABEL}){{0,6}})", re.IGNORECASE)
# Loose: also "uni . se" (only for addresses FairMark knows).
_DOMAIN_LOOSE = re.compile(rf"\s*({_LABEL}(?:(?:\s*\.\s*|{_DOT_WORD}){_LABEL}){{0,6}})", re.IGNORECASE)
# The local part, matched on the reversed text just before the anchor.
_REV_DOT_WORD = rf"\s*{_CLOSE}\s*(?:tod|\.)\s*{_OPEN}\s*|\s+tod\s+"
_LOCAL_REV = re.compile(rf"\s*([\w+%-]{{1,64}}(?:(?:\.|{_REV_DOT_WORD})[\w+%-]{{1,64}}){{0,8}})", re.IGNORECASE)
_LOCAL_REV_LOOSE = re.compile(rf"\s*([\w+%-]{{1,64}}(?:(?:\s*\.\s*|{_REV_DOT_WORD})[\w+%-]{{1,64}}){{0,8}})",
                              re.IGNORECASE)
_SEPARATOR = re.compile(rf"\s*\.\s*|{_DOT_WORD}", re.IGNORECASE)
_SPELLED_DOT = re.compile(rf"{_DOT_WORD}", re.IGNORECASE)
_TLD = re.compile(r"[^\W\d_]{2,24}")


def _normal(part: str) -> str:
    return _SEPARATOR.sub(".", part).strip().lower()


def emails(text: str, known: frozenset[str] | set[str] = frozenset()) -> list[EmailSpan]:
    """E-mail addresses in `text` (see the module docstring for the forms); `known` are
    normalised addresses that also count in the loose forms ("anna.berg at uni.se")."""
    found: list[EmailSpan] = []
    rev = None
    last_end = 0
    for anchor in _ANCHOR.finditer(text):
        a0, a1 = anchor.span()
        if a0 < last_end:
            continue
        plain_at = "@" not in anchor.group(0) and "\uff20" not in anchor.group(0) and not re.search(
            _OPEN, anchor.group(0))
        best = None
        # Strict forms first; the loose ones ("anna . berg {at} uni . se") only for known addresses.
        for domain_rx, local_rx in ((_DOMAIN, _LOCAL_REV), (_DOMAIN_LOOSE, _LOCAL_REV_LOOSE)):
            if domain_rx is _DOMAIN_LOOSE and (best is not None or not known):
                break
            d = domain_rx.match(text, a1)
            if d is None:
                continue
            if rev is None:
                rev = text[::-1]
            loc = local_rx.match(rev, len(text) - a0)
            if loc is None:
                continue
            local, domain = loc.group(1)[::-1], d.group(1)
            start, end = a0 - len(loc.group(0)), d.end()
            address = f"{_normal(local)}@{_normal(domain)}"
            labels = address.split("@", 1)[1].split(".")
            if len(labels) < 2 or not _TLD.fullmatch(labels[-1]):
                continue
            if address in known:
                best = EmailSpan(start, end, address)
                break
            if domain_rx is _DOMAIN_LOOSE or (plain_at and not _SPELLED_DOT.search(domain)):
                continue                                     # "looked at chatgpt.com"
            best = EmailSpan(start, end, address)
        if best is not None and best.start >= last_end:
            found.append(best)
            last_end = best.end
    return found


# --- phone numbers ------------------------------------------------------------------------
_PHONE = re.compile(r"(?<![\w+.,/-])(?:\+|00)?(?:\(\d{1,4}\)[ \t.-]?)?\d(?:[ \t.\-/]?\(?\d\)?){5,18}(?![\w/-])")


# Number shapes that are not phone numbers in a reflection: years and year ranges ("2019-2023",
# "2019 2020 2021"), dates ("12.03.2024", "2024-03-12") and ISBNs ("978-3-16-148410-0").
_YEARS = re.compile(r"(?:(?:19|20)\d\d)(?:\s*[-\u2013/ ]\s*(?:19|20)\d\d)*")
_DATE = re.compile(r"\d{1,2}([./-])\d{1,2}\1\d{2,4}|\d{4}([./-])\d{1,2}\2\d{1,2}")
_ISBN = re.compile(r"97[89][- ]?\d[\d -]{9,15}")


def _possible(candidate: str) -> bool:
    digits = re.sub(r"\D", "", candidate)
    if not 7 <= len(digits) <= 15:
        return False
    if _YEARS.fullmatch(candidate) or _DATE.fullmatch(candidate) or (len(digits) == 13 and _ISBN.fullmatch(candidate)):
        return False
    try:
        if candidate.startswith(("+", "00")):
            number = candidate if candidate.startswith("+") else "+" + candidate[2:]
            return phonenumbers.is_possible_number(phonenumbers.parse(number, None))
        for region in PHONE_REGIONS:
            if phonenumbers.is_possible_number(phonenumbers.parse(candidate, region)):
                return True
    except phonenumbers.NumberParseException:
        return False
    return False


def phones(text: str) -> list[tuple[int, int]]:
    """(start, end) of each phone number in `text`."""
    return [m.span() for m in _PHONE.finditer(text) if _possible(m.group(0))]
