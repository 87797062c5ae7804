"""The word lists the feedback checks read, per language (core.checks, core.evals.rules): what
praise and critique look like in a comment's opening (strengths first), the assessment's own
jargon (no_terms), capitalised words that are not names and the verbs that follow a name
(specifics), claims about last week's feedback (history), and the person-directed or discouraging phrases of the lexicon that the Equity
Monitor's offline twin and the comment check share.

Every list is a list of regular-expression pieces matched case-insensitively on word
boundaries (Python's \\b knows Cyrillic and å ä ö). A check for a language reads that
language's list and English's (a Swedish teacher's comment may well use an English phrase).
"""
from __future__ import annotations

import functools
import re

from core.language import normalise

PRAISE = {
    "en": (r"good", r"great", r"well", r"clear(?:ly)?", r"strong", r"strength\w*", r"shows?", r"nice", r"excellent",
           r"thoughtful", r"careful(?:ly)?", r"specific", r"insight\w*", r"effective(?:ly)?",
           r"you (?:explain|show|describe|connect|give|use|notice|name|link|compare|reflect|identify|point out|ask)\w*",
           r"I like"),
    "sv": (r"bra", r"utmärkt\w*", r"tydlig\w*", r"stark\w*", r"styrk\w*", r"fin(?:t|a)?", r"genomtänkt\w*",
           r"noggrann\w*", r"konkret\w*", r"insiktsfull\w*", r"intressant\w*", r"välskriv\w*", r"lyckas", r"snyggt",
           r"du (?:förklarar|visar|beskriver|kopplar|ger|använder|märker|namnger|jämför|reflekterar|identifierar|"
           r"pekar på|frågar|lyfter)", r"jag gillar"),
    "ru": (r"хорош\w*", r"отличн\w*", r"ясн\w*", r"ч[её]тк\w*", r"сильн\w*", r"удачн\w*", r"прекрасн\w*", r"молодец",
           r"продуманн\w*", r"внимательн\w*", r"конкретн\w*", r"интересн\w*", r"глубок\w*", r"точн\w*",
           r"убедительн\w*", r"здорово",
           r"(?:ты|вы) (?:хорошо |ясно |ч[её]тко )?(?:объясняе|показывае|описывае|связывае|приводи|используе|замечае|"
           r"сравнивае|размышляе|называе|задае|задаё)\w*", r"мне нравится"),
}
CRITIQUE = {
    "en": (r"but", r"however", r"although", r"missing", r"lacks?", r"needs?", r"should", r"must", r"not", r"no",
           r"don't", r"doesn't", r"isn't", r"unclear", r"weak", r"try", r"improve", r"next"),
    "sv": (r"men", r"dock", r"även om", r"fast", r"saknas", r"saknar", r"behöver", r"bör", r"måste", r"inte", r"ingen",
           r"inget", r"inga", r"oklar\w*", r"svag\w*", r"försök\w*", r"förbättra\w*", r"nästa"),
    "ru": (r"но", r"однако", r"хотя", r"не хватает", r"недостаточно", r"нужно", r"надо", r"следует", r"стоит",
           r"должн\w*", r"не", r"нет", r"неясн\w*", r"слаб\w*", r"попробуй\w*", r"улучш\w*", r"дальше", r"следующ\w*"),
}
# Words a student has not met in class: the assessment's own vocabulary (no_terms; prefixes).
JARGON = {
    "en": ("rubric", "criterion", "criteria", "evaluator", "aggregator", "metacognitive", "LLM", "language model"),
    "sv": ("bedömningsmatris", "matris", "kriteri", "bedömningskriteri", "metakognitiv", "språkmodell", "LLM"),
    "ru": ("рубрик", "критери", "метакогнитивн", "языков модел", "языковая модель", "языковой модел", "LLM",
           "оценочн шкал"),
}
# Capitalised words inside a sentence that are not names of people, places or works (specifics):
# in Swedish and Russian only the polite "you" is capitalised mid-sentence.
NOT_NAMES = {
    "en": frozenset("""I You Your Yours We Our The This That These Those It Its A An And But Or So Next Then
First Second Third Finally Also Try Keep Think Consider Add Write Ask Look Check Start Use Great Good Well
Nice What Why How When Where Which Who Can Could Would Should Could Do Does Did Is Are Was Were Be Have Has
If In On At For With From To Of As By Your Yes No Not Now Here There One Two Three Step Steps Hint Tip
English Monday Tuesday Wednesday Thursday Friday Saturday Sunday""".split()),
    "sv": frozenset("Du Dig Din Ditt Dina Ni Er Ert Era Jag Svenska Steg Tips".split()),
    "ru": frozenset("Вы Вас Вам Вами Ваш Ваша Ваше Ваши Вашего Вашей Вашему Вашим Ваших Вашу Шаг Совет".split()),
}
# Verbs that say a capitalised sentence opening is a person ("Kolb wrote ...").
ATTRIBUTION = {
    "en": r"(?:first |also )?(?:introduced|invented|wrote|said|showed|proposed|found|discovered|argued|developed|"
          r"created|coined|described)",
    "sv": r"(?:först |också )?(?:introducerade|uppfann|skrev|sa|sade|visade|föreslog|fann|upptäckte|hävdade|"
          r"utvecklade|skapade|myntade|beskrev)",
    "ru": r"(?:впервые |также )?(?:ввёл|ввел|ввела|изобр[её]л\w*|написал\w*|сказал\w*|показал\w*|предложил\w*|"
          r"наш[её]л|нашла|открыл\w*|утверждал\w*|разработал\w*|создал\w*|описал\w*)",
}
# A claim about earlier feedback or a plan made with it (the history and follow-through rules);
# "last week" alone is not one (a student may write about what they did last week).
HISTORY = {
    "en": (r"\b(?:last|previous|earlier|past) (?:week|time|assignment|reflection)(?:'s|s')? (?:next steps?|feedback|"
           r"comments?|plans?|goals?|advice|actions?|suggestions?)\b",
           r"\b(?:last|previous|earlier) (?:feedback|comments?)\b",
           r"\blast (?:week|time),? you (?:planned|said|wanted|aimed|decided|promised|set out|were asked|were told|"
           r"agreed)\b",
           r"\b(?:as|like) (?:I|we) (?:suggested|said|mentioned|asked) (?:last|before|earlier)\b",
           r"\b(?:acted|followed (?:up|through)) on\b"),
    "sv": (r"\b(?:förra|föregående|tidigare) (?:veckans|gångens|uppgiftens|reflektionens) (?:nästa steg|återkoppling|"
           r"feedback|kommentar(?:er)?|plan(?:er)?|mål|råd)\b",
           r"\b(?:förra|föregående|tidigare) (?:återkopplingen|kommentaren|kommentarerna|feedbacken)\b",
           r"\b(?:förra veckan|förra gången),? (?:planerade|sa|sade|ville|bestämde|lovade|skulle) du\b",
           r"\bdu (?:planerade|lovade|bestämde) (?:förra veckan|förra gången)\b",
           r"\bsom (?:jag|vi) (?:föreslog|sa|sade|nämnde) (?:förra veckan|förra gången|tidigare)\b",
           r"\b(?:följde|följt) (?:upp|igenom) (?:förra|det du)\b"),
    "ru": (r"\b(?:на прошлой неделе|в прошлый раз),? (?:ты|вы) (?:планировал|собирал|говорил|сказал|хотел|решил|"
           r"обещал|наметил)\w*",
           r"\b(?:прошл|предыдущ)\w* (?:отзыв|комментари|рекомендаци|совет)\w*",
           r"\b(?:следующ\w* шаг\w*|план\w*|цел\w*) (?:с )?(?:прошлой|предыдущей) недели\b",
           r"\bкак (?:я|мы) (?:советовал|предлагал|говорил|писал)\w* (?:раньше|ранее|на прошлой неделе|в прошлый раз)",
           r"\b(?:ты|вы) (?:выполнил|сделал)\w* (?:то, )?что (?:планировал|наметил|обещал)\w*"),
}
# List markers that start a step (actions, next_step): Swedish and Russian lists often use a dash.
BULLETS = {"en": "-*\u2022", "sv": "-*\u2022\u2013\u2014", "ru": "-*\u2022\u2013\u2014"}


