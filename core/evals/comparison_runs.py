"""Drafting a blind comparison's pairs: a run of the one run engine (core.runs.engine, runs.kind
'comparisons'), so a restart leaves it resumable instead of "drafting" for ever, and every call
carries the run (the Costs page shows comparisons apart from the reflections).

Each pair is one submission drafted twice, by configuration A (the one in use) and B (the
variant), without touching the submission's own drafts; then configuration A's pedagogy judge
rates both comments. The item comes from the pipeline's own loader (core.pipeline.item_for: the
course's roster for masking, the assignment's examples) and the judge cascade runs with the
thresholds in force, so A drafts exactly as an assessment run would. The judge reads the text
and the comment masked (the stored comment has the names back for the teacher).

One transaction per pair. A pair whose two comments are the same is stored but skipped (no
judge call, never shown to teachers, counted apart: db.comparisons.SAME). A pair whose drafting
fails keeps its error and stays out of the comparison. A configuration fault (a refused key;
the same unknown model or unreachable endpoint on several pairs in a row, core.runs.guard) stops
the run with what to fix, the pairs it had failed waiting again for the resume. When the
configuration in use is no longer the comparison's A (a model or prompt changed since it was
created), the drafting stops: A would not be A.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import db
from core import pipeline
from core.agents import Ids, registry
from core.agents import pedagogy as pedagogy_judge
from core.errors import LLMConfigFault, LLMError
from core.evals import config as ai_config
from core.judging import comment_judges, scoring
from core.language.interface import Message, message_of
from core.llm import effective_settings
from core.runs.engine import Kind, RunStopped
from core.runs.guard import DEFAULT_LIMIT, ConfigFaultGuard
from core.settings import Settings
from db import comparisons as cmp_db
from db import evals as evals_db
from db import runs as runs_db

log = logging.getLogger(__name__)


def run_config(settings: Settings) -> dict:
    """What the drafting run records (the comparison adds its id)."""
    return {"concurrency": int(settings.concurrency), "stop_after_faults": settings.stop_after_faults}


def judge_choice(judge_a: dict | None, judge_b: dict | None) -> str | None:
    """The pedagogy judge's preference from its two verdicts (sum of the three criteria).

    >>> judge_choice({"leads": 4, "level": 4, "next_step": 5}, {"leads": 2, "level": 4, "next_step": 5})
    'A'
    >>> judge_choice(None, {"leads": 2, "level": 4, "next_step": 5}) is None
    True
    """
    if judge_a is None or judge_b is None:
        return None
    ta, tb = pedagogy_judge.total(judge_a), pedagogy_judge.total(judge_b)
    return "A" if ta > tb else "B" if tb > ta else "tie"


def judge(llm, item: dict, comment: str, ids: Ids) -> dict | None:
    """The pedagogy judge of the configuration in use on one comment (None offline), reading the
    masked text and the comment masked again; its verdict comes back with the names."""
    role = registry.get("pedagogy")
    if role.needs_llm and llm.provider == "offline":
        return None
    job, pz = pipeline.masked_job(item, ids)
    job.comment = pz.hide(comment)
    try:
        # asked as drafts ask it (with the grounding judge when they share a model), so the trust
        # earned on these comparisons is the trust of the verdict the drafts carry
        return pz.restore_obj(comment_judges.verdicts(llm, job, role)[role.name])
    except LLMConfigFault:
        raise
    except LLMError as e:
        log.warning("pedagogy judge failed on submission %s: %s", item["id"], e)
        return None


def same_comment(a: dict, b: dict) -> bool:
    """Whether A and B wrote the same comment (such a pair is skipped: db.comparisons.SAME).

    >>> same_comment({"comment": "Well done. "}, {"comment": "Well done."}), same_comment({"comment": "a"}, {"comment": "b"})
    (True, False)
    """
    return (a.get("comment") or "").strip(cmp_db.WHITESPACE) == (b.get("comment") or "").strip(cmp_db.WHITESPACE)


@dataclass
class Context:
    comparison_id: int
    llm_a: ConfigFaultGuard
    llm_b: ConfigFaultGuard
    variant: ai_config.Variant
    config: scoring.Config

    def held(self) -> list[int]:
        return sorted(set(self.llm_a.held_items()) | set(self.llm_b.held_items()))


def _prepare(run: dict, db_path: str, given) -> Context:
    """Both configurations' LLMs (the caller's, else A = the configuration in use, B = it with
    the variant), each watched for configuration faults, and the cascade's thresholds in force."""
    llm_a, llm_b = given if given is not None else (None, None)
    conn = db.connect(db_path)
    try:
        c = cmp_db.of_run(conn, run["id"])
        provider = evals_db.get_config(conn, c["config_a"])["definition"]["provider"]
        config = scoring.Config.from_settings(effective_settings(conn=conn))
    finally:
        conn.close()
    variant = ai_config.load_variant(c["variant_b"])
    if llm_a is None:
        llm_a = ai_config.llm_for(provider, db_path)
        now = ai_config.config_hash(ai_config.of_llm(llm_a))
        if now != c["config_a"]:
            raise RunStopped(Message("The AI configuration in use is {now}, no longer comparison {id}'s configuration A "
                                     "({config_a}): a model, prompt or temperature changed since it was created. "
                                     "Start a new comparison.", now=now, id=c["id"], config_a=c["config_a"]))
    if llm_b is None:
        llm_b = ai_config.llm_for(provider, db_path, variant)
    limit = run["config"].get("stop_after_faults") or DEFAULT_LIMIT
    return Context(c["id"], ConfigFaultGuard(llm_a, limit), ConfigFaultGuard(llm_b, limit), variant, config)


