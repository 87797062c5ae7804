"""One submission through the agents (seed 000, Zhang & Luo 2025), in the order of their registry stages:

    score (Evaluator, through seed 001's judge cascade: core.judging.scoring)
      -> after_score (Equity Monitor ∥ Coach ∥ ...) -> compose (Aggregator)
      -> checks -> review (Reviewer) -> on REVISE or a failed check: revise (Reviser), checks,
         Reviewer again (at most 2 rounds) -> after_comment (judges of the comment, side by side)
      -> needs attention with the reasons when it still does not pass.

Every roster name (each student's own pseudonym), e-mail and phone number is masked before the
first call (core.privacy.pseudonym); the draft is restored for the teacher just before it is stored,
its evidence quotes as the student wrote them. Each agent call is logged (and cached)
by the LLM wrapper as it finishes, so a resumed item replays finished steps from the cache;
the draft, the submission's status and the run item are then written in one transaction.
Every fault ends as a stored state: an LLM error after retries, or a bug, becomes a draft with
status "failed" and the error, never a half-written item. Only the scoring role's failure
fails the item; any later role's failure costs only its contribution (the reason is shown).
The exception is a fault every further item would hit too (`LLMConfigFault`, e.g. a refused
key): it propagates as its type, no draft is written, and the run stops with the item still
pending (core.runs.reflections).
"""
from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

import db
from core import checks, injection
from core.signoff import triage
from core.agents import Ids, Job, registry
from core.calibration import anchors
from core.courses import comment_bank
from core.errors import FairMarkError, LLMConfigFault, LLMError
from core.language.interface import Message, hidden, message_of
from core.evals import config as ai_config
from core.evals import gate, rules
from core.growth import learning
from core.judging import comment_judges, scoring
from core.language import course as course_language
from core.language import detect as language_detect
from core.llm import default_provider, effective_settings, make_llm
from core.offline import scorer as offline_scorer
from core.privacy.pseudonym import Pseudonymizer
from core.rubric import Rubric
from core.runs import stored as stored_texts
from core.signoff import attention, attention_more, eligibility
from db import drafts as drafts_db
from db import evals as evals_db
from db import roster as roster_db

log = logging.getLogger(__name__)

MAX_ROUNDS = 2
ATTENTION_FLAGS = ("short_text", "injection", "code", "non_english")


def assess_one(db_path, submission_id: int, *, llm=None, run_id: int | None = None, actor: str = "") -> int:
    """Assess one submission now (the Review page's Regenerate) and return the new draft id.

    Without `llm`, the configured provider is used (the offline baseline when none is set),
    without reading the cache: a teacher who asks for a new draft gets a new answer. Its AI
    configuration must have passed the eval gate (or an admin's override), as for a run
    (core.evals.gate: GateError, nothing drafted).
    A teacher's approved, rejected or released item keeps its status; the new draft is stored
    beside it.
    """
    if llm is None:
        conn = db.connect(db_path)
        try:
            settings = effective_settings(conn=conn)
            provider = default_provider(settings)
            gate.require(conn, ai_config.definition(provider, settings), actor=actor,
                         used_for=f"regenerate submission {submission_id}")
        finally:
            conn.close()
        llm = make_llm(provider, db_path, read_cache=False)
    draft_id = assess_submission(db_path, submission_id, llm, run_id=run_id)
    if draft_id is None:
        raise FairMarkError(Message("submission {id} was already finished by another worker", id=submission_id))
    return draft_id


def assess_submission(db_path, submission_id: int, llm, *, run_id: int | None = None) -> int | None:
    """Run the agents on one submission and store the draft; returns the draft id (None when a
    concurrent worker had already finished this run item). An LLMConfigFault propagates and
    nothing is stored."""
    conn = db.connect(db_path)
    try:
        item = item_for(conn, submission_id, offline=llm.provider == "offline")
        config = scoring.Config.from_settings(effective_settings(conn=conn))
    finally:
        # No connection is held while the agents wait on the provider (hours in batch mode, with
        # 500 submissions at once): on PostgreSQL each would hold a server process.
        conn.close()
    rubric: Rubric = item["rubric"]
    draft = build_draft(llm, item, Ids(run_id=run_id, submission_id=submission_id), config)
    conn = db.connect(db_path)
    try:
        votes = draft.pop("votes", None)
        # Why it may not be approved in bulk, decided once here (db.samples reads it in SQL).
        draft["held_back"] = eligibility.hold_reasons(draft, votes or [], rubric)
        draft["attention_said"] = attention.said_forms(draft.get("attention_reasons") or [])   # drafts.attention_said
        evals_db.record_config(conn, draft["ai_config"], ai_config.of_llm(llm), used_for=f"draft of submission {submission_id}")
        priority = triage.priority(draft["status"], draft.get("scores") or None, rubric,
                                   confidence=draft.get("confidence"), unsure=triage.is_unsure(draft))
        return drafts_db.save_draft(conn, draft, priority=priority, run_id=run_id, votes=votes)
    finally:
        conn.close()


