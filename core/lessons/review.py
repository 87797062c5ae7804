"""One lesson through seed 001's review, stored in one transaction:

    Stage 1 heuristics (free) -> a clear failure is settled here, without an LLM
    the judge cascade (core.lessons.judge) on the lesson as it is
    entropy of the lesson text (echo endpoint, when configured) -> flags -> fact check of the
        flagged sentences only, against the attached sources
    targeted refinement (core.lessons.refine), at most 2 rounds
    the tier (core.lessons.tiers) from the final version, and the verdict on the original

The offline baseline (no LLM) runs Stage 1 only; its reviews are marked is_offline and labelled
core.offline.LABEL. A fault every call would hit (LLMConfigFault) propagates and stores nothing;
any other failure of the first judge stores a failed review with the reason.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

import db
from core.errors import LLMConfigFault, LLMError
from core.ingest.commit import text_hash
from core.language.interface import Message, N_, message_of, stored
from core.lessons import entropy, factcheck, heuristics, refine, roles, tiers
from core.lessons.judge import Judgment, LessonJob, Spend, judge
from core.lessons.spec import LessonSpec
from core.llm import echo
from core.offline import LABEL as OFFLINE_LABEL
from db import lessons as lessons_db

log = logging.getLogger(__name__)


@dataclass
class Options:
    """What a review may use besides the LLM: the judge panel (default: one judge per seat of
    the LLM's configured models) and the echo endpoint for the lesson's own logprobs."""
    judges: list[roles.JudgeModel] | None = None
    echo: echo.Endpoint | None = None
    echo_transport: Callable[[dict], dict] | None = None


def spec_of(lesson: dict) -> LessonSpec:
    return LessonSpec(title=lesson["title"], sources=lesson["sources"], **lesson["spec"])


def review_lesson(db_path, lesson_id: int, llm=None, *, run_id: int | None = None,
                  options: Options | None = None) -> dict:
    """Review one lesson; returns {review_id, status, tier, score}. review_id is None when the
    lesson changed (or was approved) while it was being reviewed: nothing was stored."""
    options = options or Options()
    conn = db.connect(db_path)
    try:
        lesson = lessons_db.get(conn, lesson_id)
        spec, text = spec_of(lesson), lesson["text"]
        checks = heuristics.run(text, spec)
        offline = llm is None or getattr(llm, "provider", "") == "offline"
        review = {"provider": "offline" if offline else llm.provider, "is_offline": offline,
                  "text_hash": text_hash(text)}
        record = {"heuristics": checks, "stage1_score": heuristics.score(checks), "notes": []}
        problems = [c["label"] + ": " + c["detail"] for c in heuristics.problems(checks) if c["severity"] != "info"]
        fixes, votes, score = [], [], None
        if offline or heuristics.clear_failure(checks):
            clear = [Message("{check}: {detail}", check=_message(c["label"]), detail=_message(c["detail"]))
                     for c in checks if not c["passed"] and c["severity"] == "fail"]
            decision = tiers.decide(tiers.Evidence(offline=offline, clear_failures=clear))
            review["first_verdict"] = "revise" if problems else "publish"
            record["notes"].append(OFFLINE_LABEL if offline else N_("Settled by the Stage 1 checks: no judge was asked."))
        else:
            job = LessonJob(lesson_id, lesson["title"], text, spec, heuristics.summary(checks), run_id)
            try:
                decision, score, fixes, votes = _judged(db_path, llm, job, options, record, review, problems)
            except LLMConfigFault:
                raise
            except LLMError as exc:
                _keep_forms(record, error=exc)
                review.update(record=record, error=str(exc)[:2000])
                rid = lessons_db.save_review(conn, lesson_id, loaded_version=lesson["version"], review=review,
                                             fixes=[], votes=[], status="failed", tier=None, score=None,
                                             priority=tiers.priority("failed", None), run_id=run_id,
                                             item_status="failed")
                return {"review_id": rid, "status": "failed", "tier": None, "score": None, "error": str(exc)}
        record["tier_reasons"] = decision.reasons
        record["tier_reasons_said"] = [stored(r) for r in decision.reasons]   # their form, for the page
        _keep_forms(record)
        review["record"] = record
        rid = lessons_db.save_review(
            conn, lesson_id, loaded_version=lesson["version"], review=review, fixes=fixes, votes=votes,
            status="reviewed", tier=decision.tier, score=score, priority=tiers.priority("reviewed", decision.tier),
            run_id=run_id, item_status="needs_review" if decision.tier == "needs_review" else "done")
        return {"review_id": rid, "status": "reviewed", "tier": decision.tier, "score": score}
    finally:
        conn.close()


def _message(text) -> Message:
    """Core's text as a Message: an N_ label (a plain str) is said in the reader's language too."""
    return text if isinstance(text, Message) else Message(text)


def _keep_forms(record: dict, error: Exception | None = None) -> None:
    """Beside the English the review stores, the form of core's Messages in it (core.language.interface.stored),
    so the page can show them in the teacher's language: the Stage 1 checks' labels and details, the
    notes (the judges' panel, the fact check) and a failed review's error."""
    record["heuristics_said"] = [{"label": stored(c["label"]), "detail": stored(c["detail"])}
                                 for c in record["heuristics"]]
    record["notes_said"] = [stored(n) for n in record["notes"]]
    if error is not None:
        record["error_said"] = stored(message_of(error))


def _judged(db_path, llm, job: LessonJob, options: Options, record: dict, review: dict, problems: list[str]):
    members, panel_notes = roles.panel(llm, generated_by=job.spec.generated_by, judges=options.judges)
    record["panel"] = [m.name for m in members]
    record["notes"] += panel_notes
    measured = _entropy(db_path, job, options, record)     # first: it is kept even if the judge fails
    first = judge(members, job)
    record["first"] = first.record()
    flags, flag_note = _fact_check(llm, job, measured, record)
    rounds = refine.refine(job.text, first, rejudge=lambda t: _rejudge(members, job, t),
                           fix=refine.fixer(llm, job))
    final_text, final = refine.final(job.text, first, rounds)
    record["rounds"] = [r.record() for r in rounds]
    record["final"] = final.record()
    fix_spend = sum((r.spend for r in rounds), start=Spend())
    record["spend"] = {"first": vars(first.spend), "fixes": vars(fix_spend)}

    critical_first = _judge_critical(first) + factcheck.critical(flags)
    critical_final = _judge_critical(final) + factcheck.critical([f for f in flags if f["sentence"] in final_text])
    priced = first.spend.cost_usd > 0
    decision = tiers.decide(tiers.Evidence(
        score=final.weighed.score, vetoed=final.weighed.vetoed, confidences=final.confidences(), unsure=final.unsure,
        critical_flags=critical_final, first_cost=first.spend.amount(priced), fix_cost=fix_spend.amount(priced)))
    review["first_verdict"] = "publish" if first.weighed.passed and not problems and not critical_first else "revise"
    if flag_note:
        record["notes"].append(flag_note)
    fixes = [{"round": r.round, "dimension": r.dimension, "section": r.section, "before": r.before, "after": r.after,
              "critique": r.critique, "gain": r.gain, "status": "proposed" if r.kept else "discarded"}
             for r in rounds if r.after != r.before]
    votes = [{"criterion": k, "judge": v.judge, "tier": v.tier, "score": s, "confidence": v.confidence.get(k),
              "weight": v.weight} for v in first.votes for k, s in v.scores.items()]
    return decision, final.weighed.score, fixes, votes


def _rejudge(members, job: LessonJob, text: str) -> Judgment:
    checks = heuristics.run(text, job.spec)
    again = LessonJob(job.lesson_id, job.title, text, job.spec, heuristics.summary(checks), job.run_id)
    return judge(members, again)


def _judge_critical(j: Judgment) -> list[str]:
    return [Message("the judge found \"{quote}\" ({location}) factually wrong: {fix}", quote=i["quote"],
                    location=i["location"], fix=i["fix"])   # the judge's words, in core's sentence
            for i in j.issues() if i["dimension"] == "factual_integrity" and i["severity"] == "critical"]


def _entropy(db_path, job: LessonJob, options: Options, record: dict) -> dict | None:
    """Entropy per sentence of the lesson text; skipped with a note when no echo endpoint is
    configured or it fails (the review goes on)."""
    if options.echo is None:
        record["entropy"] = {"skipped": N_("No completions endpoint with prompt logprobs is configured "
                                           "(FAIRMARK_LESSON_LOGPROBS_BASE_URL): the lesson's own entropy was not "
                                           "measured.")}   # the page shows it with t()
        return None
    try:
        data = echo.prompt_logprobs(options.echo, job.text, db_path=db_path, transport=options.echo_transport,
                                    ctx=job.ctx(roles.LOGPROBS_AGENT, _EchoPrompt))
    except LLMConfigFault:
        raise
    except LLMError as exc:
        skipped = Message("The prompt-logprobs call failed: {error}", error=message_of(exc))
        record["entropy"] = {"skipped": skipped, "skipped_said": stored(skipped)}
        return None
    measured = {**entropy.lesson_entropy(job.text, data), "model": options.echo.model}
    record["entropy"] = measured
    return measured


def _fact_check(llm, job: LessonJob, measured: dict | None, record: dict) -> tuple[list[dict], str]:
    """Conditional retrieval: only the flagged sentences are checked against the sources."""
    if measured is None:
        return [], ""
    checked, spend, note = factcheck.check(llm, job, measured["flags"])
    measured.update(flags=checked, spend=vars(spend))
    return checked, note


class _EchoPrompt:
    """How the echo call is named in the call log (it has no prompt file)."""
    name = roles.LOGPROBS_AGENT
    hash = echo.PROMPT_HASH
