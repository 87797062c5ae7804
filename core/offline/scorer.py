"""The assignment's offline scorer: what it learns from, when it is (re)trained, what it is.

The rules:
- It learns from the teacher's scores of this assignment (db/offline_models.py has the SQL):
  blind calibration scores and uploads declared as calibration; the scores of items a teacher
  approved or edited one by one only when the teacher allows (`Options.use_edits`: they were
  given after seeing the AI's draft); never bulk approvals, never expert reference scores
  (those measure agreement). With `Options.pool`, the assignments of the course on the same
  rubric version pool their scores (16 calibration scores a week add up over a term).
- Per criterion: with at least `Options.min_per_criterion` scores, the learned model
  (core.offline.model); with fewer, the heuristic spread over the levels like the scores that
  exist ("calibrated"); with none, the plain heuristic. Each is labelled so on the item.
- Trained when the scores or options changed since the stored version (`current`): a new
  version is stored with the scores it was trained on, the options, the cross-validated
  agreement beside word count (core.offline.crossval) and the model. The same data gives the
  stored version back; a running process keeps the loaded scorer until the data change.
"""
from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field

import numpy as np

from core.accounts import access
from core import text as text_mod
from core.accounts.access import Actor
from core.errors import ConfigError
from core.language.interface import Message
from core.language import course as course_language
from core.language.interface import N_
from core.offline import crossval, heuristics
from core.offline import model as learned
from db import courses, file_of, loads, now
from db import offline_models as store

DEFAULT_MIN = 20
JUDGE = "offline scorer (learned)"
CALIBRATION_PRIOR = 0.5     # a few scores spread the heuristic, but no level is closed off by them
KINDS = {"learned": N_("learned from the teacher's scores"), "calibrated": N_("heuristic, calibrated on a few scores"),
         "heuristic": N_("heuristic (no teacher scores yet)")}   # a page shows them with t


@dataclass(frozen=True)
class Options:
    """The teacher's choices for one assignment's offline scorer."""
    min_per_criterion: int = DEFAULT_MIN
    use_edits: bool = False
    pool: bool = False

    def checked(self) -> "Options":
        if isinstance(self.min_per_criterion, bool) or not isinstance(self.min_per_criterion, int) \
                or not 5 <= self.min_per_criterion <= 1000:
            raise ConfigError(Message("min_per_criterion must be a whole number from 5 to 1000, not {value!r}",
                                      value=self.min_per_criterion))
        return self


@dataclass
class Scorer:
    """What the offline Evaluator and the free judge use for one assignment."""
    assignment_id: int
    version: int | None = None
    model: learned.Model | None = None
    scores: dict[str, int] = field(default_factory=dict)          # criterion -> teacher scores learned from
    calibration: dict[str, dict] = field(default_factory=dict)    # criterion -> {cuts, scores}
    agreement: dict[str, dict] = field(default_factory=dict)      # criterion -> crossval.criterion_row
    min_per_criterion: int = DEFAULT_MIN

    def kind(self, key: str) -> str:
        if self.model is not None and key in self.model.coef:
            return "learned"
        return "calibrated" if key in self.calibration else "heuristic"

    def trusted(self) -> list[str]:
        """Criteria scored by a model (learned, or blended with word count) that beat word count
        alone in cross-validation (the free judge votes on these only)."""
        return [k for k in (self.model.coef if self.model else {}) if crossval.trusted(self.agreement.get(k, {}))]

    def scored_by(self, key: str) -> str:
        """Which scorer the criterion uses (learned model, word count or a blend) and why."""
        return crossval.scored_by(self.agreement.get(key, {})) if self.kind(key) == "learned" else ""

    @property
    def cache_tag(self) -> str:
        """Folded into the offline Evaluator's prompt hash: a new version is never served a
        cached answer of the old one."""
        return f"offline-scorer:{self.assignment_id}:v{self.version}" if self.version else ""


def _options(conn, assignment_id: int) -> Options:
    saved = store.get_options(conn, assignment_id)
    return Options(**saved) if saved else Options()


def save_options(conn, assignment_id: int, options: Options, *, actor: Actor) -> Options:
    """The teacher's choices (validated, audited); the next assessment trains with them."""
    access.check(conn, actor, "assess", assignment=assignment_id)
    options = Options(int(options.min_per_criterion), bool(options.use_edits), bool(options.pool)).checked()
    store.save_options(conn, assignment_id, asdict(options), actor=actor, at=now())
    return options


# --- the scorer in use ---------------------------------------------------------------------
_LOCKS: dict[tuple, threading.Lock] = defaultdict(threading.Lock)
_LOADED: dict[tuple, tuple[tuple, Scorer]] = {}      # (database file, assignment) -> (fingerprint, scorer)


def _sources(conn, assignment_id: int, options: Options) -> list[int]:
    return store.sharing_rubric(conn, assignment_id) if options.pool else [assignment_id]


