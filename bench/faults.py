"""A run against an OpenAI-compatible server that injects faults, through the real openai SDK.

    python -m bench.faults                     # 112 submissions, 30 % of requests faulty
    python -m bench.faults --n 112 --rate 0.3 --seed 1

The server is the tests' fake (tests/fake_openai_server.py): every fault kind in equal shares
(500, 503, 429 with Retry-After, hang, body cut short, HTML body, JSON cut off, JSON of the wrong
shape). It reports how many submissions failed, how many of those had an Evaluator answer (the
goal is none: only an Evaluator failure may fail an item), what the failures say, and whether
anything was paid twice. Timeout 1 s, 3 retries, a short backoff, concurrency 8.
"""
from __future__ import annotations

import argparse
import io
import csv
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fake_openai_server import FAULTS, FakeOpenAI  # noqa: E402

import db  # noqa: E402
from bench import let_configuration_run  # noqa: E402
from core.ingest import commit as ingest
from core.runs import reflections as runs
from core.accounts.access import Actor  # noqa: E402
from core.llm import chat  # noqa: E402

TEXT = ("This week I learned how a large language model predicts the next token and how temperature changes "
        "the randomness of its answers. For example, at work I used a chatbot to draft e-mails, and with a "
        "higher temperature the drafts became more creative but less reliable. I wonder how bias enters the "
        "training data, and whether we can trust these tools for hiring, because the data may reflect old "
        "assumptions. Therefore I will test the same prompt several times and compare the results. However, "
        "tokens still confuse me a little. Finally, the course helped me see the limits of these systems in "
        "practice, such as when they invent facts or sources that do not exist. Reflection {i}.")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=112)
    ap.add_argument("--rate", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    saved = dict(os.environ), chat.BACKOFF_BASE_S
    chat.BACKOFF_BASE_S = 0.05
    try:
        return _run(args)
    finally:
        os.environ.clear()
        os.environ.update(saved[0])
        chat.BACKOFF_BASE_S = saved[1]


def _run(args) -> int:
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(faults=dict.fromkeys(FAULTS, args.rate / len(FAULTS)),
                                                         seed=args.seed, hang_s=2.0) as server:
        db_path = str(Path(tmp, "faults.db"))
        os.environ.update({"FAIRMARK_LLM_BASE_URL": server.base_url, "FAIRMARK_TIMEOUT": "1",
                           "FAIRMARK_MAX_RETRIES": "3", "FAIRMARK_DB": db_path})
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(["student_id", "name", "text"])
        w.writerows([f"s{i:03d}", f"Student {i}", TEXT.format(i=i)] for i in range(args.n))
        conn = db.connect(db_path)
        ingest.import_files(conn, [("r.csv", buf.getvalue().encode())], ingest.Target("Faults", "Week 1"), actor=Actor("test", role="admin"))
        course_id = conn.execute("SELECT id FROM courses").fetchone()[0]
        let_configuration_run(conn, why="bench.faults measures fault handling, not the AI's quality")
        run_id = runs.create(conn, course_id=course_id, provider="openai", concurrency=8, actor=Actor("test", role="admin"))
        t0 = time.perf_counter()
        p = runs.execute(db_path, run_id, actor=Actor("test", role="admin"))
        seconds = time.perf_counter() - t0
        answered = {r[0] for r in conn.execute(
            "SELECT submission_id FROM llm_calls WHERE agent = 'evaluator' AND status = 'ok'")}
        failed = [(r[0], r[1]) for r in conn.execute("SELECT subject_id, error FROM run_items WHERE status = 'failed'")]
        twice_rows = conn.execute("SELECT agent, GROUP_CONCAT(submission_id), GROUP_CONCAT(id) FROM llm_calls "
                                  "WHERE status = 'ok' GROUP BY cache_key HAVING COUNT(*) > 1").fetchall()
        twice = len(twice_rows)
        conn.close()
    faults = sum(server.outcomes[f] for f in FAULTS)
    print(f"{args.n} submissions, {sum(server.outcomes.values())} requests, {faults} faults "
          f"({faults / sum(server.outcomes.values()):.0%}): {dict(server.outcomes)}")
    print(f"run {p['status']} in {seconds:.1f} s: drafted {p['done']}, needs attention {p['needs_attention']}, "
          f"failed {p['failed']}")
    print(f"failed although the Evaluator answered: {sum(sid in answered for sid, _ in failed)}")
    print(f"calls paid twice: {twice} {twice_rows if twice else ''}")
    for what, n in Counter(err.split(":")[0] + ": " + err.split(":", 2)[1][:60] for _, err in failed).items():
        print(f"  {n} x {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
