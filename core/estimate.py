"""What a run would cost, before it starts: tokens per role from the prompts' sizes and the
submissions' word counts (chars / 4 per token), priced with the Settings page's price table."""
from __future__ import annotations

from core import prompts
from core.agents import evaluator
from core.llm import effective_settings
from core.runs import run_config
from core.settings import Settings
from db import courses, llm_calls
from db import runs as runs_db

# Output tokens per role, from the prompts' limits (reasoning <= 50 words etc.); a revision
# round (reviser + reviewer) is counted for one item in three.
OUT_TOKENS = {"evaluator_per_criterion": 95, "equity": 40, "coach": 45, "aggregator": 170, "reviewer": 45,
              "reviser": 170}
REVISION_SHARE = 1 / 3


def for_run(conn, *, course_id: int, assignment_id: int | None = None, provider: str = "openai",
            redo: bool = False, limit: int | None = None, settings: Settings | None = None) -> dict:
    """Tokens and cost a run with these options (as for core.runs.create) would take."""
    settings = effective_settings(settings)
    ids = runs_db.eligible_submissions(conn, course_id=course_id, assignment_id=assignment_id, redo=redo,
                                       limit=limit)
    out = {"submissions": len(ids), "tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0, "unpriced": []}
    if not ids:
        return out
    rows = runs_db.word_counts(conn, ids)
    static: dict[int, dict[str, int]] = {}
    cost = 0.0
    models = run_config(provider, settings)["models"]
    for aid, n_words in rows:
        if aid not in static:
            static[aid] = _static_tokens(conn, aid)
        if provider == "offline":
            continue  # no model, no tokens
        per_in, per_out = _item_tokens(static[aid], int(n_words or 0))
        for role in per_in:
            t_in, t_out = per_in[role], per_out[role]
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
    a = courses.get_assignment(conn, assignment_id)
    rubric = courses.get_rubric(conn, a["rubric_id"])
    ps = prompts.load_all()
    ev = ps["evaluator"].system.replace("{{rubric}}", evaluator.rubric_text(rubric)).replace(
        "{{assignment}}", a["prompt"] or a["title"]).replace("{{key_concepts}}", ", ".join(a["key_concepts"]))
    tok = {role: (len(p.system) + len(p.user)) // 4 for role, p in ps.items()}
    tok["evaluator"] = (len(ev) + len(ps["evaluator"].user)) // 4
    tok["criteria"] = len(rubric.criteria)
    return tok


def _item_tokens(static: dict[str, int], n_words: int) -> tuple[dict, dict]:
    text = int(n_words * 1.35) + 10
    k = static["criteria"]
    notes = OUT_TOKENS["evaluator_per_criterion"] * k
    comment = OUT_TOKENS["aggregator"]
    t_in = {
        "evaluator": static["evaluator"] + text,
        "equity": static["equity"] + int(notes * 0.8),
        "coach": static["coach"] + text,
        "aggregator": static["aggregator"] + notes + 120,
        "reviewer": static["reviewer"] + comment + 60,
        "reviser": int(REVISION_SHARE * (static["reviser"] + static["reviewer"] + 2 * comment + 120)),
    }
    t_out = {
        "evaluator": notes, "equity": OUT_TOKENS["equity"], "coach": OUT_TOKENS["coach"],
        "aggregator": comment, "reviewer": OUT_TOKENS["reviewer"],
        "reviser": int(REVISION_SHARE * (OUT_TOKENS["reviser"] + OUT_TOKENS["reviewer"])),
    }
    return t_in, t_out