def current(conn, assignment_id: int, *, actor: str = "offline scorer") -> Scorer:
    """The assignment's scorer now: the stored version while the teacher's scores and options are
    unchanged, else a new version trained on them (once, however many threads ask)."""
    options = _options(conn, assignment_id)
    sources = _sources(conn, assignment_id, options)
    fp = (tuple(sources), store.fingerprint(conn, sources, use_edits=options.use_edits), tuple(asdict(options).items()))
    where = (file_of(conn), assignment_id)
    hit = _LOADED.get(where)
    if hit and hit[0] == fp:
        return hit[1]
    with _LOCKS[where]:
        hit = _LOADED.get(where)
        if hit and hit[0] == fp:
            return hit[1]
        scorer = _load_or_train(conn, assignment_id, options, sources, actor)
        _LOADED[where] = (fp, scorer)
        return scorer


def _data_hash(options: Options, rows: list[dict], rubric_id: int) -> str:
    """Same options, scores, rubric version and features: the same model (a new rubric version, or
    a FairMark version with other features, retrains)."""
    data = [asdict(options), rubric_id, learned.FORMAT,
            [(r["submission_id"], r["criterion"], float(r["score"]), r["source"]) for r in rows]]
    return hashlib.sha256(json.dumps(data).encode()).hexdigest()[:16]


def _load_or_train(conn, assignment_id: int, options: Options, sources: list[int], actor: str) -> Scorer:
    rows = store.training_rows(conn, sources, use_edits=options.use_edits)
    latest = store.latest(conn, assignment_id)
    data_hash = _data_hash(options, rows, courses.get_assignment(conn, assignment_id)["rubric_id"])
    if latest and latest["data_hash"] == data_hash:
        return _from_row(conn, latest)
    if not rows:
        return Scorer(assignment_id, min_per_criterion=options.min_per_criterion)
    model = _train(conn, assignment_id, options, rows, data_hash, actor)
    return _from_row(conn, store.latest(conn, assignment_id), model)


def _from_row(conn, row: dict, model: learned.Model | None = None) -> Scorer:
    """The stored version as a Scorer (`model`: the one just trained, with its features of the
    assignment's texts still in memory)."""
    if model is None and row["has_model"]:
        model = learned.Model.from_bytes(store.model_bytes(conn, row["id"]))
    return Scorer(row["assignment_id"], row["version"], model,
                  {k: v["scores"] for k, v in row["criteria"].items()},
                  {k: {"cuts": np.array(v["cuts"]), "scores": v["scores"]} for k, v in row["calibration"].items()},
                  row["agreement"], row["options"].get("min_per_criterion", DEFAULT_MIN))


def status(conn, assignment_id: int, *, actor: Actor) -> dict | None:
    """The stored version's summary (None before any training): version, when, by whom,
    options, per criterion its kind, scores and cross-validated agreement."""
    access.check(conn, actor, "read", assignment=assignment_id)
    return store.latest(conn, assignment_id)


def overview(conn, assignment_id: int, *, actor: Actor) -> dict:
    """What the Assess and Calibrate pages show: {version, trained_at, trained_by, seconds,
    options, stale (the teacher's scores or options changed since: the next offline assessment
    retrains), rows: per criterion {key, title, kind, kind_label, scores, model {...},
    word_count {...}, beats_length, method (learned, blend, word_count or None), chosen {...}
    (the choice's own cross-validated figures), scored_by (which scorer and why, in words)}}."""
    access.check(conn, actor, "read", assignment=assignment_id)
    return overview_of(conn, assignment_id)


def overview_of(conn, assignment_id: int) -> dict:
    """`overview` for a caller that has checked the actor (a page's view)."""
    rubric = courses.assignment_rubric(conn, assignment_id)
    latest = store.latest(conn, assignment_id)
    options = _options(conn, assignment_id)
    rows = []
    for c in rubric.criteria:
        info = (latest or {}).get("criteria", {}).get(c.key, {"kind": "heuristic", "scores": 0})
        figures = (latest or {}).get("agreement", {}).get(c.key, {})
        rows.append({"key": c.key, "title": c.title, "kind": info["kind"], "kind_label": KINDS[info["kind"]],
                     "scores": info["scores"], "model": figures.get("model"), "word_count": figures.get("word_count"),
                     "beats_length": crossval.beats_length(figures) if figures else None,
                     "method": figures.get("method"), "chosen": figures.get("chosen"),
                     "scored_by": crossval.scored_by(figures) if info["kind"] == "learned" else ""})
    stale = latest is not None and latest["options"] != asdict(options)
    if latest is not None and not stale:
        sources = _sources(conn, assignment_id, options)
        rows_now = store.training_rows(conn, sources, use_edits=options.use_edits)
        stale = latest["data_hash"] != _data_hash(options, rows_now, courses.get_assignment(conn, assignment_id)
                                                  ["rubric_id"])
    return {"version": latest["version"] if latest else None, "trained_at": latest and latest["trained_at"],
            "trained_by": latest and latest["trained_by"], "seconds": latest and latest["seconds"],
            "options": asdict(options), "stale": stale, "rows": rows, "min_per_criterion": options.min_per_criterion}