def item_for(conn, submission_id: int, *, offline: bool = False) -> dict:
    """Everything drafting one submission needs (db.drafts.load_item), with the course's roster
    (every classmate is masked, not only the author), the assignment's examples (anchors; not for
    the offline baseline, which never reads them: its scorer learns from the scores themselves),
    its learned offline scorer and the student's previous released comment. Every path that
    drafts (runs, Regenerate, comparisons) loads its item here."""
    item = drafts_db.load_item(conn, submission_id)
    # The course's language (core.language): what the reflection should be in, what the agents
    # write in and what the checks read the text as.
    item["language"] = course_language.stored(item.get("language"))
    item["roster"] = roster_db.of_submission(conn, submission_id)
    item["anchors"] = [] if offline else \
        anchors.for_submission(conn, submission_id, item["assignment_id"], item["rubric"])
    item["offline_scorer"] = _offline_scorer(conn, item["assignment_id"])
    # The student's previous released comment and the teacher's marks (core.growth.learning):
    # rendered into the Coach's and the Aggregator's prompts, hence part of their cache keys.
    item["previous"] = learning.last_week(conn, submission_id)
    # The comment bank's comments tied to a criterion and level (core.courses.comment_bank): the
    # Aggregator picks its style examples among them by the item's scores.
    item["bank"] = comment_bank.candidates_of(conn, submission_id)
    return item


def _offline_scorer(conn, assignment_id: int):
    """The assignment's learned offline scorer (trained here when the teacher's scores changed);
    its fault costs only the learning: the heuristic scores instead."""
    try:
        return offline_scorer.current(conn, assignment_id)
    except Exception:
        log.exception("the offline scorer of assignment %s could not be trained or loaded", assignment_id)
        return None


def masked_job(item: dict, ids: Ids, variant: ai_config.Variant = ai_config.STANDARD) -> tuple[Job, Pseudonymizer]:
    """The agents' Job for an item, its text masked against the roster, and the Pseudonymizer
    that masked it (its `restore_obj` puts the names back for the teacher)."""
    pz = Pseudonymizer(item["student_name"], item["student_email"], item["pseudonym"], item.get("roster", ()))
    job = Job(rubric=item["rubric"], text=pz.hide(item["text"] or ""), ids=ids, prompt_dir=variant.prompt_dir,
              language=item.get("language") or "en",
              assignment={**{k: item.get(k) for k in ("title", "prompt", "key_concepts", "target_grade",
                                                       "answer_key", "answer_kind", "answer_tolerance",
                                                       "source_text")},
                          "anchors": item.get("anchors") or [], "offline_scorer": item.get("offline_scorer")})
    # Masked by a second Pseudonymizer (the same placeholders): `pz` must keep the text's masking,
    # which restores the evidence quotes of the agents' answers.
    side = Pseudonymizer(item["student_name"], item["student_email"], item["pseudonym"], item.get("roster", ()))
    prev = item.get("previous")
    # Last week's comment is teacher-approved but quotes the student and names them: masked too.
    job.previous = {**prev, "comment": side.hide(prev["comment"] or "")} if prev else None
    # Bank comments are teacher text but may name a student: masked too.
    job.bank = [{**c, "text": side.hide(c["text"])} for c in item.get("bank") or ()]
    return job, pz


class _Step:
    """Remembers which agent is running, so a failure says where it happened."""
    name = "start"


