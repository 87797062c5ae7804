"""One LLM in front of several endpoints: the main model for the agent roles, and each judge of
the cascade's consensus step on its own endpoint (core.settings.judge_endpoint), so a judge can
come from another provider. Callers name a judge's calls `role=judge_role(name)`; a judge of the
comment (Reviewer, grounding, pedagogy) goes to a judge's endpoint when it borrows that judge's
model (Settings.feedback_judge).

It holds no client of its own: every endpoint is an OpenAICompatibleLLM (core.llm.openai_client
stays the only module that imports openai), and LoggedLLM wraps the whole, so judges' calls are
logged, priced and cached like every other call.
"""
from __future__ import annotations

from core.errors import LLMError
from core.language.interface import Message
from core.llm.protocol import LLM, CallContext, LLMResponse, T
from core.settings import JudgeSpec

JUDGE_PREFIX = "judge:"


def judge_role(name: str) -> str:
    """The role name under which a judge's calls are made (and its model is looked up)."""
    return f"{JUDGE_PREFIX}{name}"


class RoutedLLM:
    def __init__(self, main: LLM, judges: list[tuple[JudgeSpec, LLM]], *, borrowed: dict[str, str] | None = None):
        self.main = main
        self.provider = main.provider
        self._judges = {spec.name: (spec, llm) for spec, llm in judges}
        # role -> the judge whose model (and endpoint) it borrows
        self._borrowed = {r: j for r, j in (borrowed or {}).items() if j in self._judges}

    def __repr__(self) -> str:
        return f"RoutedLLM({self.main!r}, judges={list(self._judges)})"

    @property
    def temperature(self) -> float:
        return getattr(self.main, "temperature", 0.3)

    @property
    def judges(self) -> tuple[JudgeSpec, ...]:
        return tuple(spec for spec, _ in self._judges.values())

    def _route(self, role: str) -> tuple[JudgeSpec | None, LLM]:
        name = role[len(JUDGE_PREFIX):] if role.startswith(JUDGE_PREFIX) else None
        if name is None:
            name = self._borrowed.get(role)
        if name is None:
            return None, self.main
        if name not in self._judges:
            raise LLMError(Message("No judge named '{name}' is configured (judges: {judges}). Add it in Settings -> "
                                   "Judges.", name=name, judges=", ".join(self._judges) or Message("none")))
        return self._judges[name]

    def model_for(self, role: str) -> str:
        spec, llm = self._route(role)
        return spec.model if spec is not None else llm.model_for(role)

    def complete(self, messages: list[dict], schema: type[T], *, role: str, ctx: CallContext,
                 temperature: float | None = None) -> LLMResponse[T]:
        spec, llm = self._route(role)
        try:
            return llm.complete(messages, schema, role=role, ctx=ctx, temperature=temperature)
        except LLMError as exc:
            if spec is not None:
                # The endpoint's own message names the main settings; say which judge it was
                # (the exception keeps its type and what the call log reads from it).
                exc.args = (f"Judge '{spec.name}' (model {spec.model}; its endpoint and key come from "
                            f"FAIRMARK_JUDGE_{spec.env_name}_BASE_URL / _API_KEY, else the main ones): {exc}",)
            raise
