"""The lexicon of person-directed or discouraging phrases, per language: the comment check
("No person-directed or discouraging phrases", core.checks.check_lexicon) and the Equity
Monitor's offline twin (core.offline.heuristics.equity_flags) read it. Matched case-insensitively
on word boundaries; a language's entries are checked together with English's.

Words with an innocent everyday use are left out on purpose: Russian "просто" ("simply",
but also "just" and "easy") and the stem "туп-" alone ("тупик", a dead end) would flag
ordinary comments.

>>> hits("Du är så lat och slarvig, helt enkelt.", "sv")
['du är så lat', 'helt enkelt', 'lat', 'slarvig']
>>> hits("Ты такой ленивый, это очевидно.", "ru")
['ленивый', 'очевидно', 'ты такой ленивый']
>>> hits("Ты зашёл в тупик, но это просто исправить.", "ru")
[]
"""
from __future__ import annotations

import functools
import re

from core.language import normalise

LEXICON = {
    "en": (
        r"you are (?:so |very |really )?(?:lazy|careless|stupid|slow|weak|bad at)",
        r"you(?:'re| are) not (?:smart|good) enough",
        r"your english is (?:bad|poor|weak|terrible|not good)",
        r"your (?:english|grammar|writing) needs work",
        r"lazy", r"careless", r"sloppy", r"stupid", r"pathetic", r"hopeless",
        r"obviously", r"simply", r"clearly you", r"as everyone knows", r"even a child",
        r"you (?:always|never)", r"you failed", r"poor effort", r"disappointing",
        r"you should (?:already )?know", r"basic mistake", r"not (?:very )?bright",
    ),
    "sv": (
        r"du är (?:så |väldigt |verkligen |ganska )?(?:lat|slarvig|dum|korkad|långsam|svag|dålig på)",
        r"du är inte (?:tillräckligt )?(?:smart|bra|duktig) nog",
        r"din svenska är (?:dålig|svag|usel|hemsk|inte bra)",
        r"din (?:svenska|grammatik|text|skrivning) behöver (?:mycket )?arbete",
        r"lat", r"slarvig\w*", r"korkad\w*", r"dum(?:t|ma)?", r"patetisk\w*", r"hopplös\w*", r"uppenbarligen",
        r"helt enkelt", r"som alla vet", r"till och med ett barn", r"du (?:\w+ )?(?:alltid|aldrig)",
        r"du misslyckades", r"dålig insats", r"en besvikelse", r"nedslående",
        r"du borde (?:redan )?veta", r"grundläggande (?:fel|misstag)", r"inte (?:särskilt )?begåvad",
    ),
    "ru": (
        r"(?:ты|вы) (?:такой |такая |такие |очень |совсем )?(?:ленив\w*|небрежн\w*|глуп\w*|тупой|тупая|тупые|"
        r"медлительн\w*|бездарн\w*)",
        r"(?:ты|вы) (?:недостаточно|не очень|не слишком) (?:умн\w*|способн\w*|хорош\w*)",
        r"(?:твой|ваш) (?:русский|шведский|английский)(?: язык)? (?:плох\w*|слаб\w*|ужас\w*)",
        r"(?:твоя|ваша) (?:грамматика|речь) (?:плох\w*|слаб\w*|ужас\w*|хромает)",
        r"ленив\w*", r"небрежн\w*", r"неряшлив\w*", r"глуп\w*", r"тупой", r"тупая", r"жалк\w*", r"безнад[её]жн\w*",
        r"очевидно", r"элементарно", r"как (?:всем известно|все знают)", r"даже реб[её]нок",
        r"(?:ты|вы) (?:\w+ )?(?:всегда|никогда)", r"(?:ты|вы) провалил\w*", r"слаб(?:ая|ой) (?:работ|попытк)\w*",
        r"разочаров\w*", r"(?:ты|вы) (?:уже )?(?:должен|должна|должны) (?:это )?знать", r"элементарн\w* ошибк\w*",
        r"не (?:очень |слишком )?умн\w*",
    ),
}


@functools.lru_cache(maxsize=8)
def compiled(language: str = "en") -> tuple[re.Pattern, ...]:
    language = normalise(language)
    pieces = dict.fromkeys([*LEXICON["en"], *LEXICON[language]])
    return tuple(re.compile(rf"\b{p}\b", re.IGNORECASE) for p in pieces)


def hits(text: str, language: str = "en") -> list[str]:
    """The lexicon's phrases in `text`, lower case, sorted, each once."""
    found = []
    for rx in compiled(language):
        found += [m.group(0) for m in rx.finditer(text or "")]
    return sorted(set(h.lower() for h in found))
