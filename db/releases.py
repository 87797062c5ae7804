"""Releases: what an assignment has approved and released, the release write that locks the
approved review versions in `release_items`, and what a student has been released.

core.signoff.release decides whether a release may happen (the gates); `lock_approved` only
writes it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from sqlite_utils import Database

from db import dumps, loads
from db.actors import audit_fields


@dataclass
class ReleaseOverview:
    approved_unreleased: int = 0
    released: int = 0                 # items with a released version (what an export holds)
    changed_since_release: int = 0    # of those, edited since: the new version awaits its own release
    pending: int = 0                  # drafted / rejected: a teacher has not approved them
    needs_attention: int = 0          # needs attention or failed and not decided
    not_drafted: int = 0
    bulk_approved_unreleased: int = 0
    counts: dict = field(default_factory=dict)


def release_overview(conn: Database, assignment_id: int) -> ReleaseOverview:
    counts = dict(conn.execute("SELECT status, COUNT(*) FROM submissions WHERE assignment_id = ? GROUP BY status",
                               [assignment_id]).fetchall())
    bulk = conn.execute(
        "SELECT COUNT(*) FROM submissions s JOIN reviews r ON r.submission_id = s.id "
        "WHERE s.assignment_id = ? AND s.status = 'approved' AND r.approved_in_bulk = 1",
        [assignment_id]).fetchone()[0]
    released, changed = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(s.status != 'released'), 0) FROM submissions s WHERE s.assignment_id = ? "
        "AND EXISTS (SELECT 1 FROM release_items ri WHERE ri.submission_id = s.id)", [assignment_id]).fetchone()
    return ReleaseOverview(
        approved_unreleased=counts.get("approved", 0), released=released, changed_since_release=changed,
        pending=counts.get("drafted", 0) + counts.get("rejected", 0),
        needs_attention=counts.get("needs_attention", 0) + counts.get("failed", 0),
        not_drafted=counts.get("uploaded", 0), bulk_approved_unreleased=bulk, counts=counts)


def approved_among(conn: Database, assignment_id: int, submission_ids: list[int]) -> int:
    """How many of these submissions of the assignment are approved and wait for release."""
    return conn.execute("SELECT COUNT(*) FROM submissions WHERE assignment_id = ? AND status = 'approved' "
                        "AND id IN (SELECT value FROM json_each(?))",
                        [assignment_id, dumps([int(i) for i in submission_ids])]).fetchone()[0]


def releases_of(conn: Database, assignment_id: int) -> list[dict]:
    return list(conn.query("SELECT * FROM releases WHERE assignment_id = ? ORDER BY id DESC", [assignment_id]))


def lock_approved(conn: Database, assignment_id: int, *, actor: str, at: str, note: str,
                  only: list[int] | None = None) -> tuple[int, list[int]]:
    """Write a release of every approved item of the assignment (of `only` those submissions:
    an appeal's changed score): the release row, one `release_items` row per item locking its
    review version, scores and comment, and one audit row per item. Returns (release id, the
    released submission ids). The caller sets their status (db.submissions.set_status_many) in
    the same transaction."""
    rel_id = conn.execute("INSERT INTO releases (assignment_id, released_by, released_at, note) VALUES (?, ?, ?, ?)",
                          [assignment_id, actor, at, note]).lastrowid
    n = conn.execute(
        # rubric_id: the assignment's rubric now, the one approve validated the scores against
        # and the teacher sees; locked so a later rubric switch cannot change released totals.
        # approved_by / approved_in_bulk: who vouched for this version (the student page says so).
        "INSERT INTO release_items (release_id, submission_id, review_version, scores, comment, is_offline, "
        "rubric_id, approved_by, approved_in_bulk) SELECT ?, s.id, r.version, r.scores, r.comment, "
        "COALESCE(d.is_offline, 0), a.rubric_id, r.approved_by, r.approved_in_bulk "
        "FROM submissions s JOIN assignments a ON a.id = s.assignment_id "
        "JOIN reviews r ON r.submission_id = s.id LEFT JOIN drafts d ON d.id = r.draft_id "
        "WHERE s.assignment_id = ? AND s.status = 'approved' AND r.status = 'approved'"
        + ("" if only is None else " AND s.id IN (SELECT value FROM json_each(?))"),
        [rel_id, assignment_id, *([] if only is None else [dumps([int(i) for i in only])])]).rowcount
    conn.execute("UPDATE releases SET n_items = ? WHERE id = ?", [n, rel_id])
    conn.execute(
        "INSERT INTO audit_log (at, actor, user_id, role, action, entity, entity_id, submission_id, before, after, "
        "reason) SELECT ?, ?, ?, ?, 'release', 'release_items', ri.release_id, ri.submission_id, "
        "json_object('status', 'approved', 'version', ri.review_version), "
        "json_object('status', 'released', 'version', ri.review_version, 'release_id', ri.release_id), ? "
        "FROM release_items ri WHERE ri.release_id = ?", [at, *audit_fields(actor), note, rel_id])
    ids = [r[0] for r in conn.execute("SELECT submission_id FROM release_items WHERE release_id = ?",
                                      [rel_id]).fetchall()]
    return rel_id, ids


# --- student view -----------------------------------------------------------------------
def student_released(conn: Database, student_id: int) -> list[dict]:
    """The student's latest released version per assignment, in week order."""
    rows = list(conn.query(
        """
        SELECT a.id AS assignment_id, a.title, a.week, COALESCE(ri.rubric_id, a.rubric_id) AS rubric_id,
               ri.scores, ri.comment, ri.is_offline,
               ri.review_version, rel.released_at
        FROM submissions s
        JOIN assignments a ON a.id = s.assignment_id
        JOIN release_items ri ON ri.submission_id = s.id
        JOIN releases rel ON rel.id = ri.release_id
        WHERE s.student_id = ?
          AND ri.release_id = (SELECT MAX(release_id) FROM release_items WHERE submission_id = s.id)
        ORDER BY a.week, a.title, s.id
        """, [student_id]))
    for r in rows:
        r["scores"] = loads(r["scores"], {})
    return rows


def students_with_releases(conn: Database, course_id: int) -> set[int]:
    """Ids of the course's students who have at least one released item."""
    return {r[0] for r in conn.execute(
        "SELECT DISTINCT s.student_id FROM submissions s JOIN assignments a ON a.id = s.assignment_id "
        "WHERE a.course_id = ? AND EXISTS (SELECT 1 FROM release_items ri WHERE ri.submission_id = s.id)",
        [course_id]).fetchall()}
