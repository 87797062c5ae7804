"""What lesson review cost, from the call log (llm_calls.lesson_id), against seed 001's
figures: $0.0007 per lesson on the happy path and $0.014 per 20-lesson course."""
from __future__ import annotations

from core.accounts import access
from core.accounts.access import Actor
from core.language.interface import N_
from db import lessons as lessons_db

SEED_PER_LESSON_USD = 0.0007
SEED_PER_COURSE_USD = 0.014        # a 20-lesson course
SEED_COURSE_LESSONS = 20
# The call log's columns per lesson (course_costs' "rows"), as the Lessons page names them (shown with t()).
COLUMNS = {"title": N_("lesson"), "calls": N_("calls"), "cache_hits": N_("cache hits"), "tokens_in": N_("tokens in"),
           "tokens_out": N_("tokens out"), "cost_usd": N_("cost ($)")}


def course_costs(conn, course_id: int, *, actor: Actor) -> dict:
    """Calls, tokens and dollars per lesson and for the course; per-lesson figures average over
    the lessons that made at least one call (offline and Stage 1-settled lessons cost $0)."""
    access.check(conn, actor, "read", course=course_id)
    return costs_in(conn, course_id)


def costs_in(conn, course_id: int) -> dict:
    """`course_costs` once the actor is checked."""
    rows = lessons_db.spend(conn, course_id)
    called = [r for r in rows if r["calls"]]
    total = {k: sum(r[k] for r in rows) for k in ("calls", "cache_hits", "tokens_in", "tokens_out", "cost_usd")}
    per = total["cost_usd"] / len(rows) if rows else 0.0
    return {"lessons": len(rows), "lessons_with_calls": len(called), **total, "cost_usd": round(total["cost_usd"], 6),
            "per_lesson_usd": round(per, 6), "per_20_lessons_usd": round(per * SEED_COURSE_LESSONS, 6),
            "calls_per_lesson": round(total["calls"] / len(rows), 2) if rows else 0.0,
            "seed_per_lesson_usd": SEED_PER_LESSON_USD, "seed_per_course_usd": SEED_PER_COURSE_USD, "rows": rows}
