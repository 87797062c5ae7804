"""Scale of the pages: the functions behind Review, Agreement and Fairness, and each page's
AppTest run, on databases of 100, 10,000 and 100,000 submissions, for every role.

    python -m bench.pages [--sizes 100,10000,100000] [--layouts courses,worst] [--repeat 3] [--no-apptest]
                          [--roles admin,coordinator,teacher]

Databases come from bench.synth (drafts, reviews, expert reference scores, call log) and are
cached under bench/out/ keyed by size, layout and generator version; each run works on a
copy, so opening an item (which creates the teacher's review) never changes the cache.

Layouts: "courses" (the primary, realistic growth: courses of 28 students x 12 assignments
until N is reached) and "worst" (one course, four assignments of N/4 each).
The selected assignment is the first assignment of the last complete course (28 submissions
in "courses", N/4 in "worst").

Timed (median of --repeat runs; COLD = analytics.clear_cache() before each run, WARM = the
views' cache left in place; the kept counts (db.aggregates) are data and stay):
- review_queue: db.queue.queue (first page) + group_counts
- review_item: core.signoff.actions.open_item + db.reviews.item
- {agreement,fairness}_{assignment,course,all}_figures: core.reports.agreement_view /
  fairness_view(intervals=False): every figure and point estimate, from the summed counts
- {agreement,fairness}_{assignment,course,all}: the whole view as the page shows it, with the
  intervals that resample students (their own cost: one row per pair in scope)
- *_after_edit: the figures view right after one reference score changed (a warm cache made
  stale by that write: the refresh of one submission, then the view)
- apptest_*: streamlit.testing AppTest of app.py switched to the page (FAIRMARK_DB at the DB),
  signed in (every run resolves the session and checks the course like a browser's); a run
  that leaves the intervals to the background waits for them untimed, so they never slow the
  next timing

Every timing is taken for each role (ROLES), signed in as a real user with real grants: an admin
(every course), a coordinator granted five courses in six (the selected one among them: 248 of
298 at 100,000 submissions) and a teacher (an instructor granted the selected course). The
admin's names are bare ("agreement_all_figures_cold"), the others' are prefixed with the role
("coordinator:agreement_all_figures_cold"). "by_role" sums it up: per page and scope, per role,
the ratio t(max)/t(min) cold and warm. "coordinator:grant_change_first_view" is the coordinator's
very first all-courses view, which sums their granted courses' counts once (db.aggregates.
ensure_group); every later view, cold or warm, reads that sum.

The goal (GOAL_RATIO) applies to the queue, the item and the figures; intervals report their
own timing.

Prints one JSON line: per layout, per timing, the seconds per size and ratio t(max)/t(min).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from core.accounts.access import Actor

OUT = Path(__file__).resolve().parent / "out"
ROOT = Path(__file__).resolve().parent.parent
GOAL_RATIO = 3.0
BENCH = Actor("bench", role="admin")
ROLES = ("admin", "coordinator", "teacher")
PASSWORD = "bench password"
USERS = {"admin": "bench", "coordinator": "bench-coordinator", "teacher": "bench-teacher"}


def cached_db(n: int, layout: str, out_dir: Path = OUT) -> Path:
    """The synthetic database for (n, layout), built once and kept under bench/out/."""
    from bench import synth

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"pages-{layout}-{n}-v{synth.VERSION}.db"
    if not path.exists():
        tmp = path.with_suffix(".building")
        for f in out_dir.glob(tmp.name + "*"):
            f.unlink()
        t0 = time.perf_counter()
        synth.build(str(tmp), n, layout=layout)
        import db

        conn = db.connect(str(tmp))
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode = DELETE")   # one self-contained file
        conn.close()
        db.forget_migrated(str(tmp))
        tmp.rename(path)
        print(f"bench.pages: built {path.name} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return path


def selection(conn) -> dict:
    """The selected course/assignment: first assignment of the last complete course (the only
    course in the worst-case layout), and the first item of its queue."""
    from db import queue

    rows = conn.execute("SELECT a.course_id, COUNT(DISTINCT a.id) FROM assignments a GROUP BY a.course_id "
                        "ORDER BY a.course_id").fetchall()
    full = [cid for cid, k in rows if k == max(k for _, k in rows)]
    cid = full[-1]
    aid = conn.execute("SELECT id FROM assignments WHERE course_id = ? ORDER BY week, id LIMIT 1", [cid]).fetchone()[0]
    first = queue.queue(conn, aid)["rows"][0]["id"]
    n_asg = conn.execute("SELECT COUNT(*) FROM submissions WHERE assignment_id = ?", [aid]).fetchone()[0]
    return {"course_id": cid, "assignment_id": aid, "submission_id": first, "assignment_submissions": n_asg,
            "courses": len(rows)}


def _median(f, repeat: int, cold: bool) -> float:
    from db import analytics

    times = []
    for _ in range(repeat):
        if cold:
            analytics.clear_cache()
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def granted_courses(conn, sel: dict, role: str) -> list[int] | None:
    """The courses a benchmark role is granted: every course (None) for the admin, five in six
    for the coordinator (the last ones, the selected course among them), the selected course for
    the teacher."""
    if role == "admin":
        return None
    if role == "teacher":
        return [sel["course_id"]]
    ids = [r[0] for r in conn.execute("SELECT id FROM courses ORDER BY id")]
    return ids[-max(1, len(ids) * 5 // 6):]


def bench_actors(path: str, sel: dict, roles=ROLES) -> dict:
    """{role: (Actor, session token)}: a real user per role with real grants (made once per
    database), signed in as the pages' sign-in gate does, and its Actor as core resolves it."""
    import db
    from core.accounts import identity as accounts
    from db import users as users_db

    setup = Actor("bench setup", role="admin")
    conn = db.connect(path)
    try:
        out = {}
        for role in roles:
            name = USERS[role]
            if users_db.find(conn, name) is None:
                accounts.add_user(conn, username=name, role="instructor" if role == "teacher" else role,
                                  password=PASSWORD, actor=setup)
                uid = accounts.user_id_of(conn, name)
                for cid in granted_courses(conn, sel, role) or []:
                    accounts.grant(conn, uid, course_id=cid, sees_names=True, actor=setup)
            me, token = accounts.sign_in(conn, name, PASSWORD)
            out[role] = (me, token)
        return out
    finally:
        conn.close()


