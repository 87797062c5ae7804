"""What a run would cost, before it starts: tokens per role from each registered role's prompt,
what it reads and its answer budget (core.agents.registry), and the submissions' word counts
(chars / 4 per token), priced with the Settings page's price table.

Each call's prompt counts the response schema as the request carries it
(core.llm.structured.sent_schema: the provider bills it as prompt tokens), and the provider's
prompt cache as bench.tokens prices it (core.llm.prompt_cache.cached_tokens, the one formula):
the part every submission of an assignment shares (the schema and the system message) is
billed at the cached price on every call to the same model but the first, when it is long
enough to be cached. That is the best case; the call log records what was really cached.

The Evaluator's prompt is rendered as the run will render it: with the rubric and, once the
assignment is calibrated, the teacher's examples (core.calibration.anchors). The judge cascade
(core.judging.scoring) adds scoring calls on some items: self-consistency samples of the
Evaluator where its model gives no score probabilities, and consensus judges (Settings' judges)
where the first judge is unsure. Each extra call is one more Evaluator prompt and answer,
priced at the model that answers it. How many: measured on this database's judged items once
there are MEASURED_FROM of them, else the expected shares below (`cascade` in the result says
which).
"""
from __future__ import annotations

from core.accounts import access
from core.accounts.access import Actor
from core.agents import common, evaluator, registry
from core.calibration import anchors
from core.courses import comment_bank
from core.judging import comment_judges
from core.language.interface import Message
from core.llm import cached_tokens, effective_settings, sent_schema
from core.offline import MODEL as OFFLINE_MODEL
from core.runs.reflections import run_config
from core.settings import Settings
from db import courses, llm_calls
from db import runs as runs_db

TOKENS_PER_WORD = 1.35   # of student text (English; the prompts' own text is chars / 4)

# Expected extra scoring calls per submission until the call log can say (core.judging.scoring):
SAMPLES_PER_ITEM = 0.0   # OpenAI's models return score probabilities: no self-consistency samples
UNSURE_SHARE = 0.25      # items whose first judge is not confident: the second judge is asked
                         # (bench.cascade: 23 % of items reach tier 2; seed 001: 20 % of lessons)
THIRD_SHARE = 0.5        # of those, the two judges disagree and the third is asked (bench.cascade:
                         # 11 % of items; seed 001's CLEV: 15-30 % of the cases it judges)
MEASURED_FROM = 20       # judged items in the call log before its shares replace the expected ones


def for_run(conn, *, course_id: int, assignment_id: int | None = None, provider: str = "openai",
            redo: bool = False, limit: int | None = None, settings: Settings | None = None, actor: Actor) -> dict:
    """Tokens and cost a run with these options (as for core.runs.reflections.create) would take,
    started by `actor` (whose own comment bank the Aggregator then reads)."""
    access.check(conn, actor, "assess", course=course_id, assignment=assignment_id)
    return of_run(conn, course_id=course_id, assignment_id=assignment_id, provider=provider, redo=redo, limit=limit,
                  settings=settings, starter=str(actor))


