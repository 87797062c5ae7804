"""The server retries failed grade posts by itself (issue 25: "failed posts are retried with
backoff"): core.lti.grades.retry_due against the test platform on a real HTTP server, and the
server's lifespan (core.web.server) that runs it every minute in the background."""
from __future__ import annotations

import asyncio
import logging
import threading
import time
from datetime import datetime, timedelta, timezone

import httpx
import pytest

import db
import factories as f
import lti_support
from core.lti import grades
from core.signoff import release
from core.web import server
from db import lti_grades as grades_db
from lti_support import client, lti_env, platform  # noqa: F401  (fixtures)
from test_lti_grades import HIGH, TEACHER, approve, lms  # noqa: F401  (the linked course, its fixture)

AUTOMATIC = "FairMark (automatic retry)"


def _at(iso: str) -> datetime:
    return datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)


def _failed_release(conn, svc, c, subs, n: int = 1) -> str:
    """Release n approved items while the LMS answers 500: returns the first one's next try."""
    svc.fail_scores = 1                    # the first post fails; the others are held behind it
    for sid in subs[:n]:
        approve(conn, sid)
    out = release.release(conn, c["assignment_id"], actor=TEACHER)
    assert out["lms"]["posted"] == 0 and len(out["lms"]["failed"]) == n and svc.fail_scores == 0
    return max(r[0] for r in conn.execute("SELECT next_try FROM lti_passbacks").fetchall())


def test_a_failed_post_is_sent_once_its_next_try_has_come_and_not_before(conn, lms):
    svc, c, subs = lms
    next_try = _failed_release(conn, svc, c, subs)
    early = grades.retry_due(conn, now=_at(next_try) - timedelta(seconds=5))
    assert early["posted"] == 0 and svc.scores == []                       # the backoff waits
    out = grades.retry_due(conn, now=_at(next_try) + timedelta(seconds=1))
    assert out == {"platforms": True, "posted": 1, "failed": 0, "assignments": 1}
    sent = svc.scores_for("lms-0")
    assert len(sent) == 1 and sent[0]["scoreGiven"] == 10 and sent[0]["gradingProgress"] == "FullyGraded"
    for minutes in (2, 30, 600):                                          # later rounds: nothing more
        assert grades.retry_due(conn, now=_at(next_try) + timedelta(minutes=minutes))["posted"] == 0
    assert len(svc.scores) == 1 and svc.scores_for("lms-1") == []         # not approved: never sent
    row = conn.execute("SELECT actor, user_id, role, after FROM audit_log WHERE action = 'lti_post' "
                       "ORDER BY id DESC LIMIT 1").fetchone()
    assert row[:3] == (AUTOMATIC, None, "automatic") and '"posted"' in row[3]
    assert grades.release_view_of(conn, c["assignment_id"], names=True) == {"sent": 1, "waiting": 0, "problems": []}


def test_a_failure_in_a_round_keeps_its_reason_and_waits_twice_as_long(conn, lms):
    svc, c, subs = lms
    first = _failed_release(conn, svc, c, subs)
    svc.fail_scores = 1
    at = _at(first) + timedelta(seconds=1)
    assert grades.retry_due(conn, now=at)["failed"] == 1
    status, attempts, next_try, why = conn.execute(
        "SELECT status, attempts, next_try, last_error FROM lti_passbacks").fetchone()
    assert (status, attempts) == ("failed", 2) and "(500)" in why
    assert _at(next_try) - at == timedelta(minutes=2)                     # 1 minute, doubled
    assert grades.retry_due(conn, now=_at(next_try) + timedelta(seconds=1))["posted"] == 1
    assert len(svc.scores_for("lms-0")) == 1


def test_a_dead_lms_is_asked_once_per_round_whatever_the_assignments(conn, client, platform, lms):  # noqa: F811
    svc, c, subs = lms
    week2 = lti_support.launched(client, platform, context_title="Biology", link_id="link-2",
                                 link_title="Week 2")["assignment_id"]
    assert week2 != c["assignment_id"]
    students = [r[0] for r in conn.execute("SELECT id FROM students WHERE course_id = ? ORDER BY id",
                                           [c["course_id"]]).fetchall()]
    for st in students[:2]:
        sid = f.submission(conn, week2, st, text=f"Week 2, student {st}.")
        f.draft(conn, sid, HIGH)
        approve(conn, sid)
    svc.fail_scores = 1                                                   # week 2's first post fails: both wait
    release.release(conn, week2, actor=TEACHER)
    first = _failed_release(conn, svc, c, subs, n=2)
    svc.fail_scores = 100                                                 # the LMS is down
    out = grades.retry_due(conn, now=_at(first) + timedelta(minutes=10))
    assert out["failed"] == 4 and out["posted"] == 0 and out["assignments"] == 2
    assert svc.fail_scores == 99                                          # one request, not four
    held = [r[0] for r in conn.execute("SELECT last_error FROM lti_passbacks ORDER BY id").fetchall()]
    assert sum(w.startswith("not sent, because the LMS failed the grade before it") for w in held) == 3


