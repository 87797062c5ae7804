"""Assessment runs: create, execute in the background, show progress, cancel, resume.

A run is a row (configuration without the key, prompt hashes) with one run item per
submission. Its state lives only in the database: progress is read from it, so a browser
refresh, another tab or the command line all see the same numbers.

Lifecycle:
    create() -> queued --start()/execute()--> running --> done | cancelled | failed
One unfinished run per course: `create` checks and inserts in ONE write transaction, so two
processes starting at the same instant make one run. Claiming, the worker, heartbeats, resume
and cancel are core.runs.engine's (shared with lesson runs); this module is what a reflection
run does with one submission (`KIND`). Every finished item is one transaction
(db.drafts.save_draft), so an interruption never leaves a half-written item.

A fault of the configuration stops the run (status failed, error "stopped: <what to fix>"),
leaving the rest pending for a resume: a refused key at once, an unknown model or an
unreachable endpoint once it hits several submissions in a row (core.runs.guard).

In the app, `start()` runs the worker in a daemon thread registered per (database, run), so a
rerun of the page never starts a second worker for the same run.
"""
from __future__ import annotations

import logging
from typing import Callable

import db
from core.accounts import access
from core import pipeline
from core.runs import engine as run_engine
from core.runs import stored as stored_texts
from core.accounts.access import Actor
from core.agents import registry
from core.errors import ConfigError, ConflictError, GateError, LLMConfigFault
from core.language.interface import Message, message_of
from core.judging import agreement as judge_agreement
from core.evals import config as ai_config
from core.evals import gate
from core.llm.batch import BATCH_PRICE  # noqa: F401  (the Assess page's estimate)
from core.llm import check_provider, default_provider, effective_settings, make_batch_llm, make_llm
from core.offline import LABEL as OFFLINE_LABEL
from core.runs.engine import RunStopped, is_alive, wait_for  # noqa: F401  (this module's API)
from core.runs.guard import DEFAULT_LIMIT, ConfigFaultGuard
from core.runs.worker import age_s as _age_s
from core.runs.worker import worker_gone
from core.settings import Settings
from db import batches as batches_db
from db import runs as runs_db
from db.drafts import PIPELINE_OWNED

log = logging.getLogger(__name__)


BATCH_CONCURRENCY = 500   # submissions a batch run works on at once: the size of its waves
MAX_BATCH_CONCURRENCY = 5000


def run_config(provider: str, settings: Settings, concurrency: int | None = None, batch: bool = False) -> dict:
    """What a run records about its configuration; never the key. `batch`: the calls go through
    the endpoint's batch engine (core.llm.batch), many submissions at once."""
    if provider == "offline":
        models = dict.fromkeys(registry.names(), "offline")
        endpoint = None
    else:
        models = {role: settings.model_for(role) for role in registry.names()}
        endpoint = settings.llm_base_url or "https://api.openai.com/v1"
    return {"provider": provider, "endpoint": endpoint, "models": models,
            "temperature": 0.0 if provider == "offline" else settings.temperature,
            "concurrency": int(concurrency or (BATCH_CONCURRENCY if batch else settings.concurrency)),
            "max_retries": settings.max_retries, **({"batch": True} if batch else {}),
            "max_rounds": pipeline.MAX_ROUNDS, "judging": judging_config(provider, settings),
            "stop_after_faults": settings.stop_after_faults,
            # The AI configuration the gate cleared (core.evals): a resume with other settings is checked again.
            "ai_config": ai_config.config_hash(ai_config.definition(provider, settings))}


def judging_config(provider: str, settings: Settings) -> dict:
    """The judge cascade's configuration a run records (models and weights; never an endpoint's key)."""
    if provider == "offline":
        return {"judges": []}
    return {"judges": [j.model_dump() for j in settings.judges],
            **{k: getattr(settings, k) for k in ("cascade_min_confidence", "cascade_ev_tolerance",
                                                 "cascade_band_margin", "cascade_samples")}}


