"""Lesson runs on the shared runs table (kind 'lessons'): create, execute, the sample, skip
approved lessons, stop on a refused key and resume, cancel; and the `lessons` command line."""
import json
import socket
import threading
import time

import pytest

from core import __main__ as cli
from core.errors import ConfigError, ConflictError, LLMAuthError
from core.lessons import demo, runs
from db import lessons as lessons_db
from db import runs as runs_db
from fake_llm import ScriptedLLM, StubOpenAIServer
from factories import not_found, unreachable
from lesson_helpers import LESSON, ONE_JUDGE, add_lesson, verdict
from core.accounts.access import Actor
from waits import WAIT_S


def demo_course(conn) -> int:
    return demo.load_demo(conn, actor=Actor("test", role="admin"))["course_id"]


def test_an_offline_run_reviews_every_lesson_and_reports_the_issues_summary(conn, db_path):
    cid = demo_course(conn)
    run_id = runs.create(conn, course_id=cid, provider="offline", actor=Actor("t", role="admin"))
    assert runs_db.get_run(conn, run_id)["kind"] == "lessons"
    assert runs_db.list_runs(conn, cid) == [] and [r["id"] for r in runs_db.list_runs(conn, cid, kind="lessons")] == [run_id]
    summary = runs.summary(runs.execute(db_path, run_id, actor=Actor("test", role="admin")))
    assert summary == {"lessons": 8, "ready": 0, "sampled": 0, "needs_review": 8, "failed": 0, "calls": 0,
                       "cost_usd": 0}
    assert runs.progress(conn, run_id, actor=Actor("test", role="admin"))["status"] == "done"


def test_openai_needs_a_configured_endpoint_and_one_lesson_run_at_a_time(conn):
    cid = demo_course(conn)
    with pytest.raises(ConfigError, match="No language model is configured"):
        runs.create(conn, course_id=cid, provider="openai", actor=Actor("test", role="admin"))
    runs.create(conn, course_id=cid, provider="offline", actor=Actor("test", role="admin"))
    with pytest.raises(ConflictError, match="still running"):
        runs.create(conn, course_id=cid, provider="offline", actor=Actor("test", role="admin"))


def test_the_sampled_tier_gets_its_ten_percent_sample_and_approved_lessons_are_skipped(conn, db_path):
    ids = [add_lesson(conn, LESSON.replace(b"The water cycle", f"Water {i}".encode()), name=f"w{i}.md")
           for i in range(3)]
    run_id = runs.create(conn, course_id=lessons_db.get(conn, ids[0])["course_id"], provider="offline", actor=Actor("test", role="admin"))
    conn.execute("UPDATE lessons SET status = 'approved' WHERE id = ?", [ids[2]])
    fake = ScriptedLLM(models=ONE_JUDGE).always("lesson_judge", verdict(0.85, 0.8, 0.8, 0.8))    # 0.8125: sampled
    progress = runs.execute(db_path, run_id, fake, actor=Actor("test", role="admin"))
    assert progress["sampled"] == 2 and progress["skipped"] == 1
    lessons = [lessons_db.get(conn, i) for i in ids[:2]]
    assert sorted(lesson["in_sample"] for lesson in lessons) == [0, 1]
    assert sorted(lesson["priority"] for lesson in lessons) == [1, 2]


def test_a_refused_key_stops_the_run_and_resume_finishes_the_rest(conn, db_path):
    ids = [add_lesson(conn, LESSON.replace(b"The water cycle", f"Water {i}".encode()), name=f"w{i}.md")
           for i in range(2)]
    run_id = runs.create(conn, course_id=lessons_db.get(conn, ids[0])["course_id"], provider="offline", actor=Actor("test", role="admin"))
    broken = ScriptedLLM(models=ONE_JUDGE).script("lesson_judge", LLMAuthError("The key was refused."))
    with pytest.raises(runs.RunStopped, match="fix the setting, then resume"):
        runs.execute(db_path, run_id, broken, actor=Actor("test", role="admin"))
    assert runs_db.get_run(conn, run_id)["status"] == "failed"
    assert runs_db.item_counts(conn, run_id)["pending"] == 2
    good = ScriptedLLM(models=ONE_JUDGE).always("lesson_judge", verdict(0.95, 0.9, 0.9, 0.9))
    final = runs.resume(db_path, run_id, good, background=False, actor=Actor("test", role="admin"))
    assert final["status"] == "done" and final["ready"] == 2
    with pytest.raises(ConflictError, match="nothing left to do"):
        runs.resume(db_path, run_id, good, background=False, actor=Actor("test", role="admin"))


def lessons(conn, n: int) -> list[int]:
    return [add_lesson(conn, LESSON.replace(b"The water cycle", f"Water {i}".encode()), name=f"w{i}.md")
            for i in range(n)]



