"""The agent roles (seed 000, Zhang & Luo 2025): one small module each, with its output schema and one
function that renders the role's prompt and calls the LLM it is given.

    evaluator  -> scores, reasoning, areas for improvement, evidence quote per criterion
    equity     -> flagged phrases in the Evaluator's notes, why, neutral rewrite
    coach      -> 1-2 questions about the student's own learning process
    aggregator -> the student-facing comment (<= 120 words)
    reviewer   -> CONFIDENT or REVISE with concrete fixes
    reviser    -> a targeted revision of the comment (the Reviewer's fixes, failed checks)

They are listed once, in `core.agents.registry`; everything else reads that list.
Roles never import each other: what several share (the call, the Comment schema, the Evaluator's
notes as the next roles read them) is in `core.agents.common`.
Agents never build clients: the pipeline passes an `LLM` (core.llm protocol).
"""
from core.agents.common import Ids, Job

__all__ = ["Ids", "Job"]