# --- create ----------------------------------------------------------------------------
def create(conn, *, course_id: int, assignment_id: int | None = None, provider: str | None = None,
           concurrency: int | None = None, limit: int | None = None, redo: bool = False,
           settings: Settings | None = None, batch: bool = False, actor: Actor) -> int:
    """A queued run over the course's (or one assignment's) submissions that need a draft.

    `redo` also re-drafts drafted / needs-attention items (never a teacher's approved,
    rejected or released one). Refused while another run of the course is unfinished, so two
    runs never work on the same submission. `batch` sends the calls through the endpoint's
    batch engine (half the price, answers within the provider's 24 hours; core.llm.batch).
    """
    access.check(conn, actor, "assess", course=course_id, assignment=assignment_id)
    settings = effective_settings(settings, conn)
    provider = provider or default_provider(settings)
    check_provider(provider, settings)
    if batch and provider != "openai":
        raise ConfigError(Message("Batch mode needs a language model endpoint with /v1/batches (the offline "
                                  "baseline has none): configure FAIRMARK_LLM_BASE_URL or run without --batch."))
    top = MAX_BATCH_CONCURRENCY if batch else 64
    if concurrency is not None and not 1 <= int(concurrency) <= top:
        raise ConfigError(Message("concurrency must be between 1 and {top}", top=top))
    # An AI configuration that has not passed its blocking eval cases runs only on an admin's
    # override. Checked (and the configuration recorded as used) before the run's transaction, so
    # a refusal still leaves the record of what was tried.
    gate.require(conn, ai_config.definition(provider, settings), actor=actor, used_for="assessment run")
    # Check and insert in one write transaction (BEGIN IMMEDIATE): two processes starting at
    # the same instant are serialised here, and the second sees the first's run.
    with db.write_transaction(conn):
        for other in runs_db.unfinished_runs(conn, course_id):
            left = runs_db.item_counts(conn, other["id"])["pending"]
            if not worker_gone(other):
                raise ConflictError(Message.plural(
                    "Run {run} of this course is still running with {count} item(s) left: wait for it, resume it or "
                    "cancel it first.",
                    "Run {run} of this course is still running with {count} item(s) left: wait for it, resume it or "
                    "cancel it first.", left, run=other["id"]))
            raise ConflictError(Message.plural(
                "Run {run} of this course is interrupted with {count} item(s) left: wait for it, resume it or "
                "cancel it first.",
                "Run {run} of this course is interrupted with {count} item(s) left: wait for it, resume it or "
                "cancel it first.", left, run=other["id"]))
        ids = runs_db.eligible_submissions(conn, course_id=course_id, assignment_id=assignment_id, redo=redo,
                                           limit=limit)
        run_id = runs_db.insert_run(conn, course_id=course_id, assignment_id=assignment_id, provider=provider,
                                    config=run_config(provider, settings, concurrency, batch),
                                    prompt_hashes=registry.prompt_hashes(), item_ids=ids,
                                    created_by=actor)
        runs_db.supersede_pending(conn, course_id, run_id)
    return run_id


# --- execute: what a reflection run does with one submission (core.runs.engine runs it) ---
def _prepare(run: dict, db_path: str, llm):
    """The run's LLM (the configured provider unless the caller gave one; in batch mode the
    endpoint's batch engine), watched for configuration faults that hit several submissions in
    a row (core.runs.guard). The configured provider answers with the settings in force now: when
    they are not the configuration the run was created with (a resume after a change), the eval
    gate is asked again, and a refusal stops the run before any call."""
    batcher = None
    if llm is None:
        _recheck_gate(run, db_path)
    if llm is None and run["config"].get("batch"):
        llm, batcher = make_batch_llm(db_path, run_id=run["id"])
    elif llm is None:
        llm = make_llm(run["provider"], db_path)
    guard = ConfigFaultGuard(llm, run["config"].get("stop_after_faults") or DEFAULT_LIMIT)
    guard.batcher = batcher
    return guard


def _release(guard) -> None:
    if getattr(guard, "batcher", None) is not None:
        guard.batcher.close()


def _said(error: Exception) -> str:
    """An error's message as it was given (a Message stays one, so a page can translate it)."""
    return error.args[0] if len(error.args) == 1 and isinstance(error.args[0], str) else str(error)


