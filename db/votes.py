"""Judges' votes (table judge_votes): what each judge scored, per criterion and tier.

Written once per judged item, in the same transaction as what the votes decided (the caller's
`conn.atomic()`); read by the item view and the judge-agreement figures.
"""
from __future__ import annotations

import json

from sqlite_utils import Database


def save(conn: Database, subject: str, subject_id: int, votes: list[dict], *, draft_id: int | None = None,
         run_id: int | None = None) -> int:
    """Store votes given as {criterion, judge, tier, score, confidence, weight}; returns how many."""
    rows = [(subject, subject_id, draft_id, run_id, v["criterion"], v["judge"], int(v["tier"]), float(v["score"]),
             None if v.get("confidence") is None else float(v["confidence"]), float(v.get("weight", 1.0)))
            for v in votes]
    conn.conn.executemany(
        "INSERT INTO judge_votes (subject, subject_id, draft_id, run_id, criterion, judge, tier, score, confidence, "
        "weight) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    return len(rows)


def of(conn: Database, subject: str, subject_id: int, draft_id: int | None = None) -> list[dict]:
    """The votes on one item (of one draft when given), in the order they were cast."""
    sql, args = "SELECT * FROM judge_votes WHERE subject = ? AND subject_id = ?", [subject, subject_id]
    if draft_id is not None:
        sql += " AND draft_id = ?"
        args.append(draft_id)
    return list(conn.query(sql + " ORDER BY id", args))


# --- reads for judge agreement (core.judging.agreement) ---------------------------------------
def current(conn: Database, scope) -> list[dict]:
    """The votes behind each submission's current draft in a scope (db.analytics.Scope):
    {assignment_id, submission_id, draft_id, criterion, judge, tier, score}, in casting order."""
    where, args = scope.where()
    return list(conn.query(
        "SELECT s.assignment_id, v.subject_id AS submission_id, v.draft_id, v.criterion, v.judge, v.tier, v.score "
        "FROM judge_votes v JOIN submissions s ON s.id = v.subject_id AND s.current_draft_id = v.draft_id "
        f"JOIN assignments a ON a.id = s.assignment_id WHERE v.subject = 'submission' AND {where} "
        "ORDER BY v.subject_id, v.id", args))


def assignments_of_run(conn: Database, run_id: int) -> list[int]:
    return [r[0] for r in conn.execute(
        "SELECT DISTINCT s.assignment_id FROM run_items i JOIN submissions s ON s.id = i.subject_id "
        "WHERE i.run_id = ? AND i.subject = 'submission' ORDER BY 1", [run_id]).fetchall()]


def expert_scores(conn: Database, scope) -> list[dict]:
    """Uploaded reference scores (mean of the raters) per {submission_id, criterion, score}."""
    where, args = scope.where()
    return list(conn.query(
        "SELECT r.submission_id, r.criterion, AVG(r.score) AS score FROM reference_scores r "
        f"JOIN submissions s ON s.id = r.submission_id JOIN assignments a ON a.id = s.assignment_id WHERE {where} "
        "GROUP BY r.submission_id, r.criterion", args))


def blind_scores(conn: Database, scope) -> list[dict]:
    """Teachers' blind calibration scores (table calibration_scores: scored before seeing the AI's
    draft) per {submission_id, criterion, score}, the mean of the teachers who scored it."""
    where, args = scope.where()
    return list(conn.query(
        "SELECT b.submission_id, b.criterion, AVG(b.score) AS score FROM calibration_scores b "
        f"JOIN submissions s ON s.id = b.submission_id JOIN assignments a ON a.id = s.assignment_id WHERE {where} "
        "GROUP BY b.submission_id, b.criterion", args))


# --- the agreement rule per assignment (table judge_agreement) -------------------------------
def save_agreement(conn: Database, assignment_id: int, *, verdict: str, alpha: dict, items: int,
                   sent_to_teacher: int, at: str) -> None:
    conn.execute(
        "INSERT INTO judge_agreement (assignment_id, verdict, alpha, items, sent_to_teacher, computed_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(assignment_id) DO UPDATE SET verdict = excluded.verdict, "
        "alpha = excluded.alpha, items = excluded.items, sent_to_teacher = excluded.sent_to_teacher, "
        "computed_at = excluded.computed_at",
        [assignment_id, verdict, json.dumps(alpha), items, sent_to_teacher, at])


def agreement_marks(conn: Database, scope) -> list[dict]:
    """The stored rule per assignment in a scope: {assignment_id, title, verdict, alpha (dict),
    items, sent_to_teacher, computed_at}."""
    where, args = scope.where(sub="j", asg="a")
    rows = list(conn.query(
        "SELECT j.assignment_id, a.title, j.verdict, j.alpha, j.items, j.sent_to_teacher, j.computed_at "
        f"FROM judge_agreement j JOIN assignments a ON a.id = j.assignment_id WHERE {where} ORDER BY a.id", args))
    for r in rows:
        r["alpha"] = json.loads(r["alpha"] or "{}")
    return rows
