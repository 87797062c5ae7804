"""One submission through the agents (seed 000, Zhang & Luo 2025), in the order of their registry stages:

    score (Evaluator) -> after_score (Equity Monitor ∥ Coach ∥ ...) -> compose (Aggregator)
      -> checks -> review (Reviewer) -> on REVISE or a failed check: revise (Reviser), checks,
         Reviewer again (at most 2 rounds) -> after_comment (judges of the comment, side by side)
      -> needs attention with the reasons when it still does not pass.

The student's name and e-mail are replaced by the pseudonym before the first call; the draft
is restored for the teacher just before it is stored. Each agent call is logged (and cached)
by the LLM wrapper as it finishes, so a resumed item replays finished steps from the cache;
the draft, the submission's status and the run item are then written in one transaction.
Every fault ends as a stored state: an LLM error after retries, or a bug, becomes a draft with
status "failed" and the error, never a half-written item. Only the scoring role's failure
fails the item; any later role's failure costs only its contribution (the reason is shown).
The exception is a fault every further item would hit too (`LLMConfigFault`, e.g. a refused
key): it propagates as its type, no draft is written, and the run stops with the item still
pending (core.runs).
"""
from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

import db
from core import checks, triage
from core.agents import Ids, Job, registry
from core.calibration import anchors
from core.errors import FairMarkError, LLMConfigFault, LLMError
from core.llm import default_provider, make_llm
from core.pseudonym import Pseudonymizer
from core.rubric import Rubric
from db import drafts as drafts_db

log = logging.getLogger(__name__)

MAX_ROUNDS = 2
ATTENTION_FLAGS = ("short_text", "injection", "code", "non_english")


def assess_one(db_path, submission_id: int, *, llm=None, run_id: int | None = None) -> int:
    """Assess one submission now (the Review page's Regenerate) and return the new draft id.

    Without `llm`, the configured provider is used (the offline baseline when none is set),
    without reading the cache: a teacher who asks for a new draft gets a new answer.
    A teacher's approved, rejected or released item keeps its status; the new draft is stored
    beside it.
    """
    if llm is None:
        llm = make_llm(default_provider(), db_path, read_cache=False)
    draft_id = assess_submission(db_path, submission_id, llm, run_id=run_id)
    if draft_id is None:
        raise FairMarkError(f"submission {submission_id} was already finished by another worker")
    return draft_id


def assess_submission(db_path, submission_id: int, llm, *, run_id: int | None = None) -> int | None:
    """Run the agents on one submission and store the draft; returns the draft id (None when a
    concurrent worker had already finished this run item). An LLMConfigFault propagates and
    nothing is stored."""
    conn = db.connect(db_path)
    try:
        item = drafts_db.load_item(conn, submission_id)
        rubric: Rubric = item["rubric"]
        item["anchors"] = anchors.for_submission(conn, submission_id, item["assignment_id"], rubric)
        draft = build_draft(llm, item, Ids(run_id=run_id, submission_id=submission_id))
        priority = triage.priority(draft["status"], draft.get("scores") or None, rubric,
                                   confidence=draft.get("confidence"))
        return drafts_db.save_draft(conn, draft, priority=priority, run_id=run_id)
    finally:
        conn.close()


class _Step:
    """Remembers which agent is running, so a failure says where it happened."""
    name = "start"


