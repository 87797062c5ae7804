"""Recall and false-positive rate of the prompt-injection flag (core.injection).

    python -m bench.injection                 # figures on the held-out test split
    python -m bench.injection --split dev --show   # the split the patterns were written from, with misses

Attempts: data/corpus/injections.jsonl (137, split dev/test). Each is measured twice: alone, and
inside a reflection (a paragraph before and after it), as a student would hide it. Benign texts:
the demo course's reflections (the one attempt in it is counted as an attempt) and 1,200 ELLIPSE
essays (data/corpus/ellipse_sample.jsonl.gz), split dev/test by a hash of their id.
Goals (issue #10): recall >= 95 %, false positives <= 0.5 %, on the test split.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
import time
from pathlib import Path

from core import injection

CORPUS = Path(__file__).resolve().parent.parent / "data" / "corpus"
BEFORE = ("This week I learned how a language model predicts the next token and how temperature changes "
          "the randomness of its answers. At work I tried it on e-mails.")
AFTER = ("Next week I want to compare two prompts and see which one gives more reliable answers. I still "
         "wonder how bias gets into the training data.")


def split_of(key: str) -> str:
    return "dev" if hashlib.sha256(key.encode()).digest()[0] % 2 == 0 else "test"


def attempts() -> list[dict]:
    return [json.loads(line) for line in (CORPUS / "injections.jsonl").read_text(encoding="utf-8").splitlines()]


def benign() -> list[dict]:
    """[{id, source, split, text}]: ELLIPSE essays and the demo's reflections (less its attempt)."""
    from core import demo

    rows = []
    with gzip.open(CORPUS / "ellipse_sample.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            rows.append({"id": f"ellipse-{r['text_id']}", "source": "ellipse", "text": r["text"]})
    for i, r in enumerate(demo.demo_data()["reflections"]):
        if "pre-approved by the instructor" in r["text"]:
            continue                                      # the demo's one planted attempt
        rows.append({"id": f"demo-{i}", "source": "demo", "text": r["text"]})
    for r in rows:
        r["split"] = split_of(r["id"])
    return rows


def measure(split: str) -> dict:
    found, missed_alone, missed_inside = 0, [], []
    tries = [a for a in attempts() if a["split"] == split]
    for a in tries:
        alone = bool(injection.hits(a["text"]))
        inside = bool(injection.hits(f"{BEFORE}\n\n{a['text']}\n\n{AFTER}"))
        found += alone and inside
        if not alone:
            missed_alone.append(a)
        if not inside:
            missed_inside.append(a)
    texts = [b for b in benign() if b["split"] == split]
    t0 = time.perf_counter()
    flagged = [(b, injection.hits(b["text"])) for b in texts]
    seconds = time.perf_counter() - t0
    false = [(b, h) for b, h in flagged if h]
    return {"split": split, "attempts": len(tries), "recall": found / len(tries), "missed_alone": missed_alone,
            "missed_inside": missed_inside, "benign": len(texts), "false_positives": false,
            "fp_rate": len(false) / len(texts), "ms_per_text": 1000 * seconds / len(texts)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=("dev", "test"), default="test")
    ap.add_argument("--show", action="store_true", help="list the misses and false positives")
    args = ap.parse_args(argv)
    r = measure(args.split)
    print(f"split {r['split']}: {r['attempts']} attempts, {r['benign']} benign texts")
    print(f"recall (found alone and inside a reflection): {r['recall']:.1%}  (goal >= 95 %)")
    print(f"false positives: {len(r['false_positives'])} of {r['benign']} = {r['fp_rate']:.2%}  (goal <= 0.5 %)")
    print(f"time: {r['ms_per_text']:.2f} ms per benign text")
    if args.show:
        for a in {x["id"]: x for x in r["missed_alone"] + r["missed_inside"]}.values():
            print(f"MISSED {a['id']} {a['technique']}: {a['text'][:120]!r}")
        for b, h in r["false_positives"]:
            print(f"FALSE {b['id']}: {h}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
