"""Runs: configuration, background worker, progress, cancel, failures, resume without loss."""
import threading

import pytest

import db as dbmod
import factories
from assess_script import RICH_TEXT, good_llm, submission_text
from core.runs import reflections as runs
from core.errors import ConflictError, LLMServerError
from db import runs as runs_db
from core.accounts.access import Actor
from waits import WAIT_S


def course_with(conn, n=4, texts=None):
    c = factories.course(conn)
    subs = []
    for i in range(n):
        sid = factories.student(conn, c["course_id"])
        text = (texts[i] if texts else RICH_TEXT + f" Note {i}.")
        subs.append(factories.submission(conn, c["assignment_id"], sid, text))
    return c, subs


def drafts_per_submission(conn):
    return dict(conn.execute("SELECT submission_id, COUNT(*) FROM drafts GROUP BY submission_id").fetchall())


def test_run_records_config_without_the_key_and_only_eligible_items(conn, monkeypatch):
    monkeypatch.setenv("FAIRMARK_LLM_API_KEY", "sk-test-SECRET-123")
    monkeypatch.setenv("FAIRMARK_MODEL_REVIEWER", "other-family-model")
    c, subs = course_with(conn, 3)
    factories.draft(conn, subs[0], dict.fromkeys(c["rubric"].keys, 2), status="approved")
    factories.cleared_config(conn)
    run_id = runs.create(conn, course_id=c["course_id"], actor=Actor("Ms T", role="admin"))
    run = runs_db.get_run(conn, run_id)
    assert run["provider"] == "openai" and run["status"] == "queued" and run["total"] == 2
    assert "SECRET" not in str(dict(next(conn.query("SELECT * FROM runs"))))
    assert run["config"]["models"]["reviewer"] == "other-family-model" and run["config"]["temperature"] == 0.3
    assert set(run["prompt_hashes"]) == {"evaluator", "equity", "coach", "aggregator", "reviewer", "reviser",
                                         "grounding", "pedagogy", "comment_judges"}
    assert runs_db.pending_items(conn, run_id) == subs[1:]
    audit = next(conn.query("SELECT actor, action, entity_id FROM audit_log WHERE entity = 'runs'"))
    assert audit == {"actor": "Ms T", "action": "start_run", "entity_id": run_id}


def test_default_provider_is_offline_without_configuration(conn):
    c, _ = course_with(conn, 1)
    assert runs_db.get_run(conn, runs.create(conn, course_id=c["course_id"], actor=Actor("test", role="admin")))["provider"] == "offline"


def test_an_unknown_provider_is_refused_before_anything_is_written(conn, db_path):
    from core.errors import ConfigError
    from core.llm import make_llm

    c, _ = course_with(conn, 1)
    with pytest.raises(ConfigError, match="unknown provider 'nope'; use one of offline, openai"):
        runs.create(conn, course_id=c["course_id"], provider="nope", actor=Actor("test", role="admin"))
    with pytest.raises(ConfigError, match="unknown provider 'nope'"):
        make_llm("nope", db_path)
    assert runs_db.list_runs(conn, c["course_id"]) == []


def test_a_second_run_is_refused_while_one_is_unfinished(conn):
    c, _ = course_with(conn, 2)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    with pytest.raises(ConflictError, match=f"Run {run_id}"):
        runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))


def test_one_failing_item_does_not_stop_the_run(conn, db_path):
    c, subs = course_with(conn, 4)
    llm = good_llm()

    def evaluate(messages, schema):
        if "Note 2." in submission_text(messages):
            raise LLMServerError("The language model answered HTTP 503 three times.")
        from assess_script import evaluation_for
        return evaluation_for(schema)

    llm.always("evaluator", evaluate)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    p = runs.execute(db_path, run_id, llm, actor=Actor("test", role="admin"))
    assert p["status"] == "done" and (p["done"], p["failed"], p["pending"]) == (3, 1, 0)
    failed = runs_db.failed_items(conn, run_id)
    assert failed == [{"submission_id": subs[2], "error": "evaluator: LLMServerError: The language model "
                                                          "answered HTTP 503 three times."}]
    assert next(conn.query("SELECT status FROM submissions WHERE id = ?", [subs[2]]))["status"] == "failed"
    assert drafts_per_submission(conn) == dict.fromkeys(subs, 1)