def train_now(conn, assignment_id: int, *, actor: Actor) -> Scorer:
    """Train (or reuse, when nothing changed) the assignment's scorer now, as a teacher asked."""
    access.check(conn, actor, "assess", assignment=assignment_id)
    return current(conn, assignment_id, actor=actor)


# --- training -------------------------------------------------------------------------------
def _train(conn, assignment_id: int, options: Options, rows: list[dict], data_hash: str,
           actor: str) -> learned.Model | None:
    """Train on `rows`, store the new version; returns the learned model (None: no criterion
    had enough scores)."""
    started = time.perf_counter()
    rubric = courses.assignment_rubric(conn, assignment_id)
    target = courses.get_assignment(conn, assignment_id)
    lo, hi = rubric.scale_min, rubric.scale_max
    items: dict[int, dict] = {}
    for r in rows:
        item = items.setdefault(r["submission_id"], {"text": r["text"], "prompt": r["prompt"] or "",
                                                     "concepts": loads(r["key_concepts"], []),
                                                     "student": r["student_id"], "scores": {}})
        item["scores"][r["criterion"]] = float(r["score"])
    ids = list(items)
    texts = [items[i]["text"] for i in ids]
    prompts, concepts = [items[i]["prompt"] for i in ids], [items[i]["concepts"] for i in ids]
    students = [items[i]["student"] for i in ids]
    pool = [p for p in store.pool_texts(conn, assignment_id) if p["submission_id"] not in items]
    pool_texts = [p["text"] for p in pool]
    target_prompt, target_concepts = target.get("prompt") or "", list(target.get("key_concepts") or [])
    counts = {k: sum(k in items[i]["scores"] for i in ids) for k in rubric.keys}
    learn = [k for k in rubric.keys if counts[k] >= options.min_per_criterion]
    labels = {k: [items[i]["scores"].get(k) for i in ids] for k in rubric.keys}
    words = np.log1p([text_mod.words(t) for t in texts])
    pool_words = np.log1p([text_mod.words(t) for t in pool_texts])

    criteria, agreement, calibration, blob, model = {}, {}, {}, None, None
    if learn:
        trained = learned.train(texts, prompts, concepts, {k: labels[k] for k in learn},
                                pool=(pool_texts, [target_prompt] * len(pool), [target_concepts] * len(pool)),
                                lo=lo, hi=hi)
        model, blob = trained.model, trained.model.to_bytes()
    quality = None
    for k in rubric.keys:
        scored = [j for j, i in enumerate(ids) if k in items[i]["scores"]]
        if not scored:
            criteria[k] = {"kind": "heuristic", "scores": 0}
            continue
        ys = [labels[k][j] for j in scored]
        wl = learned.word_count_levels(words[scored], pool_words, ys, lo, hi)
        if k in learn:
            levels = trained.loo_levels[k][scored]
            kind = "learned"
        else:
            if quality is None:     # the heuristic's values on the pool and the scored texts, once
                # in the course's language, as the heuristic reads the texts it scores (core.language)
                lang = course_language.stored(courses.get_course(conn, target["course_id"]).get("language"))
                quality = [heuristics.qualities(t, rubric, target_concepts, target_prompt, lang) for t in pool_texts] + \
                          [heuristics.qualities(texts[j], rubric, concepts[j], prompts[j], lang)
                           for j in range(len(ids))]
            q_all = np.array([q[k] for q in quality])
            cuts = learned.cut_points(q_all, ys, lo, hi, prior=CALIBRATION_PRIOR)
            calibration[k] = {"cuts": [float(c) for c in cuts], "scores": len(ys)}
            q_scored = q_all[len(pool_texts):][scored]
            levels = lo + np.searchsorted(cuts, q_scored, side="right")
            kind = "calibrated"
        criteria[k] = {"kind": kind, "scores": len(ys)}
        agreement[k] = crossval.criterion_row(kind, levels, wl, ys, [students[j] for j in scored], lo, hi,
                                              trained.choices.get(k) if k in learn else None)
    training = [{"submission_id": r["submission_id"], "assignment_id": r["assignment_id"], "criterion": r["criterion"],
                 "score": float(r["score"]), "source": r["source"]} for r in rows]
    store.save(conn, {
        "assignment_id": assignment_id, "rubric_id": target["rubric_id"], "options": asdict(options),
        "training": training, "data_hash": data_hash, "criteria": criteria, "agreement": agreement,
        "calibration": calibration, "model": blob, "seconds": round(time.perf_counter() - started, 3),
        "trained_at": now()}, actor=actor)
    return model
