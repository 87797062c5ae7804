"""Recall and false-positive rate of the prompt-injection flag (core.injection): the patterns
on the project's own corpus, and the trained classifier measured honestly on public sets.

    python -m bench.injection                 # both reports below (the second needs ../shared)
    python -m bench.injection patterns [--split dev --show]   # the patterns on the project's corpus
    python -m bench.injection loso [--show]   # leave-one-source-out recall, held-out false positives
    python -m bench.injection train           # retrain data/injection/classifier.* (bench/injection_train.py)
    python -m bench.injection time            # ms per essay, patterns and classifier (no ../shared needed)
    python -m bench.injection tips            # study advice written as imperatives: false alarms (no ../shared)

Patterns: attempts in data/corpus/injections.jsonl (137, split dev/test), each measured alone and
inside a reflection (a paragraph before and after it), as a student would hide it. Benign texts:
the demo course's reflections and 1,200 ELLIPSE essays (data/corpus/ellipse_sample.jsonl.gz),
split dev/test by a hash of their id. Goals (issue #10): recall >= 95 %, false positives <= 0.5 %,
on the test split; these are the project's own attempts, so they say little about attacks
nobody here wrote: `loso` does.
Classifier goals: leave-one-source-out recall >= 90 % on every source, false positives <= 0.1 %
on held-out student writing, <= 5 ms per text.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

from bench import injection_train
from bench.injection_corpus import split_of  # noqa: F401  (the split's home; tests name it here)
from core import injection

CORPUS = Path(__file__).resolve().parent.parent / "data" / "corpus"
BEFORE = ("This week I learned how a language model predicts the next token and how temperature changes "
          "the randomness of its answers. At work I tried it on e-mails.")
AFTER = ("Next week I want to compare two prompts and see which one gives more reliable answers. I still "
         "wonder how bias gets into the training data.")


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


def report_patterns(split: str, show: bool) -> None:
    r = measure(split)
    print(f"PATTERNS, split {r['split']}: {r['attempts']} attempts, {r['benign']} benign texts")
    print(f"recall (found alone and inside a reflection): {r['recall']:.1%}  (goal >= 95 %)")
    print(f"false positives: {len(r['false_positives'])} of {r['benign']} = {r['fp_rate']:.2%}  (goal <= 0.5 %)")
    print(f"time: {r['ms_per_text']:.2f} ms per benign text")
    if show:
        for a in {x["id"]: x for x in r["missed_alone"] + r["missed_inside"]}.values():
            print(f"MISSED {a['id']} {a['technique']}: {a['text'][:120]!r}")
        for b, h in r["false_positives"]:
            print(f"FALSE {b['id']}: {h}")


def report_loso(show: bool = False) -> None:
    r = injection_train.loso()
    print("CLASSIFIER, each source left out of training and of the threshold's choice")
    for name, e in r["sources"].items():
        line = f"  {name:10}"
        if "attacks" in e:
            line += (f" recall {e['recall']:.1%} of {e['attacks']} attacks (classifier alone "
                     f"{e['recall_classifier']:.1%})")
        if "benign" in e:
            lo, hi = e["fp_interval"]
            line += f"  false positives {e['false_positives']} of {e['benign']} benign (95 % CI {lo:.1%}-{hi:.1%})"
        print(line + f"  threshold {e['threshold']:.3f}" + ("  (goal >= 90 %)" if "attacks" in e else ""))
        if show:
            for x in e.get("missed", []):
                print(f"    MISSED {x!r}")
            for x in e.get("false", []):
                print(f"    FALSE {x!r}")
    h = r["held_out"]
    lo, hi = h["fp_interval"]
    print(f"held-out ELLIPSE essays (never trained on): {h['false_positives']} of {h['essays']} flagged = "
          f"{h['false_positives'] / max(1, h['essays']):.2%} (95 % CI {lo:.2%}-{hi:.2%}; goal <= 0.1 %)")
    for x in h["examples"]:
        print(f"    FALSE {x}")
    report_tips(r["tips"])
    print(f"time: {h['ms_per_text_hits']:.2f} ms per essay for core.injection.hits (patterns and classifier; "
          f"goal <= 5 ms), of which the classifier {h['ms_per_text_classifier']:.2f} ms")


def report_tips(t: dict) -> None:
    labels = [("test", "study tips, test half (never trained on)"), ("dev", "study tips, dev half (trained on)"),
              ("demo", "demo reflections, English and Swedish (trained on)")]
    for lang, name in (("sv", "Swedish"), ("ru", "Russian")):
        labels += [(f"{lang}_test", f"{name} reflections and tips, test half (never trained on)"),
                   (f"{lang}_dev", f"{name} reflections and tips, dev half (trained on)")]
    for name, label in labels:
        if name not in t:
            continue
        e = t[name]
        lo, hi = e["fp_interval"]
        share = e["false_positives"] / max(1, e["texts"])
        print(f"{label}: {e['false_positives']} of {e['texts']} flagged = {share:.1%} "
              f"(95 % CI {lo:.1%}-{hi:.1%})")


def report_time(rounds: int = 5) -> None:
    """ms per text of core.injection.hits (uncached) on the shipped essays, each round over all
    of them, and on Swedish and Russian reflections made of data/corpus/benign_*.txt: the median
    and the fastest round (the machine is shared: the fastest is the least disturbed)."""
    from core.injection import classifier, patterns

    import random

    from bench.injection_corpus import LANGUAGES, benign_texts

    texts = [b["text"] for b in benign() if b["source"] == "ellipse"]
    # Swedish and Russian reflections: 400 of eight benign texts each (both halves), about as long as
    # the demo's reflections (more than the 256 the patterns' cache keeps, as for the essays).
    rng = random.Random(30)
    pools = [benign_texts(lang, "dev") + benign_texts(lang, "test") for lang in LANGUAGES]
    other = [" ".join(rng.sample(pools[i % len(pools)], 8)) for i in range(400)]
    for what, items in (("essay", texts), ("Swedish or Russian reflection", other)):
        for name, fn in (("core.injection.hits", injection._hits.__wrapped__),
                         ("patterns", patterns._hits.__wrapped__), ("classifier", classifier.found)):
            runs = []
            for _ in range(rounds):
                t0 = time.perf_counter()
                for t in items:
                    fn(t)
                runs.append(1000 * (time.perf_counter() - t0) / len(items))
            runs.sort()
            print(f"{name}: {runs[len(runs) // 2]:.2f} ms per {what} (median of {rounds} rounds over {len(items)} "
                  f"texts; fastest {runs[0]:.2f} ms)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", nargs="?", choices=("all", "patterns", "loso", "train", "time", "tips"), default="all")
    ap.add_argument("--split", choices=("dev", "test"), default="test")
    ap.add_argument("--show", action="store_true", help="list the misses and false positives")
    args = ap.parse_args(argv)
    if args.command == "train":
        card = injection_train.train()
        print(f"wrote data/injection/classifier.npz and .json (threshold {card['threshold']:.3f})")
        return 0
    if args.command == "time":
        report_time()
        return 0
    if args.command == "tips":
        report_tips(injection_train.tips_report())
        return 0
    if args.command in ("all", "patterns"):
        report_patterns(args.split, args.show)
    if args.command in ("all", "loso"):
        report_loso(args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
