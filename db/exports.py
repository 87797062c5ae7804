"""What an export holds (core.export.released builds the files): the latest released version of each
item, plus, when asked, items whose current review is approved but not released yet. Both are
approved versions by construction, so nothing unapproved can be selected here.
"""
from __future__ import annotations

from sqlite_utils import Database

from db import loads
from db.calibration import BLIND_PENDING

_ITEMS_SQL = """
SELECT * FROM (
    SELECT a.id AS assignment_id, a.title, a.week, COALESCE(ri.rubric_id, a.rubric_id) AS rubric_id,
           st.external_id, st.name, st.attributes,
           s.id AS submission_id, ri.scores, ri.comment, ri.is_offline, ri.review_version AS version,
           'released' AS state, rel.released_at
    FROM submissions s
    JOIN assignments a ON a.id = s.assignment_id
    JOIN students st ON st.id = s.student_id
    JOIN release_items ri ON ri.submission_id = s.id
         AND ri.release_id = (SELECT MAX(release_id) FROM release_items WHERE submission_id = s.id)
    JOIN releases rel ON rel.id = ri.release_id
    WHERE {scope} AND NOT (:approved = 1 AND s.status = 'approved')
    UNION ALL
    SELECT a.id, a.title, a.week, a.rubric_id, st.external_id, st.name, st.attributes,
           s.id, r.scores, r.comment, COALESCE(d.is_offline, 0), r.version, 'approved', NULL
    FROM submissions s
    JOIN assignments a ON a.id = s.assignment_id
    JOIN students st ON st.id = s.student_id
    JOIN reviews r ON r.submission_id = s.id
    LEFT JOIN drafts d ON d.id = r.draft_id
    WHERE :approved = 1 AND {scope} AND s.status = 'approved' AND r.status = 'approved'
) AS items ORDER BY week, title, external_id, submission_id
"""


def items(conn: Database, course_id: int, assignment_id: int | None = None, *,
          include_approved: bool = False) -> list[dict]:
    """Released (and optionally approved) items of a course or one assignment, in week, title,
    student order; scores and student attributes decoded."""
    # One assignment: an equality on s.assignment_id, so the (assignment_id, ...) indexes apply.
    scope = ("s.assignment_id = :assignment" if assignment_id is not None else
             "s.assignment_id IN (SELECT id FROM assignments WHERE course_id = :course)")
    rows = list(conn.query(_ITEMS_SQL.format(scope=scope), {"course": course_id, "assignment": assignment_id,
                                                            "approved": int(include_approved)}))
    for r in rows:
        r["scores"] = loads(r["scores"], {})
        r["attributes"] = loads(r["attributes"], {})
    return rows


def exportable_count(conn: Database, assignment_id: int, *, include_approved: bool = False) -> int:
    """How many items an export of this assignment would hold (the count of `items`)."""
    released = conn.execute(
        "SELECT COUNT(*) FROM submissions s WHERE s.assignment_id = ? "
        "AND EXISTS (SELECT 1 FROM release_items ri WHERE ri.submission_id = s.id)"
        + (" AND s.status != 'approved'" if include_approved else ""), [assignment_id]).fetchone()[0]
    if not include_approved:
        return released
    return released + conn.execute(
        "SELECT COUNT(*) FROM submissions s JOIN reviews r ON r.submission_id = s.id "
        "WHERE s.assignment_id = ? AND s.status = 'approved' AND r.status = 'approved'", [assignment_id]).fetchone()[0]


def analysis_rows(conn: Database, course_id: int, assignment_id: int | None = None) -> list[dict]:
    """Every submission of a course or one assignment, for analysis (not for students): student,
    assignment, the current AI draft's scores and flags, the teacher's review (scores, status,
    edited, bulk), and the mean of the uploaded reference scores per criterion (`reference`).
    A calibration item nobody has scored blind yet keeps its AI draft hidden here too: no
    draft id, AI scores or flags (db.calibration.BLIND_PENDING)."""
    scope = ("s.assignment_id = :assignment" if assignment_id is not None else
             "s.assignment_id IN (SELECT id FROM assignments WHERE course_id = :course)")
    rows = list(conn.query(f"""
        SELECT st.external_id, st.pseudonym, st.attributes, a.id AS assignment_id, a.title, a.week, a.rubric_id,
               s.id AS submission_id, s.status, s.current_draft_id AS draft_id,
               d.scores AS ai_scores, d.flags, d.is_offline,
               r.scores AS teacher_scores, r.status AS review_status, r.edited, r.approved_in_bulk,
               {BLIND_PENDING} AS blind_pending
        FROM submissions s
        JOIN students st ON st.id = s.student_id
        JOIN assignments a ON a.id = s.assignment_id
        LEFT JOIN drafts d ON d.id = s.current_draft_id
        LEFT JOIN reviews r ON r.submission_id = s.id
        WHERE {scope}
        ORDER BY a.week, a.title, st.external_id, s.id""", {"course": course_id, "assignment": assignment_id}))
    means: dict[int, dict] = {}
    for sid, criterion, mean in conn.execute(f"""
            SELECT rs.submission_id, rs.criterion, AVG(rs.score) FROM reference_scores rs
            JOIN submissions s ON s.id = rs.submission_id WHERE {scope}
            GROUP BY rs.submission_id, rs.criterion""", {"course": course_id, "assignment": assignment_id}):
        means.setdefault(sid, {})[criterion] = mean
    for r in rows:
        if r.pop("blind_pending"):
            r.update(draft_id=None, ai_scores=None, flags=None, is_offline=None)
        r["attributes"] = loads(r["attributes"], {})
        r["ai_scores"] = loads(r["ai_scores"], {})
        r["flags"] = loads(r["flags"], [])
        r["teacher_scores"] = loads(r["teacher_scores"], {})
        r["reference"] = means.get(r["submission_id"], {})
    return rows
