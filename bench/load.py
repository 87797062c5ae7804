"""Many teachers at once: N simulated teacher sessions against Streamlit's real server while a
1,000-submission run writes.

    python -m bench.load [--users 1,5,10,20] [--items 4] [--think 2] [--run 1000] [--latency 0.2]
                         [--servers 1] [--browsers 2] [--databases sqlite,postgresql]

What happens: a database with one course is built (bench.synth: `--run` uploaded submissions
plus the items the teachers review, drafted first by the offline baseline). `streamlit run
app.py` serves it on a loopback port. A second process assesses the `--run` submissions through
a fake LLM that sleeps `--latency` per call (a provider's time, spent waiting on I/O), writing
drafts, statuses and the call log throughout. For each N in --users, N teacher sessions talk to
the server at its websocket protocol (/_stcore/stream: protobuf BackMsg / ForwardMsg, what the
browser sends and receives; so 20 sessions fit on two cores), each doing per item: open the
review queue, open the item (?item=ID), change a score with a reason and press Approve, with
`--think` seconds between actions (a teacher reads before clicking). Each session has its own
items, so no two teachers edit the same one.

Measured per action: the time from the message sent to the server's "script finished" (what a
teacher waits for). Errors: an exception shown on the page, an error message, a session that
got no answer within 60 s, or "database is locked" anywhere. Lost edits: an approval the page
confirmed whose scores are not in the database afterwards. `--browsers K` also drives K real
chromium pages (Playwright, Debian's chromium) through the same item flow once, to confirm the
protocol-level figures against a browser.

`--databases sqlite,postgresql` runs the same levels on a SQLite file and then on a private,
durable PostgreSQL server (bench/postgres_server.py; PostgreSQL's defaults, `--max-connections`),
and prints {"sqlite": {...}, "postgresql": {...}}, each the shape below. With one database it
prints one JSON line keyed by the number of users:
{"10": {"p50_s", "p95_s", "max_s", "actions", "errors", "lost_edits", "locked",
 "server_cpu_s_per_action", "server_cpu_share" (cores the server used), "load_average"}, ...,
 "run": {...}, "browsers": {...}}. On a shared machine the latencies depend on what else runs
(hence the load average); the server's CPU seconds per action do not.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 60.0
GOAL_P95_S = 1.0
PASSWORD = "bench.load teacher's password"   # a throwaway database's accounts


# --- the database and the writer ----------------------------------------------------------------
def _operator(name: str = "bench.load"):
    from core.accounts.access import Actor

    return Actor(name, role="admin", via="cli")


def sign_in_teachers(path: str, course_id: int, n: int, first: int = 1) -> list[str]:
    """`n` instructors of the course (accounts made as an admin would), each signed in: the
    session tokens their browsers' cookies hold (issue 13: every page needs a signed-in user)."""
    import db
    from core.accounts import identity as accounts
    from db import users as users_db

    conn = db.connect(path)
    try:
        tokens = []
        for i in range(first, first + n):
            name = f"teacher{i}"
            found = users_db.find(conn, name)
            uid = found["id"] if found else accounts.add_user(conn, username=name, role="instructor",
                                                              password=PASSWORD, actor=_operator())
            if not found:
                accounts.grant(conn, uid, course_id=course_id, actor=_operator())
            tokens.append(accounts.sign_in(conn, name, PASSWORD)[1])
        return tokens
    finally:
        conn.close()


def build(path: str, review_items: int, run_size: int) -> dict:
    """One course: `review_items` drafted items (the teachers' queue) and `run_size` uploaded
    submissions the run will assess. Returns {course_id, assignment_id, items: [ids]}."""
    import db
    from bench import synth
    from core.runs import reflections as runs
    from core.llm import make_llm

    info = synth.build_uploaded(path, review_items + run_size)
    conn = db.connect(path)
    try:
        run_id = runs.create(conn, course_id=info["course_id"], assignment_id=info["assignment_id"],
                             provider="offline", limit=review_items, actor=_operator())
    finally:
        conn.close()
    runs.execute(path, run_id, make_llm("offline", path), actor=_operator())
    conn = db.connect(path)
    try:
        items = [r[0] for r in conn.execute("SELECT subject_id FROM run_items WHERE run_id = ? ORDER BY 1",
                                            [run_id])]
        if not db.on_postgresql(conn):
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return {**info, "items": items}