class WorkerKilled(BaseException):
    """Stands in for the process dying: not an Exception, so nothing on the way catches it."""


def test_interrupted_run_resumes_only_pending_items_without_duplicates_or_losses(conn, db_path):
    c, subs = course_with(conn, 6)
    calls = {"n": 0}
    lock = threading.Lock()
    llm = good_llm()
    from assess_script import evaluation_for

    def evaluate(messages, schema):
        with lock:
            calls["n"] += 1
            if calls["n"] == 4:
                raise WorkerKilled()
        return evaluation_for(schema)

    llm.always("evaluator", evaluate)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", concurrency=1, actor=Actor("test", role="admin"))
    with pytest.raises(WorkerKilled):
        runs.execute(db_path, run_id, llm, actor=Actor("test", role="admin"))
    counts = runs_db.item_counts(conn, run_id)
    # Three items finished; the killed one wrote nothing; no item started after it.
    assert (counts["done"], counts["pending"], counts["failed"]) == (3, 3, 0)
    pending = counts["pending"]
    run = runs_db.get_run(conn, run_id)
    assert run["status"] == "failed" and "WorkerKilled" in run["error"]
    assert runs.is_resumable(conn, db_path, run)
    done_before = set(drafts_per_submission(conn))

    fresh = good_llm()
    p = runs.resume(db_path, run_id, fresh, background=False, actor=Actor("test", role="admin"))
    assert p["status"] == "done" and p["done"] == 6 and p["pending"] == 0
    assert len(fresh.calls_for("evaluator")) == pending  # only the unfinished items
    assert drafts_per_submission(conn) == dict.fromkeys(subs, 1)
    assert done_before < set(subs)
    assert conn.execute("SELECT COUNT(*) FROM run_items WHERE run_id = ?", [run_id]).fetchone()[0] == 6


def test_a_run_left_running_by_a_dead_worker_is_resumable_once_its_heartbeat_is_stale(conn, db_path):
    c, subs = course_with(conn, 3)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    # What a server restart leaves: status running, one item done, a heartbeat that stopped.
    conn.execute("UPDATE runs SET status = 'running', started_at = '2026-01-01T00:00:00.000000Z', "
               "heartbeat_at = ? WHERE id = ?", [dbmod.now(), run_id])
    with pytest.raises(ConflictError, match="still running"):
        runs.resume(db_path, run_id, good_llm(), background=False, actor=Actor("test", role="admin"))
    conn.execute("UPDATE runs SET heartbeat_at = '2026-01-01T00:00:00.000000Z' WHERE id = ?", [run_id])
    assert runs.is_resumable(conn, db_path, runs_db.get_run(conn, run_id))
    conn.execute("UPDATE runs SET resumed_at = '2026-01-01T00:00:00.000000Z' WHERE id = ?", [run_id])
    p = runs.resume(db_path, run_id, good_llm(), background=False, actor=Actor("test", role="admin"))
    assert p["status"] == "done" and p["done"] == 3
    # Worked from resumed_at to its last heartbeat (the same instant here), then the resumed period:
    # the months it lay dead are not run time.
    assert 0 <= p["seconds"] < 60
    with pytest.raises(ConflictError, match="nothing left"):
        runs.resume(db_path, run_id, good_llm(), background=False, actor=Actor("test", role="admin"))


def test_cancel_stops_between_items_and_resume_finishes(conn, db_path):
    c, subs = course_with(conn, 5)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", concurrency=1, actor=Actor("test", role="admin"))
    llm = good_llm()
    from assess_script import evaluation_for

    def evaluate(messages, schema):
        runs.cancel(db_path, run_id, actor=Actor("test", role="admin"))  # the teacher presses Cancel while the first item runs
        return evaluation_for(schema)

    llm.script("evaluator", evaluate)
    p = runs.execute(db_path, run_id, llm, actor=Actor("test", role="admin"))
    assert p["status"] == "cancelled" and p["done"] == 1 and p["pending"] == 4
    # It stood stopped for a day before the resume (issue 11 item 13: that day counted as run time).
    conn.execute("UPDATE runs SET started_at = '2026-01-01T00:00:00.000000Z' WHERE id = ?", [run_id])
    p = runs.resume(db_path, run_id, good_llm(), background=False, actor=Actor("test", role="admin"))
    assert p["status"] == "done" and p["done"] == 5 and not p["cancel_requested"]
    assert drafts_per_submission(conn) == dict.fromkeys(subs, 1)
    assert 0 <= p["seconds"] < 60


