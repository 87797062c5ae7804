"""One submission through the agents (DESIGN.md §1a):

    Evaluator -> (Equity Monitor ∥ Coach) -> Aggregator -> checks -> Reviewer
              -> on REVISE or a failed check: Reviser, checks, Reviewer (at most 2 rounds)
              -> needs attention with the reasons when it still does not pass.

The student's name and e-mail are replaced by the pseudonym before the first call; the draft
is restored for the teacher just before it is stored. Each agent call is logged (and cached)
by the LLM wrapper as it finishes, so a resumed item replays finished steps from the cache;
the draft, the submission's status and the run item are then written in one transaction.
Every fault ends as a stored state: an LLM error after retries, or a bug, becomes a draft with
status "failed" and the error, never a half-written item. The exception is a fault every
further item would hit too (`LLMConfigFault`, e.g. a refused key): it propagates as its type,
no draft is written, and the run stops with the item still pending (core.runs).
"""
from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

import db
from core import checks, prompts
from core.agents import Ids, aggregator, coach, equity, evaluator, reviewer, reviser
from core.errors import FairMarkError, LLMConfigFault, LLMError
from core.llm import default_provider, make_llm
from core.pseudonym import Pseudonymizer
from core.rubric import Rubric
from db import drafts as drafts_db

log = logging.getLogger(__name__)

MAX_ROUNDS = 2
ATTENTION_FLAGS = ("short_text", "injection", "code", "non_english")
ROLES_USED = ("evaluator", "equity", "coach", "aggregator", "reviewer", "reviser")


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
        draft = build_draft(llm, item, Ids(run_id=run_id, submission_id=submission_id))
        return drafts_db.save_draft(conn, draft, rubric=rubric, run_id=run_id)
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
        "models": {role: llm.model_for(role) for role in ROLES_USED},
        "prompt_hashes": prompts.hashes(),
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
    hidden = pz.hide(text)
    step = _Step()
    try:
        result = _agents(llm, item, rubric, hidden, ids, step)
    except LLMConfigFault:
        raise  # every further item would fail the same way: the caller stops, nothing is stored
    except LLMError as e:
        return _failed(base, flags, sub_checks, f"{step.name}: {type(e).__name__}: {e}")
    except Exception as e:  # a bug must not stop the run; the teacher sees it on the item
        log.exception("assessment of submission %s failed in %s", item["id"], step.name)
        return _failed(base, flags, sub_checks, f"{step.name}: internal error {type(e).__name__}: {e}")

    reasons = [checks.ATTENTION_TEXT[f] for f in flags if f in ATTENTION_FLAGS]
    reasons += result.pop("reasons")
    scores = result["scores"]
    draft = {
        **base, **result, "total": rubric.total(scores),
        "checks": sub_checks + result["checks"], "flags": flags, "attention_reasons": reasons,
        "status": "needs_attention" if reasons else "drafted",
    }
    # Back to real names for the teacher: only the stored draft has them, never a prompt.
    for key in ("evaluation", "equity", "coach", "comment", "checks", "reviewer", "revisions", "attention_reasons"):
        draft[key] = pz.restore_obj(draft[key])
    return draft


def _failed(base: dict, flags: list[str], sub_checks: list[dict], error: str) -> dict:
    return {**base, "scores": {}, "total": 0, "checks": sub_checks, "flags": flags,
            "attention_reasons": [f"The AI assessment failed ({error}). Regenerate it or mark it by hand."],
            "status": "failed", "error": error[:2000]}


def _degraded(step: str, e: LLMError, consequence: str) -> str:
    return f"The {step} failed ({type(e).__name__}: {e}); {consequence}"


def _recoverable(e: LLMError) -> bool:
    """After the Evaluator has scored, a later agent's fault costs only its contribution: the
    draft is kept and sent to a teacher with the reason. A fault of the configuration (a
    refused key) is not recoverable: it ends the run (core.runs), so it is re-raised."""
    return not isinstance(e, LLMConfigFault)