def _named(role: str, name: str) -> str:
    return name if role == "admin" else f"{role}:{name}"


def time_functions(path: str, sel: dict, repeat: int, roles=ROLES) -> dict:
    import db
    from core import reports
    from core.courses import browse
    from core.signoff import actions
    from db.analytics import Scope

    people = bench_actors(path, sel, roles)
    conn = db.connect(path)
    try:
        aid, sid = sel["assignment_id"], sel["submission_id"]
        actions.open_item(conn, sid, actor=BENCH)      # the one write: create the review once
        scopes = {"assignment": Scope("assignment", sel["course_id"], aid),
                  "course": Scope("course", sel["course_id"]), "all": Scope("all")}
        out = {}
        for role in roles:
            me = people[role][0]
            funcs = {
                "review_queue": lambda me=me: (browse.queue_page(conn, aid, actor=me),
                                               browse.queue_group_counts(conn, aid, actor=me)),
                "review_item": lambda me=me: (actions.open_item(conn, sid, actor=me),
                                              browse.review_item(conn, sid, actor=me)),
            }
            for name, sc in scopes.items():
                funcs[f"agreement_{name}_figures"] = lambda sc=sc, me=me: reports.agreement_view(
                    conn, sc, intervals=False, actor=me)
                funcs[f"fairness_{name}_figures"] = lambda sc=sc, me=me: reports.fairness_view(
                    conn, sc, intervals=False, actor=me)
                funcs[f"agreement_{name}"] = lambda sc=sc, me=me: reports.agreement_view(conn, sc, actor=me)
                funcs[f"fairness_{name}"] = lambda sc=sc, me=me: reports.fairness_view(conn, sc, actor=me)
            if role == "coordinator":    # the granted courses' sums are made once, at the first view after a grant
                out[_named(role, "grant_change_first_view")] = _median(funcs["agreement_all_figures"], 1, cold=True)
            for name, f in funcs.items():
                f()      # warm-up: imports, SQLite page cache
                out[_named(role, f"{name}_cold")] = _median(f, repeat, cold=True)
                if name.startswith(("agreement", "fairness")):
                    out[_named(role, f"{name}_warm")] = _median(f, repeat, cold=False)
            if role == "admin":
                for name in ("agreement_all_figures", "fairness_all_figures"):
                    out[f"{name}_after_edit"] = _median(lambda f=funcs[name]: (_edit(conn, sid), f()), repeat,
                                                        cold=False)
        return out
    finally:
        conn.close()


