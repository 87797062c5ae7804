"""Blind pairwise comparison of two AI configurations by teachers (seed 003: at larger changes
teachers compare ~100 cases pairwise, which also calibrates the judge).

    create()   a stratified sample of submissions (default 100): strata are the current draft's
               score band (low / high, as for bulk approval) and "undrafted", each drawn in
               proportion with at least one item; each pair gets a random side for B and a
               random place in the order
    draft()    drafts every sampled submission with configuration A (in use) and B (a variant),
               without touching the submissions' own drafts, and runs the pedagogy judge of the
               configuration in use on both comments: a run (core.evals.comparison_runs), so
               `start` works in the background and `resume` continues after a restart; a pair
               whose two comments are the same is skipped (never shown to teachers, counted)
    choose()   a teacher's choice per pair: better level fit and better pedagogy, left / right
               / equal; stored as A / B / tie, so pages never need to know the sides
    results()  B's win rate per dimension ((wins + ties / 2) / n) with a 95 % bootstrap CI that
               resamples pairs (a pair judged by several teachers counts once per draw), per
               teacher, and the pedagogy judge's agreement with the teachers; the judge is
               trusted for later changes only on at least 20 choices with the lower bound of
               its agreement's interval above the admin's threshold (core.judging.judges.trusted)
"""
from __future__ import annotations

import random

import numpy as np

import db
from core.accounts import access
from core.runs import engine as run_engine
from core.accounts.access import Actor
from core.errors import ConflictError, FairMarkError, GateError, NotFound
from core.evals import comparison_runs
from core.evals import config as ai_config
from core.judging import judges
from core.language.interface import Message, N_
from core.llm import default_provider, effective_settings
from core.metrics.bootstrap import percentile_ci
from db import audit, courses
from db import comparisons as cmp_db
from db import drafts as drafts_db
from db import evals as evals_db
from db import runs as runs_db

DEFAULT_SAMPLE = 100
DIMENSIONS = {"level": N_("Which comment fits this student's level better (language and depth)?"),
              "pedagogy": N_("Which comment teaches better (leads without giving the answer away, builds on "
                             "the student's work, ends with a question or a next step)?")}   # shown with t()
CHOICES = ("left", "tie", "right")
STATUS_LABELS = {"drafting": N_("drafting"), "ready": N_("ready"), "failed": N_("failed")}   # a comparison's, shown with t()
# The offline baseline reads no prompt, no model and no temperature: any variant writes A's comments.
OFFLINE_SAME = Message("Nothing to compare: the offline baseline (no language model) ignores prompts, models and "
                       "temperature, so configuration B would write exactly the same comment as A on every pair. Set "
                       "up a language model (Settings → Language model & prices), then start the comparison again.")
DEFAULT_TRUST = 0.8          # seed 001: judge-human agreement of 80-85 % is what a good judge reaches
N_BOOT = 2000


def skipped_note(n: int) -> str:   # a Message (said() shows it translated), "" for none
    """What the pages say about the pairs skipped because A and B wrote the same comment.

    >>> skipped_note(0), skipped_note(2)
    ('', '2 pairs were skipped: both configurations wrote the same comment, so there was nothing to choose.')
    """
    if not n:
        return ""
    return Message.plural("{count} pair was skipped: both configurations wrote the same comment, so there was "
                          "nothing to choose.", "{count} pairs were skipped: both configurations wrote the same "
                          "comment, so there was nothing to choose.", n)


