"""The whole five-agent pipeline through the real openai SDK against a real OpenAI-compatible
server (llama-cpp-python + SmolLM2-135M-Instruct, fixture `llama_server`).

A 135M model is no grader: what this proves is the plumbing. Real HTTP, the structured-output
fallback, validation, revise rounds, the call log with real token counts, and that every item
ends in a clear, recorded state: drafted, or needing attention with the reasons written down.
"""
from __future__ import annotations

import json

import factories
from core import demo, llm as llmmod
from core.runs import reflections as runs
from db import courses
from core.accounts.access import Actor

# One item: on 2 cores this test is the suite's longest (a 135M model answering ~8 prompts of
# ~1,500 tokens); two items doubled it for no new fact about the plumbing. Concurrency across
# reflections is tested against a scripted server with latency (test_bench_smoke's pipeline bench,
# test_fault_injection).
N_ITEMS = 1


def test_demo_submissions_go_through_the_whole_pipeline(llama_server, conn, db_path):
    demo.load_demo(conn, actor=Actor("test", role="admin"))
    course = courses.list_courses(conn)[0]
    week1 = courses.list_assignments(conn, course["id"])[0]
    # Ordinary reflections (no injection or code: those would be routed to a human anyway).
    ids = [r["id"] for r in conn.query(
        "SELECT id FROM submissions WHERE assignment_id = ? AND word_count BETWEEN 100 AND 260 "
        "AND text NOT LIKE '%import%' ORDER BY id LIMIT ?", [week1["id"], N_ITEMS])]
    assert len(ids) == N_ITEMS

    settings = llama_server.settings(db_path, concurrency=2, max_retries=1)
    factories.cleared_config(conn, settings=settings)   # about the pipeline, not the eval gate (issue 16)
    model = llmmod.from_settings(settings, db_path, max_tokens=1200)
    sent: list[str] = []   # every request body that went over HTTP
    transport = model.inner.transport
    model.inner.transport = lambda request: (sent.append(json.dumps(request)), transport(request))[1]
    factories.cleared_config(conn, settings=settings)      # issue 16's gate: this test is about the pipeline
    run_id = runs.create(conn, course_id=course["id"], assignment_id=week1["id"], provider="openai",
                         concurrency=2, limit=N_ITEMS, actor=Actor("integration-test", role="admin"), settings=settings)
    # create() picks submissions by its own order; make sure the run covers exactly ours.
    picked = {r["subject_id"] for r in conn.query("SELECT subject_id FROM run_items WHERE run_id = ?", [run_id])}
    result = runs.execute(db_path, run_id, llm=model, actor=Actor("test", role="admin"))

    run = next(conn.query("SELECT * FROM runs WHERE id = ?", [run_id]))
    assert run["status"] == "done", (run, llama_server.log())
    items = list(conn.query("SELECT * FROM run_items WHERE run_id = ?", [run_id]))
    assert len(items) == N_ITEMS and {i["subject_id"] for i in items} == picked
    for item in items:
        sub = next(conn.query("SELECT * FROM submissions WHERE id = ?", [item["subject_id"]]))
        draft = next(conn.query("SELECT * FROM drafts WHERE id = ?", [sub["current_draft_id"]]))
        # Every item ends drafted or needing attention, never silently failed or half-written.
        assert draft["status"] in ("drafted", "needs_attention"), (draft["status"], draft["error"], llama_server.log())
        assert sub["status"] == draft["status"]
        scores = json.loads(draft["scores"])
        assert set(scores) == set(courses.get_rubric(conn, draft["rubric_id"]).keys)
        assert all(0 <= v <= 3 for v in scores.values())
        reasons = json.loads(draft["attention_reasons"])
        if draft["status"] == "needs_attention":
            assert reasons, "needs attention without a recorded reason"
        if not draft["comment"].strip():
            # A 135M model may fail the Aggregator: the scores stand and the teacher is told why.
            assert draft["status"] == "needs_attention"
            assert any(r.startswith("The Aggregator failed") for r in reasons), reasons
        assert draft["is_offline"] == 0 and draft["provider"] == "openai"

    calls = list(conn.query("SELECT * FROM llm_calls WHERE run_id = ?", [run_id]))
    ok = [c for c in calls if c["status"] == "ok"]
    # Every role was asked over real HTTP; a tiny model may fail a later role (recorded above),
    # but every item was scored by the Evaluator.
    assert {c["agent"] for c in calls} >= {"evaluator", "equity", "coach", "aggregator"}
    assert {c["submission_id"] for c in ok if c["agent"] == "evaluator"} == picked
    assert all(c["error"] for c in calls if c["status"] == "error")
    commented = {r["submission_id"] for r in conn.query(
        "SELECT s.id AS submission_id FROM submissions s JOIN drafts d ON d.id = s.current_draft_id "
        "WHERE d.run_id = ? AND d.comment != ''", [run_id])}
    assert commented <= {c["submission_id"] for c in calls if c["agent"] == "reviewer"}
    # Real token counts from the server, and the model it actually served.
    assert all(c["tokens_in"] > 50 and c["tokens_out"] > 0 for c in ok)
    assert all(c["model"] == llama_server.model for c in calls)
    assert result["calls"] >= 5 * N_ITEMS
    # No real student name ever reached the server.
    names = [r["name"] for r in conn.query(
        "SELECT st.name FROM students st JOIN submissions s ON s.student_id = st.id WHERE s.id IN (%s)"
        % ",".join("?" * len(picked)), list(picked))]
    assert sent and names
    assert not any(part in body for body in sent for n in names for part in n.split() if len(part) > 2)
