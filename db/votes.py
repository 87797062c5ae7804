"""Judges' votes (table judge_votes): what each judge scored, per criterion and tier.

Written once per judged item, in the same transaction as what the votes decided (the caller's
`conn.atomic()`); read by the item view and the judge-agreement figures.
"""
from __future__ import annotations

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