def _both(table: dict, language: str) -> tuple:
    language = normalise(language)
    return tuple(dict.fromkeys([*table["en"], *table[language]]))


@functools.lru_cache(maxsize=16)
def praise(language: str = "en") -> re.Pattern:
    return re.compile(rf"\b(?:{'|'.join(_both(PRAISE, language))})\b", re.IGNORECASE)


@functools.lru_cache(maxsize=16)
def critique(language: str = "en") -> re.Pattern:
    return re.compile(rf"\b(?:{'|'.join(_both(CRITIQUE, language))})\b|\?|\(\d\)", re.IGNORECASE)


def jargon(language: str = "en") -> tuple[str, ...]:
    return _both(JARGON, language)


def not_names(language: str = "en") -> frozenset[str]:
    return NOT_NAMES["en"] | NOT_NAMES[normalise(language)]


@functools.lru_cache(maxsize=16)
def attribution(language: str = "en") -> re.Pattern:
    """The start of a sentence that names a person: a capitalised word followed by another
    capitalised word or by a verb of saying or making ("Kolb wrote", "Выготский показал")."""
    verbs = "|".join(dict.fromkeys([ATTRIBUTION["en"], ATTRIBUTION[normalise(language)]]))
    return re.compile(rf"^[\s\"'“„«(\-*\u2022\u2013\u2014\d.)]*([A-ZА-ЯЁÅÄÖ]\S*)\s+(?:[A-ZА-ЯЁÅÄÖ]|(?:{verbs})\b)")


@functools.lru_cache(maxsize=16)
def history(language: str = "en") -> re.Pattern:
    return re.compile("|".join(_both(HISTORY, language)), re.IGNORECASE)


@functools.lru_cache(maxsize=16)
def action_item(language: str = "en") -> re.Pattern:
    """A numbered or bulleted step: "(1)", "1.", "1)", or a list marker at a line start."""
    return re.compile(rf"\(\d\)|(?:^|\n)\s*(?:\d[.)]|[{re.escape(BULLETS[normalise(language)])}])\s+\S")