def build_draft(llm, item: dict, ids: Ids) -> dict:
    rubric: Rubric = item["rubric"]
    base = {
        "submission_id": item["id"], "rubric_id": item["rubric_id"], "provider": llm.provider,
        "is_offline": int(llm.provider == "offline"),
        "models": {name: llm.model_for(name) for name in registry.names()},
        "prompt_hashes": registry.prompt_hashes(),
    }
    text = item["text"] or ""
    sub_checks = checks.submission_checks(text)
    flags = [c["name"] for c in sub_checks if not c["passed"]]
    if "empty" in flags:
        # Nothing to assess: the bottom of the scale, no call, a teacher looks.
        zeros = dict.fromkeys(rubric.keys, rubric.scale_min)
        return {**base, "scores": zeros, "total": rubric.total(zeros), "checks": sub_checks, "flags": flags,
                "attention_reasons": [checks.ATTENTION_TEXT["empty"]], "status": "needs_attention",
                "models": {}}
    pz = Pseudonymizer(item["student_name"], item["student_email"], item["pseudonym"])
    job = Job(rubric=rubric, text=pz.hide(text), ids=ids,
              assignment={**{k: item[k] for k in ("title", "prompt", "key_concepts", "target_grade")},
                          "anchors": item.get("anchors") or []})
    step = _Step()
    try:
        result = _agents(llm, job, step)
    except LLMConfigFault:
        raise  # every further item would fail the same way: the caller stops, nothing is stored
    except LLMError as e:
        return _failed(base, flags, sub_checks, f"{step.name}: {type(e).__name__}: {e}")
    except Exception as e:  # a bug must not stop the run; the teacher sees it on the item
        log.exception("assessment of submission %s failed in %s", item["id"], step.name)
        return _failed(base, flags, sub_checks, f"{step.name}: internal error {type(e).__name__}: {e}")

    reasons = [checks.ATTENTION_TEXT[f] for f in flags if f in ATTENTION_FLAGS]
    reasons += result.pop("reasons")
    draft = {
        **base, **result, "total": rubric.total(result["scores"]),
        "checks": sub_checks + result["checks"], "flags": flags, "attention_reasons": reasons,
        "status": "needs_attention" if reasons else "drafted",
    }
    # Back to real names for the teacher: only the stored draft has them, never a prompt.
    for key in ("outputs", "comment", "checks", "revisions", "attention_reasons"):
        draft[key] = pz.restore_obj(draft[key])
    return draft


def _failed(base: dict, flags: list[str], sub_checks: list[dict], error: str) -> dict:
    return {**base, "scores": {}, "total": 0, "checks": sub_checks, "flags": flags,
            "attention_reasons": [f"The AI assessment failed ({error}). Regenerate it or mark it by hand."],
            "status": "failed", "error": error[:2000]}


def _degraded(label: str, e: LLMError, consequence: str) -> str:
    return f"The {label} failed ({type(e).__name__}: {e}); {consequence}"


def _recoverable(e: LLMError) -> bool:
    """After the Evaluator has scored, a later agent's fault costs only its contribution: the
    draft is kept and sent to a teacher with the reason. A fault of the configuration (a
    refused key) is not recoverable: it ends the run (core.runs), so it is re-raised."""
    return not isinstance(e, LLMConfigFault)


def _only(stage: str):
    roles = registry.at(stage)
    if len(roles) != 1:
        raise FairMarkError(f"the pipeline needs exactly one '{stage}' role; the registry has "
                            f"{[r.name for r in roles] or 'none'}")
    return roles[0]


def _side_by_side(llm, job: Job, stage: str, reasons: list[str], step: _Step) -> None:
    """Run every role of a stage at once (they read only what earlier stages wrote); a role's
    fault is recorded as a reason and its output left out."""
    roles = registry.at(stage)
    if not roles:
        return
    step.name = " / ".join(r.label for r in roles)
    with ThreadPoolExecutor(max_workers=len(roles), thread_name_prefix=f"agents-{job.ids.submission_id}") as pool:
        futures = [(role, pool.submit(role.run, llm, job)) for role in roles]
        for role, future in futures:
            try:
                job.outputs[role.name] = future.result().data.model_dump()
            except LLMError as e:
                if not _recoverable(e):
                    raise
                reasons.append(_degraded(role.label, e, role.if_failed))
                continue
            reasons += role.attention(job.outputs[role.name])


