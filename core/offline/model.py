"""The learned offline scorer: per criterion a linear model of readable text features, trained
on the teacher's scores, with its predictions mapped to the rubric's levels.

    features   core.offline.features.dense (named: length, lexical variety, spelling errors, ...)
               + three n-gram blocks, TF-IDF reduced to 30 directions each (LSA) on the
               assignment's own submissions (no scores needed): word choice (word 1-2 grams),
               spelling and word forms (character 2-4 grams), sentence patterns (function-word
               2-4 grams)
    model      scikit-learn ridge regression per criterion, its penalty chosen by leave-one-out;
               blended half and half with a ridge on the mean of all criteria (the teacher's
               scores of one text move together, and the mean is less noisy than one score)
    winner     per criterion the learned model, word count alone or a blend of the two, whichever
               agreed best with the teacher in cross-validation (core.offline.levels.choose)
    levels     the cut points put the assignment's predicted scores in the same proportions
               as the teacher's scores (a half point counts half to each level), so the
               predicted distribution matches the teacher's and the mean bias is about 0
    why        the model is linear, so each feature's push on a score is coef x (value - mean):
               the three largest pushes, in plain words, explain the score

`train(...)` returns the model and its leave-one-out predictions (RidgeCV's exact LOO, so
scikit-learn >= 1.5 for `store_cv_results`); `FORMAT` names the features a stored model's
columns mean; `Model.to_bytes` / `from_bytes` store it as numbers and words only (numpy .npz without pickles: a stored or
restored database can never run code). Training on a few hundred scores and 2,000 texts takes
seconds (bench/offline.py).
"""
from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass, field

import numpy as np

from core.language.interface import N_
from core.offline import features, levels
from core.offline.levels import cut_points, target_shares, word_count_levels  # noqa: F401  (their home before)

ALPHAS = np.logspace(-1, 3.5, 12)
MEAN_BLEND = 0.5          # weight of the all-criteria model in each criterion's prediction
SVD_DIMS = 30
BLOCK_WEIGHT = 0.5        # an n-gram direction counts this much against one named feature
MIN_POOL_FOR_NGRAMS = 20  # fewer texts than this: named features only
FIT_SAMPLE = 600          # the n-gram vocabulary and directions are learned from at most this many texts
BLOCKS = {
    "word_choice": dict(label=N_("word choice (word n-grams)"), analyzer="word", ngram_range=(1, 2), min_df=2,
                        max_features=20000, token_pattern=r"(?u)\b\w\w+\b"),
    "word_forms": dict(label=N_("spelling and word forms (character n-grams)"), analyzer="char_wb",
                       ngram_range=(2, 4), min_df=2, max_features=20000),
    "sentence_patterns": dict(label=N_("sentence patterns (function-word n-grams)"), analyzer="word",
                              ngram_range=(2, 4), min_df=2, max_features=8000, token_pattern=r"\S+",
                              lowercase=False),
}


@dataclass
class Block:
    """One n-gram block: its TF-IDF vocabulary and weights, and the LSA directions."""
    name: str
    terms: np.ndarray
    idf: np.ndarray
    components: np.ndarray      # (dims, terms)
    mean: np.ndarray            # of the directions on the pool, to standardise them
    scale: np.ndarray
    _vectorizer: object = field(default=None, repr=False)

    def vectorizer(self):
        if self._vectorizer is None:
            from sklearn.feature_extraction.text import TfidfVectorizer

            spec = {k: v for k, v in BLOCKS[self.name].items() if k not in ("label", "min_df", "max_features")}
            vec = TfidfVectorizer(sublinear_tf=True, vocabulary=list(self.terms), **spec)
            vec.idf_ = self.idf
            self._vectorizer = vec
        return self._vectorizer

    def directions(self, docs: list[str]) -> np.ndarray:
        z = self.vectorizer().transform(docs) @ self.components.T
        return (np.asarray(z) - self.mean) / self.scale * BLOCK_WEIGHT


def _block_docs(name: str, texts: list[str]) -> list[str]:
    return [features.function_words(t) for t in texts] if name == "sentence_patterns" else list(texts)