@pytest.mark.parametrize("fault,what", [(not_found, "model name"), (unreachable, "FAIRMARK_LLM_BASE_URL")])
def test_a_fault_hitting_lessons_in_a_row_stops_the_run_and_the_resume_reviews_them_all(conn, db_path, fault, what):
    """Review finding 5: an unknown model or an unreachable endpoint failed every lesson and the
    run ended "done". Now the third lesson in a row stops it; nothing is lost."""
    ids = lessons(conn, 5)
    run_id = runs.create(conn, course_id=lessons_db.get(conn, ids[0])["course_id"], provider="offline", concurrency=1, actor=Actor("test", role="admin"))
    broken = ScriptedLLM(models=ONE_JUDGE).always("lesson_judge", lambda m, s: (_ for _ in ()).throw(fault()))
    with pytest.raises(runs.RunStopped, match=what):
        runs.execute(db_path, run_id, broken, actor=Actor("test", role="admin"))
    p = runs.progress(conn, run_id, db_path, actor=Actor("test", role="admin"))
    assert p["status"] == "failed" and p["error"].startswith("stopped: ") and "3 lessons in a row" in p["error"]
    assert p["pending"] == 5 and p["failed"] == 0 and p["resumable"]     # the two failed before wait too
    assert len(broken.calls) == 3
    good = ScriptedLLM(models=ONE_JUDGE).always("lesson_judge", verdict(0.95, 0.9, 0.9, 0.9))
    final = runs.resume(db_path, run_id, good, background=False, actor=Actor("test", role="admin"))
    assert final["status"] == "done" and final["ready"] == 5 and final["failed"] == 0
    assert {lessons_db.get(conn, i)["status"] for i in ids} == {"reviewed"}


def test_one_passing_fault_fails_only_its_lesson(conn, db_path):
    ids = lessons(conn, 3)
    run_id = runs.create(conn, course_id=lessons_db.get(conn, ids[0])["course_id"], provider="offline", concurrency=1, actor=Actor("test", role="admin"))
    llm = ScriptedLLM(models=ONE_JUDGE).script("lesson_judge", unreachable(), verdict(0.95, 0.9, 0.9, 0.9),
                                               verdict(0.95, 0.9, 0.9, 0.9))
    p = runs.execute(db_path, run_id, llm, actor=Actor("test", role="admin"))
    assert p["status"] == "done" and p["failed"] == 1 and p["ready"] == 2