# --- create ---------------------------------------------------------------------------------
def stratified_sample(rows: list[dict], n: int, rng: random.Random, band_of) -> list[dict]:
    """`n` rows drawn per stratum in proportion to its size, at least one from each stratum
    (when `n` allows: with fewer than the strata, one from each of the largest).

    >>> rows = [{"submission_id": i, "total": t} for i, t in enumerate([1] * 6 + [3] * 2 + [None] * 2)]
    >>> s = stratified_sample(rows, 5, random.Random(0), lambda r: "undrafted" if r["total"] is None
    ...                       else "low" if r["total"] < 2 else "high")
    >>> sorted(x["stratum"] for x in s)
    ['high', 'low', 'low', 'low', 'undrafted']
    """
    strata: dict[str, list[dict]] = {}
    for r in rows:
        strata.setdefault(band_of(r), []).append(r)
    n = min(n, len(rows))
    if n < len(strata):        # fewer items than strata: one from each of the largest
        strata = dict(sorted(strata.items(), key=lambda kv: -len(kv[1]))[:n])
    share = {k: max(1, round(n * len(v) / len(rows))) for k, v in strata.items()}
    while sum(share.values()) > n:                       # rounding up for the small strata
        biggest = max((k for k in share if share[k] > 1), key=lambda k: share[k])
        share[biggest] -= 1
    while sum(share.values()) < n:
        room = [k for k in share if share[k] < len(strata[k])]
        share[max(room, key=lambda k: len(strata[k]) - share[k])] += 1
    out = []
    for k in sorted(strata):
        for r in rng.sample(strata[k], min(share[k], len(strata[k]))):
            out.append({**r, "stratum": k})
    return out


def create(conn, *, course_id: int, variant_b: str, assignment_id: int | None = None,
           sample_size: int = DEFAULT_SAMPLE, seed: int | None = None, provider: str | None = None,
           actor: Actor) -> int:
    """A comparison of the configuration in use (A) with a variant (B), its pairs ready to draft.
    Refused up front when B could only write A's comments (the same configuration; offline)."""
    access.check(conn, actor, "compare", course=course_id, assignment=assignment_id)
    if not 2 <= int(sample_size) <= 500:
        raise FairMarkError(Message("A comparison needs between 2 and 500 pairs (the seed suggests 100)"))
    provider = provider or default_provider()
    if provider == "offline":
        raise GateError(OFFLINE_SAME)
    variant = ai_config.load_variant(variant_b)
    if not variant.name:
        raise FairMarkError(Message("Choose the variant to compare with (configuration B)"))
    defn_a, defn_b = ai_config.current(provider), ai_config.current(provider, variant=variant)
    a, b = ai_config.config_hash(defn_a), ai_config.config_hash(defn_b)
    if a == b:
        raise FairMarkError(Message("The variant {variant!r} does not change anything in the configuration in use: "
                                    "change a prompt file, a model or the temperature", variant=variant.name))
    rows = cmp_db.candidates(conn, course_id, assignment_id)
    if len(rows) < 2:
        raise NotFound(Message("This scope has fewer than 2 submissions with text: choose a larger one"))
    rubric = courses.assignment_rubric(conn, assignment_id) if assignment_id else None
    seed = random.SystemRandom().randrange(1, 2**31) if seed is None else int(seed)
    rng = random.Random(seed)

    def band(r):
        if r["total"] is None or r["status"] in ("uploaded", "failed"):
            return "undrafted"
        rb = rubric or courses.get_rubric(conn, _rubric_of(conn, r["submission_id"]))
        return "low" if rb.low_band(r["total"] / len(rb.criteria)) else "high"

    sample = stratified_sample(rows, int(sample_size), rng, band)
    order = list(range(len(sample)))
    rng.shuffle(order)
    pairs = [{"submission_id": r["submission_id"], "stratum": r["stratum"], "position": pos,
              "b_on_left": rng.random() < 0.5} for r, pos in zip(sample, order)]
    with conn.atomic():
        evals_db.record_config(conn, a, defn_a, used_by=actor, used_for="comparison (A)")
        evals_db.record_config(conn, b, defn_b, variant=variant.name, used_by=actor, used_for="comparison (B)")
        cid = cmp_db.create(conn, course_id=course_id, assignment_id=assignment_id, config_a=a, config_b=b,
                            variant_b=variant.name, seed=seed, pairs=pairs, created_by=actor, provider=provider,
                            run_config=comparison_runs.run_config(effective_settings(conn=conn)))
        audit(conn, actor=actor, action="create_comparison", entity="comparisons", entity_id=cid,
              after={"config_a": a, "config_b": b, "variant_b": variant.name, "pairs": len(pairs)})
    return cid