_edits = iter(range(10**9))


def _edit(conn, sid: int) -> None:
    """One reference score of one item corrected: a write the dashboards read, so a warm view
    becomes stale and the next read recounts that submission."""
    crit = conn.execute("SELECT criterion FROM reference_scores WHERE submission_id = ? ORDER BY criterion LIMIT 1 "
                        "OFFSET ?", [sid, next(_edits) % 4]).fetchone()[0]
    conn.execute("UPDATE reference_scores SET score = 3 - score WHERE submission_id = ? AND criterion = ?", [sid, crit])


def patch_pages_manager() -> None:
    """AppTest resets PagesManager.uses_pages_directory before each run; with a pages/ folder
    beside app.py a second run would then skip app.py (see tests/conftest.py). Keep it off."""
    from streamlit.runtime.pages_manager import PagesManager

    if getattr(PagesManager, "_fairmark_bench", False):
        return
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    PagesManager.__init__ = init
    PagesManager._fairmark_bench = True


APPTESTS = {   # name -> (page, scope, open the first item)
    "apptest_review_queue": ("pages/review.py", "assignment", False),
    "apptest_review_item": ("pages/review.py", "assignment", True),
    "apptest_agreement_assignment": ("pages/agreement.py", "assignment", False),
    "apptest_agreement_course": ("pages/agreement.py", "course", False),
    "apptest_agreement_all": ("pages/agreement.py", "all", False),
    "apptest_fairness_assignment": ("pages/fairness.py", "assignment", False),
    "apptest_fairness_course": ("pages/fairness.py", "course", False),
    "apptest_fairness_all": ("pages/fairness.py", "all", False),
}


def signed_in_token(path: str) -> str:
    """A signed-in session of the benchmark's admin (pages show only the sign-in form otherwise)."""
    import db
    from core.accounts import identity as accounts
    from db import users as users_db

    conn = db.connect(path)
    try:
        if users_db.find(conn, "bench") is None:
            accounts.add_user(conn, username="bench", role="admin", password=PASSWORD,
                              actor=Actor("bench setup", role="admin"))
        return accounts.sign_in(conn, "bench", PASSWORD)[1]
    finally:
        conn.close()


def wait_for_intervals(timeout: float = 600) -> None:
    """Let the intervals a page left to the background (core.reports.later) finish, untimed."""
    import threading

    for t in threading.enumerate():
        if t.name == "fairmark-intervals":
            t.join(timeout)


def app_test(page: str, token: str, sel: dict, scope: str, item: bool):
    """app.py switched to `page`, signed in with `token`, the selected course and assignment."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.switch_page(page)
    at.session_state["_session_token"] = token
    at.session_state["course_id"] = sel["course_id"]
    at.session_state["assignment_id"] = sel["assignment_id"]
    at.session_state["scope"] = scope
    if item:
        at.session_state["review_item"] = sel["submission_id"]
    return at


def time_apptests(path: str, sel: dict, repeat: int, roles=ROLES) -> tuple[dict, list[str]]:
    """Each page's AppTest run per role (a fresh AppTest per run, COLD analytics cache)."""
    from db import analytics

    people = bench_actors(path, sel, roles)
    patch_pages_manager()
    out, problems = {}, []
    for role in roles:
        token = people[role][1]
        for name, (page, scope, item) in APPTESTS.items():
            times, label = [], _named(role, name)
            for i in range(repeat + 1):          # the first run warms imports and SQLite's cache
                at = app_test(page, token, sel, scope, item)
                analytics.clear_cache()
                t0 = time.perf_counter()
                at.run()
                if i:
                    times.append(time.perf_counter() - t0)
                wait_for_intervals()
                if at.exception:
                    problems.append(f"{label}: {at.exception[0].value}"[:300])
                    break
                if i == 0 and any(b.label == "Sign in" for b in at.button):
                    problems.append(f"{label}: the page showed the sign-in form")
                    break
                if i == 0 and name.startswith("apptest_review_queue") and not at.dataframe and not at.button:
                    problems.append(f"{label}: the queue page rendered no rows")
            out[label] = statistics.median(times) if times else None
    return out, problems


