"""Lesson review on the synthetic demo course: what Stage 1 alone finds, what the demo's
scripted judge adds, judge-expert agreement, and the cost per lesson from the call log.

    python -m bench.lessons [--tokenizer]

Two real lesson runs (core.lessons.runs) on a temporary database: the offline baseline (Stage 1
only) and the scripted judge (bench.lesson_judge.DemoJudge: two judge models, the fixer, the
re-judgment), wrapped in the real LoggedLLM and priced at seed 001's DeepSeek prices ($0.27 /
$1.10 / $0.07 cached per million tokens) and gpt-4o-mini's for the second judge. Token counts of
the scripted judge are estimates (4 characters per token of the real prompts and answers), or
with --tokenizer counted by SmolLM2's tokenizer (bench.tokens.Tokenizer, plus the chat framing).
The demo, its verdicts and the scripted judge were written together: agreement checks the
plumbing, not the judge. Prints one JSON line.
"""
from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from core.accounts.access import Actor

PRICES = {"deepseek-chat": {"input_per_mtok": 0.27, "cached_input_per_mtok": 0.07, "output_per_mtok": 1.10},
          "gpt-4o-mini": {"input_per_mtok": 0.15, "cached_input_per_mtok": 0.075, "output_per_mtok": 0.60}}


def _run(db_path: str, course_id: int, llm) -> dict:
    import db
    from core.lessons import runs

    conn = db.connect(db_path)
    try:
        run_id = runs.create(conn, course_id=course_id, provider="offline", redo=True, actor=Actor("bench", role="admin"))
    finally:
        conn.close()
    return runs.execute(db_path, run_id, llm, actor=Actor("test", role="admin"))


def _summary(db_path: str, course_id: int, progress: dict) -> dict:
    import db
    from core.lessons import agreement, costs

    conn = db.connect(db_path)
    try:
        view = agreement.lesson_agreement(conn, course_id, actor=Actor("test", role="admin"))
        spent = costs.course_costs(conn, course_id, actor=Actor("test", role="admin"))
    finally:
        conn.close()
    expert = view["raters"]["expert"]
    return {"tiers": {k: progress[k] for k in ("ready", "sampled", "needs_review", "failed")},
            "agreement": round(expert["agreement"], 3), "kappa": round(expert["kappa"], 3), "n": expert["n"],
            "planted_found": view["found"], "planted": view["n_planted"],
            "found_by": sorted({f"{p['problem']}: {p['found_by'] or 'missed'}" for p in view["planted"]}),
            "calls": progress["calls"], "calls_per_lesson": spent["calls_per_lesson"],
            "tokens_in": spent["tokens_in"], "tokens_out": spent["tokens_out"],
            "cost_per_lesson_usd": spent["per_lesson_usd"], "cost_per_20_lessons_usd": spent["per_20_lessons_usd"]}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokenizer", action="store_true", help="count tokens with SmolLM2's tokenizer")
    args = parser.parse_args(argv)
    count = None
    if args.tokenizer:
        from bench.tokens import MESSAGE_OVERHEAD, Tokenizer

        tok = Tokenizer()

        def count(text: str) -> int:
            return tok.count(text) + MESSAGE_OVERHEAD
    import db
    from bench.lesson_judge import DemoJudge
    from core.lessons import costs, demo
    from core.llm import LoggedLLM

    with tempfile.TemporaryDirectory() as tmp:
        db_path = str(Path(tmp) / "lessons.db")
        conn = db.connect(db_path)
        course_id = demo.load_demo(conn, actor=Actor("test", role="admin"))["course_id"]
        conn.close()
        offline = _summary(db_path, course_id, _run(db_path, course_id, None))
        judged = _summary(db_path, course_id,
                          _run(db_path, course_id, LoggedLLM(DemoJudge(count=count), db_path, prices=PRICES)))
        rerun = _run(db_path, course_id, LoggedLLM(DemoJudge(count=count), db_path, prices=PRICES))
    out = {"lessons": 8, "offline": offline, "scripted_judge": judged,
           "rerun_cache_hits": rerun["cache_hits"], "rerun_cost_usd": rerun["cost_usd"],
           "seed_per_lesson_usd": costs.SEED_PER_LESSON_USD, "seed_per_course_usd": costs.SEED_PER_COURSE_USD,
           "tokens": "SmolLM2 tokenizer" if args.tokenizer else "estimated at 4 characters per token",
           "note": "scripted judge written with the demo: plumbing check, not validity"}
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
