"""The dashboards' counts computed from scratch, as db/analytics.py did before the counts were
kept up to date (issue 18): the oracle the property test compares db.aggregates with."""
from __future__ import annotations

import pandas as pd

from db.aggregates import VERSION_SQL

REFERENCE_CHOICES = ("auto", "expert", "blind", "teacher")
COMMENT_SAMPLE = 300
DIMENSIONS = {
    "week": "COALESCE(CAST(a.week AS TEXT), '(no week)')",
    "version": VERSION_SQL,
    "word_count": "s.word_count",
    "student": "s.student_id",
}


def _reference_sql(reference: str) -> tuple[str, str, list]:
    """(reference expression, its source expression over the inner columns `expert`/`blind`/
    `teacher`, expert-subquery args)."""
    if reference == "auto":
        return ("COALESCE(expert, moderated, blind)", "CASE WHEN expert IS NOT NULL THEN 'expert' WHEN moderated IS "
                "NOT NULL THEN 'moderated' ELSE 'blind' END", [])
    if reference in ("expert", "blind", "teacher"):
        return reference, f"'{reference}'", []
    if reference.startswith("rater:") and reference.removeprefix("rater:"):
        return "expert", "'expert'", [reference.removeprefix("rater:")]
    raise ValueError(f"reference must be one of {REFERENCE_CHOICES} or 'rater:NAME', not {reference!r}")


def pair_counts(conn, scope, reference, by, attributes) -> pd.DataFrame:
    ref_sql, source_sql, ref_args = _reference_sql(reference)
    where, args = scope.where()
    inner = [f"{DIMENSIONS[b]} AS {b}" for b in by if b in DIMENSIONS]
    outer = [(f"{source_sql} AS source" if b == "source" else b) for b in by]
    if attributes:  # the raw JSON: few distinct values, expanded per attribute in Python
        inner.append("st.attributes AS attributes")
        outer.append("attributes")
    names = ["rubric_id", "criterion", *by, *(["attributes"] if attributes else [])]
    rater = " AND rs.rater = ?" if ref_args else ""
    keys = ", ".join(str(i + 1) for i in range(len(names) + 2))
    # Each (submission, criterion) once, materialized so the expert lookup runs once per pair.
    sql = f"""
        WITH pairs AS MATERIALIZED (
            SELECT a.rubric_id, j.key AS criterion, {''.join(d + ', ' for d in inner)} j.value AS ai,
                (SELECT AVG(rs.score) FROM reference_scores rs
                 WHERE rs.submission_id = s.id AND rs.criterion = j.key{rater}) AS expert,
                (SELECT AVG(cs.score) FROM calibration_scores cs
                 WHERE cs.submission_id = s.id AND cs.criterion = j.key) AS blind,
                (SELECT ms.score FROM moderation_settlements ms
                 WHERE ms.submission_id = s.id AND ms.criterion = j.key) AS moderated,
                CASE WHEN (r.status = 'approved' OR (s.status = 'released' AND r.status IS NOT 'rejected'))
                          AND r.approved_in_bulk = 0
                     THEN json_extract(r.scores, '$."' || j.key || '"') END AS teacher
            FROM submissions s
            JOIN assignments a ON a.id = s.assignment_id
            {'JOIN students st ON st.id = s.student_id' if attributes else ''}
            LEFT JOIN reviews r ON r.submission_id = s.id
            JOIN drafts d ON d.id = COALESCE(r.draft_id, s.current_draft_id)
            CROSS JOIN json_each(d.scores) j
            WHERE {where} AND j.type = 'integer'
        )
        SELECT rubric_id, criterion, {''.join(o + ', ' for o in outer)} ai, {ref_sql} AS reference, COUNT(*) AS n
        FROM pairs WHERE {ref_sql} IS NOT NULL
        GROUP BY {keys} ORDER BY {keys}"""
    rows = conn.execute(sql, [*ref_args, *args]).fetchall()
    df = pd.DataFrame(rows, columns=[*names, "ai", "reference", "n"])
    df["ai"] = df["ai"].astype(float)
    df["reference"] = df["reference"].astype(float)
    return df


def edit_counts(conn: Database, scope: Scope) -> dict:
    """What teachers changed in reviews they decided one by one (approved/rejected), as counts.

    Bulk approvals are left out (they copy the AI's draft: counting them as "approved
    unchanged" would flatter it) and only counted, in "bulk_approved".
    {"outcomes": (status, scores_changed, comment_changed, n), "changes": (criterion, ai,
    teacher, n) for approved reviews, "comment_pairs": [(draft comment, final comment)] of the
    newest COMMENT_SAMPLE edited comments, "reason_codes": (code, n), "bulk_approved": int}.
    """
    where, args = scope.where()
    joins = ("FROM reviews r JOIN submissions s ON s.id = r.submission_id "
             "JOIN assignments a ON a.id = s.assignment_id "
             "JOIN drafts d ON d.id = COALESCE(r.draft_id, s.current_draft_id) ")
    base = f"{joins} WHERE {where} AND r.status IN ('approved', 'rejected') AND r.approved_in_bulk = 0"
    changed = ("EXISTS (SELECT 1 FROM json_each(r.scores) j "
               "WHERE j.value IS NOT json_extract(d.scores, '$.\"' || j.key || '\"'))")
    # One scan for both: decisions one by one, and the bulk approvals (counted, nothing else).
    decided = pd.DataFrame(conn.execute(
        f"SELECT r.status, r.approved_in_bulk, CASE WHEN {changed} THEN 1 ELSE 0 END, "
        f"CASE WHEN r.comment != d.comment THEN 1 ELSE 0 END, COUNT(*) {joins} "
        f"WHERE {where} AND r.status IN ('approved', 'rejected') GROUP BY 1, 2, 3, 4", args).fetchall(),
        columns=["status", "bulk", "scores_changed", "comment_changed", "n"])
    bulk = int(decided.loc[(decided["bulk"] == 1) & (decided["status"] == "approved"), "n"].sum())
    outcomes = decided[decided["bulk"] == 0].drop(columns="bulk").reset_index(drop=True)
    changes = pd.DataFrame(conn.execute(
        f"SELECT j.key, CAST(json_extract(d.scores, '$.\"' || j.key || '\"') AS REAL), CAST(j.value AS REAL), COUNT(*) "
        f"{base.replace('WHERE', ', json_each(r.scores) j WHERE')} AND r.status = 'approved' "
        f"AND json_extract(d.scores, '$.\"' || j.key || '\"') IS NOT NULL GROUP BY 1, 2, 3", args).fetchall(),
        columns=["criterion", "ai", "teacher", "n"])
    pairs = conn.execute(f"SELECT d.comment, r.comment {base} AND r.comment != d.comment "
                         f"ORDER BY r.updated_at DESC LIMIT {COMMENT_SAMPLE}", args).fetchall()
    codes = pd.DataFrame(conn.execute(
        f"SELECT j.value, COUNT(*) {base.replace('WHERE', ', json_each(r.reason_codes) j WHERE')} GROUP BY 1",
        args).fetchall(), columns=["code", "n"])
    return {"outcomes": outcomes, "changes": changes, "comment_pairs": pairs, "reason_codes": codes,
            "bulk_approved": bulk}


