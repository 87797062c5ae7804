"""Who judges, and how far each judge is believed: the rules every judge of FairMark follows,
whatever it judges (a reflection's scores, a lesson, a feedback comment) and wherever it is
configured (`FAIRMARK_JUDGES`, the lesson seats `FAIRMARK_MODEL_LESSON_JUDGE[_2,_3]`, the
Reviewer, grounding and pedagogy roles, the learned offline scorer as the free judge).

- The family rule (seed 001: self-preference, +10 % GPT-4, +25 % Claude): a judge is never of
  the writer's model family while a judge of another family is configured (`pick`). With only
  one family configured the judges still run, and every judged item says so (`ONE_FAMILY`,
  `one_family_note` for the readiness view).
- How sure a judge is: core.judging.confidence.Confidence (unknown is unsure, everywhere).
- The free judge (the learned offline scorer, tier 0): its votes are stored but never enter the
  result nor the agreement between judges (Krippendorff's alpha is among LLM judges,
  core.judging.agreement); it makes an item unsure only beyond its tolerance of one level.
- Trust in a judge calibrated on teachers' choices (the pedagogy judge, core.evals.pairwise):
  at least MIN_CHOICES choices, and the lower bound of the agreement's interval above the
  admin's threshold (`trusted`).

>>> [family(m) for m in ("gpt-4o-mini", "openai/gpt-4.1", "claude-3-haiku", "Qwen3-235B", "deepseek-chat")]
['gpt', 'gpt', 'claude', 'qwen', 'deepseek']
>>> p = pick(["gpt-4o", "claude-3-haiku"], writer="gpt-4o-mini")
>>> p.kept, p.one_family
(['claude-3-haiku'], None)
>>> pick(["gpt-4o"], writer="gpt-4o-mini").one_family[:40]
'Every judge is of one model family (gpt)'
>>> trusted(agreement=0.9, ci_low=0.84, n=20, threshold=0.8), trusted(agreement=1.0, ci_low=1.0, n=1, threshold=0.8)
(True, False)
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from core.judging.cascade import Scale
from core.language.interface import Message, N_

T = TypeVar("T")

# --- the family rule ---------------------------------------------------------------------------
ONE_FAMILY = N_("Every judge is of one model family ({family}): no model of another family checked this, so a "
                 "model's preference for its own family's writing (+10 % to +25 % in published studies) is not ruled "
                 "out. Configure a judge of another family to rule it out.")   # a Message's template: Message(ONE_FAMILY, family=…)


def family(model: str) -> str:
    """A model's family, from its name: the provider path is dropped and the leading letters
    kept ("openai/gpt-4o-mini" -> "gpt"). Names are the only evidence available; an alias that
    hides the family defeats it."""
    name = (model or "").strip().lower().rsplit("/", 1)[-1]
    m = re.match(r"[a-z]+", name)
    return m.group(0) if m else name


@dataclass
class Panel(Generic[T]):
    kept: list[T]                       # the judges to ask, in the order given
    notes: list[str] = field(default_factory=list)   # who was left out and why (Messages)
    one_family: str | None = None       # ONE_FAMILY's sentence (a Message) when only one family judges


def pick(candidates: Sequence[T], *, writer: str = "", model_of: Callable[[T], str] = str) -> Panel[T]:
    """The family rule on candidate judges: those of the writer's family are left out while a
    candidate of another family exists; when none does, all run and `one_family` says so.
    `writer` is the model whose work is judged ("" when unknown)."""
    own = family(writer) if writer else None
    others = [c for c in candidates if family(model_of(c)) != own]
    if own is not None and others:
        kept = others
        notes = [Message("{model} was not asked: it is of the same model family as the writer ({writer}).",
                         model=model_of(c), writer=writer) for c in candidates if family(model_of(c)) == own]
    else:
        kept, notes = list(candidates), []
    families = {family(model_of(c)) for c in kept} | ({own} if own else set())
    return Panel(kept, notes, Message(ONE_FAMILY, family=", ".join(sorted(families))) if len(families) == 1 else None)


def one_family_note(settings) -> str | None:
    """The readiness view's sentence when every model that judges (the Evaluator, the judges of
    the consensus step, the Reviewer, grounding and pedagogy judges) is of one family; None with
    several families or without a language model (the offline baseline has no judges)."""
    if not settings.llm_configured:
        return None
    models = [settings.model_for(r) for r in ("evaluator", *FEEDBACK_JUDGES)] + [j.model for j in settings.judges]
    families = {family(m) for m in models}
    return Message(ONE_FAMILY, family=families.pop()) if len(families) == 1 else None


# The roles that judge the feedback comment (their writer is the Aggregator).
FEEDBACK_JUDGES = ("reviewer", "grounding", "pedagogy")


def other_family(writer: str, configured: Iterable[tuple[T, str]]) -> tuple[T, str] | None:
    """The first configured (source, model) of another family than the writer's, or None."""
    return next(((src, m) for src, m in configured if family(m) != family(writer)), None)


