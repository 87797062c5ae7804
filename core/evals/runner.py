"""Run the eval suite with an LLM: `python -m core evals run` and the tests.

Each case's comment is the one it carries (testing the rules and judges themselves) or one the
configured agents draft for its input through the real pipeline (testing the AI: the leakage
check, its targeted revision and the judges all take part, exactly as for a submission). Then
every check of the case runs: rules always, judges only with a language model. A judge that
cannot run (the offline baseline, or its call failed) leaves its check "not_run" and the case
"not_run" unless another check already decided it: a case is never "passed" on checks that
did not run.

    expect "pass": any check failed -> failed; else any not run -> not_run; else passed
    expect "fail": any check failed -> passed (the bad comment was caught); else any not run
                   -> not_run; else failed (it slipped through)

A check's detail is a Message (core.evals.rules', and the judges' below): the report keeps its
English in "detail" (the command line, the JSON) and its form in "detail_said"
(core.language.interface.stored), which core.evals.views.said_report reads back for the page.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from core import pipeline
from core.agents import Ids, Job, registry
from core.agents import grounding as grounding_judge
from core.errors import LLMConfigFault, LLMError
from core.evals import DIMENSIONS
from core.evals import config as ai_config
from core.evals.cases import Case, Suite
from core.evals.rules import RULES
from core.judging import comment_judges
from core.language.interface import Message, N_, form_of
from core.offline import LABEL as OFFLINE_LABEL
from core.rubric import default_rubric

STATUSES = ("passed", "failed", "not_run")
# A case's and a check's status, and where its comment came from, as the pages name them (shown
# with t(); the report, the command line and the JSON keep the codes).
STATUS_LABELS = {"passed": N_("passed"), "failed": N_("failed"), "not_run": N_("not run")}
SOURCE_LABELS = {"given": N_("given in the case"), "drafted": N_("drafted by the agents")}


def _item(case: Case) -> dict:
    """A submission as the pipeline loads it, from the case's input (no database row)."""
    return {"id": None, "rubric_id": None, "text": case.input.reflection, "student_name": "", "student_email": "",
            "pseudonym": "Student", "rubric": default_rubric(case.input.language), "previous": case.input.last_week(),
            "language": case.input.language, **case.input.assignment(case.id)}


def _judge(llm, name: str, case: Case, comment: str, variant: ai_config.Variant, outputs: dict) -> tuple[dict | None, str]:
    """The judge's answer on this comment: from the draft when the pipeline ran it already,
    else one call; (None, why) when it cannot run."""
    if name in outputs:
        return outputs[name], ""
    role = registry.get(name)
    if role.needs_llm and llm.provider == "offline":
        return None, Message("not run: {label}", label=Message(OFFLINE_LABEL))
    job = Job(rubric=default_rubric(case.input.language), assignment=case.input.assignment(case.id), text=case.input.reflection,
              comment=comment, ids=Ids(), prompt_dir=variant.prompt_dir, language=case.input.language)
    try:
        got = comment_judges.verdicts(llm, job, role)    # with the other judge in one call, as drafts are
    except LLMConfigFault:
        raise
    except LLMError as e:
        return None, Message("not run: the {role} failed ({error})", role=Message(role.label),
                             error=f"{type(e).__name__}: {e}")
    outputs.update(got)
    return got[name], ""


def _judge_check(check, output: dict) -> tuple[bool, str]:
    if check.judge == "grounding":
        ok = grounding_judge.passed(output)
        claims = "; ".join(output.get("unsupported") or [])
        return ok, Message("grounded") if ok else Message("unsupported: {claims}",
                                                          claims=claims or output.get("explanation", ""))
    minimum = check.min or 3
    keys = [check.criterion] if check.criterion else ["leads", "level", "next_step"]
    scores = {k: int(output.get(k) or 0) for k in keys}
    ok = all(v >= minimum for v in scores.values())
    return ok, Message("{scores} (at least {minimum})", scores=", ".join(f"{k} {v}/5" for k, v in scores.items()),
                       minimum=minimum)