@dataclass
class Model:
    """A trained scorer for one rubric's criteria."""
    lo: int
    hi: int
    dense_mean: np.ndarray
    dense_scale: np.ndarray
    blocks: list[Block]
    x_mean: np.ndarray                       # mean of the training rows (explanations are relative to it)
    coef: dict[str, np.ndarray]              # criterion -> weights over the columns
    intercept: dict[str, float]
    cuts: dict[str, np.ndarray]              # criterion -> hi - lo cut points on the raw prediction
    blend: dict[str, float] = field(default_factory=dict)   # criterion -> the learned model's share (levels.choose)
    _rows: dict = field(default_factory=dict, repr=False)   # text hash -> feature row (this process)

    @property
    def columns(self) -> list[str]:
        return [*features.NAMES, *(b.name for b in self.blocks for _ in range(b.components.shape[0]))]

    def rows(self, texts: list[str], prompts: list[str], concepts: list[list[str]]) -> np.ndarray:
        """The feature matrix of texts (each with its own assignment's prompt and key concepts)."""
        keys = [_key(t, p, c) for t, p, c in zip(texts, prompts, concepts)]
        todo = [i for i, k in enumerate(keys) if k not in self._rows]
        if todo:
            d = np.array([_named(features.dense(texts[i], prompts[i], concepts[i])) for i in todo])
            parts = [(d - self.dense_mean) / self.dense_scale]
            parts += [b.directions(_block_docs(b.name, [texts[i] for i in todo])) for b in self.blocks]
            x = np.hstack(parts)
            for i, row in zip(todo, x):
                self._rows[keys[i]] = row
        return np.array([self._rows[k] for k in keys])

    def method(self, key: str) -> str:
        """What scores the criterion: "learned", "blend" (with word count) or "word_count"."""
        w = self.blend.get(key, 1.0)
        return "learned" if w == 1.0 else "word_count" if w == 0.0 else "blend"

    def raw(self, x: np.ndarray) -> dict[str, np.ndarray]:
        return {k: x @ self.coef[k] + self.intercept[k] for k in self.coef}

    def level(self, key: str, raw: np.ndarray) -> np.ndarray:
        return self.lo + np.searchsorted(self.cuts[key], raw, side="right")

    def score(self, text: str, prompt: str = "", key_concepts: list[str] | tuple = ()) -> dict[str, dict]:
        """{criterion: {score, raw, pushes [(feature label, push in score points)], largest first}}."""
        x = self.rows([text], [prompt], [list(key_concepts)])[0]
        out = {}
        for key, coef in self.coef.items():
            raw = float(x @ coef + self.intercept[key])
            out[key] = {"score": int(self.level(key, np.array([raw]))[0]), "raw": raw, "pushes": self.pushes(key, x)}
        return out

    def pushes(self, key: str, x: np.ndarray, top: int = 3) -> list[tuple[str, float]]:
        """The `top` features that moved this text's score most from the training average."""
        contrib = self.coef[key] * (x - self.x_mean)
        named: dict[str, float] = {}
        for col, c in zip(self.columns, contrib):
            named[col] = named.get(col, 0.0) + float(c)
        ranked = sorted(named.items(), key=lambda kv: -abs(kv[1]))[:top]
        return [(label_of(col), round(v, 2)) for col, v in ranked]

    # --- storage: numbers and words only --------------------------------------------------
    def to_bytes(self) -> bytes:
        arrays = {"dense_mean": self.dense_mean, "dense_scale": self.dense_scale, "x_mean": self.x_mean}
        for b in self.blocks:
            arrays.update({f"block.{b.name}.{f}": getattr(b, f) for f in ("terms", "idf", "components", "mean",
                                                                          "scale")})
        for k in self.coef:
            arrays.update({f"coef.{k}": self.coef[k], f"cuts.{k}": self.cuts[k]})
        meta = {"lo": self.lo, "hi": self.hi, "blocks": [b.name for b in self.blocks],
                "criteria": list(self.coef), "intercept": self.intercept, "blend": self.blend}
        arrays["meta"] = np.array(json.dumps(meta))
        buf = io.BytesIO()
        np.savez_compressed(buf, **arrays)
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, blob: bytes) -> "Model":
        with np.load(io.BytesIO(blob), allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            blocks = [Block(n, *(z[f"block.{n}.{f}"] for f in ("terms", "idf", "components", "mean", "scale")))
                      for n in meta["blocks"]]
            return cls(lo=meta["lo"], hi=meta["hi"], dense_mean=z["dense_mean"], dense_scale=z["dense_scale"],
                       blocks=blocks, x_mean=z["x_mean"], coef={k: z[f"coef.{k}"] for k in meta["criteria"]},
                       intercept={k: float(v) for k, v in meta["intercept"].items()},
                       cuts={k: z[f"cuts.{k}"] for k in meta["criteria"]}, blend=meta.get("blend", {}))


def _named(values: dict) -> list[float]:
    return [values[name] for name in features.NAMES]


# What a stored model's columns mean: a change of the features or blocks changes this, and the
# scorer retrains instead of reading old numbers with new meanings (core.offline.scorer).
FORMAT = hashlib.sha256(json.dumps([features.NAMES, {k: {a: str(b) for a, b in v.items()} for k, v in BLOCKS.items()},
                                    SVD_DIMS, BLOCK_WEIGHT, MEAN_BLEND, "winner", levels.WEIGHTS]).encode()).hexdigest()[:12]


def label_of(column: str) -> str:
    return features.LABELS.get(column) or BLOCKS[column]["label"]


def _key(text: str, prompt: str, concepts) -> str:
    return hashlib.sha1(json.dumps([text, prompt, list(concepts)]).encode()).hexdigest()


# --- training ---------------------------------------------------------------------------------
@dataclass
class Trained:
    model: Model
    loo_levels: dict[str, np.ndarray]        # criterion -> leave-one-out levels of its training texts
    loo_raw: dict[str, np.ndarray]
    choices: dict[str, levels.Choice] = field(default_factory=dict)   # criterion -> learned, blend or word count


def _ridge(x: np.ndarray, y: np.ndarray):
    """Ridge with the penalty chosen by (exact, fast) leave-one-out; returns (model, LOO predictions)."""
    from sklearn.linear_model import RidgeCV

    m = RidgeCV(alphas=ALPHAS, scoring="neg_mean_squared_error", store_cv_results=True).fit(x, y)
    return m, m.cv_results_[:, list(m.alphas).index(m.alpha_)]


def _fit_block(name: str, pool_docs: list[str]) -> Block | None:
    """The block's vocabulary, weights and LSA directions, from an evenly spaced sample of at
    most FIT_SAMPLE texts (more texts sharpen them little and cost seconds)."""
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    if len(pool_docs) > FIT_SAMPLE:
        pool_docs = [pool_docs[i] for i in np.linspace(0, len(pool_docs) - 1, FIT_SAMPLE).astype(int)]
    spec = {k: v for k, v in BLOCKS[name].items() if k != "label"}
    vec = TfidfVectorizer(sublinear_tf=True, dtype=np.float32, **spec)
    try:
        tf = vec.fit_transform(pool_docs)
    except ValueError:       # no term in at least min_df texts
        return None
    dims = min(SVD_DIMS, tf.shape[1] - 1, tf.shape[0] - 1)
    if dims < 2:
        return None
    svd = TruncatedSVD(dims, random_state=0, algorithm="randomized", n_iter=3).fit(tf)
    z = tf @ svd.components_.T
    scale = z.std(axis=0)
    block = Block(name, np.asarray(vec.get_feature_names_out(), dtype=str), vec.idf_.astype(np.float64),
                  svd.components_.astype(np.float32), z.mean(axis=0), np.where(scale > 1e-9, scale, 1.0))
    block._vectorizer = None
    return block


def train(texts: list[str], prompts: list[str], concepts: list[list[str]], labels: dict[str, list[float | None]],
          *, pool: tuple[list[str], list[str], list[list[str]]], lo: int, hi: int) -> Trained:
    """Fit the scorer on scored texts (`labels`: criterion -> one score per text, None where that
    criterion was not scored) and map it to levels on the `pool` (the assignment's submissions,
    scored or not: texts, prompts, key concepts). The n-gram directions are learned from the
    pool and the scored texts together (no scores needed for that)."""
    pool_texts, pool_prompts, pool_concepts = pool
    all_texts = [*texts, *pool_texts]
    dense_rows = np.array([_named(features.dense(t, p, c)) for t, p, c in
                           zip(all_texts, [*prompts, *pool_prompts], [*concepts, *pool_concepts])])
    mean, scale = dense_rows.mean(axis=0), dense_rows.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    blocks = []
    unique_texts = list(dict.fromkeys(all_texts))
    if len(unique_texts) >= MIN_POOL_FOR_NGRAMS:
        for name in BLOCKS:
            block = _fit_block(name, _block_docs(name, unique_texts))
            if block is not None:
                blocks.append(block)
    model = Model(lo, hi, mean, scale, blocks, np.zeros(0), {}, {}, {}, {})
    # The dense rows are computed once: seed the row cache, then transform everything.
    d = (dense_rows - mean) / scale
    x_all = np.hstack([d, *(b.directions(_block_docs(b.name, all_texts)) for b in blocks)])
    for t, p, c, row in zip(all_texts, [*prompts, *pool_prompts], [*concepts, *pool_concepts], x_all):
        model._rows[_key(t, p, c)] = row
    x, x_pool = x_all[:len(texts)], x_all[len(texts):]
    model.x_mean = x.mean(axis=0)

    y = {k: np.array([np.nan if v is None else float(v) for v in vals]) for k, vals in labels.items()}
    stacked = np.vstack(list(y.values()))
    has_any = ~np.all(np.isnan(stacked), axis=0)
    mean_fit = _ridge(x[has_any], np.nanmean(stacked[:, has_any], axis=0)) if has_any.sum() >= 3 else None
    loo_levels, loo_raw, choices = {}, {}, {}
    for key, yk in y.items():
        rows = ~np.isnan(yk)
        m, loo = _ridge(x[rows], yk[rows])
        coef, intercept = m.coef_.astype(np.float64), float(m.intercept_)
        if mean_fit is not None:
            mm, mloo = mean_fit
            coef = (1 - MEAN_BLEND) * coef + MEAN_BLEND * mm.coef_
            intercept = (1 - MEAN_BLEND) * intercept + MEAN_BLEND * float(mm.intercept_)
            loo = (1 - MEAN_BLEND) * loo + MEAN_BLEND * mloo[rows[has_any]]
        model.coef[key], model.intercept[key] = coef, intercept
        pool_raw = np.concatenate([x_pool @ coef + intercept, x[rows] @ coef + intercept])
        model.cuts[key] = cut_points(pool_raw, yk[rows], lo, hi)
        full = np.full(len(texts), np.nan)
        full[rows] = loo
        loo_raw[key] = full
        loo_levels[key] = np.where(rows, model.level(key, np.nan_to_num(full)), -1)
        choices[key] = _use_the_winner(model, key, x[rows], x_pool, yk[rows], loo, pool_raw)
    return Trained(model, loo_levels, loo_raw, choices)


def _use_the_winner(model: Model, key: str, x: np.ndarray, x_pool: np.ndarray, y: np.ndarray, loo: np.ndarray,
                    learned_all: np.ndarray) -> levels.Choice:
    """Replace the criterion's learned model by the blend with word count that agreed best with
    the teacher in cross-validation (core.offline.levels.choose). Word count is a line on the
    length column fitted to the scores (longer never scores lower), so every blend is still a
    linear model of the same columns: stored, scored and explained the same way."""
    col = features.NAMES.index("length")
    z, z_all = x[:, col], np.concatenate([x_pool[:, col], x[:, col]])
    slope = max(float(np.cov(z, y)[0, 1] / z.var(ddof=1)) if len(y) > 2 and z.var() > 0 else 0.0, 1e-6)
    base = float(y.mean() - slope * z.mean())
    choice = levels.choose(loo, learned_all, base + slope * z, base + slope * z_all, y, model.lo, model.hi)
    w = choice.weight
    length = np.zeros_like(model.coef[key])
    length[col] = slope
    model.coef[key] = w * model.coef[key] + (1 - w) * length
    model.intercept[key] = w * model.intercept[key] + (1 - w) * base
    model.cuts[key] = cut_points(w * learned_all + (1 - w) * (base + slope * z_all), y, model.lo, model.hi)
    model.blend[key] = w
    return choice
