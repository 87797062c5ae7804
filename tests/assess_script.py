"""Scripts for the assessment tests: a ScriptedLLM answering every role like a sane model.

Answers are computed from the prompt (callables), so they fit any rubric and any number of
submissions running concurrently.
"""
from __future__ import annotations

import re
import typing

from fake_llm import ScriptedLLM

GOOD_COMMENT = ("You explain temperature clearly and give a concrete example from work. "
                "Next: (1) connect temperature to bias, (2) add one question you still have. "
                "What would you test first?")

RICH_TEXT = (
    "This week I learned how a large language model predicts the next token and how temperature "
    "changes the randomness of its answers. For example, at work I used a chatbot to draft emails, and "
    "with a higher temperature the drafts became more creative but less reliable.\n\n"
    "I wonder how bias enters the training data? I am not sure we can trust these tools for hiring, "
    "because the data may reflect old assumptions. Therefore I will test the same prompt several times "
    "and compare the results. However, tokens still confuse me a little. Finally, the course helped me "
    "see the limits of these systems in practice, such as when they invent facts or sources that do not exist."
)


# The feedback judges (seed 003) content with the comment.
GROUNDED = {"grounded": True, "unsupported": [], "explanation": "Every claim is in the submission."}
GOOD_PEDAGOGY = {"leads": 4, "level": 4, "next_step": 5, "justification": "Hints, refers to the text, ends with a question."}


def evaluation_for(schema, score: int | None = None, quote: str = "") -> dict:
    """A valid Evaluator answer for whatever rubric `schema` was built from."""
    out = {}
    for key, field in schema.model_fields.items():
        if key == "instructions_to_ai":   # the report on instructions, not a criterion
            continue
        levels = typing.get_args(field.annotation.model_fields["score"].annotation)
        out[key] = {"score": levels[-2] if score is None else score,
                    "reasoning": f"The text addresses {key} with some detail. It could go further.",
                    "areas_for_improvement": [f"Add one concrete detail on {key}."],
                    "evidence_quote": quote}
    return out


def submission_text(messages) -> str:
    return re.search(r"<submission>\n(.*)\n</submission>", messages[-1]["content"], re.DOTALL).group(1)


def good_llm(**kw) -> ScriptedLLM:
    """Every role answers well: the draft passes checks and the Reviewer is CONFIDENT."""
    llm = ScriptedLLM(**kw)
    llm.always("evaluator", lambda messages, schema: evaluation_for(schema))
    llm.always("equity", {"flags": []})
    llm.always("coach", {"questions": ["What would you test first?"]})   # the comment carries it
    llm.always("aggregator", {"comment": GOOD_COMMENT})
    llm.always("reviewer", {"verdict": "CONFIDENT", "fixes": [], "explanation": "Matches the scores."})
    llm.always("grounding", GROUNDED)
    llm.always("pedagogy", GOOD_PEDAGOGY)
    return llm
