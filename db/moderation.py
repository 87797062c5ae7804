"""Moderation (m028a): who marks which item (`marker_assignments`), the sample marked a second
time blind (`moderation_items`, `moderation_marks`) and the moderator's settlements
(`moderation_settlements`). core.moderation owns the rules; this module holds their SQL.

The first mark is the item's review as approved (reviews.scores); the second is the second
marker's blind mark; a settlement keeps both marks as they stood beside the final score.
"""
from __future__ import annotations

from sqlite_utils import Database

from db import audit, loads

# A submission row `s` the marker (parameter) may see in their queue: assigned to them, or in an
# assignment where nothing is assigned to them (SQL for db.queue's WHERE clause: the name twice).
MARKERS_OWN = ("(EXISTS (SELECT 1 FROM marker_assignments ma WHERE ma.submission_id = s.id AND ma.marker = ?) "
               "OR NOT EXISTS (SELECT 1 FROM marker_assignments ma WHERE ma.assignment_id = s.assignment_id "
               "AND ma.marker = ?))")
# A submission row `s` the marker (parameter) still marks a second time, blind.
SECOND_BLIND = ("EXISTS (SELECT 1 FROM moderation_items mi WHERE mi.submission_id = s.id AND mi.second_marker = ? "
                "AND NOT EXISTS (SELECT 1 FROM moderation_marks mm WHERE mm.submission_id = s.id))")
# Submission statuses a moderation sample may draw from: the AI has drafted it and nothing is released.
DRAWABLE = ("drafted", "needs_attention", "approved")


def drawable(conn: Database, assignment_id: int) -> list[dict]:
    """Items that may join the sample: drafted by the AI (its band stratifies), not released,
    not rejected, not waiting for a blind calibration score, not drawn yet. {submission_id,
    scores (the AI draft's, JSON), first_marker (assigned, else whoever approved or opened it)}."""
    marks = ", ".join("?" * len(DRAWABLE))
    return list(conn.query(
        "SELECT s.id AS submission_id, d.scores, COALESCE(ma.marker, r.approved_by, r.updated_by) AS first_marker "
        "FROM submissions s JOIN drafts d ON d.id = COALESCE(( SELECT draft_id FROM reviews WHERE submission_id = s.id), "
        " s.current_draft_id) LEFT JOIN reviews r ON r.submission_id = s.id "
        "LEFT JOIN marker_assignments ma ON ma.submission_id = s.id "
        f"WHERE s.assignment_id = ? AND s.status IN ({marks}) AND d.status != 'failed' "
        "AND NOT EXISTS (SELECT 1 FROM moderation_items mi WHERE mi.submission_id = s.id) "
        "AND NOT (EXISTS (SELECT 1 FROM calibration_items ci WHERE ci.submission_id = s.id) AND NOT EXISTS "
        " (SELECT 1 FROM calibration_scores cs WHERE cs.submission_id = s.id)) ORDER BY s.id",
        [assignment_id, *DRAWABLE]))


def course_markers(conn: Database, course_id: int) -> list[str]:
    """The user names of the active instructors and teaching assistants granted the course
    (directly or through its department): who may mark its items."""
    return [r[0] for r in conn.execute(
        "SELECT DISTINCT u.username FROM users u JOIN grants g ON g.user_id = u.id JOIN courses c ON c.id = ? "
        "AND (g.course_id = c.id OR (g.department IS NOT NULL AND g.department = c.department)) "
        "WHERE u.active = 1 AND u.role IN ('instructor', 'ta') ORDER BY u.username", [course_id]).fetchall()]