def _has_goal(name: str) -> bool:
    """The queue, the item, every figures view and every page's run, for every role; the full
    views' intervals report their own timing."""
    name = name.rpartition(":")[2]
    return name.startswith(("review_", "apptest_")) or "_figures" in name


def by_role(timings: dict, roles) -> dict:
    """{page_scope: {role: {"cold": ratio, "warm": ratio}}}: the goal's view of `timings`."""
    out: dict = {}
    for name, row in timings.items():
        role, _, bare = name.rpartition(":")
        role = role or "admin"
        if bare.endswith("_after_edit") or role not in roles:
            continue
        stem, _, heat = bare.rpartition("_")
        if heat not in ("cold", "warm"):     # apptest_* runs are cold
            stem, heat = bare, "cold"
        out.setdefault(stem, {}).setdefault(role, {})[heat] = row["ratio"]
    return out


def _load() -> list[float] | None:
    """The machine's load average (1, 5, 15 min): timings on a shared machine say how busy it was."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m bench.pages", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,10000,100000", help="comma-separated submission counts")
    ap.add_argument("--layouts", default="courses,worst", help="courses (realistic, primary) and/or worst")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per figure (median)")
    ap.add_argument("--no-apptest", action="store_true", help="time the functions only")
    ap.add_argument("--out-dir", default=str(OUT), help="where the built databases are cached")
    ap.add_argument("--roles", default=",".join(ROLES), help="who is signed in: admin, coordinator, teacher")
    args = ap.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    layouts = [s.strip() for s in args.layouts.split(",") if s.strip()]
    roles = [r.strip() for r in args.roles.split(",") if r.strip()]
    if not set(roles) <= set(ROLES):
        ap.error(f"--roles: choose from {', '.join(ROLES)}")

    import logging

    import db
    from bench import database_env

    logging.getLogger("streamlit").setLevel(logging.ERROR)   # AppTest's bare-mode warnings
    result: dict = {"sizes": sizes, "repeat": args.repeat, "goal_ratio": GOAL_RATIO, "primary_layout": "courses",
                    "roles": roles, "load_average": _load()}
    with tempfile.TemporaryDirectory(prefix="fairmark-pages-") as tmp:
        for layout in layouts:
            per_size, sels, problems = {}, {}, []
            for n in sizes:
                src = cached_db(n, layout, Path(args.out_dir))
                work = str(Path(tmp) / f"{layout}-{n}.db")
                shutil.copyfile(src, work)
                conn = db.connect(work)
                try:
                    sels[n] = selection(conn)
                finally:
                    conn.close()
                t = time_functions(work, sels[n], args.repeat, roles)
                if not args.no_apptest:
                    with database_env(work):
                        apps, bad = time_apptests(work, sels[n], args.repeat, roles)
                    t.update(apps)
                    problems += [f"n={n} {p}" for p in bad]
                per_size[n] = t
                db.forget_migrated(work)
                os.unlink(work)
                print(f"bench.pages: {layout} n={n} done", file=sys.stderr)
            lo, hi = sizes[0], sizes[-1]
            timings = {}
            for name in per_size[lo]:
                row = {str(n): round(per_size[n][name], 4) if per_size[n][name] is not None else None for n in sizes}
                a, b = per_size[lo][name], per_size[hi][name]
                row["ratio"] = round(b / a, 2) if a and b else None
                if _has_goal(name):
                    row["goal_met"] = row["ratio"] is not None and row["ratio"] <= GOAL_RATIO
                timings[name] = row
            result[layout] = {
                "goal_missed": sorted(k for k, r in timings.items() if r.get("goal_met") is False),
                "selected_assignment_submissions": {str(n): sels[n]["assignment_submissions"] for n in sizes},
                "courses": {str(n): sels[n]["courses"] for n in sizes},
                "timings_s": timings, "by_role": by_role(timings, roles), "problems": problems,
            }
    result["load_average_after"] = _load()
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