def _recheck_gate(run: dict, db_path: str) -> None:
    conn = db.connect(db_path)
    try:
        defn = ai_config.definition(run["provider"], effective_settings(conn=conn))
        if ai_config.config_hash(defn) == run["config"].get("ai_config"):
            return
        try:
            gate.require(conn, defn, actor=run["created_by"], used_for=f"run {run['id']} (settings changed)")
        except GateError as e:
            raise RunStopped(Message("Run {run} did not resume: the settings changed since it started. {error}",
                                     run=run["id"], error=_said(e)),
                             fault=Message("the settings changed since the run started. {error} Then resume the "
                                           "run.", error=_said(e))) from e
    finally:
        conn.close()


def _assess_item(db_path: str, run_id: int, submission_id: int, llm) -> None:
    conn = db.connect(db_path)
    try:
        if runs_db.cancel_requested(conn, run_id):
            return  # stays pending: a resume continues here
        status = runs_db.submission_status(conn, submission_id)
        if status not in PIPELINE_OWNED:
            runs_db.skip_item(conn, run_id, submission_id, stored_texts.skip_reason(status))
            return
    finally:
        # Closed while the pipeline works (it opens its own): held, a batch run's 500 threads kept
        # one PostgreSQL server process each while they waited on the provider.
        conn.close()
    try:
        pipeline.assess_submission(db_path, submission_id, llm, run_id=run_id)
    except LLMConfigFault as e:
        # Nothing was stored for this item: it stays pending with the rest.
        raise RunStopped(Message("Run stopped at submission {submission}: {error} This submission and the "
                                 "remaining ones are still waiting: fix the setting, then resume the run.",
                                 submission=submission_id, error=_said(e)),
                         fault=Message("{error} Fix the setting, then resume the run.", error=_said(e))) from e
    except Exception as e:  # anything not already stored as a failed draft (e.g. a DB error)
        log.exception("run %s: submission %s failed", run_id, submission_id)
        conn = db.connect(db_path)
        try:
            runs_db.fail_item(conn, run_id, submission_id, *stored_texts.failed(
                Message("{error_type}: {error}", error_type=type(e).__name__, error=message_of(e))))
        finally:
            conn.close()


# --- the run's API (core.runs.engine with this kind) ------------------------------------------
def execute(db_path, run_id: int, llm=None, *, on_progress: Callable[[dict], None] | None = None, actor: Actor) -> dict:
    """Claim the run and draft its pending submissions now (items concurrently); returns the
    final progress. A configuration fault stops the run (RunStopped)."""
    access.check_path(db_path, actor, "assess", run=run_id)
    return run_engine.execute(KIND, db_path, run_id, llm, on_progress=on_progress)


def start(db_path, run_id: int, llm=None, *, stale_after_s: float | None = None, actor: Actor):
    """Claim the run and execute it in a background thread (one per run in this process)."""
    access.check_path(db_path, actor, "assess", run=run_id)
    return run_engine.start(KIND, db_path, run_id, llm, stale_after_s=stale_after_s)


def resume(db_path, run_id: int, llm=None, *, background: bool = True, stale_after_s: float | None = None,
           on_progress: Callable[[dict], None] | None = None, actor: Actor):
    """Continue a cancelled, failed or interrupted run with only its pending submissions."""
    access.check_path(db_path, actor, "assess", run=run_id)
    return run_engine.resume(KIND, db_path, run_id, llm, background=background, stale_after_s=stale_after_s,
                             on_progress=on_progress)


def is_resumable(conn, db_path, run: dict, stale_after_s: float | None = None) -> bool:
    return run_engine.is_resumable(KIND, conn, db_path, run, stale_after_s)


def cancel(db_path, run_id: int, *, actor: Actor) -> str:
    """Ask the run to stop after the items in flight; returns the run's status."""
    access.check_path(db_path, actor, "assess", run=run_id)
    return run_engine.cancel(db_path, run_id, actor=actor)