def test_two_rounds_at_once_on_one_database_post_each_grade_once(conn, db_path, lms):
    svc, c, subs = lms
    first = _failed_release(conn, svc, c, subs, n=3)
    results, go = [], threading.Barrier(3)

    def round_():
        mine = db.connect(db_path)
        go.wait()
        results.append(grades.retry_due(mine, now=_at(first) + timedelta(seconds=1))["posted"])
        mine.close()

    threads = [threading.Thread(target=round_) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sum(results) == 3 and [len(svc.scores_for(f"lms-{n}")) for n in range(3)] == [1, 1, 1]
    assert conn.execute("SELECT COUNT(*) FROM audit_log WHERE action = 'lti_post' AND after LIKE '%posted%'"
                        ).fetchone()[0] == 3


def test_a_round_without_a_registered_platform_calls_nothing(conn, monkeypatch):
    def no_call(*args, **kwargs):
        raise AssertionError("an HTTP call without any LMS platform registered")

    monkeypatch.setattr(httpx, "request", no_call)
    monkeypatch.setattr(httpx, "post", no_call)
    monkeypatch.setattr(grades_db, "due_assignments", no_call)           # not even the passbacks are read
    assert grades.retry_due(conn) == {"platforms": False, "posted": 0, "failed": 0, "assignments": 0}


def test_the_automatic_actor_may_retry_grades_and_nothing_else(conn):
    from core.accounts import access

    retry = access.automatic("lti_retry")
    assert str(retry) == AUTOMATIC and access.allowed(retry, None) == frozenset({"lti_retry"})
    course = f.course(conn, "Somewhere")
    assert access.allowed(retry, course["course_id"]) == frozenset({"lti_retry"})
    with pytest.raises(access.Forbidden):
        access.check(conn, retry, "release", assignment=course["assignment_id"])
    assert not any(access.may(f.actor(role), "lti_retry") for role in access.ROLES)
    assert all(row["action"] != access.ACTIONS["lti_retry"].words for row in access.table())


def test_the_server_lifespan_retries_in_the_background_and_stops_on_shutdown(conn, lms, monkeypatch, caplog):
    svc, c, subs = lms
    _failed_release(conn, svc, c, subs)
    conn.execute("UPDATE lti_passbacks SET next_try = '2000-01-01T00:00:00.000000Z'")   # its time has come
    monkeypatch.setenv("FAIRMARK_LTI_RETRY_MINUTES", "0.002")                          # every 0.12 s
    calls, real = [], grades.retry_due

    def counted(conn, **kw):
        calls.append(threading.current_thread().name)
        if len(calls) == 1:
            raise RuntimeError("the database is busy")                    # a round that fails is logged
        return real(conn, **kw)

    monkeypatch.setattr(grades, "retry_due", counted)

    async def serve_a_while():
        loop_thread = threading.current_thread().name
        async with server.lifespan(None):
            deadline = time.monotonic() + 20
            while not svc.scores and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
        return loop_thread

    with caplog.at_level(logging.ERROR, logger="core.web.server"):
        loop_thread = asyncio.run(serve_a_while())
    assert len(svc.scores_for("lms-0")) == 1                              # sent by the background task
    assert len(calls) >= 2 and loop_thread not in calls                   # in a worker thread, not the loop's
    assert "automatic retry of LMS grades failed" in caplog.text and "the database is busy" in caplog.text
    after = len(calls)
    time.sleep(0.4)
    assert len(calls) == after                                            # stopped with the server
    assert conn.execute("SELECT status FROM lti_passbacks").fetchone()[0] == "posted"


def test_rounds_never_overlap(monkeypatch):
    monkeypatch.setenv("FAIRMARK_LTI_RETRY_MINUTES", "0.001")                          # every 0.06 s
    running, most, rounds = [0], [0], []
    lock = threading.Lock()

    def slow_round():
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.25)                                                  # longer than the interval
        with lock:
            running[0] -= 1
        rounds.append(1)

    monkeypatch.setattr(server, "retry_round", slow_round)

    async def serve_a_while():
        async with server.lifespan(None):
            await asyncio.sleep(1.0)

    asyncio.run(serve_a_while())
    assert len(rounds) >= 2 and most[0] == 1 and running[0] == 0          # one at a time; none left running


def test_an_interval_of_zero_turns_the_retry_off(monkeypatch):
    monkeypatch.setenv("FAIRMARK_LTI_RETRY_MINUTES", "0")
    rounds = []        # recorded, not raised: the lifespan logs a failing round and goes on
    monkeypatch.setattr(server, "retry_round", lambda: rounds.append("ran"))

    async def serve_a_while():
        async with server.lifespan(None):
            await asyncio.sleep(0.2)

    asyncio.run(serve_a_while())
    assert rounds == []
