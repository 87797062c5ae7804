"""The agent roles, listed once. Everything that needs to know the roles reads this list: the
pipeline (when each role runs), prompts (each role's file and variables), settings (a model per
role: `FAIRMARK_MODEL_<NAME>` and the Settings page), the run estimate (token budgets), the
offline baseline (each role's `offline(inputs)`), the review item (each role's output, shown
by its `describe`) and the benchmarks.

A role is a module with:
    PROMPT      prompts.Spec: its prompt file and the variables the code passes to it
    run(llm, job: Job) -> LLMResponse
    offline(inputs: dict) -> dict      optional: the answer without an LLM (without it, the
                                       offline baseline does not run the role: "not run")
    TEMPERATURE                        optional: the role's own temperature (judges: 0)
    describe(output, rubric) -> [(kind, text)]   optional: how the review item shows it
    attention(output) -> [reason]      optional: why this answer needs a teacher's look
    IF_FAILED   optional: what is lost when it fails (shown to the teacher)
plus one line below. Its answer is stored in `drafts.outputs[name]`, so a new role needs no
migration.

When a role runs (`stage`):
    score          the Evaluator: its failure fails the item
    after_score    side by side once the scores exist (Equity Monitor, Coach, ...)
    compose        writes the comment (Aggregator)
    review/revise  the Reviewer / Reviser loop on the comment
    after_comment  side by side on the final comment (judges of the feedback, ...)
    tool           never on a submission: work beside the pipeline (the Rubric builder), with its
                   prompt, model and settings like any role, but not part of the AI
                   configuration, the estimate or a draft (`tools()`, not `roles()`)
"""
from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from core.language.interface import N_
from core.agents import (aggregator, coach, common, equity, evaluator, grounding, pedagogy, reviewer, reviser,
                         rubric_builder)

PIPELINE_STAGES = ("score", "after_score", "compose", "review", "revise", "after_comment")
TOOL = "tool"
STAGES = (*PIPELINE_STAGES, TOOL)


@dataclass(frozen=True)
class Role:
    name: str               # prompt file, settings key, outputs key and call-log agent
    module: ModuleType
    label: str              # what teachers and admins read ("Equity Monitor"); N_: translated where shown
    duty: str               # what it does, in a few words (the Settings page); N_ too
    stage: str
    out_tokens: int         # answer tokens per call (per criterion when per_criterion), for the estimate
    reads: tuple[str, ...] = ()   # what the estimate counts as its input: text | notes | comment | previous | bank
    per_criterion: bool = False
    share: float = 1.0      # share of submissions that call it (revision rounds are not on every item)
    answer: type | None = None    # the schema its answer is asked in (a per-rubric one: module.schema_for)

    def __post_init__(self):
        if self.stage not in STAGES:
            raise ValueError(f"role {self.name!r}: stage must be one of {STAGES}")
        if self.module.PROMPT.name != self.name:
            raise ValueError(f"role {self.name!r}: its PROMPT is for {self.module.PROMPT.name!r}")

    def run(self, llm, job: common.Job):
        return self.module.run(llm, job)

    @property
    def prompt(self):
        return self.module.PROMPT

    def schema(self, rubric):
        """The schema this role's answer is asked in, for this rubric (the estimate bills it)."""
        per_rubric = getattr(self.module, "schema_for", None)
        return per_rubric(rubric) if per_rubric is not None else self.answer

    @property
    def if_failed(self) -> str:
        return getattr(self.module, "IF_FAILED", N_("its contribution is missing"))

    def offline(self, inputs: dict) -> dict | None:
        """The offline baseline's answer, or None when the role has none (it then is not run)."""
        fn = getattr(self.module, "offline", None)
        return fn(inputs) if fn is not None else None

    def attention(self, output: dict) -> list[str]:
        """Reasons this answer sends the item to a teacher (a judge's verdict); none by default."""
        fn = getattr(self.module, "attention", None)
        return list(fn(output)) if fn is not None else []

    @property
    def needs_llm(self) -> bool:
        """A role without an offline answer (a judge of the feedback) is not run by the offline
        baseline: its verdict is "not run", never "passed"."""
        return getattr(self.module, "offline", None) is None

    @property
    def temperature(self) -> float | None:
        """The role's own sampling temperature (a judge's 0), or None for the configured one."""
        return getattr(self.module, "TEMPERATURE", None)

    def describe(self, output: dict, rubric) -> list[tuple[str, str]]:
        fn = getattr(self.module, "describe", None)
        return fn(output, rubric) if fn is not None else common.text_blocks(output)


