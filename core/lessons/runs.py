"""Lesson runs: the lesson review in the background, on the runs table the reflections use
(kind 'lessons', items in lesson_run_items) and the same call log and cache.

This is a parallel small module rather than a branch in core.runs: it reuses db.runs for the
run row (start, heartbeat, cancel, finish, call totals) and core.runs' staleness rule, and keeps
its own items and worker. Lifecycle as core.runs: create() -> queued -> running -> done |
cancelled | failed; a run whose worker died is resumed with its pending lessons only; each
lesson's review is one transaction. At the end the sampled tier's 10 % sample is drawn.
"""
from __future__ import annotations

import logging
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Callable

import db
from core import runs as reflection_runs
from core.errors import ConfigError, ConflictError, LLMConfigFault
from core.lessons import review, roles, tiers
from core.llm import check_provider, default_provider, echo, effective_settings, from_settings
from core.offline import LABEL as OFFLINE_LABEL
from core.settings import Settings, load_settings
from db import lessons as lessons_db
from db import runs as runs_db

log = logging.getLogger(__name__)
HEARTBEAT_S = reflection_runs.HEARTBEAT_S
RunStopped = reflection_runs.RunStopped


def run_config(provider: str, settings: Settings, concurrency: int | None = None) -> dict:
    """What the run records about its configuration (never a key)."""
    if provider == "offline":
        return {"provider": provider, "models": {}, "endpoint": None, "logprobs_endpoint": None,
                "concurrency": 1, "label": OFFLINE_LABEL}
    ep = echo.endpoint(settings)
    names = [*roles.JUDGE_SEATS, roles.FIXER.name, roles.FACTCHECK.name]
    return {"provider": provider, "endpoint": settings.llm_base_url or "https://api.openai.com/v1",
            "models": {n: settings.model_for(n) for n in names},
            "logprobs_endpoint": {"base_url": ep.base_url, "model": ep.model} if ep else None,
            "concurrency": int(concurrency or min(settings.concurrency, 4)), "max_retries": settings.max_retries}


def create(conn, *, course_id: int, provider: str | None = None, redo: bool = False,
           lesson_ids: list[int] | None = None, created_by: str = "", settings: Settings | None = None,
           concurrency: int | None = None) -> int:
    """A queued run over the course's lessons that need a review (`redo`: reviewed ones too;
    never an approved one). Refused while another lesson run of the course is unfinished."""
    settings = effective_settings(settings)
    provider = provider or default_provider(settings)
    check_provider(provider, settings)
    if concurrency is not None and not 1 <= int(concurrency) <= 16:
        raise ConfigError("concurrency must be between 1 and 16")
    for other in runs_db.unfinished_runs(conn, course_id, kind="lessons"):
        if not reflection_runs.is_stale(other):
            raise ConflictError(f"Lesson run {other['id']} of this course is still running: wait for it or cancel it.")
        raise ConflictError(f"Lesson run {other['id']} of this course was interrupted: resume it or cancel it first.")
    ids = lessons_db.eligible(conn, course_id, redo=redo, lesson_ids=lesson_ids)
    hashes = {} if provider == "offline" else roles.prompt_hashes()
    return lessons_db.insert_run(conn, course_id=course_id, provider=provider, config=run_config(provider, settings,
                                 concurrency), prompt_hashes=hashes, lesson_ids=ids, created_by=created_by)


def _llm_for(provider: str, db_path: str):
    """The run's LLM: None for the offline baseline (Stage 1 only); otherwise the logged,
    cached endpoint, asked for logprobs (the judge's confidence reads them)."""
    if provider == "offline":
        return None
    return from_settings(load_settings(), db_path, logprobs=True, max_tokens=2000)


def execute(db_path, run_id: int, llm=None, *, options: review.Options | None = None,
            on_progress: Callable[[dict], None] | None = None) -> dict:
    """Review the run's pending lessons now (in this thread, `concurrency` at a time)."""
    db_path = str(db_path)
    conn = db.connect(db_path)
    try:
        run = runs_db.get_run(conn, run_id)
        runs_db.mark_started(conn, run_id)
        try:
            if llm is None:
                llm = _llm_for(run["provider"], db_path)
            if options is None:
                options = review.Options(echo=None if llm is None else echo.endpoint(load_settings()))
            _process(conn, db_path, run_id, llm, options, int(run["config"].get("concurrency") or 1), on_progress)
        except BaseException as e:
            runs_db.finish(conn, run_id, "failed", error=f"worker stopped: {type(e).__name__}: {e}"[:2000])
            raise
        _draw_sample(conn, run_id)
        counts = lessons_db.item_counts(conn, run_id)
        if counts["pending"]:
            runs_db.finish(conn, run_id, "cancelled" if runs_db.cancel_requested(conn, run_id) else "failed",
                           error=None if runs_db.cancel_requested(conn, run_id)
                           else f"{counts['pending']} lesson(s) were not reviewed; resume the run")
        else:
            runs_db.finish(conn, run_id, "done")
        return progress(conn, run_id)
    finally:
        conn.close()


def _process(conn, db_path: str, run_id: int, llm, options, concurrency: int, on_progress) -> None:
    stop = threading.Event()
    with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix=f"lessons-{run_id}") as pool:
        futures = {pool.submit(_one, db_path, run_id, lid, llm, options, stop)
                   for lid in lessons_db.pending_items(conn, run_id)}
        try:
            while futures:
                done, futures = wait(futures, timeout=HEARTBEAT_S, return_when=FIRST_COMPLETED)
                runs_db.heartbeat(conn, run_id)
                for f in done:
                    f.result()
                if done and on_progress is not None:
                    on_progress(progress(conn, run_id))
        finally:
            for f in futures:
                f.cancel()


