"""A fake LLM at the project's protocol (core.llm.LLM) for the throughput benchmark.

It sleeps a fixed latency per call (the model's time, during which a real client waits on
the network and holds no lock and no GIL) and answers every role validly: scores from the
rubric's levels, no equity flags, one coach question, a comment that passes every
deterministic check, and a CONFIDENT Reviewer, so no item needs a revision round.
Answers depend only on the request, so a second run over unchanged work is answered from
the cache.
"""
from __future__ import annotations

import functools
import math
import hashlib
import re
import threading
import time
import typing

from pydantic import BaseModel

from core.llm import CallContext, LLMResponse, Usage, bounded_int_fields, json_schema_for

# Passes core.checks.comment_checks at the default target grade (10): 40 words, two numbered
# actions, a question, no quotes, no lexicon hits.
COMMENT = ("You explain temperature clearly and give a concrete example from work. "
           "Next: (1) connect temperature to bias, (2) add one question you still have. "
           "What would you test first?")
QUESTION = "What would you test first?"     # the comment carries it (the coach_question check)


_REF = re.compile(r"\(ref ([0-9a-f]{8})\)")


def _ref(messages) -> str:
    """The submission's tag, carried from the Evaluator's notes into every later prompt, so each
    submission's calls are distinct work (no cache hit between submissions in one run)."""
    m = _REF.search(" ".join(str(x.get("content", "")) for x in messages))
    return m.group(1) if m else "00000000"


def _evaluation(schema, messages) -> dict:
    digest = hashlib.sha256(messages[-1]["content"].encode()).digest()
    tag = digest.hex()[-8:]
    out = {}
    for i, (key, field) in enumerate(schema.model_fields.items()):
        if key == "instructions_to_ai":   # the report on instructions, not a criterion
            continue
        levels = typing.get_args(field.annotation.model_fields["score"].annotation)
        out[key] = {"score": levels[digest[i] % len(levels)],
                    "reasoning": f"The text addresses {key} with some detail; it could go further (ref {tag}).",
                    "areas_for_improvement": [f"Add one concrete detail on {key}."],
                    "evidence_quote": ""}
    return out


ANSWERS = {
    "equity": lambda schema, messages: {"flags": []},
    "coach": lambda schema, messages: {"questions": [QUESTION]},
    "aggregator": lambda schema, messages: {"comment": f"{COMMENT} (ref {_ref(messages)})"},
    "reviser": lambda schema, messages: {"comment": f"{COMMENT} (ref {_ref(messages)})"},
    "reviewer": lambda schema, messages: {"verdict": "CONFIDENT", "fixes": [], "explanation": "Matches the scores."},
    "evaluator": _evaluation,
    "grounding": lambda schema, messages: {"grounded": True, "unsupported": [], "explanation": "All supported."},
    "pedagogy": lambda schema, messages: {"leads": 4, "level": 4, "next_step": 5, "justification": "Leads well."},
}


@functools.lru_cache(maxsize=256)
def _score_fields(schema: type[BaseModel]) -> frozenset[str]:
    """Once per schema class (building a JSON schema costs a millisecond per call)."""
    return frozenset(bounded_int_fields(json_schema_for(schema)))


def certain_probs(data: BaseModel) -> dict | None:
    """The score probabilities a confident model's logprobs give: {"<path>.<field>": {"<value>": 1.0}}
    for every bounded-integer field (a score) of an answer; None when it has none. Fakes return
    them so the judge cascade settles at its first judge, as with a real model that is sure."""
    fields = _score_fields(type(data))
    out = {}

    def walk(node, path):
        if isinstance(node, dict):
            for k, v in node.items():
                if k in fields and isinstance(v, int) and not isinstance(v, bool):
                    out[".".join([*path, k])] = {str(v): 1.0}
                else:
                    walk(v, [*path, k])

    walk(data.model_dump(), [])
    return out or None


def answer_tokens(raw: str, p: float = 0.999) -> list[dict]:
    """The answer's own token logprobs (as a chat server returns them), one token per 4
    characters, each of probability `p` with no alternative: what a sure model gives a schema
    that reads its confidence from them (`WANTS_LOGPROBS`, the lesson judge). A low `p` with
    alternatives is an unsure answer (3 bits per token at p = 0.125)."""
    lp = math.log(p)
    alts = [{"token": c, "logprob": lp} for c in "abcdefgh"] if p < 0.5 else [{"token": "a", "logprob": lp}]
    return [{"token": raw[i:i + 4], "logprob": lp, "top_logprobs": alts} for i in range(0, len(raw), 4)]


class SleepyLLM:
    """Sleeps `latency` seconds per call, then answers validly. Counts calls per role."""

    provider = "fake"

    def __init__(self, latency: float = 0.2, temperature: float = 0.3):
        self.latency = float(latency)
        self.temperature = temperature
        self.calls: dict[str, int] = {}
        self._lock = threading.Lock()

    def model_for(self, role: str) -> str:
        return f"bench-{role}"

    def complete(self, messages: list[dict], schema, *, role: str, ctx: CallContext,
                 temperature: float | None = None) -> LLMResponse:
        with self._lock:
            self.calls[role] = self.calls.get(role, 0) + 1
        t0 = time.perf_counter()
        time.sleep(self.latency)
        data = schema.model_validate(ANSWERS[role](schema, messages))
        chars = sum(len(m.get("content", "")) for m in messages)
        return LLMResponse(data=data, model=self.model_for(role), raw=data.model_dump_json(),
                           usage=Usage(tokens_in=chars // 4, tokens_out=60),
                           latency_ms=(time.perf_counter() - t0) * 1000, attempts=1, response_mode="fake",
                           score_probs=certain_probs(data))