def _draft_pair(db_path: str, run_id: int, submission_id: int, ctx: Context) -> None:
    conn = db.connect(db_path)
    try:
        if runs_db.cancel_requested(conn, run_id):
            return  # stays pending: a resume continues here
        pair_id = cmp_db.pair_to_draft(conn, run_id, submission_id)
        if pair_id is None:
            return
        ids = Ids(run_id=run_id, submission_id=submission_id)
        try:
            item = pipeline.item_for(conn, submission_id)
            a = pipeline.build_draft(ctx.llm_a, item, ids, ctx.config)
            b = pipeline.build_draft(ctx.llm_b, item, ids, ctx.config, variant=ctx.variant)
            failed = next((d for d in (a, b) if d["status"] == "failed"), None)
            if failed is not None:
                cmp_db.save_error(conn, pair_id, failed.get("error") or "drafting failed")
                return
            if same_comment(a, b):  # skipped: nothing for a teacher or the judge to choose between
                ja = jb = None
            else:
                ja, jb = judge(ctx.llm_a, item, a["comment"], ids), judge(ctx.llm_a, item, b["comment"], ids)
        except LLMConfigFault as e:
            fault = message_of(e)
            raise RunStopped(Message("Comparison drafting stopped at submission {id}: {fault} The remaining pairs "
                                     "are still waiting: fix the setting, then resume the drafting.", id=submission_id,
                                     fault=fault),
                             fault=Message("{fault} Fix the setting, then resume the drafting.", fault=fault)) from e
        except Exception as e:  # a bug must not stop the other pairs; the pair keeps the error
            log.exception("comparison %s: submission %s failed", ctx.comparison_id, submission_id)
            cmp_db.save_error(conn, pair_id, f"{type(e).__name__}: {e}")
            return
        with conn.atomic():
            cmp_db.save_drafts(conn, pair_id, draft_a=a, draft_b=b, judge_a=ja, judge_b=jb,
                               judge_choice=judge_choice(ja, jb))
    finally:
        conn.close()


def _progress(conn, run_id: int) -> dict:
    run = runs_db.get_run(conn, run_id)
    c = cmp_db.of_run(conn, run_id)
    return {"run_id": run_id, "comparison_id": c["id"], "status": c["status"], "total": run["total"],
            **cmp_db.item_counts(conn, run_id), "error": run["error"]}


KIND = Kind(name="comparisons", pending=cmp_db.pending_items, counts=cmp_db.item_counts, prepare=_prepare,
            process=_draft_pair, progress=_progress, held=lambda ctx: ctx.held(), reopen=cmp_db.reopen_items)
