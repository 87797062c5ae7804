"""Small builders for test data, written with plain SQL against the real schema.

Use these where a test needs drafts or reviews without running the pipeline.
"""
from __future__ import annotations

import hashlib
import itertools

import db as dbmod
from core.accounts import identity as accounts
from core.signoff import triage
from core.accounts.access import Actor
from core.rubric import Rubric, default_rubric
from db import courses, dumps
from db import users as users_db

PASSWORD = "correct horse battery"


def actor(name: str = "ann", role: str = "admin", courses: dict | None = None) -> Actor:
    """Someone acting in a test without signing in: an admin by default (every course); another
    role gets `courses` ({course id: may see names})."""
    return Actor(name, role=role, user_id=None, courses=None if role == "admin" else (courses or {}))


def user(conn, name: str, role: str = "instructor", courses=(), names: bool = False,
         password: str = PASSWORD) -> Actor:
    """A real account with grants, as the app's admin would make it; returns its Actor."""
    found = users_db.find(conn, name)
    uid = found["id"] if found else accounts.add_user(conn, username=name, role=role, password=password,
                                                      actor=actor("test setup"))
    for cid in courses:
        accounts.grant(conn, uid, course_id=cid, sees_names=names, actor=actor("test setup"))
    return users_db.actor_for(conn, uid)


def session(db_path, name: str, role: str = "admin", courses=(), names: bool = False) -> str:
    """A signed-in session of a (new or existing) user: the token the browser's cookie would hold."""
    conn = dbmod.connect(db_path)
    try:
        user(conn, name, role, courses, names)
        return accounts.sign_in(conn, name, PASSWORD)[1]
    finally:
        conn.close()

_seq = itertools.count(1)


def course(conn, name: str = "Test course", rubric: Rubric | None = None, weeks: int = 1) -> dict:
    """A course with `weeks` assignments on `rubric` (default: the seed's 0-3 rubric)."""
    rubric = rubric or default_rubric()
    rid = courses.save_rubric(conn, rubric)
    cid = courses.ensure_course(conn, name)
    aids = [courses.ensure_assignment(conn, cid, f"Week {w}", rubric_id=rid, week=w,
                                      prompt="Reflect on this week's topic.",
                                      key_concepts=["large language model", "temperature", "bias"])
            for w in range(1, weeks + 1)]
    return {"course_id": cid, "assignment_ids": aids, "assignment_id": aids[0], "rubric_id": rid, "rubric": rubric}


def student(conn, course_id: int, external_id: str | None = None, name: str | None = None,
            attributes: dict | None = None) -> int:
    n = next(_seq)
    external_id = external_id or f"s{n:04d}"
    return conn.execute(
        "INSERT INTO students (course_id, external_id, name, email, pseudonym, attributes) VALUES (?,?,?,?,?,?)",
        [course_id, external_id, name or f"Student Name {n}", f"{external_id}@example.edu",
         f"Student-{n:04d}", dumps(attributes or {})],
    ).lastrowid


def submission(conn, assignment_id: int, student_id: int, text: str = "I learned about temperature.") -> int:
    return conn.execute(
        "INSERT INTO submissions (assignment_id, student_id, text, text_hash, word_count) VALUES (?,?,?,?,?)",
        [assignment_id, student_id, text, hashlib.sha256(text.encode()).hexdigest(), len(text.split())],
    ).lastrowid


def reference(conn, submission_id: int, scores: dict[str, float], rater: str = "expert") -> None:
    for k, v in scores.items():
        conn.execute("INSERT INTO reference_scores (submission_id, rater, criterion, score) VALUES (?,?,?,?)",
                   [submission_id, rater, k, v])


def blind(conn, submission_id: int, scores: dict[str, float], rater: str = "teacher", source: str = "blind") -> None:
    """Blind calibration scores, as the Calibrate page saves them."""
    for k, v in scores.items():
        conn.execute("INSERT INTO calibration_scores (submission_id, criterion, rater, score, source, scored_by, "
                     "scored_at) VALUES (?,?,?,?,?,?,?)", [submission_id, k, rater, v, source, rater, "2025-01-01"])