def write(path: str, latency: float, concurrency: int) -> None:
    """The writer process: assess every submission still waiting, through a fake LLM that waits
    on I/O like a provider; again with --redo when done, until killed."""
    import db
    from bench.fake import SleepyLLM
    from core.runs import reflections as runs
    from core.llm import LoggedLLM

    redo = False
    while True:
        conn = db.connect(path)
        try:
            cid = conn.execute("SELECT id FROM courses ORDER BY id LIMIT 1").fetchone()[0]
            run_id = runs.create(conn, course_id=cid, provider="offline", concurrency=concurrency, redo=redo,
                                 actor=_operator("bench.load writer"))
        finally:
            conn.close()
        p = runs.execute(path, run_id, LoggedLLM(SleepyLLM(latency), path, read_cache=False),
                         actor=_operator("bench.load writer"))
        print(json.dumps({"run": run_id, "status": p["status"], "done": p["done"], "seconds": p["seconds"]}),
              file=sys.stderr, flush=True)
        redo = True


# --- the server -------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db_path: str, port: int, logs: Path) -> subprocess.Popen:
    env = {**os.environ, "FAIRMARK_DB": db_path}
    launcher = os.environ.get("FAIRMARK_LOAD_SERVER", "").split() or ["-m", "streamlit", "run"]   # a profiler wrapper
    proc = subprocess.Popen([sys.executable, *launcher, str(ROOT / "app.py"), "--server.port", str(port),
                             "--server.address", "127.0.0.1", "--server.headless", "true",
                             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=open(logs / f"server-{port}.log", "w"))   # never a pipe nobody reads
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("bench.load: the Streamlit server did not start")


# --- one teacher's session at the websocket protocol ------------------------------------------
@dataclass
class Page:
    """What one script run showed: widgets by their key, alerts, exceptions."""
    seconds: float
    widgets: dict = field(default_factory=dict)     # user key -> (widget id, element type, proto)
    alerts: list = field(default_factory=list)      # (format, text) of st.error / warning / success / info
    exceptions: list = field(default_factory=list)
    timed_out: bool = False


class Session:
    """A browser tab, as the server sees it: one websocket, BackMsg out, ForwardMsg in. Like the
    browser it keeps the value of every widget on screen and sends them all with each rerun
    (the server keeps none between runs); a click is a trigger on top of them."""

    def __init__(self, ws, user: str):
        self.ws, self.user = ws, user
        self.values: dict = {}     # widget id -> WidgetState of the widgets on screen

    async def rerun(self, query: str, page: str, states: list | None = None) -> Page:
        changed = {s.id: s for s in states or []}
        sent = [*(v for k, v in self.values.items() if k not in changed), *changed.values()]
        out = await self._run(query, page, sent)
        kept = {k: v for k, v in changed.items() if not v.HasField("trigger_value")}
        values = {}
        for wid, kind, proto in out.widgets.values():
            if wid in kept and not getattr(proto, "set_value", False):
                values[wid] = kept[wid]
            elif wid in self.values and not getattr(proto, "set_value", False):
                values[wid] = self.values[wid]
            else:
                current = _current(wid, kind, proto)
                if current is not None:
                    values[wid] = current
        self.values = values
        return out

    async def _run(self, query: str, page: str, states: list) -> Page:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        msg = BackMsg()
        msg.rerun_script.query_string = query
        msg.rerun_script.page_name = page
        msg.rerun_script.widget_states.widgets.extend(states or [])
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        out = Page(0.0)
        try:
            while True:
                raw = await asyncio.wait_for(self.ws.recv(), TIMEOUT_S)
                fwd = ForwardMsg()
                fwd.ParseFromString(raw)
                kind = fwd.WhichOneof("type")
                if kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                    _collect(fwd.delta.new_element, out)
                elif kind == "script_finished" and fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    break   # a run cut short by st.rerun() is followed by the one the teacher sees
        except asyncio.TimeoutError:
            out.timed_out = True
        out.seconds = time.perf_counter() - t0
        return out


def _collect(element, out: Page) -> None:
    kind = element.WhichOneof("type")
    proto = getattr(element, kind)
    if kind == "exception":
        out.exceptions.append(f"{proto.type}: {proto.message}")
    elif kind == "alert":
        out.alerts.append((proto.format, proto.body))
    wid = getattr(proto, "id", "")
    if isinstance(wid, str) and wid.startswith("$$ID-"):
        out.widgets[wid.split("-", 2)[2]] = (wid, kind, proto)


async def open_session(url: str, user: str, token: str) -> Session:
    """THE session set-up: connect a tab signed in as the teacher (the session cookie the
    browser would send, read by the app through st.context.cookies)."""
    import websockets

    from pages._signin import COOKIE

    ws = await websockets.connect(url.replace("http", "ws") + "/_stcore/stream", subprotocols=["streamlit"],
                                  max_size=2 ** 26, open_timeout=TIMEOUT_S,
                                  additional_headers={"Cookie": f"{COOKIE}={token}"})
    return Session(ws, user)


def _current(wid: str, kind: str, proto):
    """A widget's value as the browser would hold it when the server draws it (None: no value)."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    s = WidgetState(id=wid)
    if kind in ("selectbox", "radio"):
        if proto.set_value and proto.raw_value:
            s.string_value = proto.raw_value
        elif proto.HasField("default") and proto.options:
            s.string_value = proto.options[proto.default]
        else:
            return None
    elif kind == "multiselect":
        s.string_array_value.data.extend(list(proto.raw_values) if proto.set_value
                                         else [proto.options[i] for i in proto.default])
    elif kind in ("text_area", "text_input"):
        s.string_value = proto.value if proto.set_value else proto.default
    elif kind == "checkbox":
        s.bool_value = proto.value if proto.set_value else proto.default
    elif kind == "number_input":
        s.double_value = proto.value if proto.set_value else proto.default
    else:
        return None
    return s


def _state(widget, **value):
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    s = WidgetState(id=widget[0])
    for k, v in value.items():
        if k == "string_array_value":
            s.string_array_value.data.extend(v)
        else:
            setattr(s, k, v)
    return s


@dataclass
class Tally:
    seconds: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    approved: dict = field(default_factory=dict)      # submission id -> {criterion: score}, as confirmed


def _problems(page: Page) -> list[str]:
    bad = [f"exception: {e}" for e in page.exceptions]
    bad += [f"error: {text}" for fmt, text in page.alerts if fmt == 1]   # Alert.ERROR
    bad += [f"locked: {text}" for _, text in page.alerts if "locked" in text.lower()]
    if page.timed_out:
        bad.append(f"no answer within {TIMEOUT_S:.0f} s")
    return bad


async def teacher(url: str, user: str, token: str, course_id: int, assignment_id: int, items: int, think: float,
                  rng: random.Random, tally: Tally, claimed: set) -> None:
    """One teacher: open the queue, open the first item nobody else took, change a score with a
    reason and approve it, back to the queue; `items` times, reading `think` s before each click."""
    try:
        session = await open_session(url, user, token)
    except Exception as e:   # noqa: BLE001  (a refused connection is an error of the measurement)
        tally.errors.append(f"connect: {type(e).__name__}: {e}")
        return
    try:
        page = await session.rerun(f"course={course_id}&assignment={assignment_id}", "review")   # the link
        tally.errors += _problems(page)
        for _ in range(items):
            sid = next((int(k.split("_")[1]) for k in page.widgets if k.startswith("open_")
                        and int(k.split("_")[1]) not in claimed), None)
            if sid is None:
                tally.errors.append("the queue's first page had no item left to open")
                return
            claimed.add(sid)
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            item = await _act(session, tally, [_state(page.widgets[f"open_{sid}"], trigger_value=True)])
            scores = {k: w for k, w in item.widgets.items() if k.startswith("ri_score_")}
            approve = next((w for k, w in item.widgets.items() if k.startswith("ri_approve_")), None)
            reasons = next((w for k, w in item.widgets.items() if k.startswith("ri_reasons_")), None)
            if not scores or approve is None or reasons is None:
                tally.errors.append(f"item {sid}: the page showed no scores or Approve button")
                return
            key, widget = sorted(scores.items())[0]
            ai = widget[2].label.rsplit("(AI: ", 1)[-1].rstrip(")")
            new = next(o for o in widget[2].options if o.split(" ")[0] != ai)   # options as the page formats them
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            done = await _act(session, tally, [_state(widget, string_value=new),
                                               _state(reasons, string_array_value=[reasons[2].options[0]]),
                                               _state(approve, trigger_value=True)])
            if any(fmt == 4 and text.startswith("Approved") for fmt, text in done.alerts):   # Alert.SUCCESS
                tally.approved[sid] = {key.split("_", 4)[4]: int(new.split(" ")[0])}   # ri_score_<sid>_<v>_<crit>
            else:
                tally.errors.append(f"item {sid}: no approval confirmed ({done.alerts[:2]})")
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            back = done.widgets.get("ri_back")
            page = await _act(session, tally, [_state(back, trigger_value=True)] if back else [])
    finally:
        await session.ws.close()


async def _act(session: Session, tally: Tally, states: list) -> Page:
    """One click: the widget states the browser would send."""
    page = await session.rerun("", "review", states)
    tally.seconds.append(page.seconds)
    tally.errors += _problems(page)
    return page


def lost_edits(db_path: str, approved: dict) -> list[int]:
    """Approvals the page confirmed that the database does not hold."""
    import db

    conn = db.connect(db_path)
    try:
        lost = []
        for sid, want in approved.items():
            row = conn.execute("SELECT status, scores FROM reviews WHERE submission_id = ?", [sid]).fetchone()
            have = db.loads(row[1], {}) if row else {}
            if not row or row[0] != "approved" or any(have.get(k) != v for k, v in want.items()):
                lost.append(sid)
        return lost
    finally:
        conn.close()


async def level(urls: list[str], info: dict, users: int, items: int, think: float, seed: int,
                tokens: list[str]) -> Tally:
    """`users` sessions at once (each a signed-in teacher), spread over the app processes as a
    sticky proxy would."""
    tally, claimed = Tally(), set()
    rng = random.Random(seed)
    await asyncio.gather(*(teacher(urls[u % len(urls)], f"teacher{u + 1}", tokens[u], info["course_id"],
                                   info["assignment_id"], items, think, random.Random(rng.random()), tally, claimed)
                           for u in range(users)))
    return tally


def summarise(tally: Tally, lost: list[int]) -> dict:
    s = sorted(tally.seconds)
    q = (lambda p: round(s[min(len(s) - 1, int(p * len(s)))], 3)) if s else (lambda p: None)   # noqa: E731
    return {"p50_s": round(statistics.median(s), 3) if s else None, "p95_s": q(0.95), "max_s": round(max(s), 3)
            if s else None, "actions": len(s), "errors": len(tally.errors), "lost_edits": len(lost),
            "locked": sum("locked" in e.lower() for e in tally.errors), "error_samples": tally.errors[:3]}


# --- a few real browsers to confirm ----------------------------------------------------------------
def browsers(url: str, info: dict, k: int, db_path: str) -> dict:
    """K chromium pages at once, each opening an item and approving it with a changed score:
    seconds from the click to the confirmation."""
    from concurrent.futures import ThreadPoolExecutor

    import db

    conn = db.connect(db_path)
    try:
        items = [r[0] for r in conn.execute(
            "SELECT s.id FROM submissions s LEFT JOIN reviews r ON r.submission_id = s.id WHERE r.id IS NULL "
            "AND s.status IN ('drafted', 'needs_attention') ORDER BY s.id LIMIT ?", [k])]
    finally:
        conn.close()

    tokens = dict(zip(items, sign_in_teachers(db_path, info["course_id"], len(items), first=1000)))

    def one(sid: int) -> float | str:
        from playwright.sync_api import sync_playwright

        from pages._signin import COOKIE

        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            try:
                context = b.new_context()
                context.add_cookies([{"name": COOKIE, "value": tokens[sid], "url": url}])
                page = context.new_page()
                page.goto(f"{url}/review?course={info['course_id']}&assignment={info['assignment_id']}&item={sid}")
                page.get_by_role("button", name="Approve").wait_for(timeout=60_000)
                t0 = time.perf_counter()
                page.get_by_role("button", name="Approve").click()
                page.get_by_text("Approved").first.wait_for(timeout=60_000)
                return time.perf_counter() - t0
            except Exception as e:   # noqa: BLE001
                return f"{type(e).__name__}: {str(e)[:200]}"
            finally:
                b.close()

    with ThreadPoolExecutor(k) as pool:
        got = list(pool.map(one, items[:k]))
    times = [g for g in got if isinstance(g, float)]
    return {"pages": k, "approve_s": [round(t, 3) for t in times], "errors": [g for g in got if isinstance(g, str)]}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used (Linux /proc): what an action costs the server,
    whatever else the machine is doing."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class _WalWatch:
    """The write-ahead log's largest size while the benchmark runs (a WAL that never gets
    checkpointed back makes every read slower)."""

    def __init__(self, path: str):
        import threading

        self.path, self.max_bytes, self._stop = str(path) + "-wal", 0, threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(0.5):
            try:
                self.max_bytes = max(self.max_bytes, os.path.getsize(self.path))
            except OSError:
                pass

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n\n")[0])
    ap.add_argument("--users", default="1,5,10,20", help="comma-separated numbers of teacher sessions")
    ap.add_argument("--items", type=int, default=4, help="items each teacher opens, edits and approves per level")
    ap.add_argument("--think", type=float, default=2.0, help="mean seconds a teacher reads before each action")
    ap.add_argument("--run", type=int, default=1000, help="submissions the run assesses meanwhile")
    ap.add_argument("--latency", type=float, default=0.2, help="seconds the fake LLM waits per call")
    ap.add_argument("--concurrency", type=int, default=8, help="the run's concurrency")
    ap.add_argument("--servers", type=int, default=1, help="app processes on the same database (docs/deploy.md)")
    ap.add_argument("--browsers", type=int, default=0, help="also approve in K real chromium pages at the top level")
    ap.add_argument("--databases", default="sqlite",
                    help="sqlite, postgresql, or both comma-separated (sqlite,postgresql): the same levels "
                         "on each, one after the other, side by side in one JSON line")
    ap.add_argument("--max-connections", type=int, default=100,
                    help="the PostgreSQL server's max_connections (PostgreSQL's default: 100)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--write", metavar="DB", help=argparse.SUPPRESS)   # the writer process
    args = ap.parse_args(argv)
    if args.write:
        write(args.write, args.latency, args.concurrency)
        return {}
    levels = [int(x) for x in args.users.split(",")]
    chosen = [d.strip() for d in args.databases.split(",") if d.strip()]
    if not chosen or set(chosen) - {"sqlite", "postgresql"}:
        ap.error(f"--databases: sqlite, postgresql or both comma-separated, not {args.databases!r}")
    result: dict = {}
    for database in chosen:
        with tempfile.TemporaryDirectory(prefix="fairmark-load-") as tmp:
            result[database] = measure(database, Path(tmp), levels, args)
    out = result[chosen[0]] if len(chosen) == 1 else result   # one database: the shape it always had
    print(json.dumps(out))
    return out


def measure(database: str, tmp: Path, levels: list[int], args) -> dict:
    """Every level of teachers against `args.servers` app processes on one database of its kind:
    a SQLite file in `tmp`, or a database on a private, durable PostgreSQL server
    (bench/postgres_server.py, PostgreSQL's defaults: fsync on, max_connections 100)."""
    need = sum(levels) * args.items + args.browsers
    result: dict = {}
    server = None
    if database == "postgresql":
        from bench.postgres_server import Server

        server = Server(durable=True, max_connections=args.max_connections)
        path = server.database("fairmark_load")
    else:
        path = str(tmp / "load.db")
    try:
        info = build(path, need, args.run)
        ports = [free_port() for _ in range(args.servers)]
        urls = [f"http://127.0.0.1:{port}" for port in ports]
        servers = [start_server(path, port, tmp) for port in ports]
        writer = subprocess.Popen([sys.executable, "-m", "bench.load", "--write", path, "--latency",
                                   str(args.latency), "--concurrency", str(args.concurrency)], cwd=ROOT,
                                  stderr=open(tmp / "writer.log", "w"))
        wal = _WalWatch(path) if server is None else None
        load_before = os.getloadavg()[0]
        try:
            time.sleep(3)     # the run is writing before the first teacher arrives
            for n in levels:
                cpu, wall, load = sum(map(cpu_seconds, (p.pid for p in servers))), time.perf_counter(), \
                    os.getloadavg()[0]
                tokens = sign_in_teachers(path, info["course_id"], n)
                tally = asyncio.run(level(urls, info, n, args.items, args.think, args.seed + n, tokens))
                result[str(n)] = summarise(tally, lost_edits(path, tally.approved))
                used = sum(map(cpu_seconds, (p.pid for p in servers))) - cpu
                result[str(n)].update(server_cpu_s_per_action=round(used / max(1, len(tally.seconds)), 3),
                                      server_cpu_share=round(used / (time.perf_counter() - wall), 2),
                                      load_average=round(max(load, os.getloadavg()[0]), 1))
                print(f"bench.load: {database}, {n} users: {json.dumps(result[str(n)])}", file=sys.stderr,
                      flush=True)
            if args.browsers:
                result["browsers"] = browsers(urls[0], info, args.browsers, path)
        finally:
            if wal:
                wal.stop()
            writer.send_signal(signal.SIGKILL)
            writer.wait()
            for app in servers:
                app.terminate()
                try:
                    app.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    app.kill()
        import db

        conn = db.connect(path)
        try:
            result["run"] = {"drafts_written": conn.execute("SELECT COUNT(*) FROM drafts").fetchone()[0] - need,
                             "calls_logged": conn.execute("SELECT COUNT(*) FROM llm_calls").fetchone()[0],
                             "latency_s": args.latency, "concurrency": args.concurrency, "think_s": args.think,
                             "goal_p95_s": GOAL_P95_S, "servers": args.servers, "database": database,
                             "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)]}
            if wal:
                result["run"]["wal_max_mb"] = round(wal.max_bytes / 2 ** 20, 1)
            else:
                result["run"]["max_connections"] = args.max_connections
        finally:
            conn.close()
    finally:
        if server is not None:
            server.stop()
    return result


if __name__ == "__main__":
    main()
