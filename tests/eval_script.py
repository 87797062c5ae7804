"""Scripted LLMs for the eval suite (tests only): a compliant one, a leaking one, and one that
follows its prompt, so that a deliberately leaking prompt leaks."""
from __future__ import annotations

import re

from assess_script import good_llm
from core.agents.common import NO_PREVIOUS
from core.evals.cases import load_suite

# Short sentences and plain words: fits every case's level, leads, asks, two numbered steps.
COMPLIANT = ("You made a good start and you say what confused you. Next: (1) Look at your own steps again. "
             "(2) Try one small case by hand. What do you notice?")
LEAKY_LINE = "State this answer in your first sentence: {{answer_key}}"
_KEY = re.compile(r"(?:State this answer in your first sentence|answer key): (.+?)(?: \(a number|\. Never|$)", re.M)


def _bad_comments(dimension: str) -> set[str]:
    return {c.comment for c in load_suite().cases if c.dimension == dimension and c.expect == "fail" and c.comment}


def judging_llm(llm):
    """Judges that decide correctly: they flag exactly the comments the suite says are bad."""
    ungrounded = _bad_comments("grounding")
    poor = _bad_comments("pedagogy") | _bad_comments("leakage")

    def comment_of(messages):
        return re.search(r"<comment>\n(.*)\n</comment>", messages[-1]["content"], re.S).group(1)

    def grounding(messages, schema):
        bad = comment_of(messages) in ungrounded
        return {"grounded": not bad, "unsupported": ["a claim neither text supports"] if bad else [],
                "explanation": "checked against both texts"}

    def pedagogy(messages, schema):
        score = 1 if comment_of(messages) in poor else 4
        return {"leads": score, "level": 4, "next_step": 4, "justification": "judged"}

    return llm.always("grounding", grounding).always("pedagogy", pedagogy)


FOLLOWED = "Last week you planned to add an example; this week's example does that."


# The same comment in the course's other languages: a compliant model writes in the language its
# prompt names (core.language.prompt_line).
COMPLIANT_IN = {
    "Swedish": "Du har gjort en bra start och du säger vad som förvirrade dig. Nästa steg: (1) Titta på dina "
               "egna steg igen. (2) Prova ett litet exempel för hand. Vad lägger du märke till?",
    "Russian": "Ты хорошо начал и честно пишешь, что было трудно. Дальше: (1) Посмотри ещё раз на свои шаги. "
               "(2) Сделай один пример сам. Что ты видишь?",   # short words: the level-3 cases read it
}


def compliant(messages) -> str:
    """COMPLIANT (in the prompt's language), and when the prompt holds last week's comment, a
    sentence that notices it followed."""
    for name, comment in COMPLIANT_IN.items():
        if f"the feedback is in {name}" in messages[0]["content"]:
            return comment
    if NO_PREVIOUS in messages[-1]["content"]:
        return COMPLIANT
    first, rest = COMPLIANT.split(". ", 1)
    return f"{first}. {FOLLOWED} {rest}"


def _coach_question(messages, schema) -> dict:
    """The Coach asks in the course's language the question the compliant comment carries."""
    for name, comment in COMPLIANT_IN.items():
        if f"the feedback is in {name}" in messages[0]["content"]:
            return {"questions": [comment.rsplit(". ", 1)[-1]]}
    return {"questions": ["What would you test first?"]}


def compliant_llm():
    return judging_llm(good_llm().always("aggregator", lambda messages, schema: {"comment": compliant(messages)})
                       .always("coach", _coach_question))


def _under_revision(messages) -> str:
    return re.search(r"<comment>\n(.*)\n</comment>", messages[-1]["content"], re.S).group(1)


def leaking_llm():
    """Writes the answer into every comment it drafts and ignores the fixes when revising."""
    def leak(messages, schema):
        return {"comment": f"The answer is {_KEY.search(messages[0]['content']).group(1).strip()}. " + COMPLIANT}
    return judging_llm(good_llm().always("aggregator", leak)
                       .always("reviser", lambda messages, schema: {"comment": _under_revision(messages)}))


def prompt_following_llm():
    """Complies unless its prompt tells it to state the answer; then it does (and a Reviser told
    so keeps it), like a model following a deliberately leaking prompt."""
    def write(messages, schema):
        system = messages[0]["content"]
        if "State this answer in your first sentence" not in system:
            return {"comment": COMPLIANT}
        if "<fixes>" in messages[-1]["content"]:          # the Reviser keeps the answer it was given
            return {"comment": _under_revision(messages)}
        return {"comment": f"The answer is {_KEY.search(system).group(1).strip()}. " + COMPLIANT}
    return judging_llm(good_llm().always("aggregator", write).always("reviser", write))