def _rubric_of(conn, submission_id: int) -> int:
    return drafts_db.load_item(conn, submission_id)["rubric_id"]


# --- drafting: a run (core.evals.comparison_runs) --------------------------------------------
def _run_id(db_path, comparison_id: int) -> int:
    conn = db.connect(db_path)
    try:
        c = cmp_db.get(conn, comparison_id)
    finally:
        conn.close()
    if c is None:
        raise NotFound(Message("comparison {id} does not exist", id=comparison_id))
    if c["run_id"] is None:
        raise ConflictError(Message("Comparison {id} was drafted before drafting became a run: nothing to resume.",
                                    id=comparison_id))
    return c["run_id"]


def draft(db_path, comparison_id: int, *, llm_a=None, llm_b=None, on_progress=None, actor: Actor) -> dict:
    """Draft every pair not drafted yet with A and B now (pairs concurrently, in this thread's
    run); returns the comparison. A pair whose drafting fails is kept out with its error; a
    configuration fault stops the run (RunStopped), resumable."""
    access.check_path(db_path, actor, "compare", comparison=comparison_id)
    run_id = _run_id(db_path, comparison_id)
    conn = db.connect(db_path)
    try:
        if comparison_runs.KIND.counts(conn, run_id)["pending"] or cmp_db.get(conn, comparison_id)["status"] != "ready":
            run_engine.execute(comparison_runs.KIND, db_path, run_id, (llm_a, llm_b), on_progress=on_progress)
        return cmp_db.get(conn, comparison_id)
    finally:
        conn.close()


def start(db_path, comparison_id: int, *, actor: Actor):
    """Draft in a background thread (the page returns at once); one worker per comparison."""
    access.check_path(db_path, actor, "compare", comparison=comparison_id)
    return run_engine.start(comparison_runs.KIND, db_path, _run_id(db_path, comparison_id))


def resume(db_path, comparison_id: int, *, actor: Actor):
    """Continue drafting an interrupted or stopped comparison (its pairs left) in the background."""
    access.check_path(db_path, actor, "compare", comparison=comparison_id)
    return run_engine.resume(comparison_runs.KIND, db_path, _run_id(db_path, comparison_id))


def is_resumable(conn, db_path, comparison_id: int, *, actor: Actor) -> bool:
    access.check(conn, actor, "read", comparison=comparison_id)
    return resumable_in(conn, db_path, comparison_id)


def resumable_in(conn, db_path, comparison_id: int) -> bool:
    """`is_resumable` once the actor is checked."""
    c = cmp_db.get(conn, comparison_id)
    if c is None or c["run_id"] is None:
        return False
    return run_engine.is_resumable(comparison_runs.KIND, conn, db_path, runs_db.get_run(conn, c["run_id"]))


# --- teachers' choices ------------------------------------------------------------------------
def next_pair(conn, comparison_id: int, *, actor: Actor) -> dict | None:
    """The next pair this teacher has not judged: {pair_id, position, submission, left_comment,
    right_comment} (never which side is which configuration)."""
    access.check(conn, actor, "compare", comparison=comparison_id)
    return cmp_db.pair_for_teacher(conn, comparison_id, str(actor))


