"""Does the app keep answering while a long reflection is assessed?

    python -m bench.responsiveness              # the 20,000-character texts below
    python -m bench.responsiveness --content "one letter, no space" --limit 200

One process plays the app: an HTTP server thread answers a page request (open the database,
read the review queue and its group counts of the assignment, as the Review page does) while a
background run (core.runs.reflections.start, offline baseline) assesses one 20,000-character reflection of a
course with a 300-student roster. A second process requests the page every 100 ms and records
how long each answer took. Anything that holds Python's GIL or SQLite's write lock for long
(a quadratic regex, a transaction left open while computing) shows up as a slow answer.
Goal (issue #10): every answer under 1 s. It uses only APIs that existed before issue #10, so it
runs on an earlier revision too (copy it into that tree).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import db
from core.ingest import commit as ingest
from core.runs import reflections as runs
from db import queue
from core.accounts.access import Actor

SIZE = 20_000
PROSE = ("This week I worked with {a} and {b}; {c}'s idea about temperature was new to me. Write to "
         "{a_mail} or call +46 70 123 45 67. I wonder how bias enters the training data, and whether we "
         "can trust the model's answers at work. ")
CONTENTS = {
    "a reflection naming classmates": None,     # built from the roster
    "one letter, no space": "a",
    "a.a.a.": "a.",
    "@@@": "@",
}
_CLIENT = """
import sys, time, urllib.request
url, until = sys.argv[1], float(sys.argv[2])
out = []
while time.time() < until:
    t0 = time.perf_counter()
    try:
        body = urllib.request.urlopen(url, timeout=120).read().decode()
    except Exception as e:
        body = "error " + type(e).__name__
    out.append(time.perf_counter() - t0)
    if '"running": false' in body:
        break
    time.sleep(0.1)
print(" ".join(f"{x:.4f}" for x in out))
"""


def roster_csv(n: int = 300) -> tuple[bytes, list[tuple[str, str]]]:
    first = ["Ana", "Zoë", "José", "Liam", "Åsa", "Anne-Marie", "Mohammed", "Wei", "Olga", "Siobhán"]
    last = ["López", "O'Connor", "Núñez", "Lind", "van Dijk", "Svensson", "Al-Rashid", "Zhang", "Ivanova", "Müller"]
    people = [(f"{first[i % 10]} {last[(i // 10) % 10]}{'' if i < 100 else ['a', 'son'][i // 200]}",
               f"s{i:03d}@uni.example") for i in range(n)]
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["student_id", "name", "email", "text"])
    for i, (name, email) in enumerate(people):
        w.writerow([f"s{i:03d}", name, email, f"A short roster entry number {i} about tokens and temperature."])
    return buf.getvalue().encode(), people


def build(db_path: str, content: str) -> tuple[int, int]:
    conn = db.connect(db_path)
    roster, people = roster_csv()
    ingest.import_files(conn, [("roster.csv", roster)], ingest.Target("Bench course", "Roster"), actor=Actor("test", role="admin"))
    unit = CONTENTS[content] or PROSE.format(a=people[3][0], b=people[41][0].split()[0],
                                             c=people[77][0].split()[-1], a_mail=people[5][1])
    text = (unit * (SIZE // len(unit) + 1))[:SIZE].strip() or "a"
    buf = io.StringIO()
    csv.writer(buf).writerows([["student_id", "name", "email", "text"], ["s003", people[3][0], people[3][1], text]])
    ingest.import_files(conn, [("long.csv", buf.getvalue().encode())], ingest.Target("Bench course", "Week 1"), actor=Actor("test", role="admin"))
    course_id, assignment_id = conn.execute(
        "SELECT a.course_id, a.id FROM assignments a WHERE a.title = 'Week 1'").fetchone()
    conn.close()
    return course_id, assignment_id


def serve(db_path: str, assignment_id: int, state: dict) -> ThreadingHTTPServer:
    class Page(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            conn = db.connect(db_path)
            try:
                rows = queue.queue(conn, assignment_id)
                counts = queue.group_counts(conn, assignment_id)
            finally:
                conn.close()
            body = json.dumps({"items": len(rows), "groups": len(counts), "running": state["running"]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def measure(content: str, limit_s: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        db_path = str(Path(tmp, "bench.db"))
        course_id, assignment_id = build(db_path, content)
        state = {"running": True}
        server = serve(db_path, assignment_id, state)
        url = f"http://127.0.0.1:{server.server_address[1]}/review"
        client = subprocess.Popen([sys.executable, "-c", _CLIENT, url, str(time.time() + limit_s)],
                                  stdout=subprocess.PIPE, text=True)
        time.sleep(0.5)                                    # a few answers before the run starts
        conn = db.connect(db_path)
        run_id = runs.create(conn, course_id=course_id, assignment_id=assignment_id, provider="offline", actor=Actor("test", role="admin"))
        t0 = time.perf_counter()
        worker = runs.start(db_path, run_id, actor=Actor("test", role="admin"))
        worker.join(limit_s)
        assess_s = time.perf_counter() - t0
        state["running"] = False
        status = runs.progress(conn, run_id, actor=Actor("test", role="admin"))["status"] if not worker.is_alive() else f"still running after {limit_s:.0f} s"
        conn.close()
        latencies = [float(x) for x in client.communicate(timeout=limit_s + 130)[0].split()]
        server.shutdown()
    return {"content": content, "assess_s": assess_s, "status": status, "requests": len(latencies),
            "max_s": max(latencies), "median_s": statistics.median(latencies)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--content", choices=list(CONTENTS), action="append")
    ap.add_argument("--limit", type=float, default=300.0, help="seconds to wait for the assessment")
    args = ap.parse_args(argv)
    print(f"A page request every 100 ms while one {SIZE:,}-character reflection is assessed (goal: every answer < 1 s)")
    print(f"{'content':32} {'assessment':>12} {'requests':>9} {'median':>9} {'slowest':>9}  run")
    for content in args.content or list(CONTENTS):
        r = measure(content, args.limit)
        print(f"{r['content']:32} {r['assess_s']:10.2f} s {r['requests']:9d} {r['median_s'] * 1000:7.1f} ms "
              f"{r['max_s'] * 1000:7.0f} ms  {r['status']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