def _one(db_path: str, run_id: int, lesson_id: int, llm, options, stop: threading.Event) -> None:
    if stop.is_set():
        return
    conn = db.connect(db_path)
    try:
        if runs_db.cancel_requested(conn, run_id):
            return
        status = lessons_db.lesson_status(conn, lesson_id)
        if status in (None, "approved"):
            lessons_db.finish_item(conn, run_id, lesson_id, "skipped",
                                   "lesson deleted" if status is None else "a teacher has approved it")
            return
        try:
            out = review.review_lesson(db_path, lesson_id, llm, run_id=run_id, options=options)
        except LLMConfigFault as e:
            stop.set()
            raise RunStopped(f"Lesson run stopped at lesson {lesson_id}: {e} The remaining lessons are still "
                             "waiting: fix the setting, then resume the run.") from e
        except Exception as e:    # not already stored as a failed review (e.g. a database error)
            log.exception("lesson run %s: lesson %s failed", run_id, lesson_id)
            lessons_db.finish_item(conn, run_id, lesson_id, "failed", f"{type(e).__name__}: {e}"[:2000])
            return
        if out["review_id"] is None:
            lessons_db.finish_item(conn, run_id, lesson_id, "skipped", "the lesson changed while it was reviewed")
    finally:
        conn.close()


def _draw_sample(conn, run_id: int) -> None:
    ids = lessons_db.sampled_in_run(conn, run_id)
    lessons_db.mark_sample(conn, tiers.draw_sample(ids, seed=run_id), tiers.priority("reviewed", "sampled", True))


# --- background, resume, cancel ------------------------------------------------------------------
_workers: dict[tuple[str, int], threading.Thread] = {}
_lock = threading.Lock()


def _key(db_path, run_id: int) -> tuple[str, int]:
    return (str(Path(db_path).resolve()), int(run_id))


def is_alive(db_path, run_id: int) -> bool:
    t = _workers.get(_key(db_path, run_id))
    return bool(t and t.is_alive())


def start(db_path, run_id: int, llm=None, options: review.Options | None = None) -> threading.Thread:
    key = _key(db_path, run_id)
    with _lock:
        t = _workers.get(key)
        if t is not None and t.is_alive():
            return t
        conn = db.connect(db_path)
        try:
            runs_db.mark_started(conn, run_id)
        finally:
            conn.close()
        t = threading.Thread(target=_background, args=(str(db_path), run_id, llm, options), daemon=True,
                             name=f"fairmark-lessons-{run_id}")
        _workers[key] = t
        t.start()
    return t


def _background(db_path: str, run_id: int, llm, options) -> None:
    try:
        execute(db_path, run_id, llm, options=options)
    except BaseException:
        log.exception("lesson run %s stopped", run_id)


def wait_for(db_path, run_id: int, timeout: float = 60.0) -> bool:
    t = _workers.get(_key(db_path, run_id))
    if t is not None:
        t.join(timeout)
        return not t.is_alive()
    return True


def is_resumable(conn, db_path, run: dict) -> bool:
    if is_alive(db_path, run["id"]) or not lessons_db.item_counts(conn, run["id"])["pending"]:
        return False
    return run["status"] in ("cancelled", "failed") or reflection_runs.is_stale(run)


def resume(db_path, run_id: int, llm=None, *, background: bool = True, options: review.Options | None = None,
           on_progress: Callable[[dict], None] | None = None):
    conn = db.connect(db_path)
    try:
        run = runs_db.get_run(conn, run_id)
        if not is_resumable(conn, db_path, run):
            raise ConflictError(f"Lesson run {run_id} cannot be resumed: it is {run['status']} with "
                                f"{lessons_db.item_counts(conn, run_id)['pending']} lesson(s) left.")
        runs_db.mark_started(conn, run_id)
    finally:
        conn.close()
    if background:
        return start(db_path, run_id, llm, options)
    return execute(db_path, run_id, llm, options=options, on_progress=on_progress)


def cancel(db_path, run_id: int, actor: str = "") -> None:
    conn = db.connect(db_path)
    try:
        run = runs_db.get_run(conn, run_id)
        if run["status"] not in runs_db.ACTIVE:
            return
        runs_db.request_cancel(conn, run_id, actor)
        if not is_alive(db_path, run_id) and (run["status"] == "queued" or reflection_runs.is_stale(run)):
            runs_db.finish(conn, run_id, "cancelled")
    finally:
        conn.close()


def progress(conn, run_id: int, db_path=None) -> dict:
    run = runs_db.get_run(conn, run_id)
    counts = lessons_db.item_counts(conn, run_id)
    out = {"run_id": run_id, "course_id": run["course_id"], "status": run["status"], "provider": run["provider"],
           "config": run["config"],
           "total": run["total"], "finished": run["total"] - counts["pending"], **counts,
           **lessons_db.run_tiers(conn, run_id), **runs_db.call_totals(conn, run_id), "error": run["error"],
           "created_at": run["created_at"]}
    out["fraction"] = out["finished"] / run["total"] if run["total"] else 1.0
    if db_path is not None:
        out["alive"] = is_alive(db_path, run_id)
        out["resumable"] = is_resumable(conn, db_path, run)
    return out


def latest(conn, db_path, course_id: int) -> dict | None:
    found = runs_db.list_runs(conn, course_id, limit=1, kind="lessons")
    return progress(conn, found[0]["id"], db_path) if found else None


def summary(p: dict) -> dict:
    """The command line's JSON summary (issue 17)."""
    return {"lessons": p["total"], "ready": p["ready"], "sampled": p["sampled"], "needs_review": p["needs_review"],
            "failed": p["failed"], "calls": p["calls"], "cost_usd": round(p["cost_usd"], 6)}