def build_draft(llm, item: dict, ids: Ids, config: scoring.Config = scoring.Config(), *,
                variant: ai_config.Variant = ai_config.STANDARD) -> dict:
    """One submission's draft (not stored). `variant` drafts with another configuration's prompts
    (a comparison's B or an eval of a variant); its models and temperature are the `llm`'s."""
    rubric: Rubric = item["rubric"]
    base = {
        "submission_id": item["id"], "rubric_id": item["rubric_id"], "provider": llm.provider,
        "is_offline": int(llm.provider == "offline"),
        "models": {name: llm.model_for(name) for name in registry.names()},
        "prompt_hashes": registry.prompt_hashes(variant.prompt_dir),
        "ai_config": ai_config.config_hash(ai_config.of_llm(llm, variant)),
    }
    text = item["text"] or ""
    language = item.get("language") or "en"
    sub_checks = rules.with_forms(checks.submission_checks(text, language))   # kept so on every path (empty, failed)
    flags = [c["name"] for c in sub_checks if not c["passed"]]
    if "empty" in flags:
        # Nothing to assess: the bottom of the scale, no call, a teacher looks.
        zeros = dict.fromkeys(rubric.keys, rubric.scale_min)
        return {**base, "scores": zeros, "total": rubric.total(zeros), "checks": sub_checks, "flags": flags,
                "attention_reasons": [checks.ATTENTION_TEXT["empty"]], "status": "needs_attention",
                "models": {}}
    job, pz = masked_job(item, ids, variant)
    step = _Step()
    try:
        result = _agents(llm, job, step, config, flagged=any(f in ATTENTION_FLAGS for f in flags))
    except LLMConfigFault:
        raise  # every further item would fail the same way: the caller stops, nothing is stored
    except LLMError as e:
        return _failed(base, flags, sub_checks, Message("{step}: {error_type}: {error}", step=step.name,
                                                        error_type=type(e).__name__, error=message_of(e)))
    except Exception as e:  # a bug must not stop the run; the teacher sees it on the item
        log.exception("assessment of submission %s failed in %s", item["id"], step.name)
        return _failed(base, flags, sub_checks, Message("{step}: internal error {error_type}: {error}", step=step.name,
                                                        error_type=type(e).__name__, error=message_of(e)))

    # Second line of defence: the Evaluator's own report of instructions aimed at it, and
    # scores that are what the text asked for (core.injection).
    injected, steered = injection.attention(result["outputs"].get(_only("score").name) or {}, result["scores"],
                                            rubric, text)
    if injected and "injection" not in flags:
        flags.append("injection")
        sub_checks = [dict(c, passed=False, severity="warn", detail=Message("none found by the patterns; reported by "
                           "the Evaluator")) if c["name"] == "injection" else c for c in sub_checks]
    reasons = [_attention(f, language) for f in flags if f in ATTENTION_FLAGS] + steered
    reasons += result.pop("reasons")
    draft = {
        **base, **result, "total": rubric.total(result["scores"]),
        "checks": sub_checks + result["checks"], "flags": flags, "attention_reasons": reasons,
        "status": "needs_attention" if reasons else "drafted",
    }
    if llm.provider == "offline":
        # The rule-based Reviewer says CONFIDENT of every comment, a one-word text or an
        # injection attempt too: a verdict that carries no information is not shown (issue 21).
        draft["verdict"] = None
        if "reviewer" in draft["outputs"]:
            draft["outputs"]["reviewer"] = {**draft["outputs"]["reviewer"], "verdict": None}
    draft["checks"] = rules.with_forms(draft["checks"])   # a Message detail's form beside its English
    # Back to real names for the teacher: only the stored draft has them, never a prompt.
    for key in ("outputs", "comment", "checks", "revisions"):
        draft[key] = pz.restore_obj(draft[key])
    # The reasons stay Messages, so their forms are kept beside the English.
    draft["attention_reasons"] = [_restored(r, pz) for r in draft["attention_reasons"]]
    return draft


def _restored(reason, pz):
    """A reason with real names: its English restored as a whole, as it always was (a quote in
    the template's own marks comes back as the student wrote it, not by the first name alone),
    and a Message whose values restored read the same; else the English read back by template."""
    english = pz.restore(str(reason))
    if isinstance(reason, Message) and str(message := hidden(reason, pz.restore)) == english:
        return message
    return attention.reason_of(english)


def _attention(flag: str, language: str) -> str:
    """Why a flag sends the item to a teacher; the language flag names the course's language."""
    return language_detect.attention_text(language) if flag == "non_english" else checks.ATTENTION_TEXT[flag]


def _failed(base: dict, flags: list[str], sub_checks: list[dict], error: Message) -> dict:
    """A failed draft: its error in English, and the error's form (`error_said`), which
    db.drafts.save_draft keeps on the run item beside the English (core.runs.stored)."""
    english, form = stored_texts.failed(error)
    return {**base, "scores": {}, "total": 0, "checks": sub_checks, "flags": flags,
            "attention_reasons": [attention.failed(error)],
            "status": "failed", "error": english, "error_said": form}


def _degraded(label, e: LLMError, consequence: str) -> Message:
    return attention_more.degraded(label, type(e).__name__, message_of(e), consequence)


def _recoverable(e: LLMError) -> bool:
    """After the Evaluator has scored, a later agent's fault costs only its contribution: the
    draft is kept and sent to a teacher with the reason. A fault of the configuration (a
    refused key) is not recoverable: it ends the run (core.runs.reflections), so it is re-raised."""
    return not isinstance(e, LLMConfigFault)


def _only(stage: str):
    roles = registry.at(stage)
    if len(roles) != 1:
        raise FairMarkError(Message("the pipeline needs exactly one '{stage}' role; the registry has {roles}",
                                    stage=stage, roles=[r.name for r in roles] or Message("none")))
    return roles[0]


