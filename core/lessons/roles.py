"""The lesson review's roles, listed once (kept apart from core.agents.registry, which is the
reflection pipeline's). A role's name is its prompt file, its call-log agent and its settings
key: `FAIRMARK_MODEL_<NAME>` picks its model, like any agent role.

The judge has three seats (CLEV: a first judge, a second from another model family, a third
when those two disagree); each seat's model is `FAIRMARK_MODEL_LESSON_JUDGE`, `..._JUDGE_2`,
`..._JUDGE_3`. Seats that resolve to the same model are one judge. A seat may have an endpoint
of its own, so its judge can come from another provider: `FAIRMARK_JUDGE_LESSON_JUDGE_2_BASE_URL`
/ `_API_KEY` (issue 14's judge endpoints, `core.settings.judge_endpoint`, by the seat's name);
such a seat is a judge of the run's RoutedLLM (`seat_judges`) and its calls go out under
`core.llm.judge_role(seat)`. The seats follow every judge's family rule
(core.judging.judges.pick): never the family that wrote the lesson while another is configured;
with one family only, the lesson is judged and says so.
"""
from __future__ import annotations

from dataclasses import dataclass

from core import prompts
from core.language.interface import Message
from core.judging.judges import family, pick
from core.llm.routed import JUDGE_PREFIX, judge_role
from core.settings import JudgeSpec, Settings, judge_endpoint


@dataclass(frozen=True)
class LessonRole:
    name: str
    label: str
    duty: str
    prompt: prompts.Spec


JUDGE = LessonRole("lesson_judge", "Lesson judge", "scores the lesson on the weighted rubric and lists issues",
                   prompts.Spec("lesson_judge", frozenset({"rubric", "target_grade", "title", "audience", "archetype",
                                                           "objectives", "sections", "stage1", "lesson"})))
FIXER = LessonRole("lesson_fixer", "Lesson fixer", "rewrites only the failing section",
                   prompts.Spec("lesson_fixer", frozenset({"dimension", "target_grade", "title", "objectives",
                                                           "critique", "before", "section", "after"})))
FACTCHECK = LessonRole("lesson_factcheck", "Fact check", "checks flagged sentences against the sources",
                       prompts.Spec("lesson_factcheck", frozenset({"sources", "sentences"})))
ROLES = (JUDGE, FIXER, FACTCHECK)
JUDGE_SEATS = ("lesson_judge", "lesson_judge_2", "lesson_judge_3")
LOGPROBS_AGENT = "lesson_logprobs"     # the echo call's agent name in the call log


def prompt_hashes() -> dict[str, str]:
    return {r.name: r.prompt.load().hash for r in ROLES}


def seat_judges(settings: Settings) -> list[JudgeSpec]:
    """The judge seats with an endpoint of their own, as judges for core.llm.from_settings (each
    gets its own client; the main key never goes to another endpoint)."""
    return [JudgeSpec(name=seat, model=settings.model_for(seat)) for seat in JUDGE_SEATS
            if any(judge_endpoint(seat))]


@dataclass(frozen=True)
class JudgeModel:
    """One judge: the model alias its votes carry, the LLM that reaches it, and the role the
    call is made under (the LLM picks the model and the endpoint by role)."""
    name: str
    llm: object
    role: str = JUDGE.name

    @property
    def seat(self) -> str:
        """The seat (lesson_judge, _2, _3): the call log's agent name, whether or not the seat
        has an endpoint of its own."""
        return self.role.removeprefix(JUDGE_PREFIX)


def panel(llm, *, generated_by: str = "", judges: list[JudgeModel] | None = None) -> tuple[list[JudgeModel], list[str]]:
    """The judges for one lesson, in seat order, and notes on who was left out and why (Messages).

    Default: one LLM, a judge per seat with the seat's configured model, on the seat's own
    endpoint where the LLM routes it (`judges` of a RoutedLLM); duplicates collapse."""
    if judges is None:
        routed = {j.name for j in getattr(llm, "judges", ())}
        roles = [judge_role(seat) if seat in routed else seat for seat in JUDGE_SEATS]
        judges = [JudgeModel(llm.model_for(role), llm, role) for role in roles]
    seen, unique = set(), []
    for j in judges:
        if j.name not in seen:
            seen.add(j.name)
            unique.append(j)
    chosen = pick(unique, writer=generated_by, model_of=lambda j: j.name)
    kept, notes = chosen.kept, list(chosen.notes)
    if chosen.one_family:
        notes.append(chosen.one_family)
    if len(kept) > 1 and family(kept[0].name) == family(kept[1].name):
        notes.append(Message("the second judge ({model}) is of the same family as the first: CLEV wants different "
                             "families (set FAIRMARK_MODEL_LESSON_JUDGE_2).", model=kept[1].name))
    return kept, notes
