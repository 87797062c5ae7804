"""The Review page's server time per rerun with an item open: the figure to hold before and after
each page asks core for what it shows in one read.

    python -m bench.review_page [--n 10000] [--reruns 10] [--role teacher]

One AppTest of app.py on the Review page, signed in (bench.pages' users: a teacher granted the
selected course, a coordinator granted five courses in six, or an admin), the first item of the
selected assignment open (bench.pages.selection, on bench.pages' cached "courses" database of
--n submissions). The first run warms imports and SQLite's cache; then each rerun (at.run()
again: what a click that changes nothing costs the server) is timed, and the permission checks
it makes are counted (calls of core.accounts.access.require, which every check goes through).

Prints one JSON line: seconds per rerun (median, min, max), checks per rerun, the machine's
load average before and after.
"""
from __future__ import annotations

import argparse
import json
import logging
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench import database_env, pages


def measure(path: str, sel: dict, token: str, reruns: int) -> dict:
    from core.accounts import access

    calls = {"n": 0}
    require = access.require

    def counted(*args, **kwargs):
        calls["n"] += 1
        return require(*args, **kwargs)

    pages._patch_pages_manager()
    at = pages.app_test("pages/review.py", token, sel, "assignment", True)
    at.run()
    if at.exception:
        raise RuntimeError(f"the review page failed: {at.exception[0].value}")
    if any(b.label == "Sign in" for b in at.button):
        raise RuntimeError("the review page showed the sign-in form")
    if not any(b.label == "← Queue" for b in at.button):
        raise RuntimeError("the review page showed no open item")
    times, checks = [], []
    access.require = counted
    try:
        for _ in range(reruns):
            calls["n"] = 0
            t0 = time.perf_counter()
            at.run()
            times.append(time.perf_counter() - t0)
            checks.append(calls["n"])
            if at.exception:
                raise RuntimeError(f"the review page failed on a rerun: {at.exception[0].value}")
    finally:
        access.require = require
    return {"rerun_s": {"median": round(statistics.median(times), 4), "min": round(min(times), 4),
                        "max": round(max(times), 4)},
            "permission_checks_per_rerun": statistics.median(checks), "reruns": reruns}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m bench.review_page", description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="submissions in the database")
    ap.add_argument("--reruns", type=int, default=10, help="timed reruns (median)")
    ap.add_argument("--role", default="teacher", choices=pages.ROLES, help="who is signed in")
    ap.add_argument("--out-dir", default=str(pages.OUT), help="where the built databases are cached")
    args = ap.parse_args(argv)
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    import db

    load = pages._load()
    with tempfile.TemporaryDirectory(prefix="fairmark-review-") as tmp:
        work = str(Path(tmp) / "review.db")
        shutil.copyfile(pages.cached_db(args.n, "courses", Path(args.out_dir)), work)
        conn = db.connect(work)
        try:
            sel = pages.selection(conn)
        finally:
            conn.close()
        token = pages.bench_actors(work, sel, [args.role])[args.role][1]
        with database_env(work):
            out = measure(work, sel, token, args.reruns)
        db.forget_migrated(work)
    result = {"n": args.n, "role": args.role, **out, "load_average": load, "load_average_after": pages._load()}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
