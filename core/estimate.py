"""What a run would cost, before it starts: tokens per role from each registered role's prompt,
what it reads and its answer budget (core.agents.registry), and the submissions' word counts
(chars / 4 per token), priced with the Settings page's price table."""
from __future__ import annotations

from core import access
from core.access import Actor
from core.agents import evaluator, registry
from core.llm import effective_settings
from core.runs import run_config
from core.settings import Settings
from db import courses, llm_calls
from db import runs as runs_db

TOKENS_PER_WORD = 1.35   # of student text (English; the prompts' own text is chars / 4)


def for_run(conn, *, course_id: int, assignment_id: int | None = None, provider: str = "openai",
            redo: bool = False, limit: int | None = None, settings: Settings | None = None, actor: Actor) -> dict:
    """Tokens and cost a run with these options (as for core.runs.create) would take."""
    access.check(conn, actor, "assess", course=course_id, assignment=assignment_id)
    settings = effective_settings(settings)
    ids = runs_db.eligible_submissions(conn, course_id=course_id, assignment_id=assignment_id, redo=redo,
                                       limit=limit)
    out = {"submissions": len(ids), "tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0, "unpriced": []}
    if not ids or provider == "offline":  # no model, no tokens
        return out
    static: dict[int, dict[str, int]] = {}
    cost = 0.0
    models = run_config(provider, settings)["models"]
    for aid, n_words in runs_db.word_counts(conn, ids):
        if aid not in static:
            static[aid] = _static_tokens(conn, aid)
        for role, (t_in, t_out) in _item_tokens(static[aid], int(n_words or 0)).items():
            out["tokens_in"] += t_in
            out["tokens_out"] += t_out
            price = llm_calls.get_price(conn, models[role])
            if price is None:
                if models[role] not in out["unpriced"]:
                    out["unpriced"].append(models[role])
                continue
            cost += llm_calls.cost_usd(price, t_in, t_out)
    out["cost_usd"] = round(cost, 4)
    out["per_submission_usd"] = round(cost / len(ids), 6)
    return out


def _static_tokens(conn, assignment_id: int) -> dict[str, int]:
    """Each role's prompt without the per-submission data; the Evaluator's carries this
    assignment's rubric."""
    a = courses.get_assignment(conn, assignment_id)
    rubric = courses.get_rubric(conn, a["rubric_id"])
    tok = {name: (len(p.system) + len(p.user)) // 4 for name, p in registry.load_prompts().items()}
    rendered = evaluator.PROMPT.load().render(**evaluator.prompt_values(rubric, a, ""))
    tok["evaluator"] = sum(len(m["content"]) for m in rendered) // 4
    tok["criteria"] = len(rubric.criteria)
    return tok


def _item_tokens(static: dict[str, int], n_words: int) -> dict[str, tuple[int, int]]:
    """role -> (input tokens, output tokens) for one submission of `n_words` words."""
    scorer = next(r for r in registry.roles() if r.per_criterion)
    composers = registry.at("compose")
    sizes = {"text": int(n_words * TOKENS_PER_WORD) + 10,
             "notes": scorer.out_tokens * static["criteria"],
             "comment": composers[0].out_tokens if composers else 0}
    out = {}
    for role in registry.roles():
        t_out = role.out_tokens * (static["criteria"] if role.per_criterion else 1)
        t_in = static.get(role.name, 0) + sum(sizes[r] for r in role.reads)
        out[role.name] = (int(role.share * t_in), int(role.share * t_out))
    return out
