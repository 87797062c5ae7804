"""The offline baseline as an LLM: each role's answer comes from the role's own `offline`
function (core.agents.registry), given the call's structured inputs, never the prompt text."""
from __future__ import annotations

import json

from core.agents import registry
from core.errors import LLMBadRequest
from core.language.interface import Message
from core.llm.protocol import LLMResponse, Usage
from core.offline import LABEL, MODEL


class OfflineLLM:
    provider = "offline"
    temperature = 0.0

    def model_for(self, role: str) -> str:
        return MODEL

    def complete(self, messages, schema, *, role, ctx, temperature=None) -> LLMResponse:
        if ctx.inputs is None:
            raise LLMBadRequest(Message("the offline baseline needs the structured inputs of the {role} call",
                                        role=role))
        try:
            data = registry.get(role).offline(ctx.inputs)
        except KeyError:
            data = None
        if data is None:
            raise LLMBadRequest(Message("the offline baseline has no '{role}' role: it needs a language model",
                                        role=role))
        return LLMResponse(data=schema.model_validate(data), model=MODEL, raw=json.dumps(data, ensure_ascii=False),
                           usage=Usage(), response_mode="offline", note=LABEL)
