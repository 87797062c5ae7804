"""What reaches the model: roster names, phone numbers and e-mails in the requests of a real run.

    python -m bench.privacy

The reflections of the privacy tests (tests/privacy_cases.py: classmates named in many
spellings, phone numbers, obfuscated e-mails) are imported with their six-student roster and
assessed through the real openai SDK against the tests' fake OpenAI-compatible server; every
request body is searched (privacy_cases.leaks) for each roster name part (accents and
apostrophes ignored, whole words), each phone number's digits and each e-mail's parts. Goal: none. Uses only APIs that existed before issue #10 (it
runs on an earlier revision too).
"""
from __future__ import annotations

import csv
import io
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fake_openai_server import FakeOpenAI  # noqa: E402
from privacy_cases import FILLER, REFLECTIONS, ROSTER, leaks, sent  # noqa: E402

import db  # noqa: E402
from bench import let_configuration_run  # noqa: E402
from core.ingest import commit as ingest
from core.runs import reflections as runs
from core.accounts.access import Actor


def main() -> int:
    saved = dict(os.environ)
    try:
        return _run()
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _run() -> int:
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI() as server:
        db_path = str(Path(tmp, "privacy.db"))
        os.environ.update({"FAIRMARK_LLM_BASE_URL": server.base_url, "FAIRMARK_DB": db_path})
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(["student_id", "name", "email", "week", "text"])
        for ext, name, email in ROSTER:                     # the roster (week 0), then the reflections
            w.writerow([ext, name, email, 0, f"Roster entry of {ext} about tokens and temperature."])
        for ext, text in REFLECTIONS:
            name, email = next((n, e) for x, n, e in ROSTER if x == ext)
            w.writerow([ext, name, email, 1, f"{text} {FILLER * 3}"])
        conn = db.connect(db_path)
        ingest.import_files(conn, [("r.csv", buf.getvalue().encode())], ingest.Target("Privacy", "Week 1"), actor=Actor("test", role="admin"))
        course_id = conn.execute("SELECT id FROM courses").fetchone()[0]
        assignment_id = conn.execute("SELECT id FROM assignments WHERE week = 1").fetchone()[0]
        let_configuration_run(conn, why="bench.privacy measures masking, not the AI's quality")
        run_id = runs.create(conn, course_id=course_id, assignment_id=assignment_id, provider="openai", actor=Actor("test", role="admin"))
        p = runs.execute(db_path, run_id, actor=Actor("test", role="admin"))
        conn.close()
    found = leaks(sent(server.bodies))
    print(f"{len(REFLECTIONS)} reflections, run {p['status']}, {len(server.bodies)} requests to the model")
    print(f"roster names, phone numbers and e-mail parts found in the requests: {sum(found.values())}")
    for what, n in sorted(found.items()):
        print(f"  {n:3d} x {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