def choose(conn, pair_id: int, *, actor: Actor, level: str, pedagogy: str) -> dict:
    """Record a teacher's two choices on a pair (left | tie | right), in one transaction."""
    access.check(conn, actor, "compare", pair=pair_id)
    teacher = str(actor)  # each signed-in teacher's choices are counted separately
    picks = {"level": level, "pedagogy": pedagogy}
    bad = {k: v for k, v in picks.items() if v not in CHOICES}
    if bad:
        raise FairMarkError(Message("Choose left, equal or right for both questions"))
    try:
        with db.write_transaction(conn):
            stored = cmp_db.save_choices(conn, pair_id, teacher, picks)
    except Exception as e:
        if "UNIQUE" in str(e):
            raise ConflictError(Message("You have already judged this pair; here is the next one.")) from None
        raise
    return stored


# --- results ------------------------------------------------------------------------------------
def _value(choice: str) -> float:
    return {"B": 1.0, "tie": 0.5, "A": 0.0}[choice]


def win_rate(rows: list[dict], *, seed: int = 0, n_boot: int = N_BOOT) -> dict:
    """B's win rate over teacher choices {pair_id, choice}: (B wins + ties / 2) / n, with a
    percentile bootstrap CI that resamples pairs.

    >>> r = win_rate([{"pair_id": i, "choice": c} for i, c in enumerate(["B", "B", "B", "A", "tie"])])
    >>> r["n"], r["b_wins"], r["ties"], r["win_rate"]
    (5, 3, 1, 0.7)
    >>> 0 <= r["ci"][0] < 0.7 < r["ci"][1] <= 1
    True
    """
    n = len(rows)
    out = {"n": n, "pairs": len({r["pair_id"] for r in rows}), "b_wins": sum(r["choice"] == "B" for r in rows),
           "a_wins": sum(r["choice"] == "A" for r in rows), "ties": sum(r["choice"] == "tie" for r in rows),
           "win_rate": None, "ci": None, "ci_note": None}
    if not n:
        out["ci_note"] = Message("no choices yet")
        return out
    by_pair: dict[int, list[float]] = {}
    for r in rows:
        by_pair.setdefault(r["pair_id"], []).append(_value(r["choice"]))
    sums = np.array([sum(v) for v in by_pair.values()])
    counts = np.array([len(v) for v in by_pair.values()])
    out["win_rate"] = round(float(sums.sum() / counts.sum()), 4)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(sums), size=(n_boot, len(sums)))
    reps = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
    ci, note = percentile_ci(reps, len(sums))
    out["ci"] = None if ci is None else [round(ci[0], 4), round(ci[1], 4)]
    out["ci_note"] = note
    return out


def agreement(rows: list[dict], *, seed: int = 0, n_boot: int = N_BOOT) -> dict:
    """How often the pedagogy judge chose as the teachers did (pedagogy choices with a judge verdict)."""
    judged = [r for r in rows if r["judge_choice"] is not None]
    out = {"n": len(judged), "not_run": len(rows) - len(judged), "agreement": None, "ci": None, "ci_note": None}
    if not judged:
        out["ci_note"] = Message("the judge did not run (offline baseline) or no pedagogy choices yet")
        return out
    by_pair: dict[int, list[float]] = {}
    for r in judged:
        by_pair.setdefault(r["pair_id"], []).append(float(r["choice"] == r["judge_choice"]))
    sums = np.array([sum(v) for v in by_pair.values()])
    counts = np.array([len(v) for v in by_pair.values()])
    out["agreement"] = round(float(sums.sum() / counts.sum()), 4)
    idx = np.random.default_rng(seed).integers(0, len(sums), size=(n_boot, len(sums)))
    ci, note = percentile_ci(sums[idx].sum(axis=1) / counts[idx].sum(axis=1), len(sums))
    out["ci"] = None if ci is None else [round(ci[0], 4), round(ci[1], 4)]
    out["ci_note"] = note
    return out


