"""The offline baseline's words for the student, per course language (en, sv, ru): the comment's
openings and layouts, last week's follow-through sentence, the generic next steps, the Coach's
question bank, the Equity Monitor's explanation and rewrite (core.offline.heuristics reads them).

English is the baseline's original wording, unchanged. The Swedish and Russian are what a
teacher would write to a student: Swedish "du", Russian "ты" (as the Swedish and Russian eval
cases write), no past tense with "ты" (its form names the student's gender) and no phrase of
the Equity Monitor's lexicon (core.language.lexicon). Each opening is a sentence of its own with
a praise word of core.language.phrases ("stark", "сильн…", "bra", "хорош…") and none of its
critique words, so the strengths-first check reads it; every question has at most 16 words (the
level cases' sentence limit for young pupils). The criterion titles and improvement hints come
from the rubric: a course's default rubric is in its language (core.rubric.default_rubric).

>>> sorted(WORDING) == ["en", "ru", "sv"]
True
>>> WORDING["sv"].opening(["begreppsförståelse", "tydlighet"])
'Din reflektion är särskilt stark när det gäller begreppsförståelse och tydlighet.'
>>> WORDING["ru"].opening(["глубина рефлексии"])
'Сильная сторона твоей работы — глубина рефлексии.'
"""
from __future__ import annotations

from dataclasses import dataclass

from core.language import normalise


@dataclass(frozen=True)
class Wording:
    strength_one: str              # "{0}": the strongest criterion's title, lower case
    strength_two: str              # "{0}", "{1}": the two strongest
    thanks: str                    # the opening when no criterion is above the low band
    follow_through: dict           # the teacher's mark on last week's step -> a sentence
    steps: str                     # layouts 1 and 2: "{opening} <steps> (1) …"
    build_on: str                  # layout 3: "{opening} <build_on> (1) …; (2) …"
    long_form: str                 # layout 4, "{opening}" and "{listed}" (see heuristics._layouts)
    generic_actions: tuple[str, ...]
    questions: dict                # the Coach's bank: examples, questions, concepts, structure, default, process
    why: str                       # the Equity Monitor: why a phrase is flagged
    rewrite: str                   # ... and how to say it instead
    strengthen: str                # a criterion's step when its rubric has no improvement hint ("{0}": title)
    # What the Coach reads as an example or an open question in a reflection in this language
    # (English reads core.offline.features' markers).
    example_markers: tuple[str, ...] = ()
    question_markers: tuple[str, ...] = ()

    def opening(self, titles: list[str]) -> str:
        if not titles:
            return self.thanks
        return (self.strength_one.format(*titles) if len(titles) == 1 else self.strength_two.format(*titles[:2]))