def test_two_lesson_runs_started_at_the_same_instant_make_one_run(conn, db_path, monkeypatch):
    import db as dbmod

    cid = lessons_db.get(conn, lessons(conn, 2)[0])["course_id"]
    eligible = lessons_db.eligible

    def slow(*args, **kwargs):     # widens the window between the check and the insert
        time.sleep(0.2)
        return eligible(*args, **kwargs)

    monkeypatch.setattr(lessons_db, "eligible", slow)
    results, start = [], threading.Barrier(4)

    def create():
        own = dbmod.connect(db_path)
        try:
            start.wait()
            results.append(runs.create(own, course_id=cid, provider="offline", actor=Actor("test", role="admin")))
        except ConflictError as e:
            results.append(e)
        finally:
            own.close()

    threads = [threading.Thread(target=create) for _ in range(4)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert sum(isinstance(r, int) for r in results) == 1
    assert conn.execute("SELECT COUNT(*) FROM runs WHERE kind = 'lessons'").fetchone()[0] == 1


def test_the_command_line_exits_3_when_a_configuration_fault_stops_the_review(conn, db_path, capsys, monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]            # closed once the block ends: nothing listens
    monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("FAIRMARK_MAX_RETRIES", "0")
    monkeypatch.setenv("FAIRMARK_CONCURRENCY", "1")
    lessons(conn, 4)
    code, out = _cli(capsys, "--db", str(db_path), "lessons", "review", "--course", "Science", "--provider", "openai")
    assert code == 3 and out["status"] == "failed" and "Cannot reach" in out["error"]
    assert out["lessons"] == 4 and runs_db.item_counts(conn, out["run_id"])["pending"] == 4


def _answers(server, n: int = 12) -> None:
    """A verdict for every judge call (weighted 0.80: the second judge is asked), a rewrite for the fixer."""
    def answer(body):
        if "factual_integrity" in json.dumps(body.get("response_format")):
            return server.completion(json.dumps(verdict(0.9, 0.9, 0.9, 0.2)))
        return server.completion(json.dumps({"text": "Have you seen a puddle vanish? Let us find out where it went.",
                                             "summary": "a hook"}))
    for _ in range(n):
        server.respond(200, answer)


def test_a_lesson_judge_seat_can_use_its_own_endpoint_and_key(conn, db_path, monkeypatch):
    """Review finding 14: FAIRMARK_JUDGE_<SEAT>_BASE_URL / _API_KEY send that seat's judge to
    another provider (issue 14's RoutedLLM); the main key never goes there."""
    with StubOpenAIServer() as main, StubOpenAIServer() as other:
        _answers(main)
        _answers(other)
        monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", main.base_url)
        monkeypatch.setenv("FAIRMARK_LLM_API_KEY", "sk-main-only")
        monkeypatch.setenv("FAIRMARK_MAX_RETRIES", "0")
        monkeypatch.setenv("FAIRMARK_MODEL_LESSON_JUDGE_2", "claude-3-haiku")
        monkeypatch.setenv("FAIRMARK_JUDGE_LESSON_JUDGE_2_BASE_URL", other.base_url)
        monkeypatch.setenv("FAIRMARK_JUDGE_LESSON_JUDGE_2_API_KEY", "sk-other-only")
        lid = add_lesson(conn)
        run_id = runs.create(conn, course_id=lessons_db.get(conn, lid)["course_id"], provider="openai", actor=Actor("test", role="admin"))
        assert runs_db.get_run(conn, run_id)["config"]["judge_endpoints"] == {"lesson_judge_2": other.base_url}
        runs.execute(db_path, run_id, actor=Actor("test", role="admin"))
    assert other.requests and main.requests
    assert {r["body"]["model"] for r in other.requests} == {"claude-3-haiku"}
    assert "claude-3-haiku" not in {r["body"]["model"] for r in main.requests}
    assert {{k.lower(): v for k, v in r["headers"].items()}["authorization"] for r in other.requests} == \
        {"Bearer sk-other-only"}
    assert "sk-main-only" not in json.dumps(other.requests)
    agents = {r[0] for r in conn.execute("SELECT DISTINCT agent FROM llm_calls WHERE lesson_id = ?", [lid])}
    assert "lesson_judge_2" in agents and runs.progress(conn, run_id, actor=Actor("test", role="admin"))["status"] == "done"


def test_a_queued_run_without_a_worker_is_cancelled_at_once(conn, db_path):
    cid = demo_course(conn)
    run_id = runs.create(conn, course_id=cid, provider="offline", actor=Actor("test", role="admin"))
    runs.cancel(db_path, run_id, actor=Actor("t", role="admin"))
    assert runs_db.get_run(conn, run_id)["status"] == "cancelled"
    assert runs.progress(conn, run_id, db_path, actor=Actor("test", role="admin"))["resumable"]


def test_a_background_run_finishes(conn, db_path):
    cid = demo_course(conn)
    run_id = runs.create(conn, course_id=cid, provider="offline", actor=Actor("test", role="admin"))
    runs.start(db_path, run_id, actor=Actor("test", role="admin"))
    assert runs.wait_for(db_path, run_id, timeout=WAIT_S)
    assert runs.progress(conn, run_id, actor=Actor("test", role="admin"))["status"] == "done"


def _cli(capsys, *argv) -> tuple[int, dict]:
    code = cli.main(list(argv))
    return code, json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_the_command_line_imports_reviews_and_exports(conn, db_path, tmp_path, capsys):
    lesson = tmp_path / "water.md"
    lesson.write_bytes(LESSON)
    sources = tmp_path / "sources.txt"
    sources.write_text("The sun heats water.")
    code, out = _cli(capsys, "--db", str(db_path), "lessons", "import", str(lesson), "--course", "Science",
                     "--target-grade", "6", "--objective", "Name the water cycle's steps", "--sources", str(sources))
    assert code == 0 and out["imported"] == 1
    code, out = _cli(capsys, "--db", str(db_path), "lessons", "review", "--course", "Science", "--provider", "offline")
    assert code == 0 and {"lessons", "ready", "sampled", "needs_review", "calls", "cost_usd"} <= set(out)
    assert out["lessons"] == 1 and out["needs_review"] == 1 and out["cost_usd"] == 0
    lid = next(conn.query("SELECT id FROM lessons"))["id"]
    conn.execute("UPDATE lessons SET status = 'approved', approved_by = 'ana', approved_at = '2026-01-01T00:00:00Z' "
                 "WHERE id = ?", [lid])
    code, out = _cli(capsys, "--db", str(db_path), "lessons", "export", "--course", "Science", "--out",
                     str(tmp_path / "out"))
    assert code == 0 and out["exported"] == 1 and (tmp_path / "out" / "The_water_cycle.md").read_text().startswith("---")
    code, out = _cli(capsys, "--db", str(db_path), "lessons", "demo")
    assert out["lessons"] == 8 and out["expert_verdicts"] == 8
    code, out = _cli(capsys, "--db", str(db_path), "lessons", "review", "--course", "Nope")
    assert code == 2 and "no course named" in out["error"]
