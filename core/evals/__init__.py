"""Evaluating the feedback itself (seed 003): not by satisfaction, but on four dimensions in
priority order, the first two automatic and blocking an AI change, the last two needing people.

    config.py     an AI configuration (prompt hash, model, temperature per role), variants
    gate.py       has the configuration in use passed its blocking eval cases? overrides
    cases.py      the versioned suite: data/evals/*.jsonl
    rules.py      the rule checks a case can ask for (leakage, level, next step, specifics)
    runner.py     run a suite with an LLM: `python -m core evals run`
    saved.py      "save as eval case" from a corrected review item
    pairwise.py   blind pairwise comparison of two configurations by teachers
    comparison_runs.py  drafting a comparison's pairs as a background run

The leakage rule itself is core.leakage (it runs on every drafted comment too); the two judges
are agent roles (core.agents.grounding, core.agents.pedagogy). Student growth over time is not
part of the gate: it lives apart, in core.growth.learning.
"""
from core.language.interface import N_

DIMENSIONS = ("leakage", "grounding", "level", "pedagogy")
DIMENSION_LABELS = {"leakage": N_("leakage"), "grounding": N_("grounding"), "level": N_("level"),
                    "pedagogy": N_("pedagogy")}   # the pages' names for them, shown with t()
# The first two are automatable and block a release (seed 003); the last two need teachers.
BLOCKING = ("leakage", "grounding")
