"""What reaches the model: roster names, phone numbers and e-mails in the requests of a real run.

    python -m bench.privacy

The reflections of tests/test_privacy.py (classmates named in many spellings, phone numbers,
obfuscated e-mails) are imported with their six-student roster and assessed through the real
openai SDK against the tests' fake OpenAI-compatible server; every request body is searched
for each roster name part (accents and apostrophes ignored, whole words), each phone number's
digits and each e-mail's parts. Goal: none. Uses only APIs that existed before issue #10 (it
runs on an earlier revision too).
"""
from __future__ import annotations

import csv
import io
import json
import os
import re
import sys
import tempfile
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fake_openai_server import FakeOpenAI  # noqa: E402

import db  # noqa: E402
from bench import let_configuration_run  # noqa: E402
from core import ingest, runs  # noqa: E402
from core.access import Actor

ROSTER = [("s1", "Ana López", "ana.lopez@uni.es"), ("s2", "Zoë O'Connor", "zoe.oconnor@uni.ie"),
          ("s3", "José Núñez", "jnunez@uni.mx"), ("s4", "Ana Silva", "ana.silva@uni.pt"),
          ("s5", "Siobhán Ní Bhriain", "siobhan@uni.ie"), ("s6", "Anne-Marie Svensson", "ams@uni.se")]
PHONES = ["+46 70 123 45 67", "070-987 65 43", "(555) 123-4567", "+353 87 765 4321"]
FILLER = ("This week I learned how a language model predicts the next token and how temperature changes "
          "its answers. For example, at work I drafted e-mails with a chatbot and compared the drafts. "
          "I wonder how bias enters the training data, and whether we can trust these tools for hiring. ") * 3
REFLECTIONS = [
    ("s4", "I worked with Ana López and ana lopez's notes helped; Zoë O'Connor disagreed, and Mr. O'Connor's "
           "example (from Zoe OConnor) was about chess. Call me on +46 70 123 45 67 or mail ana.lopez [at] uni.es."),
    ("s4", "My surname Silva comes from Porto. José Núñez and J. Nunez (the same person) said NÚÑEZ is fine; "
           "reach José at jnunez(at)uni(dot)mx or 070-987 65 43."),
    ("s2", "Siobhán Ní Bhriain and Siobhan talked to Anne-Marie Svensson, also Anne Marie and AnneMarie. "
           "Her number is (555) 123-4567; mine is +353 87 765 4321; write to ams at uni dot se or "
           "zoe.oconnor @ uni.ie."),
]


def fold(text: str) -> str:
    text = unicodedata.normalize("NFD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).casefold().replace("'", "").replace("’", "")


def leaks(bodies: list[str]) -> dict[str, int]:
    sent = fold("\n".join(str(m.get("content", "")) for b in bodies for m in json.loads(b).get("messages", [])))
    digits = re.sub(r"\D", "", sent)
    found = {}
    for _, name, email in ROSTER:
        for part in re.split(r"[\s\-]+", name):
            if len(part) >= 3:
                n = len(re.findall(rf"(?<!\w){re.escape(fold(part))}(?!\w)", sent))
                if n:
                    found[f"name part {part}"] = n
        for piece in email.split("@"):
            if fold(piece) in sent:
                found[f"e-mail part {piece}"] = sent.count(fold(piece))
    for phone in PHONES:
        n = digits.count(re.sub(r"\D", "", phone)[-7:])
        if n:
            found[f"phone {phone}"] = n
    return found


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
            w.writerow([ext, name, email, 1, f"{text} {FILLER}"])
        conn = db.connect(db_path)
        ingest.import_files(conn, [("r.csv", buf.getvalue().encode())], ingest.Target("Privacy", "Week 1"), actor=Actor("test", role="admin"))
        course_id = conn.execute("SELECT id FROM courses").fetchone()[0]
        assignment_id = conn.execute("SELECT id FROM assignments WHERE week = 1").fetchone()[0]
        let_configuration_run(conn, why="bench.privacy measures masking, not the AI's quality")
        run_id = runs.create(conn, course_id=course_id, assignment_id=assignment_id, provider="openai", actor=Actor("test", role="admin"))
        p = runs.execute(db_path, run_id, actor=Actor("test", role="admin"))
        conn.close()
    found = leaks(server.bodies)
    print(f"{len(REFLECTIONS)} reflections, run {p['status']}, {len(server.bodies)} requests to the model")
    print(f"roster names, phone numbers and e-mail parts found in the requests: {sum(found.values())}")
    for what, n in sorted(found.items()):
        print(f"  {n:3d} x {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