def add_items(conn: Database, assignment_id: int, rows: list[tuple[int, str, str | None, str]], *, actor,
              at: str) -> None:
    """(submission_id, stratum, first_marker, second_marker) rows join the sample, one audit row."""
    with conn.atomic():
        conn.conn.executemany(
            "INSERT INTO moderation_items (submission_id, assignment_id, stratum, first_marker, second_marker, "
            "drawn_by, drawn_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(sid, assignment_id, stratum, first, second, str(actor), at) for sid, stratum, first, second in rows])
        audit(conn, actor=actor, action="draw_moderation", entity="moderation_items", entity_id=assignment_id,
              after={"added": [r[0] for r in rows]}, reason="stratified moderation sample")


_ITEMS = (
    # The first marker is who approved the review (the mark compared); the one assigned or opening it when drawn
    # only until then.
    "SELECT mi.submission_id, mi.assignment_id, mi.stratum, COALESCE(r.approved_by, mi.first_marker) AS first_marker, "
    "mi.second_marker, mi.drawn_at, "
    "s.student_id, st.name, st.pseudonym, s.status, r.status AS review_status, r.scores AS first_scores, "
    "r.approved_by, (SELECT json_group_object(criterion, score) FROM moderation_marks mm "
    " WHERE mm.submission_id = mi.submission_id) AS second_scores, "
    "(SELECT json_group_object(criterion, json_array(first_score, second_score, score)) FROM moderation_settlements x "
    " WHERE x.submission_id = mi.submission_id) AS settled, "
    "(SELECT note FROM moderation_settlements x WHERE x.submission_id = mi.submission_id LIMIT 1) AS note, "
    "EXISTS (SELECT 1 FROM release_items ri WHERE ri.submission_id = mi.submission_id) AS released_before "
    "FROM moderation_items mi JOIN submissions s ON s.id = mi.submission_id JOIN students st ON st.id = s.student_id "
    "LEFT JOIN reviews r ON r.submission_id = mi.submission_id ")


def _item(row: dict) -> dict:
    out = dict(row)
    out["first_scores"] = loads(row["first_scores"], {}) if row["review_status"] in ("approved",) or \
        row["status"] == "released" else None
    out["second_scores"] = loads(row["second_scores"], {}) or None
    out["settled"] = {k: {"first": f, "second": s, "score": v}
                      for k, (f, s, v) in (loads(row["settled"], {}) or {}).items()} or None
    return out


def items(conn: Database, assignment_id: int) -> list[dict]:
    """The assignment's sample in drawing order: {submission_id, stratum, first_marker,
    second_marker, student_id, name, pseudonym, status, first_scores (the approved review's, else
    None), second_scores (None until marked), settled ({criterion: {first, second, score}} | None),
    note, released_before (1 once a release held it)}."""
    return [_item(r) for r in conn.query(_ITEMS + "WHERE mi.assignment_id = ? ORDER BY mi.drawn_at, mi.submission_id",
                                         [assignment_id])]


def course_items(conn: Database, course_id: int) -> list[dict]:
    """`items` of every assignment of the course, with the assignment's rubric id."""
    return [_item(r) for r in conn.query(
        _ITEMS.replace("FROM moderation_items mi", ", a.rubric_id FROM moderation_items mi JOIN assignments a "
                       "ON a.id = mi.assignment_id") + "WHERE a.course_id = ? ORDER BY mi.submission_id",
        [course_id])]


def item(conn: Database, submission_id: int) -> dict | None:
    row = next(conn.query(_ITEMS + "WHERE mi.submission_id = ?", [submission_id]), None)
    return _item(row) if row else None


def pending_second_marker(conn: Database, submission_id: int) -> str | None:
    """The second marker of a drawn item they have not marked yet (None otherwise)."""
    row = conn.execute("SELECT second_marker FROM moderation_items mi WHERE submission_id = ? AND NOT EXISTS "
                       "(SELECT 1 FROM moderation_marks mm WHERE mm.submission_id = mi.submission_id)",
                       [submission_id]).fetchone()
    return row[0] if row else None


def unreleased_second_marker(conn: Database, submission_id: int) -> str | None:
    """The second marker of a drawn item no release has held yet (None otherwise: once released,
    later changes, an appeal's, are anyone's)."""
    row = conn.execute("SELECT second_marker FROM moderation_items mi WHERE submission_id = ? AND NOT EXISTS "
                       "(SELECT 1 FROM release_items ri WHERE ri.submission_id = mi.submission_id)",
                       [submission_id]).fetchone()
    return row[0] if row else None


def hidden_from(conn: Database, assignment_id: int, marker: str) -> set[int]:
    """The assignment's drawn items `marker` is to mark a second time and has not marked yet."""
    return {r[0] for r in conn.execute(
        "SELECT submission_id FROM moderation_items mi WHERE assignment_id = ? AND second_marker = ? AND NOT EXISTS "
        "(SELECT 1 FROM moderation_marks mm WHERE mm.submission_id = mi.submission_id)",
        [assignment_id, marker]).fetchall()}


def save_marks(conn: Database, submission_id: int, marker: str, scores: dict, *, actor, at: str) -> None:
    """The second marker's blind mark, every criterion at once, with its audit row."""
    with conn.atomic():
        conn.conn.executemany(
            "INSERT INTO moderation_marks (submission_id, criterion, marker, score, marked_at) VALUES (?, ?, ?, ?, ?)",
            [(submission_id, k, marker, v, at) for k, v in scores.items()])
        audit(conn, actor=actor, action="second_mark", entity="moderation_marks", submission_id=submission_id,
              after={"marker": marker, "scores": scores})


def save_settlement(conn: Database, submission_id: int, rows: list[tuple[str, float, float, float]], note: str, *,
                    actor, at: str) -> None:
    """(criterion, first, second, final) rows of one item's settlement, with its audit row."""
    with conn.atomic():
        conn.conn.executemany(
            "INSERT INTO moderation_settlements (submission_id, criterion, first_score, second_score, score, note, "
            "settled_by, settled_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(submission_id, k, f, s, v, note, str(actor), at) for k, f, s, v in rows])
        audit(conn, actor=actor, action="settle_moderation", entity="moderation_settlements",
              submission_id=submission_id, after={k: v for k, _, _, v in rows}, reason=note)


def remove_item(conn: Database, submission_id: int, *, actor) -> int:
    """Take a drawn item nobody has marked a second time out of the sample; returns the rowcount."""
    n = conn.execute("DELETE FROM moderation_items AS mi WHERE submission_id = ? AND NOT EXISTS "
                     "(SELECT 1 FROM moderation_marks mm WHERE mm.submission_id = mi.submission_id)",
                     [submission_id]).rowcount
    if n:
        audit(conn, actor=actor, action="withdraw_moderation", entity="moderation_items", submission_id=submission_id,
              reason="taken out of the moderation sample before its second mark")
    return n


# --- marker assignment ---------------------------------------------------------------------
def assignable(conn: Database, assignment_id: int) -> list[dict]:
    """The assignment's submissions with their student's attributes: {submission_id, attributes}."""
    return [{"submission_id": r[0], "attributes": loads(r[1], {}) or {}} for r in conn.execute(
        "SELECT s.id, st.attributes FROM submissions s JOIN students st ON st.id = s.student_id "
        "WHERE s.assignment_id = ? ORDER BY s.id", [assignment_id]).fetchall()]


def assign_markers(conn: Database, assignment_id: int, pairs: list[tuple[int, str]], how: str, *, actor,
                   at: str) -> None:
    """(submission_id, marker) pairs replace the assignment's marker assignment; one audit row."""
    with conn.atomic():
        conn.execute("DELETE FROM marker_assignments WHERE assignment_id = ?", [assignment_id])
        conn.conn.executemany(
            "INSERT INTO marker_assignments (submission_id, assignment_id, marker, how, assigned_by, assigned_at) "
            "VALUES (?, ?, ?, ?, ?, ?)", [(sid, assignment_id, m, how, str(actor), at) for sid, m in pairs])
        audit(conn, actor=actor, action="assign_markers", entity="marker_assignments", entity_id=assignment_id,
              after={"how": how, "items": len(pairs)})


def assigned(conn: Database, assignment_id: int) -> dict[int, str]:
    """{submission_id: marker} of the assignment (empty: nobody assigned)."""
    return dict(conn.execute("SELECT submission_id, marker FROM marker_assignments WHERE assignment_id = ?",
                             [assignment_id]).fetchall())


def marker_of(conn: Database, submission_id: int) -> str | None:
    """The marker the item is assigned to (None: not assigned)."""
    row = conn.execute("SELECT marker FROM marker_assignments WHERE submission_id = ?", [submission_id]).fetchone()
    return row[0] if row else None


def marker_edits(conn: Database, course_id: int) -> list[dict]:
    """The course's items approved one by one: {marker (who approved), submission_id, student_id,
    rubric_id, ai (the draft's scores), mine (the approved scores)}. Bulk approvals copy the AI:
    left out."""
    return [{"marker": r[0], "submission_id": r[5], "student_id": r[1], "rubric_id": r[2], "ai": loads(r[3], {}) or {},
             "mine": loads(r[4], {}) or {}} for r in conn.execute(
        "SELECT r.approved_by, s.student_id, a.rubric_id, d.scores, r.scores, s.id FROM reviews r "
        "JOIN submissions s ON s.id = r.submission_id JOIN assignments a ON a.id = s.assignment_id "
        "JOIN drafts d ON d.id = r.draft_id WHERE a.course_id = ? AND r.approved_in_bulk = 0 "
        "AND r.approved_by IS NOT NULL AND (r.status = 'approved' OR s.status = 'released') ORDER BY r.id",
        [course_id]).fetchall()]