WORDING = {
    "en": Wording(
        strength_one="Your reflection shows strength in {0}.",
        strength_two="Your reflection shows strength in {0} and {1}.",
        thanks="Thank you for your reflection; it gives a starting point to build on.",
        follow_through={"yes": "This week you acted on last week's next step.",
                        "partly": "This week you made a start on last week's next step."},
        steps="Next steps:",
        build_on="To build on it, your next steps are:",
        long_form="{opening_no_stop}, and these next steps build on it: {listed}.",
        generic_actions=(
            "Add one sentence on what you will do differently because of this topic.",
            "Reread your text once and cut anything that does not support your main point.",
        ),
        questions={
            "examples": "Where at work or in daily life could you try this idea next week, and what would you watch for?",
            "questions": "Which part of this topic is still unclear to you, and how could you find out more?",
            "concepts": "Which key idea from this week was hardest to put into your own words, and why?",
            "structure": "How did you decide what to write first, and would a plan help you next time?",
            "default": "What helped you most to understand this week's topic, and how will you use that next time?",
            "process": "What would you do differently the next time you study a new topic like this one?",
        },
        why="It judges the person or may discourage the student.",
        rewrite="Describe what the work does or lacks, and one concrete step to improve it.",
        strengthen="Strengthen {0} with one concrete step.",
    ),
    "sv": Wording(
        strength_one="Din reflektion är särskilt stark när det gäller {0}.",
        strength_two="Din reflektion är särskilt stark när det gäller {0} och {1}.",
        thanks="Tack för din reflektion, den är en bra grund att bygga vidare på.",
        follow_through={"yes": "Den här veckan följde du förra veckans nästa steg.",
                        "partly": "Den här veckan började du arbeta med förra veckans nästa steg."},
        steps="Nästa steg:",
        build_on="För att utveckla din reflektion vidare föreslår jag följande steg:",
        long_form=("{opening} Här är några förslag som bygger vidare på det du redan gör bra och som kan utveckla "
                   "din reflektion ytterligare: {listed}."),
        generic_actions=(
            "Lägg till en mening om vad du ska göra annorlunda efter det här ämnet.",
            "Läs igenom texten en gång och stryk det som inte stöder din huvudpoäng.",
        ),
        questions={
            "examples": "Var i ditt arbete eller din vardag kan du pröva den här idén nästa vecka?",
            "questions": "Vilken del av ämnet är fortfarande oklar, och hur kan du ta reda på mer?",
            "concepts": "Vilket viktigt begrepp från veckan var svårast att förklara med egna ord, och varför?",
            "structure": "Hur valde du vad du skulle skriva först, och kan en plan hjälpa dig nästa gång?",
            "default": "Vad hjälpte dig mest att förstå veckans ämne, och hur kan du använda det nästa gång?",
            "process": "Vad skulle du göra annorlunda nästa gång du studerar ett nytt ämne som det här?",
        },
        why="Formuleringen bedömer personen eller kan ta modet från eleven.",
        rewrite="Beskriv vad arbetet gör eller saknar, och ett konkret steg för att förbättra det.",
        strengthen="Ta ett konkret steg för att förbättra {0}.",
        example_markers=("till exempel", "t.ex.", "exempelvis", "på jobbet", "på arbetet", "på mitt jobb",
                         "i mitt arbete", "i mitt team", "mitt team", "i vardagen", "hemma"),
        question_markers=("?", "jag undrar", "inte säker", "vad händer om", "förstår inte", "vet inte"),
    ),
    "ru": Wording(
        strength_one="Сильная сторона твоей работы — {0}.",
        strength_two="Сильные стороны твоей работы — {0} и {1}.",
        thanks="Спасибо за твою работу: это хорошая отправная точка.",
        follow_through={"yes": "На этой неделе следующий шаг с прошлой недели выполнен.",
                        "partly": "На этой неделе работа над следующим шагом с прошлой недели уже начата."},
        steps="Дальше:",
        build_on="Чтобы двигаться вперёд, сделай вот что:",
        long_form="{opening} Вот шаги, которые помогут развить то, что у тебя уже получается: {listed}.",
        generic_actions=(
            "Добавь одно предложение о том, что ты будешь делать иначе после этой темы.",
            "Перечитай текст и убери всё, что не поддерживает главную мысль.",
        ),
        questions={
            "examples": "Где ты можешь попробовать эту идею на работе или дома?",
            "questions": "Что в теме тебе пока неясно, и как ты можешь узнать об этом больше?",
            "concepts": "Какое понятие этой недели было труднее всего объяснить своими словами и почему?",
            "structure": "Как ты решаешь, с чего начать текст, и поможет ли тебе план?",
            "default": "Что больше всего помогло тебе понять эту тему, и как ты это используешь?",
            "process": "Что ты сделаешь иначе, когда будешь изучать новую тему?",
        },
        why="Эта формулировка оценивает человека, а не работу, или может обескуражить ученика.",
        rewrite="Опишите, что в работе есть и чего в ней не хватает, и один конкретный шаг, чтобы её улучшить.",
        strengthen="Сделай один конкретный шаг, чтобы улучшить пункт «{0}».",
        example_markers=("например", "к примеру", "на работе", "на моей работе", "в моей работе", "в моей команде",
                         "моя команда", "в жизни", "дома"),
        question_markers=("?", "мне интересно", "не уверен", "не понимаю", "не знаю", "что если", "что будет, если"),
    ),
}


def of(language: str | None) -> Wording:
    """The wording of a course language (a core.language code; English by default)."""
    return WORDING[normalise(language)]