def of_run(conn, *, course_id: int, assignment_id: int | None = None, provider: str = "openai", redo: bool = False,
           limit: int | None = None, settings: Settings | None = None, starter: str) -> dict:
    """`for_run` for a caller that has checked the actor (a page's view); `starter`: the actor."""
    settings = effective_settings(settings, conn)
    ids = runs_db.eligible_submissions(conn, course_id=course_id, assignment_id=assignment_id, redo=redo,
                                       limit=limit)
    out = {"submissions": len(ids), "tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0, "unpriced": []}
    if provider == "offline":  # no model, no tokens
        return out
    out["cascade"] = cascade = cascade_calls(conn, settings)
    if not ids:
        return out
    static: dict[int, dict[str, int]] = {}
    cost = cached_in = 0.0
    models = run_config(provider, settings)["models"]
    scorer = registry.at("score")[0].name
    # the grounding and pedagogy judges in one call when they share a model (core.judging.comment_judges)
    joint = len({models[r] for r in comment_judges.ROLES}) == 1
    extra = [(models[scorer], cascade["samples_per_item"]), *cascade["judges"].items()]
    counted = runs_db.word_counts(conn, ids)
    per_assignment: dict[int, int] = {}
    for _, aid, _ in counted:
        per_assignment[aid] = per_assignment.get(aid, 0) + 1
    banks = comment_bank.candidates_for_run(conn, course_id, ids, starter)
    for sid, aid, n_words in counted:
        if aid not in static:
            static[aid] = _static_tokens(conn, aid)
        tokens = _item_tokens(static[aid], int(n_words or 0), joint=joint, bank=bank_tokens(banks[sid]))
        # (model, share of the item's tokens, role, calls per item: the role's share is in its tokens)
        calls = [(models[_routed(role)], 1.0, t_in, t_out, role, registry.get(_routed(role)).share)
                 for role, (t_in, t_out) in tokens.items()]
        # each extra scoring call is one more Evaluator prompt and answer
        calls += [(model, share, *tokens[scorer], scorer, share) for model, share in extra if share]
        for model, share, t_in, t_out, role, per_item in calls:
            t_in, t_out = share * t_in, share * t_out
            hit = per_item * shared_prefix_cached(static[aid], role, per_item * per_assignment[aid])
            out["tokens_in"] += t_in
            out["tokens_out"] += t_out
            price = llm_calls.get_price(conn, model)
            if price is None:
                if model not in out["unpriced"]:
                    out["unpriced"].append(model)
                continue
            cached_in += hit
            cost += llm_calls.cost_usd(price, t_in, t_out, hit)
    out["tokens_in"], out["tokens_out"] = int(out["tokens_in"]), int(out["tokens_out"])
    out["tokens_cached"] = int(cached_in)
    out["cost_usd"] = round(cost, 4)
    out["per_submission_usd"] = round(cost / len(ids), 6)
    return out


def _routed(role: str) -> str:
    """The registry role a call is routed and priced as (the joint judges' call: the grounding judge's)."""
    return comment_judges.ROLES[0] if role == comment_judges.PROMPT.name else role


def shared_prefix_cached(static: dict, role: str, calls: float) -> float:
    """The cached input tokens of one of `calls` calls of a role to one model on an assignment: the
    prefix they share (schema and system message) is cached on every call but the first."""
    if calls <= 1:
        return 0.0
    return cached_tokens(static.get(f"{role}:prefix", 0)) * (calls - 1) / calls


def cascade_calls(conn, settings: Settings) -> dict:
    """Extra scoring calls per submission: {"samples_per_item" (the Evaluator's model),
    "judges": {model: calls per item}, "source": "measured on N judged items" | "expected"}.
    Consensus judges exist only when Settings lists some: the first is asked on unsure items,
    the second where they disagree."""
    seen = llm_calls.cascade_calls(conn, exclude_model=OFFLINE_MODEL)
    judges = list(settings.judges)
    if seen["items"] >= MEASURED_FROM:
        samples, judge_calls = seen["samples"] / seen["items"], seen["judge_calls"] / seen["items"]
        source = Message.plural("measured on {count} judged items", "measured on {count} judged items", seen["items"])
    else:
        samples = SAMPLES_PER_ITEM
        judge_calls = UNSURE_SHARE * (1 + (THIRD_SHARE if len(judges) > 1 else 0))
        source = Message("expected")   # a Message: Assess shows it translated (said)
    shares = [1.0, THIRD_SHARE][:len(judges)]
    per_judge: dict[str, float] = {}
    for judge, share in zip(judges, shares):
        per_judge[judge.model] = per_judge.get(judge.model, 0.0) + judge_calls * share / sum(shares)
    return {"samples_per_item": round(samples, 4), "judges": {m: round(v, 4) for m, v in per_judge.items()},
            "source": source}


def _static_tokens(conn, assignment_id: int) -> dict[str, int]:
    """Each role's prompt without the per-submission data, with its response schema; the
    Evaluator's carries this assignment's rubric and its examples (once calibrated).
    "<role>:prefix" is the part every submission shares: the schema and the system message."""
    a = courses.get_assignment(conn, assignment_id)
    rubric = courses.get_rubric(conn, a["rubric_id"])
    examples = anchors.for_submission(conn, None, assignment_id, rubric)
    tok: dict[str, int] = {}
    prompts = registry.load_prompts()
    rendered = evaluator.PROMPT.load().render(**evaluator.prompt_values(rubric, {**a, "anchors": examples}, ""))
    for role in registry.roles():
        schema = len(sent_schema(role.schema(rubric))) if role.schema(rubric) is not None else 0
        if role.name == evaluator.PROMPT.name:
            system, rest = len(rendered[0]["content"]), sum(len(m["content"]) for m in rendered[1:])
        else:
            system, rest = len(prompts[role.name].system), len(prompts[role.name].user)
        tok[role.name] = (schema + system + rest) // 4
        tok[f"{role.name}:prefix"] = (schema + system) // 4
    joint = comment_judges.PROMPT.load()
    schema, system = len(sent_schema(comment_judges.CommentVerdicts)), len(joint.system)
    tok[joint.name], tok[f"{joint.name}:prefix"] = (schema + system + len(joint.user)) // 4, (schema + system) // 4
    tok["criteria"] = len(rubric.criteria)
    return tok


def bank_tokens(candidates: list[dict]) -> int:
    """The Aggregator's <bank> slot for an item with these bank comments (core.pipeline's
    item["bank"]): the longest examples it could be sent, an upper bound as last week's comment is."""
    return len(common.bank_slot(common.longest_examples(candidates))) // 4


def _item_tokens(static: dict[str, int], n_words: int, *, joint: bool = False,
                 bank: int = 0) -> dict[str, tuple[int, int]]:
    """role -> (input tokens, output tokens) for one submission of `n_words` words and `bank`
    tokens of bank comments (`bank_tokens`); with `joint`, the grounding and pedagogy judges' one
    call instead of theirs."""
    scorer = next(r for r in registry.roles() if r.per_criterion)
    composers = registry.at("compose")
    sizes = {"text": int(n_words * TOKENS_PER_WORD) + 10,
             "notes": scorer.out_tokens * static["criteria"],
             "comment": composers[0].out_tokens if composers else 0}
    # last week's comment (the Coach's and the Aggregator's slot): counted whole for every
    # submission, an upper bound (a first week has none; the slot keeps its numbered steps only)
    sizes["previous"] = sizes["comment"]
    sizes["bank"] = bank
    out = {}
    for role in registry.roles():
        t_out = role.out_tokens * (static["criteria"] if role.per_criterion else 1)
        t_in = static.get(role.name, 0) + sum(sizes[r] for r in role.reads)
        out[role.name] = (int(role.share * t_in), int(role.share * t_out))
    if joint:
        parts = [out.pop(r) for r in comment_judges.ROLES]
        out[comment_judges.PROMPT.name] = (static[comment_judges.PROMPT.name] + sizes["text"] + sizes["comment"],
                                           sum(t_out for _, t_out in parts))
    return out
