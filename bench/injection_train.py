"""Training and honest measurement of the injection classifier (core.injection.classifier).

    python -m bench.injection train      # fit on every source, write data/injection/classifier.*
    python -m bench.injection loso       # leave-one-source-out recall, held-out false positives, time

Sources (each source's licence goes into data/injection/classifier.json):
  deepset      deepset/prompt-injections (attacks and benign requests; English and German)
  notinject    NotInject: benign requests full of trigger words (hard negatives)
  bipia        BIPIA: attack instructions alone and inserted into e-mails and tables
  fairmark     data/corpus/injections.jsonl, the `dev` half only (its `test` half stays held out
               for the patterns' benchmark)
  embedded     data/corpus/grader_requests.txt inserted into ELLIPSE essays at the start, the
               middle or the end, as a student would hide them
  ellipse      real essays, benign: the shipped sample's `dev` half and half of the rest of the
               corpus (by a hash of the id); the other halves are never trained on
  demo         the demo course's reflections (AI literacy: they talk about prompts), benign
The public sets are read from ../shared/datasets/ (not shipped); without it only `train` fails.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import math
import random
import time
from pathlib import Path

import numpy as np

from core.injection import classifier, patterns

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "datasets"
CORPUS = ROOT / "data" / "corpus"
LICENCES = {
    "deepset": "Apache-2.0 (deepset/prompt-injections, train split)",
    "notinject": "MIT (leolee99/NotInject)",
    "bipia": "CC BY-SA 4.0 treated as such (microsoft/BIPIA @ 1a2a91d; repository MIT)",
    "fairmark": "written for FairMark (data/corpus/injections.jsonl, dev half)",
    "embedded": "written for FairMark (data/corpus/grader_requests.txt) inside ELLIPSE essays (CC BY-NC-SA 4.0)",
    "ellipse": "CC BY-NC-SA 4.0 (ELLIPSE corpus, Crossley et al. 2023)",
    "demo": "written for FairMark (data/demo)",
}
ATTACK_SOURCES = ("deepset", "bipia", "fairmark", "embedded")
C = 4.0                 # inverse regularisation of the logistic regression
TARGET_FP = 0.001       # the threshold: at most this share of training essays over it (out of fold)


def split_of(key: str) -> str:
    """The shipped sample's dev/test split (by a hash of the id): the patterns were written from
    `dev`, the classifier trains on `dev`; `test` is held out."""
    return "dev" if hashlib.sha256(key.encode()).digest()[0] % 2 == 0 else "test"


def _hash_half(key: str) -> int:
    return hashlib.sha256(key.encode()).digest()[0] % 2


def _csv(name: str):
    import pandas as pd

    return pd.read_csv(SHARED / "injection" / name, keep_default_na=False)


def essays() -> tuple[list[dict], list[dict]]:
    """(trained, held out) real ELLIPSE essays: [{id, text}]."""
    shipped = {}
    with gzip.open(CORPUS / "ellipse_sample.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            shipped[str(r["text_id"])] = r["text"]
    train = [{"id": k, "text": t} for k, t in shipped.items() if split_of(f"ellipse-{k}") == "dev"]
    held = [{"id": k, "text": t} for k, t in shipped.items() if split_of(f"ellipse-{k}") == "test"]
    if (SHARED / "ellipse").exists():
        import pandas as pd

        df = pd.read_csv(SHARED / "ellipse" / "ELLIPSE_Final_github_test.csv", keep_default_na=False)
        for k, t in zip(df["text_id_kaggle"].astype(str), df["full_text"]):
            if k not in shipped:
                (train if _hash_half(k) == 0 else held).append({"id": k, "text": t})
    return train, held


def grader_requests() -> list[str]:
    return [x.strip() for x in (CORPUS / "grader_requests.txt").read_text(encoding="utf-8").splitlines() if x.strip()]


def embed(instruction: str, essay: str, where: str) -> tuple[str, int, int]:
    """The essay with the instruction inserted at the start, the middle (between two
    sentences) or the end; and the instruction's span."""
    if where == "start":
        return f"{instruction} {essay}", 0, len(instruction)
    if where == "end":
        return f"{essay}\n{instruction}", len(essay) + 1, len(essay) + 1 + len(instruction)
    spans = classifier.sentences(essay)
    cut = spans[len(spans) // 2][0] if len(spans) > 1 else len(essay)
    text = f"{essay[:cut]}{instruction} {essay[cut:]}"
    return text, cut, cut + len(instruction)


def sources(trained_essays: list[dict]) -> dict[str, list[dict]]:
    """{source: [{text, label (1 attack, 0 benign), span (of the attack, or None)}]}."""
    from core import demo

    rng = random.Random(24)
    out: dict[str, list[dict]] = {s: [] for s in LICENCES}
    d = _csv("pi_deepset.csv.gz")
    out["deepset"] = [{"text": t, "label": int(lab == "attack"), "span": None} for t, lab in zip(d["text"], d["label"])]
    out["notinject"] = [{"text": t, "label": 0, "span": None} for t in _csv("pi_notinject.csv.gz")["text"]]
    b = _csv("pi_bipia_indirect.csv.gz")
    out["bipia"] = [{"text": t, "label": int(lab == "attack"), "span": None} for t, lab in zip(b["text"], b["label"])]
    out["bipia"] += [{"text": t, "label": 1, "span": None} for t in _csv("pi_bipia_attack_instructions.csv.gz")["text"]]
    attempts = [json.loads(x) for x in (CORPUS / "injections.jsonl").read_text(encoding="utf-8").splitlines()]
    out["fairmark"] = [{"text": a["text"], "label": 1, "span": None} for a in attempts if a["split"] == "dev"]
    for i, req in enumerate(grader_requests()):
        for where in ("start", "middle", "end"):
            text, s, e = embed(req, rng.choice(trained_essays)["text"], where)
            out["embedded"].append({"text": text, "label": 1, "span": (s, e)})
    out["ellipse"] = [{"text": r["text"], "label": 0, "span": None} for r in trained_essays]
    out["demo"] = [{"text": r["text"], "label": 0, "span": None} for r in demo.demo_data()["reflections"]
                   if "pre-approved by the instructor" not in r["text"]]
    return out


def passage_rows(rows: list[dict], essays_pool: list[dict], seed: int = 0) -> tuple[list[str], list[int]]:
    """Training passages. Benign text: all its passages. An attack with a known span: the
    passages overlapping it. A short attack alone: itself, its passages, and once inside a
    random essay. A long attack text: the passages a benign text of the same set lacks."""
    rng = random.Random(seed)
    docs, labels = [], []
    benign_passages = {patterns.for_matching(r["text"][s:e]) for r in rows if not r["label"]
                       for s, e in classifier.passages(r["text"])}

    def add(text: str, label: int) -> None:
        docs.append(patterns.for_matching(text))
        labels.append(label)

    for r in rows:
        text, spans = r["text"], classifier.passages(r["text"])
        if not r["label"]:
            add(text, 0)
            for s, e in spans:
                add(text[s:e], 0)
        elif r["span"]:
            a, b = r["span"]
            for s, e in spans:
                if s < b and e > a:
                    add(text[s:e], 1)
        elif len(text.split()) <= 80:
            add(text, 1)
            for s, e in spans:
                add(text[s:e], 1)
            if essays_pool:
                inside, a, b = embed(text, rng.choice(essays_pool)["text"], rng.choice(("start", "middle", "end")))
                for s, e in classifier.passages(inside):
                    if s < b and e > a:
                        add(inside[s:e], 1)
        else:
            for s, e in spans:
                p = patterns.for_matching(text[s:e])
                if p not in benign_passages:
                    add(text[s:e], 1)
    return docs, labels


def fit(by_source: dict[str, list[dict]], essays_pool: list[dict], threshold: float | None = None) -> classifier.Model:
    from sklearn.linear_model import LogisticRegression

    rows = [r for rs in by_source.values() for r in rs]
    docs, labels = passage_rows(rows, essays_pool)
    x = classifier.features(docs)
    lr = LogisticRegression(C=C, class_weight="balanced", max_iter=2000, solver="liblinear")
    lr.fit(x, labels)
    weights = lr.coef_.ravel().astype(np.float32).astype(np.float64)      # as stored
    m = classifier.Model(weights, float(lr.intercept_[0]), 0.5)
    if threshold is not None:
        return classifier.Model(weights, m.bias, threshold)
    # Threshold: the essays' scores are in-sample and too low; the benign essays' top passage
    # scores from a model that did not see them set it (two folds), so that about TARGET_FP of
    # unseen essays would cross it.
    bench_essays = by_source.get("ellipse") or []
    tops = []
    for half in (0, 1):
        fold = {s: [r for i, r in enumerate(rs) if s != "ellipse" or i % 2 != half] for s, rs in by_source.items()}
        fdocs, flabels = passage_rows([r for rs in fold.values() for r in rs], essays_pool)
        f = LogisticRegression(C=C, class_weight="balanced", max_iter=2000, solver="liblinear")
        f.fit(classifier.features(fdocs), flabels)
        fm = classifier.Model(f.coef_.ravel(), float(f.intercept_[0]), 0.5)
        tops += [max((p for p, _, _ in classifier.scored(r["text"], fm)), default=0.0)
                 for i, r in enumerate(bench_essays) if i % 2 == half]
    threshold = float(np.quantile(tops, 1 - TARGET_FP)) if tops else 0.5
    return classifier.Model(weights, m.bias, max(0.5, min(threshold, 0.99)))


def flagged(text: str, m: classifier.Model, with_patterns: bool = True) -> bool:
    return bool(classifier.found(text, m)) or (with_patterns and bool(patterns.hits(text)))


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre, half = (p + z * z / (2 * n)) / (1 + z * z / n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def train() -> dict:
    trained, held = essays()
    by_source = sources(trained)
    m = fit(by_source, trained)
    card = {"trained": time.strftime("%Y-%m-%d"), "threshold": m.threshold, "c": C,
            "sources": {s: {"licence": LICENCES[s], "texts": len(rs)} for s, rs in by_source.items()},
            "held_out_essays": len(held), "command": "python -m bench.injection train"}
    classifier.HOME.mkdir(parents=True, exist_ok=True)
    m.to_files(classifier.WEIGHTS, classifier.CARD, card)
    return card


def loso() -> dict:
    """Per attack source: recall with that source left out of training (classifier alone and
    with the patterns); per benign set: false positives on held-out texts, with the 95 % Wilson
    interval; time per held-out essay."""
    trained, held = essays()
    by_source = sources(trained)
    report: dict = {"sources": {}}
    threshold = classifier.model().threshold
    for s in (*ATTACK_SOURCES, "notinject"):
        rest = {k: v for k, v in by_source.items() if k != s}
        m = fit(rest, trained, threshold)   # the threshold is set on essays only: the shipped one
        attacks = [r for r in by_source[s] if r["label"]]
        benign = [r for r in by_source[s] if not r["label"]]
        entry = {"threshold": m.threshold}
        if attacks:
            entry["attacks"] = len(attacks)
            entry["recall_classifier"] = sum(flagged(r["text"], m, False) for r in attacks) / len(attacks)
            entry["recall"] = sum(flagged(r["text"], m) for r in attacks) / len(attacks)
        if benign:
            k = sum(flagged(r["text"], m) for r in benign)
            entry.update(benign=len(benign), false_positives=k, fp_interval=wilson(k, len(benign)))
        report["sources"][s] = entry
    m = classifier.model()
    t0 = time.perf_counter()
    fp = [r for r in held if flagged(r["text"], m)]
    seconds = time.perf_counter() - t0
    from core import injection

    t1 = time.perf_counter()
    for r in held:
        injection._hits.__wrapped__(r["text"])
    full = time.perf_counter() - t1
    report["held_out"] = {"essays": len(held), "false_positives": len(fp), "fp_interval": wilson(len(fp), len(held)),
                          "examples": [classifier.hit(r["text"]) or patterns.hits(r["text"]) for r in fp[:5]],
                          "ms_per_text_classifier_and_patterns": 1000 * seconds / max(1, len(held)),
                          "ms_per_text_hits": 1000 * full / max(1, len(held))}
    return report
