"""The demo's scripted lesson judge at the project's LLM protocol (data/lessons/demo/
judge_script.json): each judge model answers each demo lesson with the verdict written for it,
the fixer with the section rewrite written for it, and the judges answer the fixed lesson with
the verdict written for after the fix. Used by bench/lessons.py and the tests.

Token counts are estimates (4 characters per token, the messages in and the JSON answer out)
unless a `count` function is given (bench/lessons.py --tokenizer passes SmolLM2's tokenizer).
"""
from __future__ import annotations

import json
import re

from core.errors import LLMBadRequest
from core.lessons import demo
from core.llm import LLMResponse, Usage

SCRIPT = demo.DEMO_DIR / "judge_script.json"


def estimate_tokens(text: str) -> int:
    return max(1, round(len(text) / 4))


class DemoJudge:
    provider = "demo"
    temperature = 0.0

    def __init__(self, models: dict[str, str] | None = None, count=None):
        self.count = count or estimate_tokens
        self.script = json.loads(SCRIPT.read_text(encoding="utf-8"))
        a, b = self.script["judges"]
        self.models = {"lesson_judge": a, "lesson_judge_2": b, "lesson_judge_3": a, "lesson_fixer": a,
                       "lesson_factcheck": a, **(models or {})}
        self.calls: list[tuple[str, str]] = []

    def model_for(self, role: str) -> str:
        return self.models.get(role, self.script["judges"][0])

    def _lesson(self, messages) -> tuple[str, dict, str]:
        user = messages[-1]["content"]
        m = re.search(r"^(?:Title|Lesson): (.+)$", user, re.MULTILINE)
        if not m or m.group(1).strip() not in self.script["lessons"]:
            raise LLMBadRequest("the demo judge only knows the demo lessons")
        return m.group(1).strip(), self.script["lessons"][m.group(1).strip()], user

    def complete(self, messages, schema, *, role, ctx, temperature=None) -> LLMResponse:
        title, entry, user = self._lesson(messages)
        if role == "lesson_fixer":
            answer = {k: v for k, v in entry["fix"].items() if k != "marker"}
        elif role.startswith("lesson_judge"):
            fixed = "fix" in entry and entry["fix"]["marker"] in user     # a phrase only the fix brings
            seat = self.script["judges"].index(self.model_for(role)) if self.model_for(role) in self.script["judges"] \
                else 0
            options = entry["after" if fixed else "judges"]
            answer = options[min(seat, len(options) - 1)]
        else:
            raise LLMBadRequest(f"the demo judge has no answer for role {role}")
        self.calls.append((role, title))
        raw = json.dumps(answer, ensure_ascii=False)
        usage = Usage(tokens_in=sum(self.count(m["content"]) for m in messages), tokens_out=self.count(raw))
        return LLMResponse(data=schema.model_validate(answer), model=self.model_for(role), raw=raw, usage=usage,
                           response_mode="demo")