# --- progress ----------------------------------------------------------------------------
def _working_seconds(run: dict) -> float:
    """Time the run spent working: closed periods plus the open one (db.runs), never the time it
    stood stopped before a resume."""
    seconds = float(run.get("active_s") or 0.0)
    if run.get("resumed_at") and not run.get("finished_at"):
        since, silent = _age_s(run["resumed_at"]), _age_s(run.get("heartbeat_at")) or 0.0
        seconds += max(0.0, since - (silent if silent > runs_db.SILENT_LIMIT_S else 0.0))
    return seconds


def progress(conn, run_id: int, db_path=None, *, actor: Actor) -> dict:
    """Everything the Assess page and the command line show, read from the database."""
    access.check(conn, actor, "read", run=run_id)
    return _progress(conn, run_id, db_path)


def _progress(conn, run_id: int, db_path=None) -> dict:
    run = runs_db.get_run(conn, run_id)
    counts = runs_db.item_counts(conn, run_id)
    totals = runs_db.call_totals(conn, run_id)
    finished = run["total"] - counts["pending"]
    seconds = round(_working_seconds(run), 1)
    out = {
        "run_id": run_id, "status": run["status"], "provider": run["provider"], "config": run["config"],
        "total": run["total"], "finished": finished, "fraction": finished / run["total"] if run["total"] else 1.0,
        **counts, **totals, "seconds": seconds, "error": stored_texts.stop_of(run),   # a Message where it can be
        "cancel_requested": bool(run["cancel_requested"]), "created_at": run["created_at"],
        "assignment_id": run["assignment_id"], "assignment_title": run.get("assignment_title"),
        "assignment_week": run.get("assignment_week"),
        # Why items failed or were skipped, each a Message where FairMark said it (core.runs.stored).
        "failures": stored_texts.shown(runs_db.ended_items(conn, run_id, "failed", 20)) if counts["failed"] else [],
        "skips": stored_texts.shown(runs_db.ended_items(conn, run_id, "skipped", 20)) if counts["skipped"] else [],
    }
    if run["config"].get("batch"):
        out["batches"] = len(batches_db.of_run(conn, run_id))
    if db_path is not None:
        out["alive"] = is_alive(db_path, run_id)
        out["resumable"] = is_resumable(conn, db_path, run)
    return out


def history(conn, db_path, course_id: int, assignment_id: int | None = None, limit: int = 10, *, actor: Actor) -> list[dict]:
    """Progress and totals of the most recent runs of a course (newest first)."""
    access.check(conn, actor, "read", course=course_id, assignment=assignment_id)
    return history_of(conn, db_path, course_id, assignment_id, limit)


def history_of(conn, db_path, course_id: int, assignment_id: int | None = None, limit: int = 10) -> list[dict]:
    """`history` for a caller that has checked the actor (a page's view)."""
    return [_progress(conn, r["id"], db_path) for r in runs_db.list_runs(conn, course_id, assignment_id, limit)]


def describe(provider: str, settings: Settings | None = None) -> dict:
    """What a run with this provider would use, for the page to show (never the key)."""
    settings = effective_settings(settings)
    cfg = run_config(provider, settings)
    cfg["label"] = OFFLINE_LABEL if provider == "offline" else f"LLM at {cfg['endpoint']}"
    return cfg


def summary(p: dict) -> dict:
    """The command line's JSON summary."""
    return {"drafted": p["done"], "needs_attention": p["needs_attention"], "failed": p["failed"],
            "calls": p["calls"], "cache_hits": p["cache_hits"], "tokens_in": p["tokens_in"],
            "tokens_out": p["tokens_out"], "cost_usd": round(p["cost_usd"], 6), "seconds": p["seconds"]}


KIND = run_engine.Kind(
    name="reflections", pending=runs_db.pending_items, counts=runs_db.item_counts, prepare=_prepare,
    process=_assess_item, progress=lambda conn, run_id: _progress(conn, run_id),
    after=judge_agreement.review_run,   # the rule on the judges' agreement (Krippendorff's thresholds)
    held=lambda guard: guard.held_items(), reopen=runs_db.reopen_items, release=_release)


__all__ = ["create", "execute", "start", "resume", "cancel", "progress", "summary", "describe", "history",
           "run_config", "is_alive", "is_resumable", "wait_for", "RunStopped", "worker_gone"]