def draft(conn, submission_id: int, scores: dict[str, int], *, rubric: Rubric | None = None,
          comment: str = "You explain temperature clearly. Next: (1) add an example, (2) proofread. "
                         "What would you test first?",
          status: str = "drafted", verdict: str = "CONFIDENT", flags: list[str] | None = None,
          checks: list[dict] | None = None, confidence: float | None = None, is_offline: bool = False,
          run_id: int | None = None, attention_reasons: list[str] | None = None) -> int:
    """An AI draft as the pipeline would store it; also points the submission at it."""
    rubric = rubric or default_rubric()
    rid = courses.save_rubric(conn, rubric)
    evaluation = {k: {"score": v, "reasoning": f"Reasoning for {k}.", "areas_for_improvement": [f"Improve {k}."],
                      "evidence_quote": ""} for k, v in scores.items()}
    did = conn.execute(
        "INSERT INTO drafts (submission_id, run_id, rubric_id, provider, is_offline, scores, total, outputs, "
        "comment, checks, verdict, confidence, flags, attention_reasons, status) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [submission_id, run_id, rid, "offline" if is_offline else "openai", int(is_offline), dumps(scores),
         rubric.total(scores), dumps({"evaluator": evaluation, "reviewer": {"verdict": verdict, "fixes": []}}),
         comment, dumps(checks or []), verdict, confidence, dumps(flags or []),
         dumps(attention_reasons or []), status],
    ).lastrowid
    prio = triage.priority(status, scores, rubric, confidence=confidence)
    conn.execute("UPDATE submissions SET status = ?, current_draft_id = ?, priority = ? WHERE id = ?",
               [status, did, prio, submission_id])
    return did


def cleared_config(conn, provider: str = "openai", *, actor: str = "test admin", settings=None) -> str:
    """Let the configuration in use (or the one of `settings`) run (issue 16's gate) through an
    admin's recorded override, as a test that is about something else needs; returns its hash."""
    from core.evals import config as ai_config
    from core.evals import gate
    from db import evals as evals_db

    defn = ai_config.current(provider, settings)
    h = ai_config.config_hash(defn)
    evals_db.record_config(conn, h, defn, used_by=actor, used_for="test")
    gate.override(conn, h, actor=Actor(actor, role="admin"), reason="a test about something else than the eval gate")
    return h


# --- configuration faults as a provider raises them (run guard tests of both kinds of run) ----
def unreachable():
    from core.errors import LLMConnectionError

    e = LLMConnectionError("Cannot reach the language model at http://nowhere/v1. Check FAIRMARK_LLM_BASE_URL.")
    e.config_suspect = True
    return e


def not_found():
    from core.errors import LLMNotFound

    return LLMNotFound("The language model does not know model 'gtp-4o'. Check the model name in Settings.")


def offline_comparison(conn, course: dict, submission_ids: list[int], variant: str) -> int:
    """A blind comparison of the offline baseline with a variant, as created before such a
    comparison was refused (it writes the same comment on both sides): one pair per submission."""
    from core.evals import config as ai_config
    from core.evals import comparison_runs
    from core.settings import load_settings
    from db import comparisons as cmp_db
    from db import evals as evals_db

    hashes = []
    for defn in (ai_config.current("offline"), ai_config.current("offline", variant=ai_config.load_variant(variant))):
        hashes.append(ai_config.config_hash(defn))
        evals_db.record_config(conn, hashes[-1], defn)
    pairs = [{"submission_id": sid, "stratum": "low", "position": i, "b_on_left": i % 2 == 0}
             for i, sid in enumerate(submission_ids)]
    return cmp_db.create(conn, course_id=course["course_id"], assignment_id=None, config_a=hashes[0],
                         config_b=hashes[1], variant_b=variant, seed=1, pairs=pairs, created_by="C",
                         provider="offline", run_config=comparison_runs.run_config(load_settings()))
