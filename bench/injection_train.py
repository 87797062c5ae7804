"""Training and honest measurement of the injection classifier (core.injection.classifier).

    python -m bench.injection train      # fit on every source, write data/injection/classifier.*
    python -m bench.injection loso       # leave-one-source-out recall, held-out false positives, time

The texts, by source, are bench/injection_corpus.py's. Each fit is two rounds: the first labels
every passage of a short attack text as an attack; the second keeps, of each such text, only the
passages the first round found most like an instruction (an attack text often opens with a
harmless sentence). The threshold is chosen on real student writing only: the top passage score of
each training essay and demo reflection from a model that did not see it (two folds), and
threshold_for() places it so that at most TARGET_FP of unseen writing would cross it.
"""
from __future__ import annotations

import math
import time

import numpy as np

from bench.injection_corpus import (ATTACK_SOURCES, LANGUAGES, LICENCES, benign_texts, embed,  # noqa: F401
                                    essays, sources, split_of, study_tips)
from core.injection import classifier, features as feats, normalise, patterns

C = 10.0                # inverse regularisation of the logistic regression (rows are l2-normalised)
TARGET_FP = 0.001       # at most this share of unseen student writing over the threshold
MIN_DF = 2              # a feature seen in fewer training passages is left out of the vocabulary
CLASS_WEIGHT = "balanced"  # attacks are few: each weighs as much as the benign passages together
BENIGN_SETS = ("ellipse", "demo")          # real student writing: where the threshold is chosen
_FEATURES: dict[str, frozenset] = {}


def _features(doc: str) -> frozenset:
    f = _FEATURES.get(doc)
    if f is None:
        f = _FEATURES[doc] = frozenset(feats.features(doc))
    return f


def _passages(text: str) -> list[str]:
    return [normalise.for_matching(text[s:e]) for s, e in classifier.passages(text)]


def passage_rows(rows: list[dict], essays_pool: list[dict], first: classifier.Model | None = None,
                 seed: int = 0) -> tuple[list[str], list[int], list[str]]:
    """Training passages. Benign text: all its passages. An attack with a known span: the
    passages overlapping it. A short attack alone: its passages (with a first-round model, only
    those it scores near the text's top), and once inside a random essay. A long attack text:
    the passages no benign text of the same set has."""
    import random

    rng = random.Random(seed)
    docs, labels, where = [], [], []
    benign_passages = {p for r in rows if not r["label"] and len(r["text"]) > 400 for p in _passages(r["text"])}

    def attack_passages(ps: list[str]) -> list[str]:
        if first is None or len(ps) < 2:
            return ps
        scores = [first.score(p) for p in ps]
        top = max(scores)
        return [p for p, s in zip(ps, scores) if s >= top - 0.2]

    for r in rows:
        text, n = r["text"], len(docs)
        if not r["label"]:
            ps = _passages(text)
            docs += ps
            labels += [0] * len(ps)
        elif r["span"]:
            a, b = r["span"]
            ps = [normalise.for_matching(text[s:e]) for s, e in classifier.passages(text) if s < b and e > a]
            ps = attack_passages(ps)
            docs += ps
            labels += [1] * len(ps)
        elif len(text.split()) <= 80:
            ps = attack_passages(_passages(text) or [normalise.for_matching(text)])
            docs += ps
            labels += [1] * len(ps)
            if essays_pool:
                inside, a, b = embed(text, rng.choice(essays_pool)["text"], rng.choice(("start", "middle", "end")))
                ps = [normalise.for_matching(inside[s:e]) for s, e in classifier.passages(inside) if s < b and e > a]
                ps = attack_passages(ps)
                docs += ps
                labels += [1] * len(ps)
        else:
            ps = attack_passages([p for p in _passages(text) if p not in benign_passages])
            docs += ps
            labels += [1] * len(ps)
        where += [r["source"]] * (len(docs) - n)
    return docs, labels, where