def test_cancel_of_a_run_without_a_worker_marks_it_cancelled_at_once(conn, db_path):
    c, _ = course_with(conn, 2)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    runs.cancel(db_path, run_id, actor=Actor("test", role="admin"))
    assert runs_db.get_run(conn, run_id)["status"] == "cancelled"
    assert runs.progress(conn, run_id, db_path, actor=Actor("test", role="admin"))["resumable"]


def test_items_a_teacher_decided_meanwhile_are_skipped(conn, db_path):
    c, subs = course_with(conn, 2)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    conn.execute("UPDATE submissions SET status = 'approved' WHERE id = ?", [subs[0]])
    p = runs.execute(db_path, run_id, good_llm(), actor=Actor("test", role="admin"))
    assert (p["skipped"], p["done"]) == (1, 1)
    assert drafts_per_submission(conn) == {subs[1]: 1}


def test_background_worker_is_started_once_per_run(conn, db_path):
    c, subs = course_with(conn, 3)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    gate = threading.Event()
    llm = good_llm()
    from assess_script import evaluation_for

    def evaluate(messages, schema):
        gate.wait(10)
        return evaluation_for(schema)

    llm.always("evaluator", evaluate)
    t1 = runs.start(db_path, run_id, llm, actor=Actor("test", role="admin"))
    t2 = runs.start(db_path, run_id, llm, actor=Actor("test", role="admin"))  # a rerun of the page
    assert t1 is t2 and runs.is_alive(db_path, run_id)
    assert runs.progress(conn, run_id, db_path, actor=Actor("test", role="admin"))["status"] == "running"
    gate.set()
    assert runs.wait_for(db_path, run_id, timeout=WAIT_S)
    p = runs.progress(conn, run_id, db_path, actor=Actor("test", role="admin"))
    assert p["status"] == "done" and p["done"] == 3 and not p["alive"]


def test_offline_run_drafts_everything_with_logged_zero_cost_calls(conn, db_path):
    texts = [RICH_TEXT, "Short text about temperature.", "", RICH_TEXT.replace("\n\n", " ") * 3]
    c, subs = course_with(conn, 4, texts)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    p = runs.execute(db_path, run_id, actor=Actor("test", role="admin"))
    assert p["pending"] == 0 and p["failed"] == 0 and p["done"] + p["needs_attention"] == 4
    assert p["calls"] >= 15 and p["cost_usd"] == 0
    rows = list(conn.query("SELECT provider, is_offline, comment, status FROM drafts WHERE run_id = ?", [run_id]))
    assert len(rows) == 4 and all(r["provider"] == "offline" and r["is_offline"] == 1 for r in rows)
    from core.checks import words
    assert all(words(r["comment"]) <= 120 for r in rows)
    summary = runs.summary(p)
    assert set(summary) == {"drafted", "needs_attention", "failed", "calls", "cache_hits", "tokens_in",
                            "tokens_out", "cost_usd", "seconds"}


def test_rerun_of_unchanged_work_is_served_from_the_cache(conn, db_path):
    c, subs = course_with(conn, 2)
    first = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    runs.execute(db_path, first, actor=Actor("test", role="admin"))
    second = runs.create(conn, course_id=c["course_id"], provider="offline", redo=True, actor=Actor("test", role="admin"))
    p = runs.execute(db_path, second, actor=Actor("test", role="admin"))
    assert p["calls"] > 0 and p["cache_hits"] == p["calls"]


