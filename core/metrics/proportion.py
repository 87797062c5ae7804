"""A share of a count with its 95 % Wilson interval, in words: what the appeal rates report
(a rate of a few events out of a few dozen, where a normal interval would go below 0).

    >>> share(3, 40, "student", "appealed")["text"]
    '3 of 40 students appealed (7.5 %, 95 % interval 2.6–19.9 %)'
    >>> share(1, 1, "decided appeal", "upheld")["text"]
    '1 of 1 decided appeal upheld (100.0 %, 95 % interval 20.7–100.0 %)'
    >>> share(0, 0, "student", "appealed", empty="no released feedback yet")["text"]
    'no released feedback yet'
"""
from __future__ import annotations

from core.language.interface import Message
from core.text import count

Z95 = 1.959964


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of k successes in n trials; None for n = 0."""
    if n <= 0:
        return None
    p = k / n
    centre = p + z * z / (2 * n)
    spread = z * ((p * (1 - p) + z * z / (4 * n)) / n) ** 0.5
    lo, hi = (centre - spread) / (1 + z * z / n), (centre + spread) / (1 + z * z / n)
    return max(0.0, lo), min(1.0, hi)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def share(k: int, n: int, noun: str, verb: str, *, empty: str = "nothing to count yet") -> dict:
    """{"k", "n", "share" (None for n = 0), "ci" [lo, hi] or None, "text"}: "k of n <noun>s <verb>"
    (the noun in the singular: "student", "decided appeal"); `empty` is said for n = 0."""
    ci = wilson(k, n)
    if ci is None:
        return {"k": k, "n": n, "share": None, "ci": None, "text": empty}
    values = {"k": k, "share": _pct(k / n), "lo": _pct(ci[0]), "hi": _pct(ci[1])}
    return {"k": k, "n": n, "share": k / n, "ci": list(ci), "text": _text(noun, verb, n, values)}


def _text(noun: str, verb: str, n: int, values: dict) -> str:
    """"k of n <noun>s <verb> (…)": a Message for the nouns and verbs the appeal rates use (a page
    translates it, the noun's form following n), English for any other."""
    if (noun, verb) == ("student", "appealed"):
        return Message.plural("{k} of {count} student appealed ({share} %, 95 % interval {lo}–{hi} %)",
                              "{k} of {count} students appealed ({share} %, 95 % interval {lo}–{hi} %)", n, **values)
    if (noun, verb) == ("released result", "appealed"):
        return Message.plural("{k} of {count} released result appealed ({share} %, 95 % interval {lo}–{hi} %)",
                              "{k} of {count} released results appealed ({share} %, 95 % interval {lo}–{hi} %)", n,
                              **values)
    if (noun, verb) == ("decided appeal", "upheld"):
        return Message.plural("{k} of {count} decided appeal upheld ({share} %, 95 % interval {lo}–{hi} %)",
                              "{k} of {count} decided appeals upheld ({share} %, 95 % interval {lo}–{hi} %)", n,
                              **values)
    return "{k} of {n} {verb} ({share} %, 95 % interval {lo}–{hi} %)".format(n=count(n, noun), verb=verb, **values)
