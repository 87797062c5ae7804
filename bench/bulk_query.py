"""How long the bulk-approval query takes on a large assignment (issue 22: the rule reads
drafts.held_back in SQL, so it stays one statement).

    python -m bench.bulk_query --n 100000 --db /tmp/bulk-100k.db    # builds the file once (minutes)

The synthetic database (bench.synth, layout "worst": one course, four assignments of n/4) is
built when the file does not exist. It times db.samples.candidates_by_band on the first
assignment with the low band held back (the band gap's rule) and prints
{"n", "submissions", "candidates", "median_ms", "runs"}.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import db as dbmod
from bench import synth
from core.signoff import bulk
from db import courses, samples


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=100_000, help="submissions in the synthetic database")
    p.add_argument("--db", default="bulk-query.db", help="SQLite file (built when missing)")
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args(argv)
    if not os.path.exists(args.db):
        synth.build(args.db, args.n, layout="worst")
    conn = dbmod.connect(args.db)
    try:
        aid = conn.execute("SELECT id FROM assignments ORDER BY id LIMIT 1").fetchone()[0]
        rule = bulk.eligibility(courses.assignment_rubric(conn, aid), blocked_bands=("low",))
        times, by_band = [], {}
        for _ in range(args.runs):
            t = time.perf_counter()
            by_band = samples.candidates_by_band(conn, aid, rule)
            times.append(time.perf_counter() - t)
        out = {"n": args.n, "submissions": conn.execute("SELECT COUNT(*) FROM submissions WHERE assignment_id = ?",
                                                        [aid]).fetchone()[0],
               "candidates": by_band, "median_ms": round(statistics.median(times) * 1000, 1), "runs": args.runs}
    finally:
        conn.close()
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