def test_estimate_stays_within_the_budget_at_gpt_4o_mini_prices(conn):
    c, _ = course_with(conn, 3)
    from core import estimate

    est = estimate.for_run(conn, course_id=c["course_id"], provider="openai", actor=Actor("test", role="admin"))
    assert est["submissions"] == 3 and est["unpriced"] == []
    per_in, per_out = est["tokens_in"] / 3, est["tokens_out"] / 3
    # Issue 16 added two judges of the feedback (grounding, pedagogy) on every draft, and issue 14
    # gave the Coach and the Reviewer the Evaluator's output (seed 000): together about +45 % input.
    # Since issue 22 the estimate also bills each role's response schema as sent (OpenAI counts it
    # as prompt) and prices the shared prefix at the cached rate, as bench.tokens does.
    assert 1000 < per_in <= 6500 and 300 < per_out <= 1000
    assert 0 < est["tokens_cached"] < est["tokens_in"]
    assert 0 < est["per_submission_usd"] <= 0.0017
    assert estimate.for_run(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))["cost_usd"] == 0


def test_many_submissions_concurrently_each_thread_with_its_own_connection(conn, db_path):
    c, subs = course_with(conn, 16)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", concurrency=8, actor=Actor("test", role="admin"))
    llm = good_llm()
    p = runs.execute(db_path, run_id, llm, actor=Actor("test", role="admin"))
    assert (p["status"], p["done"], p["failed"], p["pending"]) == ("done", 16, 0, 0)
    assert drafts_per_submission(conn) == dict.fromkeys(subs, 1)
    assert len(llm.calls) == 16 * 7      # five seed agents and the two judges of the feedback
    assert {r[0] for r in conn.execute("SELECT status FROM submissions")} == {"drafted"}


def test_progress_lists_failures_for_the_page(conn, db_path):
    c, subs = course_with(conn, 2)
    llm = good_llm()
    llm.always("evaluator", LLMServerError("HTTP 503"))
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    p = runs.execute(db_path, run_id, llm, actor=Actor("test", role="admin"))
    assert p["failed"] == 2 and {f["submission_id"] for f in p["failures"]} == set(subs)
    assert all("HTTP 503" in f["error"] for f in p["failures"])


def test_finished_steps_of_an_interrupted_item_are_replayed_from_the_call_log(conn, db_path):
    from core.llm import LoggedLLM

    c, subs = course_with(conn, 1)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    dying = good_llm()
    dying.script("aggregator", WorkerKilled())
    with pytest.raises(WorkerKilled):
        runs.execute(db_path, run_id, LoggedLLM(dying, db_path), actor=Actor("test", role="admin"))
    assert runs_db.item_counts(conn, run_id)["pending"] == 1 and drafts_per_submission(conn) == {}

    fresh = good_llm()
    p = runs.resume(db_path, run_id, LoggedLLM(fresh, db_path), background=False, actor=Actor("test", role="admin"))
    assert p["status"] == "done" and p["done"] == 1
    # Evaluator, Equity Monitor and Coach had finished before the crash: not asked again.
    assert [call.role for call in fresh.calls][:2] == ["aggregator", "reviewer"]
    assert sorted(call.role for call in fresh.calls[2:]) == ["grounding", "pedagogy"]
    assert p["cache_hits"] == 3


def test_a_refused_key_stops_the_run_instead_of_failing_every_item(conn, db_path):
    from core.errors import LLMAuthError

    c, subs = course_with(conn, 3)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", concurrency=1, actor=Actor("test", role="admin"))
    llm = good_llm()
    llm.always("evaluator", LLMAuthError("The language model refused the API key (HTTP 401). Set a valid key."))
    with pytest.raises(runs.RunStopped, match="refused the API key"):
        runs.execute(db_path, run_id, llm, actor=Actor("test", role="admin"))
    p = runs.progress(conn, run_id, db_path, actor=Actor("test", role="admin"))
    assert p["status"] == "failed" and "refused the API key" in p["error"] and p["resumable"]
    # The refused key is the setting's fault, not the submission's: no failed draft, the item
    # in flight waits with the rest.
    assert p["failed"] == 0 and p["pending"] == 3 and len(llm.calls) == 1
    assert drafts_per_submission(conn) == {}
    p = runs.resume(db_path, run_id, good_llm(), background=False, actor=Actor("test", role="admin"))  # the admin fixed the key
    assert p["status"] == "done" and p["done"] == 3 and p["failed"] == 0
