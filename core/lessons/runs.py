"""Lesson runs: the lesson review in the background, on the runs and run_items tables the
reflections use (kind 'lessons', items with subject 'lesson') and the same call log and cache.

The run itself (claim, worker, heartbeat, resume, cancel) is core.runs.engine's, the same as a
reflection run's; this module is what a lesson run does: which lessons are pending (`KIND`),
reviewing one (one transaction), and at the end drawing the sampled tier's 10 % sample. As for
reflections: `create` checks "no unfinished lesson run of the course" and inserts in ONE write
transaction; a configuration fault stops the run (RunStopped: a refused key at once, an unknown
model or an unreachable endpoint once it hits several lessons in a row, core.runs.guard), and
the lessons the fault had already failed wait with the rest for the resume.
"""
from __future__ import annotations

import logging
from typing import Callable

import db
from core.accounts import access
from core.runs import engine as run_engine
from core.runs import stored as stored_texts
from core.accounts.access import Actor
from core.errors import ConfigError, ConflictError, LLMConfigFault
from core.language.interface import Message, message_of
from core.lessons import review, roles, tiers
from core.llm import check_provider, default_provider, echo, effective_settings, from_settings
from core.offline import LABEL as OFFLINE_LABEL
from core.runs.guard import DEFAULT_LIMIT, ConfigFaultGuard
from core.runs.worker import worker_gone
from core.settings import Settings, judge_endpoint, load_settings
from db import lessons as lessons_db
from db import runs as runs_db

log = logging.getLogger(__name__)
RunStopped = run_engine.RunStopped


def run_config(provider: str, settings: Settings, concurrency: int | None = None) -> dict:
    """What the run records about its configuration (never a key)."""
    if provider == "offline":
        return {"provider": provider, "models": {}, "endpoint": None, "logprobs_endpoint": None,
                "concurrency": 1, "label": OFFLINE_LABEL}
    ep = echo.endpoint(settings)
    names = [*roles.JUDGE_SEATS, roles.FIXER.name, roles.FACTCHECK.name]
    own = {j.name: judge_endpoint(j)[0] or "(the main endpoint, its own key)" for j in roles.seat_judges(settings)}
    return {"provider": provider, "endpoint": settings.llm_base_url or "https://api.openai.com/v1",
            "models": {n: settings.model_for(n) for n in names}, "judge_endpoints": own,
            "logprobs_endpoint": {"base_url": ep.base_url, "model": ep.model} if ep else None,
            "concurrency": int(concurrency or min(settings.concurrency, 4)), "max_retries": settings.max_retries,
            "stop_after_faults": settings.stop_after_faults}


def create(conn, *, course_id: int, provider: str | None = None, redo: bool = False,
           lesson_ids: list[int] | None = None, settings: Settings | None = None,
           concurrency: int | None = None, actor: Actor) -> int:
    """A queued run over the course's lessons that need a review (`redo`: reviewed ones too;
    never an approved one). Refused while another lesson run of the course is unfinished."""
    access.check(conn, actor, "lessons", course=course_id)
    settings = effective_settings(settings, conn)
    provider = provider or default_provider(settings)
    check_provider(provider, settings)
    if concurrency is not None and not 1 <= int(concurrency) <= 16:
        raise ConfigError(Message("concurrency must be between 1 and 16"))
    config = run_config(provider, settings, concurrency)
    hashes = {} if provider == "offline" else roles.prompt_hashes()
    # Check and insert in one write transaction (BEGIN IMMEDIATE): of two starts at the same
    # instant, the second sees the first's run (as core.runs.reflections.create).
    with db.write_transaction(conn):
        for other in runs_db.unfinished_runs(conn, course_id, kind="lessons"):
            if not worker_gone(other):
                raise ConflictError(Message("Lesson run {id} of this course is still running: wait for it or cancel it.",
                                            id=other["id"]))
            raise ConflictError(Message("Lesson run {id} of this course is interrupted: resume it or cancel it first.",
                                        id=other["id"]))
        ids = lessons_db.eligible(conn, course_id, redo=redo, lesson_ids=lesson_ids)
        run_id = runs_db.insert_run(conn, kind="lessons", course_id=course_id, provider=provider, config=config,
                                    prompt_hashes=hashes, item_ids=ids, created_by=actor)
        runs_db.supersede_pending(conn, course_id, run_id)
    return run_id


def _llm_for(provider: str, db_path: str):
    """The run's LLM: None for the offline baseline (Stage 1 only); otherwise the logged,
    cached endpoint, asked for logprobs (the judge's confidence reads them), with each judge
    seat that has an endpoint of its own routed there (core.lessons.roles.seat_judges)."""
    if provider == "offline":
        return None
    settings = effective_settings(load_settings())
    return from_settings(settings, db_path, apply_overrides=False, judges=roles.seat_judges(settings), logprobs=True,
                         max_tokens=2000)


def _prepare(run: dict, db_path: str, given) -> tuple:
    """(llm, options) for the run's reviews: the caller's, else the configured provider's (None
    for the offline baseline: Stage 1 only), watched for configuration faults that hit several
    lessons in a row (core.runs.guard); and the echo endpoint for the lesson text's entropy."""
    llm, options = given if given is not None else (None, None)
    if llm is None:
        llm = _llm_for(run["provider"], db_path)
    if options is None:
        options = review.Options(echo=None if llm is None else echo.endpoint(load_settings()))
    if llm is not None:
        llm = ConfigFaultGuard(llm, run["config"].get("stop_after_faults") or DEFAULT_LIMIT, item="lesson_id",
                               noun="lessons")
    return llm, options