def _fit_once(docs: list[str], labels: list[int], where: list[str], threshold: float) -> classifier.Model:
    from scipy.sparse import csr_matrix
    from sklearn.linear_model import LogisticRegression

    keep = [i for i, d in enumerate(docs) if feats.addressed(_features(d))]    # the others score 0
    docs, labels, where = [docs[i] for i in keep], [labels[i] for i in keep], [where[i] for i in keep]
    rows = [_features(d) for d in docs]
    # A word or word pair is kept only if two sources use it: what one source alone says is its
    # wording (a mail's sender, a set's favourite topic), not a sign of an instruction.
    df: dict[str, int] = {}
    seen_in: dict[str, set] = {}
    for r, src in zip(rows, where):
        for f in r:
            df[f] = df.get(f, 0) + 1
            if f[0] in "wbt":
                seen_in.setdefault(f, set()).add(src)
    vocabulary = sorted(f for f, n in df.items() if n >= MIN_DF and (f[0] not in "wbt" or len(seen_in[f]) >= 2))
    index = {f: i for i, f in enumerate(vocabulary)}
    ind, val, ptr = [], [], [0]
    for r in rows:
        cols = [index[f] for f in r if f in index]
        n = classifier.norm(r)
        ind += cols
        val += [classifier.scale_of(vocabulary[c]) / n for c in cols]
        ptr.append(len(ind))
    x = csr_matrix((np.array(val), np.array(ind), np.array(ptr)), shape=(len(rows), len(vocabulary)))
    lr = LogisticRegression(C=C, class_weight=CLASS_WEIGHT, max_iter=3000, solver="liblinear")
    lr.fit(x, labels)
    weights = lr.coef_.ravel().astype(np.float32).astype(np.float64)      # as stored
    keep = np.abs(weights) >= 1e-3
    return classifier.Model(tuple(f for f, k in zip(vocabulary, keep) if k), weights[keep],
                            float(np.float32(lr.intercept_[0])), threshold)


def _fit_rounds(by_source: dict[str, list[dict]], essays_pool: list[dict], threshold: float) -> classifier.Model:
    rows = [{**r, "source": s} for s, rs in by_source.items() for r in rs]
    first = _fit_once(*passage_rows(rows, essays_pool), threshold)
    return _fit_once(*passage_rows(rows, essays_pool, first), threshold)


def top_score(text: str, m: classifier.Model) -> float:
    return max((p for p, _, _ in classifier.scored(text, m)), default=0.0)


def fit(by_source: dict[str, list[dict]], essays_pool: list[dict]) -> tuple[classifier.Model, list[float]]:
    """The model on every given source, with its threshold from out-of-fold student writing;
    and those out-of-fold scores."""
    m = _fit_rounds(by_source, essays_pool, 0.5)
    tops = []
    for half in (0, 1):
        fold = {s: [r for i, r in enumerate(rs) if s not in BENIGN_SETS or i % 2 != half]
                for s, rs in by_source.items()}
        fm = _fit_rounds(fold, [e for i, e in enumerate(essays_pool) if i % 2 != half], 0.5)
        tops += [top_score(r["text"], fm) for s in BENIGN_SETS for i, r in enumerate(by_source.get(s, []))
                 if i % 2 == half]
    return classifier.Model(m.vocabulary, m.weights, m.bias, threshold_for(tops)), tops


def threshold_for(tops: list[float]) -> float:
    """Just above the k-th highest of n out-of-fold scores, k = TARGET_FP x (n + 1) (at least 1):
    a new text like them lands above the k-th highest of n with probability k / (n + 1), so at
    most TARGET_FP of unseen student writing crosses it. (A plain quantile put 4 of 1,295
    held-out essays over it: the tail of 1,400 scores is one or two essays.)"""
    if not tops:
        return 0.5
    k = max(1, int(TARGET_FP * (len(tops) + 1)))
    return max(0.5, min(sorted(tops, reverse=True)[k - 1] + 1e-6, 0.9999))


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
    m, tops = fit(by_source, trained)
    card = {"trained": time.strftime("%Y-%m-%d"), "threshold": m.threshold, "c": C, "min_df": MIN_DF,
            "sources": {s: {"licence": LICENCES[s], "texts": len(rs)} for s, rs in by_source.items()},
            "threshold_from": f"{len(tops)} out-of-fold texts of real student writing ({', '.join(BENIGN_SETS)})",
            "held_out_essays": len(held), "command": "python -m bench.injection train"}
    classifier.HOME.mkdir(parents=True, exist_ok=True)
    m.to_files(classifier.WEIGHTS, classifier.CARD, card)
    return card