# Every judge scores at temperature 0: the same work gets the same verdict (the Evaluator, the
# reflection judges, the Reviewer, grounding and pedagogy; the lesson's consensus judges at 0.15
# so a second opinion is not the first one's copy, core.lessons.judge).
TEMPERATURE = 0.0


# --- the free judge --------------------------------------------------------------------------
FREE_TIER = 0                           # the tier its votes are stored with
# A cheap model is often one level off; two levels is a signal.
FREE_TOLERANCE = Scale("continuous", 1.0)


def is_free(vote_row: dict) -> bool:
    """A stored vote (db.votes row) of the free judge: never part of judge agreement."""
    return vote_row.get("tier") == FREE_TIER


# --- trust calibrated on teachers' choices -------------------------------------------------
MIN_CHOICES = 20          # fewer choices say nothing: one lucky agreement is 100 %


def trusted(*, agreement: float | None, ci_low: float | None, n: int, threshold: float) -> bool:
    """A judge is trusted when at least MIN_CHOICES teacher choices were compared and the lower
    bound of the agreement's 95 % interval is above the threshold (the point estimate alone is
    not enough: the interval must exclude "no better than the threshold")."""
    return agreement is not None and ci_low is not None and n >= MIN_CHOICES and ci_low > threshold


def wilson_low(share: float, n: int, z: float = 1.96) -> float:
    """The lower bound of the Wilson 95 % interval of a share: the bound where a bootstrap has
    none (every choice agreed, so no resample varies).

    >>> round(wilson_low(1.0, 60), 3), round(wilson_low(1.0, 5), 3)
    (0.94, 0.566)
    """
    centre = share + z * z / (2 * n)
    spread = z * ((share * (1 - share) + z * z / (4 * n)) / n) ** 0.5
    return (centre - spread) / (1 + z * z / n)


def trust_reason(*, agreement: float | None, ci_low: float | None, n: int, threshold: float) -> Message:
    """Why the judge is (not) trusted, in a teacher's words: a Message (pages show it with said()).

    >>> trust_reason(agreement=0.9, ci_low=0.7, n=1, threshold=0.8)
    'only 1 teacher choice (at least 20 are needed)'
    """
    if agreement is None:
        return Message("the judge has not been compared with teachers' choices")
    if n < MIN_CHOICES:
        return Message.plural("only {count} teacher choice (at least {needed} are needed)",
                              "only {count} teacher choices (at least {needed} are needed)", n, needed=MIN_CHOICES)
    if ci_low is None or ci_low <= threshold:
        low = Message("unknown") if ci_low is None else f"{ci_low:.0%}"
        return Message("the lower bound of its agreement's 95 % interval ({low}) is not above the threshold {threshold}",
                       low=low, threshold=f"{threshold:.0%}")
    return Message("the lower bound of its agreement's 95 % interval ({low}) is above the threshold {threshold}",
                   low=f"{ci_low:.0%}", threshold=f"{threshold:.0%}")