def evaluate_case(case: Case, llm, variant: ai_config.Variant = ai_config.STANDARD,
                  trusted: frozenset[str] = frozenset()) -> dict:
    """One case's result: {id, dimension, blocking, status, source, expect, requirement, comment,
    checks: [{check, status, detail}]}. A case checked by a `trusted` judge (one whose agreement
    with the teachers reached the admin's threshold, core.evals.pairwise) blocks like leakage."""
    blocking = case.is_blocking or any(c.judge in trusted for c in case.checks)
    result = {"id": case.id, "dimension": case.dimension, "blocking": blocking, "expect": case.expect,
              "requirement": case.requirement, "source": "given" if case.comment is not None else "drafted"}
    outputs: dict = {}
    if case.comment is not None:
        comment = case.comment
    else:
        draft = pipeline.build_draft(llm, _item(case), Ids(), variant=variant)
        if draft["status"] == "failed" or not draft.get("comment"):
            why = draft.get("error") or "; ".join(draft.get("attention_reasons") or []) or "no comment was drafted"
            failed = Message("drafting failed: {why}", why=why)
            result.update(status="not_run", comment="", checks=[_row("draft", "not_run", failed if len(failed) <= 500
                                                                     else failed[:500])])
            return result
        comment = draft["comment"]
        outputs = dict(draft.get("outputs") or {})
    rows = []
    for check in case.checks:
        if check.rule:
            ok, detail = RULES[check.rule](comment, case.input, check)
        else:
            output, why = _judge(llm, check.judge, case, comment, variant, outputs)
            if output is None:
                rows.append(_row(check.name, "not_run", why))
                continue
            ok, detail = _judge_check(check, output)
        rows.append(_row(check.name, "passed" if ok else "failed", detail))
    states = {r["status"] for r in rows}
    caught = "failed" in states
    if case.expect == "pass":
        status = "failed" if caught else "not_run" if "not_run" in states else "passed"
    else:
        status = "passed" if caught else "not_run" if "not_run" in states else "failed"
    result.update(status=status, comment=comment, checks=rows)
    return result


def _row(check: str, status: str, detail) -> dict:
    """A check's row of the report: its detail in English, and a Message's form beside it."""
    row = {"check": check, "status": status, "detail": detail}
    if (form := form_of(detail)) is not None:
        row["detail_said"] = form
    return row


def as_printed(report: dict) -> dict:
    """The report as `python -m core evals run` prints it: each check's English only (the forms
    kept for the page stay in the stored report), so the JSON reads as it always has."""
    return {**report, "results": [{**r, "checks": [{k: v for k, v in c.items() if k != "detail_said"}
                                                   for c in r.get("checks") or []]}
                                  for r in report.get("results") or []]}


def run_suite(suite: Suite, llm, *, variant: ai_config.Variant = ai_config.STANDARD, concurrency: int = 4,
              config: str | None = None, trusted: frozenset[str] = frozenset()) -> dict:
    """Every case of the suite; the report `python -m core evals run` prints."""
    with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="evals") as pool:
        results = list(pool.map(lambda c: evaluate_case(c, llm, variant, trusted), suite.cases))
    out = report(results, provider=llm.provider, config=config, variant=variant.name, suite=suite)
    out["trusted_judges"] = sorted(trusted)
    return out


def report(results: list[dict], *, provider: str, config: str | None, variant: str, suite: Suite) -> dict:
    counts = {s: sum(r["status"] == s for r in results) for s in STATUSES}
    by_dimension = {}
    for dim in DIMENSIONS:
        mine = [r for r in results if r["dimension"] == dim]
        by_dimension[dim] = {"cases": len(mine), **{s: sum(r["status"] == s for r in mine) for s in STATUSES}}
    return {"cases": len(results), **counts, "by_dimension": by_dimension,
            "blocking_failed": [r["id"] for r in results if r["blocking"] and r["status"] == "failed"],
            "results": results, "provider": provider, "config": config, "variant": variant,
            "suite": suite.path, "suite_version": suite.version}