def loso(only: tuple[str, ...] | None = None) -> dict:
    """Per attack source: recall with that source left out of training and of the threshold's
    choice (classifier alone and with the patterns); per benign set: false positives; on
    held-out essays the shipped model's false positives with the 95 % Wilson interval and the
    time per essay."""
    trained, held = essays()
    by_source = sources(trained)
    report: dict = {"sources": {}}
    for s in only or (*ATTACK_SOURCES, "notinject"):
        m, _ = fit({k: v for k, v in by_source.items() if k != s}, trained)
        attacks = [r for r in by_source[s] if r["label"]]
        benign = [r for r in by_source[s] if not r["label"]]
        entry: dict = {"threshold": m.threshold}
        if attacks:
            entry["attacks"] = len(attacks)
            entry["recall_classifier"] = sum(flagged(r["text"], m, False) for r in attacks) / len(attacks)
            entry["recall"] = sum(flagged(r["text"], m) for r in attacks) / len(attacks)
            entry["missed"] = [r["text"][:100] for r in attacks if not flagged(r["text"], m)][:8]
        if benign:
            k = [r for r in benign if flagged(r["text"], m)]
            entry.update(benign=len(benign), false_positives=len(k), fp_interval=wilson(len(k), len(benign)),
                         false=[r["text"][:100] for r in k][:5])
        report["sources"][s] = entry
        print(s, {k: v for k, v in entry.items() if k not in ("missed", "false")}, flush=True)
    m = classifier.model()
    fp = [r for r in held if flagged(r["text"], m)]
    from core import injection

    t1 = time.perf_counter()
    for r in held:
        injection._hits.__wrapped__(r["text"])
    full = time.perf_counter() - t1
    t2 = time.perf_counter()
    for r in held:
        classifier.found(r["text"], m)
    alone = time.perf_counter() - t2
    report["held_out"] = {"essays": len(held), "false_positives": len(fp), "fp_interval": wilson(len(fp), len(held)),
                          "examples": [classifier.hit(r["text"]) or patterns.hits(r["text"]) for r in fp[:5]],
                          "ms_per_text_classifier": 1000 * alone / max(1, len(held)),
                          "ms_per_text_hits": 1000 * full / max(1, len(held))}
    report["tips"] = tips_report(m)
    return report


def tips_report(m: classifier.Model | None = None) -> dict:
    """The shipped model on study advice written as imperatives: the `test` half of
    data/corpus/study_tips.txt (never trained on, and not read while the gate was designed) and,
    for comparison, the `dev` half it trained on and the demo's reflections (also trained on);
    the same for the Swedish and Russian reflections and tips (data/corpus/benign_sv.txt, _ru)."""
    from core import demo

    m = m or classifier.model()
    out = {}
    groups = {"test": study_tips("test"), "dev": study_tips("dev"),
              "demo": [r["text"] for lang in ("en", "sv") for r in demo.demo_data(lang)["reflections"]
                       if "pre-approved by the instructor" not in r["text"]]}
    for lang in LANGUAGES:          # Swedish and Russian reflections and tips: the held-out half, the trained half
        groups[f"{lang}_test"], groups[f"{lang}_dev"] = benign_texts(lang, "test"), benign_texts(lang, "dev")
    for name, texts in groups.items():
        k = sum(flagged(t, m) for t in texts)
        out[name] = {"texts": len(texts), "false_positives": k, "fp_interval": wilson(k, len(texts))}
    return out
