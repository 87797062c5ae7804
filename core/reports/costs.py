"""The Costs page: tokens, money and time per agent, model, run, course and submission."""
from __future__ import annotations

import numpy as np
import pandas as pd
from sqlite_utils import Database

from core.accounts import access
from core.accounts.access import Actor
from core.language.interface import N_, Message
from core.offline import LABEL as OFFLINE_LABEL
from core.offline import MODEL as OFFLINE_MODEL
from db import analytics
from db import costs as costs_db

SEED_COST_PER_REFLECTION = 0.0015  # seed 000: $0.0015 per reflection
OUTSIDE_RUNS = N_("Regenerate (outside runs)")  # calls with no run (a draft regenerated on its own)
# Work that is not assessing reflections: counted apart, never in the reflections' totals (a page shows them with t).
OTHER_WORK = {"lessons": N_("Lesson review"), "comparisons": N_("Blind comparisons (drafting configurations A and B)"),
              "other": N_("Eval-suite runs and connection tests")}


def costs_view(conn: Database, scope: analytics.Scope, *, actor: Actor) -> dict:
    """Tokens, cost, latency and cache hits per agent, run, course; cost per submission per run.

    Only the reflections' assessment (their runs and Regenerate) counts in these figures; lesson
    review, comparison drafting and eval-suite runs are in `apart` (one row per kind of work,
    also when the view is empty). Calls are attributed through their submission, else through
    their run. Cached until the data or the call log change.
    """
    return costs_in(conn, access.scope_for(conn, actor, scope))


def costs_in(conn: Database, scope: analytics.Scope) -> dict:
    """`costs_view` of a scope access.scope_for has already checked."""
    return analytics.memo(conn, ("costs", scope), lambda: _costs_view(costs_db.cost_tables(conn, scope)),
                          version=analytics.costs_version(conn))


def other_work(by_work: pd.DataFrame) -> pd.DataFrame:
    """The calls that are not the reflections' assessment, one row per kind of work."""
    rows = by_work[by_work["work"] != "reflections"]
    out = rows[["work", "calls", "tokens", "cost_usd", "cache_hits", "errors"]].copy()
    out.insert(0, "what", out.pop("work").map(lambda w: OTHER_WORK.get(w, w)))
    return out.reset_index(drop=True)


def _costs_view(t: dict[str, pd.DataFrame]) -> dict:
    totals, per_sub, by_run = t["totals"], t["per_submission"], t["by_run"]
    apart = other_work(t["by_work"])
    if totals.empty or not totals.loc[0, "calls"]:
        return {"empty": True, "apart": apart,
                "message": Message("No reflection has been assessed with a language model in this scope yet (the "
                                   "other work below is counted apart).") if len(apart) else
                           Message("No LLM calls logged yet — run an assessment first.")}
    offline = t["by_model"].loc[t["by_model"]["model"] == OFFLINE_MODEL, "calls"].sum()
    if offline == totals.loc[0, "calls"]:
        # The offline baseline logs its steps like calls, at $0: no comparison with the study's
        # spending and no charts of nothing (issue 11).
        n = int(totals.loc[0, "submissions"] or 0)
        return {"empty": True, "offline_only": True, "apart": apart,
                "message": Message.plural("No language model was used here, so nothing was spent: every draft "
                                          "({count} reflection(s)) came from the {baseline} (text features and "
                                          "templates). Costs, tokens and times appear here once a run uses a "
                                          "language model.",
                                          "No language model was used here, so nothing was spent: every draft "
                                          "({count} reflection(s)) came from the {baseline} (text features and "
                                          "templates). Costs, tokens and times appear here once a run uses a "
                                          "language model.", n, baseline=Message(OFFLINE_LABEL))}
    by_run["run"] = by_run["run"].map(lambda r: OUTSIDE_RUNS if pd.isna(r) else f"run {int(r)}")
    by_run["cost_per_submission"] = by_run["cost_usd"] / by_run["submissions"].replace(0, np.nan)
    total = {k: (v.item() if hasattr(v, "item") else v) for k, v in totals.to_dict("records")[0].items()}
    n_sub = int(total["submissions"] or 0)
    summary = {**total, "cost_per_submission": (total["cost_usd"] / n_sub) if n_sub else float("nan"),
               "cache_hit_rate": total["cache_hits"] / total["calls"],
               "seed_cost_per_reflection": SEED_COST_PER_REFLECTION}
    nan = float("nan")
    per_submission = {
        "n": len(per_sub),
        "mean_cost": float(per_sub["cost_usd"].mean()) if len(per_sub) else nan,
        "median_cost": float(per_sub["cost_usd"].median()) if len(per_sub) else nan,
        "p95_cost": float(per_sub["cost_usd"].quantile(0.95)) if len(per_sub) else nan,
        "mean_latency_s": float(per_sub["latency_ms"].mean() / 1000) if len(per_sub) else nan,
    }
    notes = ([Message.plural("{offline} of the {count} calls were steps of the {baseline} (US$0); they are counted "
                             "in the totals.",
                             "{offline} of the {count} calls were steps of the {baseline} (US$0); they are counted "
                             "in the totals.", int(total["calls"]), offline=int(offline),
                             baseline=Message(OFFLINE_LABEL))] if offline else [])
    return {"empty": False, "message": "", "notes": notes, "apart": apart, "summary": summary,
            "by_agent": t["by_agent"],
            "by_model": t["by_model"],
            "by_run": by_run, "by_course": t["by_course"], "per_submission": per_submission,
            "tiers": judge_tiers(t["by_tier"], t["judged"])}


TIER_NAMES = {1: N_("Tier 1: the first judge (and its self-consistency samples)"),   # shown with t()
              2: N_("Tier 2: the consensus step")}


def judge_tiers(by_tier: pd.DataFrame, judged: pd.DataFrame) -> dict:
    """Calls and dollars per tier of the judge cascade, against blanket 3x voting (three judges
    on every judged item, as seed 001 compares): blanket calls = 3 x items judged; blanket
    dollars = items x (a first judge's mean call + 2 x a consensus judge's mean call, or the
    first judge's mean where no consensus judge was called yet). Mean costs are of paid calls."""
    items = int(judged.loc[0, "items"] or 0) if len(judged) else 0
    if not items or by_tier.empty:
        return {"available": False, "message": Message("No judged item yet: run an assessment with a language model.")}
    table = by_tier[["tier", "calls", "cache_hits", "errors", "cost_usd"]].copy()
    table.insert(1, "what", table["tier"].map(lambda t: TIER_NAMES.get(int(t), f"Tier {int(t)}")))
    first = judged.loc[0, "first_call_usd"]
    first = 0.0 if pd.isna(first) else float(first)
    judge = judged.loc[0, "judge_call_usd"]
    judge = first if pd.isna(judge) else float(judge)
    calls, cost = int(table["calls"].sum()), float(table["cost_usd"].sum())
    blanket_calls, blanket_cost = 3 * items, items * (first + 2 * judge)
    return {"available": True, "message": "", "by_tier": table, "items": items, "calls": calls, "cost_usd": cost,
            "calls_per_item": calls / items, "blanket_calls": blanket_calls, "blanket_cost_usd": blanket_cost,
            "saving_calls": 1 - calls / blanket_calls,
            "saving_cost": (1 - cost / blanket_cost) if blanket_cost else float("nan")}
