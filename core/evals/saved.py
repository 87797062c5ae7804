""""Save as eval case": a teacher turns a corrected review item into an eval case.

The case is pseudonymised (every student of the course, the author and any classmate named,
becomes their pseudonym in every text it carries; e-mails and phone numbers are masked), keeps
the AI's failed comment and the teacher's corrected one for the reader, and asks the configured
agents to draft the comment again for the same input: the requirement is
the teacher's reason. Saved cases live in the database until a coordinator exports them
(`python -m core evals export-saved --out data/evals/saved.jsonl`, or the download on the AI
quality page), reviews them and commits the file: then they are part of the versioned suite.
"""
from __future__ import annotations

import json

from core.accounts import access
from core.accounts.access import Actor
from core.errors import FairMarkError, NotFound
from core.evals import DIMENSIONS
from core.evals.cases import DEFAULT_CHECKS, Case
from core.language.interface import Message
from core.privacy.pseudonym import Pseudonymizer
from db import audit
from db import roster as roster_db
from db import evals as evals_db


def build_case(conn, submission_id: int, *, dimension: str, reason: str, actor: Actor) -> dict:
    """The case (suite format, validated) for this item, not yet saved."""
    access.check(conn, actor, "review", submission=submission_id)
    if dimension not in DIMENSIONS:
        raise FairMarkError(Message("Choose what went wrong: one of {dimensions}", dimensions=", ".join(DIMENSIONS)))
    reason = (reason or "").strip()
    if len(reason) < 5:
        raise FairMarkError(Message("Say what the AI's comment got wrong (the reason becomes the case's requirement)"))
    row = evals_db.case_source(conn, submission_id)
    if row is None:
        raise NotFound(Message("submission {id} does not exist", id=submission_id))
    if not (row["draft_comment"] or "").strip():
        raise FairMarkError(Message("This item has no AI comment to learn from: regenerate it first"))
    pz = Pseudonymizer(row["student_name"] or "", row["student_email"] or "", row["pseudonym"],
                       roster_db.of_submission(conn, submission_id))
    key = None
    if (row["answer_key"] or "").strip():
        from core import leakage

        k = leakage.key_of(row)
        key = {"kind": k.kind, "value": k.value, "tolerance": round(k.tolerance * 100, 6)}
    checks = [c for c in DEFAULT_CHECKS[dimension] if key or c.get("rule") != "leakage"]
    n = len(evals_db.saved_case_ids_of(conn, submission_id)) + 1
    corrected = row["review_comment"] if row["edited"] else None
    case = {
        "id": f"saved-{submission_id}-{n}", "dimension": dimension,
        "input": {"reflection": pz.hide(row["text"]), "question": row["prompt"] or "", "answer_key": key,
                  "source": row["source_text"] or "", "level": float(row["target_grade"] or 10),
                  "key_concepts": row["key_concepts"]},
        "requirement": pz.hide(reason), "checks": checks,
        "origin": f"saved by a teacher from a corrected review item ({dimension})",
        "failed_comment": pz.hide(row["draft_comment"]),
        "corrected_comment": pz.hide(corrected) if corrected else None,
    }
    Case.model_validate(case)
    return case


def save_case(conn, submission_id: int, *, dimension: str, reason: str, actor: Actor) -> int:
    """Save the item as an eval case (one transaction with its audit row); returns its id."""
    access.check(conn, actor, "review", submission=submission_id)
    case = build_case(conn, submission_id, dimension=dimension, reason=reason, actor=actor)
    row = evals_db.case_source(conn, submission_id)
    with conn.atomic():
        cid = evals_db.save_case(conn, submission_id=submission_id, draft_id=row["current_draft_id"],
                                 dimension=dimension, reason=case["requirement"], case=case, saved_by=actor)
        audit(conn, actor=actor, action="save_eval_case", entity="saved_eval_cases", entity_id=cid,
              submission_id=submission_id, after={"case": case["id"], "dimension": dimension},
              reason=case["requirement"])
    return cid


def saved_cases(conn, *, actor: Actor) -> list[dict]:
    """The saved cases of the courses the actor may see the dashboards of (pseudonymised, but
    still a student's reflection: they stay in their course)."""
    access.require(actor, "dashboards")
    return saved_in(conn, actor)


def saved_in(conn, actor: Actor) -> list[dict]:
    """`saved_cases` once the actor is checked for the dashboards (a page's one read)."""
    return evals_db.saved_cases(conn, actor.course_ids())   # the granted courses, once, as one SQL condition


def cases_for_export(conn, *, actor: Actor) -> list[dict]:
    return [r["case"] for r in saved_cases(conn, actor=actor)]


def jsonl(conn, *, actor: Actor) -> str:
    """Every saved case the actor may see, as JSONL (the AI quality page's download)."""
    return jsonl_of(saved_cases(conn, actor=actor))


def jsonl_of(rows: list[dict]) -> str:
    """Saved cases (saved_cases' rows) as JSONL."""
    return "".join(json.dumps(r["case"], ensure_ascii=False) + "\n" for r in rows)