def _agents(llm, item: dict, rubric: Rubric, text: str, ids: Ids, step: _Step) -> dict:
    assignment = {"title": item["title"], "prompt": item["prompt"], "key_concepts": item["key_concepts"]}
    target = float(item["target_grade"])
    reasons: list[str] = []

    step.name = "evaluator"
    ev = evaluator.run(llm, rubric=rubric, assignment=assignment, text=text, ids=ids)
    evaluation = ev.data.model_dump()
    scores = evaluator.scores(ev.data)

    # Equity Monitor and Coach are independent: run them side by side.
    step.name = "equity monitor / coach"
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix=f"agents-{item['id']}") as pool:
        f_eq = pool.submit(equity.run, llm, evaluator_notes=evaluator.for_equity(ev.data), ids=ids)
        f_co = pool.submit(coach.run, llm, text=text, ids=ids)
        try:
            eq = f_eq.result().data.model_dump()
        except LLMError as e:
            if not _recoverable(e):
                raise
            eq = {"flags": []}
            reasons.append(_degraded("Equity Monitor", e, "the wording of the feedback was not checked for bias"))
        try:
            questions = f_co.result().data.questions
        except LLMError as e:
            if not _recoverable(e):
                raise
            questions = []
            reasons.append(_degraded("Metacognitive Coach", e, "the feedback has no coaching question from it"))

    step.name = "aggregator"
    try:
        comment = aggregator.run(llm, rubric=rubric, evaluation=evaluation, equity=eq, questions=questions,
                                 target_grade=target, ids=ids).data.comment
    except LLMError as e:
        if not _recoverable(e):
            raise
        # The scores stand; the teacher writes the comment (or regenerates).
        found = checks.comment_checks("", text, evaluation=evaluation, target_grade=target)
        reasons.append(_degraded("Aggregator", e, "there is no drafted comment: write one or regenerate"))
        return {"scores": scores, "evaluation": evaluation, "equity": eq, "coach": {"questions": questions},
                "comment": "", "checks": found, "reviewer": {}, "verdict": None, "revisions": [], "rounds": 0,
                "confidence": confidence(ev.score_probs, scores), "reasons": reasons}
    revisions = [{"round": 0, "comment": comment, "fixes": [], "failed_checks": []}]
    rounds = 0
    verdict = None
    while True:
        found = checks.comment_checks(comment, text, evaluation=evaluation, target_grade=target)
        bad = checks.failed(found)
        step.name = "reviewer"
        try:
            verdict = reviewer.run(llm, rubric=rubric, scores=scores, comment=comment, checks=found, ids=ids).data
        except LLMError as e:
            if not _recoverable(e):
                raise
            verdict = None
            reasons.append(_degraded("Reviewer", e, "the comment was not reviewed against the scores"))
            break
        if (verdict.verdict == "CONFIDENT" and not bad) or rounds == MAX_ROUNDS:
            break
        rounds += 1
        step.name = f"reviser (round {rounds})"
        try:
            revised = reviser.run(llm, rubric=rubric, scores=scores, comment=comment, fixes=verdict.fixes,
                                  failed_checks=bad, target_grade=target, ids=ids).data.comment
        except LLMError as e:
            if not _recoverable(e):
                raise
            reasons.append(_degraded(f"Reviser (round {rounds})", e, "the last comment is kept unrevised"))
            rounds -= 1
            break
        comment = revised
        revisions.append({"round": rounds, "comment": comment, "fixes": verdict.fixes,
                          "failed_checks": [c["name"] for c in bad]})

    if bad:
        reasons.append(f"After {rounds} revision round(s) these checks still fail: "
                       + "; ".join(f"{c['label']} ({c['detail']})" for c in bad))
    if verdict is not None and verdict.verdict == "REVISE":
        fixes = "; ".join(verdict.fixes) or verdict.explanation
        reasons.append(f"After {rounds} revision round(s) the Reviewer still asks for changes: {fixes}")
    return {
        "scores": scores, "evaluation": evaluation, "equity": eq, "coach": {"questions": questions},
        "comment": comment, "checks": found, "reviewer": verdict.model_dump() if verdict else {},
        "verdict": verdict.verdict if verdict else None,
        "revisions": revisions, "rounds": rounds, "confidence": confidence(ev.score_probs, scores),
        "reasons": reasons,
    }


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