def _held(context: tuple) -> list[int]:
    """Lessons the fault failed before the guard recognised it: the resume reviews them again."""
    llm = context[0]
    return llm.held_items() if isinstance(llm, ConfigFaultGuard) else []


def _review_item(db_path: str, run_id: int, lesson_id: int, context: tuple) -> None:
    llm, options = context
    conn = db.connect(db_path)
    try:
        if runs_db.cancel_requested(conn, run_id):
            return
        status = lessons_db.lesson_status(conn, lesson_id)
        if status in (None, "approved"):
            runs_db.skip_item(conn, run_id, lesson_id, stored_texts.LESSON_SKIPPED[status])
            return
        try:
            out = review.review_lesson(db_path, lesson_id, llm, run_id=run_id, options=options)
        except LLMConfigFault as e:
            # Nothing was stored for this lesson: it stays pending with the rest.
            raise RunStopped(Message("Lesson run stopped at lesson {id}: {error} This lesson and the remaining ones "
                                     "are still waiting: fix the setting, then resume the run.", id=lesson_id,
                                     error=e.args[0] if len(e.args) == 1 else str(e)),
                             fault=f"{e} Fix the setting, then resume the run.") from e
        except Exception as e:    # not already stored as a failed review (e.g. a database error)
            log.exception("lesson run %s: lesson %s failed", run_id, lesson_id)
            runs_db.fail_item(conn, run_id, lesson_id, *stored_texts.failed(
                Message("{error_type}: {error}", error_type=type(e).__name__, error=message_of(e))))
            return
        if out["review_id"] is None:
            runs_db.skip_item(conn, run_id, lesson_id, stored_texts.LESSON_SKIPPED["changed"])
    finally:
        conn.close()


def _draw_sample(conn, run_id: int) -> None:
    ids = lessons_db.sampled_in_run(conn, run_id)
    lessons_db.mark_sample(conn, tiers.draw_sample(ids, seed=run_id), tiers.priority("reviewed", "sampled", True))


# --- the run's API (core.runs.engine with this kind) ------------------------------------------
def execute(db_path, run_id: int, llm=None, *, options: review.Options | None = None,
            on_progress: Callable[[dict], None] | None = None, actor: Actor) -> dict:
    """Review the run's pending lessons now (in this thread, `concurrency` at a time)."""
    access.check_path(db_path, actor, "lessons", run=run_id)
    return run_engine.execute(KIND, db_path, run_id, (llm, options), on_progress=on_progress)


def start(db_path, run_id: int, llm=None, options: review.Options | None = None, *, actor: Actor):
    access.check_path(db_path, actor, "lessons", run=run_id)
    return run_engine.start(KIND, db_path, run_id, (llm, options))


def resume(db_path, run_id: int, llm=None, *, background: bool = True, options: review.Options | None = None,
           on_progress: Callable[[dict], None] | None = None, actor: Actor):
    access.check_path(db_path, actor, "lessons", run=run_id)
    return run_engine.resume(KIND, db_path, run_id, (llm, options), background=background, on_progress=on_progress)


def is_resumable(conn, db_path, run: dict) -> bool:
    return run_engine.is_resumable(KIND, conn, db_path, run)


is_alive, wait_for = run_engine.is_alive, run_engine.wait_for


def cancel(db_path, run_id: int, *, actor: Actor) -> str:
    """Ask the run to stop (it finishes the lessons under way); returns the run's status."""
    access.check_path(db_path, actor, "lessons", run=run_id)
    return run_engine.cancel(db_path, run_id, actor=actor)


def progress(conn, run_id: int, db_path=None, *, actor: Actor) -> dict:
    access.check(conn, actor, "read", run=run_id)
    return _progress(conn, run_id, db_path)


def _progress(conn, run_id: int, db_path=None) -> dict:
    run = runs_db.get_run(conn, run_id)
    counts = runs_db.item_counts(conn, run_id)
    out = {"run_id": run_id, "course_id": run["course_id"], "status": run["status"], "provider": run["provider"],
           "config": run["config"],
           "total": run["total"], "finished": run["total"] - counts["pending"], **counts,
           **lessons_db.run_tiers(conn, run_id), **runs_db.call_totals(conn, run_id),
           "error": stored_texts.stop_of(run),   # a Message where it can be (core.runs.stored)
           "created_at": run["created_at"]}
    out["fraction"] = out["finished"] / run["total"] if run["total"] else 1.0
    if db_path is not None:
        out["alive"] = is_alive(db_path, run_id)
        out["resumable"] = is_resumable(conn, db_path, run)
    return out


def latest(conn, db_path, course_id: int, *, actor: Actor) -> dict | None:
    access.check(conn, actor, "read", course=course_id)
    return latest_in(conn, db_path, course_id)


def latest_in(conn, db_path, course_id: int) -> dict | None:
    """`latest` once the actor is checked (the Lessons page's one read, core.lessons.view)."""
    found = runs_db.list_runs(conn, course_id, limit=1, kind="lessons")
    return _progress(conn, found[0]["id"], db_path) if found else None


def summary(p: dict) -> dict:
    """The command line's JSON summary (issue 17)."""
    return {"lessons": p["total"], "ready": p["ready"], "sampled": p["sampled"], "needs_review": p["needs_review"],
            "failed": p["failed"], "calls": p["calls"], "cost_usd": round(p["cost_usd"], 6)}


KIND = run_engine.Kind(name="lessons", pending=runs_db.pending_items, counts=runs_db.item_counts,
                       prepare=_prepare, process=_review_item, progress=lambda conn, run_id: _progress(conn, run_id),
                       after=_draw_sample, held=_held, reopen=runs_db.reopen_items)
