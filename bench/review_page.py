"""Server time of one rerun of the Review page, an item open and the queue, as an instructor.

    python -m bench.review_page [--submissions 200] [--reruns 20]

Seeds a database under a temporary folder with bench.synth ("worst" layout: one course whose
first assignment has --submissions reflections, each with an AI draft; about half with a
teacher's review), signs in an instructor granted the course, runs the Review page through
streamlit's AppTest (app.py and its sidebar included, as a browser's rerun), opens an item,
then times --reruns reruns of the item and of the queue (the first rerun of each warms
imports and SQLite's cache and is not timed). The item opened is the queue's first one, so
every rerun shows the same item.

Prints one JSON line: the median and quartiles in milliseconds of each (wall clock), the median
CPU time of this process per rerun (the page runs in its thread; less disturbed by other work on
a busy machine than the wall clock), and the permission
checks one rerun of the page makes (the counter of tests/page_reads.py, written out here so
the bench stands alone: calls of core.accounts.access made from a page's own frames).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench import pages as page_bench

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "bench review password"
CHECKS = ("require", "check", "check_path", "check_all", "scope_for", "may")
SHELL = {"_common.py", "_signin.py"}


def seed(path: str, submissions: int) -> dict:
    """The database and an instructor's signed-in session: {"token", "course_id", "assignment_id"}."""
    import db
    from bench import synth
    from core.accounts import identity as accounts
    from core.accounts.access import Actor

    made = synth.build(path, submissions * 4, layout="worst")["courses"][0]
    conn = db.connect(path)
    try:
        setup = Actor("bench setup", role="admin")
        uid = accounts.add_user(conn, username="bench.teacher", role="instructor", password=PASSWORD, actor=setup)
        accounts.grant(conn, uid, course_id=made["course_id"], sees_names=True, actor=setup)
        token = accounts.sign_in(conn, "bench.teacher", PASSWORD)[1]
    finally:
        conn.close()
    return {"token": token, "course_id": made["course_id"], "assignment_id": made["assignment_ids"][0]}


class _Checks:
    """Counts the permission checks made from the page's own frames (the shell left out)."""

    def __init__(self):
        from core.accounts import access

        self.n, self._depth, pages = 0, 0, str(ROOT / "pages")
        for name in CHECKS:
            setattr(access, name, self._wrap(getattr(access, name), pages))

    def _wrap(self, fn, pages: str):
        def counted(*args, **kwargs):
            if self._depth == 0:
                frame = sys._getframe(1)
                while frame is not None:
                    path = frame.f_code.co_filename
                    if path.startswith(pages) and Path(path).name not in SHELL:
                        self.n += 1
                        break
                    frame = frame.f_back
            self._depth += 1
            try:
                return fn(*args, **kwargs)
            finally:
                self._depth -= 1
        return counted


def _time(at, reruns: int, checks: _Checks) -> dict:
    at.run()   # warm
    times, cpu, counts = [], [], []
    for _ in range(reruns):
        checks.n = 0
        t0, c0 = time.perf_counter(), time.process_time()
        at.run()
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        counts.append(checks.n)
        if at.exception:
            raise SystemExit(f"the page failed: {at.exception[0].value}")
    q = statistics.quantiles(times, n=4) if len(times) > 1 else [times[0]] * 3
    return {"median_ms": round(statistics.median(times), 1), "q1_ms": round(q[0], 1), "q3_ms": round(q[2], 1),
            "cpu_median_ms": round(statistics.median(cpu), 1), "checks_per_rerun": max(counts)}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m bench.review_page", description=__doc__.split("\n\n")[0])
    ap.add_argument("--submissions", type=int, default=200, help="reflections in the assignment reviewed")
    ap.add_argument("--reruns", type=int, default=20, help="timed reruns of each view")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="fairmark-review-bench-") as tmp:
        path = os.path.join(tmp, "review.db")
        os.environ["FAIRMARK_DB"] = path
        os.environ["FAIRMARK_SECRETS"] = os.path.join(tmp, "no-secrets.toml")
        sel = seed(path, args.submissions)
        from streamlit.testing.v1 import AppTest

        page_bench.patch_pages_manager()
        checks = _Checks()
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
        at.switch_page("pages/review.py")
        at.session_state["_session_token"] = sel["token"]
        at.session_state["course_id"] = sel["course_id"]
        at.session_state["assignment_id"] = sel["assignment_id"]
        at.run()
        if at.exception or any(b.label == "Sign in" for b in at.button):
            raise SystemExit(f"the queue did not render: {at.exception}")
        queue = _time(at, args.reruns, checks)
        first = next(b for b in at.button if b.key and b.key.startswith("open_"))
        first.click().run()
        if at.session_state["review_item"] is None:
            raise SystemExit("no item opened")
        item = _time(at, args.reruns, checks)
        if not any(b.key == "ri_back" for b in at.button):
            raise SystemExit("the item did not render")
    out = {"bench": "review_page", "submissions": args.submissions, "reruns": args.reruns,
           "item": item, "queue": queue}
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