def judge_agreement(rows: list[dict], threshold: float) -> dict:
    """The pedagogy judge's agreement with the teachers' choices and whether it is trusted, by
    every judge's trust rule (core.judging.judges.trusted: at least 20 choices, the interval's
    lower bound above the threshold)."""
    judge = agreement(rows)
    ci_low = (judge.get("ci") or [None])[0]
    if ci_low is None and judge["agreement"] is not None:     # no bootstrap interval: every choice agreed
        ci_low = judges.wilson_low(judge["agreement"], judge["n"])
    evidence = dict(agreement=judge["agreement"], ci_low=ci_low, n=judge["n"], threshold=threshold)
    return {**judge, "threshold": threshold, "trusted": judges.trusted(**evidence),
            "trust_reason": judges.trust_reason(**evidence)}


def trust_threshold(conn) -> float:
    return cmp_db.get_trust_threshold(conn, DEFAULT_TRUST)


def set_trust_threshold(conn, value: float, *, actor: Actor) -> None:
    """The admin's agreement threshold above which the pedagogy judge is trusted (audited)."""
    access.require(actor, "settings")
    value = float(value)
    if not 0.5 <= value <= 1.0:
        raise GateError(Message("The agreement threshold must be between 0.5 (chance) and 1.0"))
    before = trust_threshold(conn)
    with conn.atomic():
        cmp_db.set_trust_threshold(conn, value)
        audit(conn, actor=actor, action="set_judge_trust", entity="app_settings", before={"threshold": before},
              after={"threshold": value})


def results(conn, comparison_id: int, *, actor: Actor) -> dict:
    access.check(conn, actor, "read", comparison=comparison_id)
    return results_in(conn, comparison_id)


def results_in(conn, comparison_id: int) -> dict:
    """`results` once the actor is checked (a page's one read, core.evals.views)."""
    c = cmp_db.get(conn, comparison_id)
    if c is None:
        raise NotFound(Message("comparison {id} does not exist", id=comparison_id))
    rows = cmp_db.choices(conn, comparison_id)
    by_dim = {d: win_rate([r for r in rows if r["dimension"] == d]) for d in DIMENSIONS}
    teachers = sorted({r["teacher"] for r in rows})
    by_teacher = [{"teacher": t, "dimension": d, **win_rate([r for r in rows if r["teacher"] == t
                                                                and r["dimension"] == d])}
                  for t in teachers for d in DIMENSIONS]
    judge = judge_agreement([r for r in rows if r["dimension"] == "pedagogy"], trust_threshold(conn))
    pairs = cmp_db.pairs(conn, comparison_id)
    return {"comparison": c["id"], "config_a": c["config_a"], "config_b": c["config_b"], "variant_b": c["variant_b"],
            "status": c["status"], "pairs": len(pairs), "failed_pairs": sum(bool(p["error"]) for p in pairs),
            "skipped": sum(bool(p["same"]) for p in pairs),
            "strata": {s: sum(p["stratum"] == s for p in pairs) for s in sorted({p["stratum"] for p in pairs})},
            "teachers": teachers, "by_dimension": by_dim, "by_teacher": by_teacher, "judge": judge}


def judge_trust(conn) -> dict:
    """Is the pedagogy judge trusted for later changes? Its agreement with the teachers in the
    latest comparison they judged, against the admin's threshold."""
    ids = cmp_db.latest_ready(conn)
    if not ids:
        return {"trusted": False, "agreement": None, "threshold": trust_threshold(conn), "comparison": None,
                "why": Message("no blind comparison has been judged by teachers yet")}
    r = results_in(conn, ids[0])  # only the judge's agreement leaves this function
    j = r["judge"]
    why = (Message("agreement {agreement} with the teachers on {count} choices in comparison {comparison}: {reason}",
                   agreement=f"{j['agreement']:.0%}", count=j["n"], comparison=ids[0], reason=j["trust_reason"])
           if j["agreement"] is not None else Message("the judge did not run in comparison {comparison}",
                                                      comparison=ids[0]))
    return {"trusted": j["trusted"], "agreement": j["agreement"], "threshold": j["threshold"],
            "comparison": ids[0], "why": why}