def _agents(llm, job: Job, step: _Step) -> dict:
    reasons: list[str] = []
    scorer = _only("score")
    step.name = scorer.label.lower()
    scored = scorer.run(llm, job)
    job.outputs[scorer.name] = scored.data.model_dump()
    job.scores = scorer.module.scores(scored.data)
    certainty = confidence(scored.score_probs, job.scores)

    _side_by_side(llm, job, "after_score", reasons, step)

    composer = _only("compose")
    step.name = composer.label
    try:
        job.comment = composer.run(llm, job).data.comment
    except LLMError as e:
        if not _recoverable(e):
            raise
        # The scores stand; the teacher writes the comment (or regenerates).
        reasons.append(_degraded(composer.label, e, "there is no drafted comment: write one or regenerate"))
        return {"outputs": job.outputs, "scores": job.scores, "comment": "", "checks": _comment_checks(job),
                "verdict": None, "revisions": [], "rounds": 0, "confidence": certainty, "reasons": reasons}
    revisions, rounds, verdict = _review_loop(llm, job, reasons, step)
    _side_by_side(llm, job, "after_comment", reasons, step)
    return {"outputs": job.outputs, "scores": job.scores, "comment": job.comment, "checks": job.checks,
            "verdict": verdict, "revisions": revisions, "rounds": rounds, "confidence": certainty,
            "reasons": reasons}


def _comment_checks(job: Job) -> list[dict]:
    return checks.comment_checks(job.comment, job.text, evaluation=job.outputs.get("evaluator"),
                                 target_grade=job.target_grade)


def _review_loop(llm, job: Job, reasons: list[str], step: _Step) -> tuple[list, int, str | None]:
    """Reviewer on the comment; on REVISE or a failed check the Reviser fixes only what failed,
    then the checks and the Reviewer again, at most MAX_ROUNDS times."""
    reviewer, reviser = _only("review"), _only("revise")
    revisions = [{"round": 0, "comment": job.comment, "fixes": [], "failed_checks": []}]
    rounds, verdict = 0, None
    while True:
        job.checks = _comment_checks(job)
        bad = checks.failed(job.checks)
        step.name = reviewer.label
        try:
            verdict = reviewer.run(llm, job).data
        except LLMError as e:
            if not _recoverable(e):
                raise
            verdict = None
            job.outputs.pop(reviewer.name, None)
            reasons.append(_degraded(reviewer.label, e, reviewer.if_failed))
            break
        job.outputs[reviewer.name] = verdict.model_dump()
        if (verdict.verdict == "CONFIDENT" and not bad) or rounds == MAX_ROUNDS:
            break
        rounds += 1
        step.name = f"{reviser.label} (round {rounds})"
        job.fixes = verdict.fixes
        try:
            revised = reviser.run(llm, job).data.comment
        except LLMError as e:
            if not _recoverable(e):
                raise
            reasons.append(_degraded(f"{reviser.label} (round {rounds})", e, reviser.if_failed))
            rounds -= 1
            break
        job.comment = revised
        revisions.append({"round": rounds, "comment": revised, "fixes": verdict.fixes,
                          "failed_checks": [c["name"] for c in bad]})

    if bad:
        reasons.append(f"After {rounds} revision round(s) these checks still fail: "
                       + "; ".join(f"{c['label']} ({c['detail']})" for c in bad))
    if verdict is not None and verdict.verdict == "REVISE":
        fixes = "; ".join(verdict.fixes) or verdict.explanation
        reasons.append(f"After {rounds} revision round(s) the Reviewer still asks for changes: {fixes}")
    return revisions, rounds, verdict.verdict if verdict else None


def confidence(score_probs: dict | None, scores: dict[str, int]) -> float | None:
    """How sure the Evaluator was, from the score tokens' probabilities (logprobs).

    Per criterion: the probability of the score it gave; overall: the lowest of these (one
    shaky criterion is enough to send the item to a human). None when the server gave no
    logprobs.

    >>> confidence({"clarity.score": {"2": 0.9, "3": 0.1}, "depth.score": {"1": 0.55, "2": 0.45}},
    ...            {"clarity": 2, "depth": 1})
    0.55
    >>> confidence(None, {"clarity": 2}) is None
    True
    """
    if not score_probs:
        return None
    per = []
    for key, score in scores.items():
        probs = score_probs.get(f"{key}.score") or score_probs.get(key)
        if probs:
            per.append(float(probs.get(str(score), 0.0)))
    return round(min(per), 3) if per else None