_ROLES: dict[str, Role] = {}


def register(role: Role) -> Role:
    """Add a role (at import below; a test may add its own and `unregister` it after)."""
    if role.name in _ROLES:
        raise ValueError(f"role {role.name!r} is already registered")
    _ROLES[role.name] = role
    return role


def unregister(name: str) -> None:
    _ROLES.pop(name, None)


for _role in (
    Role("evaluator", evaluator, N_("Evaluator"), N_("scores each criterion"), "score", 80, ("text",),
         per_criterion=True),
    Role("equity", equity, N_("Equity Monitor"), N_("checks the notes for biased wording"), "after_score", 40,
         ("notes",),
         answer=equity.EquityReport),
    Role("coach", coach, N_("Metacognitive Coach"), N_("asks about the learning process"), "after_score", 45,
         ("notes", "previous"),
         answer=coach.CoachQuestions),
    Role("aggregator", aggregator, N_("Aggregator"), N_("writes the comment"), "compose", 170,
         ("notes", "previous", "bank"),
         answer=aggregator.Comment),
    # share: every item is reviewed once, and again after each revision round (one item in three).
    Role("reviewer", reviewer, N_("Reflexion Reviewer"), N_("judges the comment against the scores"), "review", 45,
         ("comment", "notes"), share=4 / 3, answer=reviewer.Verdict),
    Role("reviser", reviser, N_("Reviser"), N_("makes targeted fixes to the comment"), "revise", 170, ("comment",),
         share=1 / 3, answer=reviser.Comment),
    # Judges of the feedback itself (seed 003); no offline answer: "not run" without an LLM.
    Role("grounding", grounding, N_("Grounding judge"),
         N_("checks the comment against the student's text and the source"),
         "after_comment", 45, ("text", "comment"), answer=grounding.GroundingVerdict),
    Role("pedagogy", pedagogy, N_("Pedagogy judge"), N_("rates leading, level and next step (1-5)"),
         "after_comment", 55,
         ("text", "comment"), answer=pedagogy.PedagogyVerdict),
    # Beside the pipeline: drafts a rubric for a teacher to edit and save (core.courses.rubric_builder).
    Role("rubric_builder", rubric_builder, N_("Rubric builder"), N_("drafts a rubric from a description and examples"),
         TOOL, 1200, answer=rubric_builder.RubricDraft),
):
    register(_role)


def get(name: str) -> Role:
    try:
        return _ROLES[name]
    except KeyError:
        raise KeyError(f"no agent role {name!r}; roles: {', '.join(_ROLES)}") from None


def roles() -> list[Role]:
    """The roles of the reflection pipeline (what drafts, configurations and estimates are made of)."""
    return [r for r in _ROLES.values() if r.stage != TOOL]


def tools() -> list[Role]:
    """The roles beside the pipeline (the Rubric builder)."""
    return [r for r in _ROLES.values() if r.stage == TOOL]


def names() -> list[str]:
    return [r.name for r in roles()]


def at(stage: str) -> list[Role]:
    return [r for r in _ROLES.values() if r.stage == stage]


def labels() -> dict[str, str]:
    return {r.name: r.label for r in _ROLES.values()}


def load_prompts(variant_dir=None) -> dict:
    """pipeline role -> its loaded Prompt (validated against the variables its code passes); from
    a variant folder where it has the role's file (core.evals.config)."""
    return {r.name: r.prompt.load_variant(variant_dir) for r in roles()}


def prompt_hashes(variant_dir=None) -> dict[str, str]:
    """role -> content hash of its prompt, and the prompt of the call that answers for the
    grounding and pedagogy judges at once under its name (stored with every run and draft)."""
    from core.judging import comment_judges     # it reads the two roles' schemas: imported late

    joint = {p.name: p.load_variant(variant_dir).hash for p in (comment_judges.PROMPT,)}
    return {**{name: p.hash for name, p in load_prompts(variant_dir).items()}, **joint}