def _side_by_side(llm, job: Job, stage: str, reasons: list[str], step: _Step) -> None:
    """Run every role of a stage at once (they read only what earlier stages wrote); a role's
    fault is recorded as a reason and its output left out."""
    # Judges without an offline answer are not run by the offline baseline ("not run", never passed).
    roles = [r for r in registry.at(stage) if not (r.needs_llm and llm.provider == "offline")]
    if not roles:
        return
    step.name = " / ".join(r.label for r in roles)
    # The grounding and pedagogy judges in one call when they can be (core.judging.comment_judges).
    joint = comment_judges.ROLES if comment_judges.together(llm, job, [r.name for r in roles]) else ()
    with ThreadPoolExecutor(max_workers=len(roles), thread_name_prefix=f"agents-{job.ids.submission_id}") as pool:
        together = pool.submit(lambda: comment_judges.split(comment_judges.run(llm, job).data)) if joint else None
        futures = [(role, together if role.name in joint else
                    pool.submit(lambda r=role: {r.name: r.run(llm, job).data.model_dump()})) for role in roles]
        for role, future in futures:
            try:
                job.outputs[role.name] = future.result()[role.name]
            except LLMError as e:
                if not _recoverable(e):
                    raise
                reasons.append(_degraded(role.label, e, role.if_failed))
                continue
            reasons += role.attention(job.outputs[role.name])


def _agents(llm, job: Job, step: _Step, config: scoring.Config, *, flagged: bool) -> dict:
    reasons: list[str] = []
    scorer = _only("score")
    step.name = scorer.label.lower()
    scored = scoring.score(llm, job, config, flagged=flagged)
    job.outputs[scorer.name] = scored.evaluation
    job.scores = scored.scores
    reasons += scored.reasons
    # The Evaluator's evidence is checked once, here: a revision of the comment cannot repair a
    # made-up quote, so it sends the item to a teacher instead of into the revise loop.
    evidence = checks.check_evidence_quotes(scored.evaluation, job.text, job.language)
    if not evidence["passed"]:
        reasons.append(attention.evidence(evidence["detail"]))
    judged = {"confidence": scored.confidence, "judging": scored.judging, "votes": scored.votes}

    _side_by_side(llm, job, "after_score", reasons, step)

    composer = _only("compose")
    step.name = composer.label
    try:
        job.comment = composer.run(llm, job).data.comment
    except LLMError as e:
        if not _recoverable(e):
            raise
        # The scores stand; the teacher writes the comment (or regenerates).
        reasons.append(_degraded(composer.label, e, composer.if_failed))
        return {"outputs": job.outputs, "scores": job.scores, "comment": "", "checks": [evidence, *_comment_checks(job)],
                "verdict": None, "revisions": [], "rounds": 0, "reasons": reasons, **judged}
    revisions, rounds, verdict = _review_loop(llm, job, reasons, step)
    _side_by_side(llm, job, "after_comment", reasons, step)
    return {"outputs": job.outputs, "scores": job.scores, "comment": job.comment, "checks": [evidence, *job.checks],
            "verdict": verdict, "revisions": revisions, "rounds": rounds, "reasons": reasons, **judged}


def _comment_checks(job: Job) -> list[dict]:
    """The comment's checks; the evidence quotes are the Evaluator's, checked after scoring."""
    context = checks.DraftContext(
        source=job.source, question=str(job.assignment.get("prompt") or ""),
        coach_questions=tuple((job.outputs.get("coach") or {}).get("questions") or ()),
        criterion_keys=tuple(k for k in job.rubric.keys if "_" in k),     # "clarity" is a word, not a code
        answer=f"{job.answer_key.value} {job.answer_key.answer}" if job.answer_key else "",
        known=" ".join([*(c.title for c in job.rubric.criteria), str(job.assignment.get("title") or ""),
                        *job.key_concepts]),
        previous=(job.previous or {}).get("comment") or "")
    found = checks.comment_checks(job.comment, job.text, target_grade=job.target_grade, answer_key=job.answer_key,
                                  context=context, language=job.language)
    return [c for c in found if c["name"] != "evidence"] + rules.draft_checks(job.comment, job.text, context, job.language)


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
            reasons.append(_degraded(attention_more.in_round(reviser.label, rounds), e, reviser.if_failed))
            rounds -= 1
            break
        job.comment = revised
        revisions.append({"round": rounds, "comment": revised, "fixes": verdict.fixes,
                          "failed_checks": [c["name"] for c in bad]})

    if bad:
        reasons.append(attention_more.still_failing(rounds, bad))
    if verdict is not None and verdict.verdict == "REVISE":
        reasons.append(attention_more.still_revise(rounds, "; ".join(verdict.fixes) or verdict.explanation))
    return revisions, rounds, verdict.verdict if verdict else None

