"""Review queue, item detail, audit history and release overview: the reads behind Review,
Release and Students.

Every queue read is one indexed SQL statement over `submissions (assignment_id, priority, id)`
with LIMIT, so a page costs the same at 100 or 100,000 submissions. JSON filters (criterion
score, flag) are evaluated only on rows the index walk reaches.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlite_utils import Database

from core.errors import NotFound
from db import drafts, loads

PAGE_SIZE = 25
_KEY = re.compile(r"^[a-z][a-z0-9_]{0,39}$")  # criterion keys (core.rubric); safe in a JSON path

# What a teacher means by "status" in the queue filter -> submissions.status values.
STATUS_FILTERS: dict[str, tuple[str, ...]] = {
    "to_review": ("drafted", "needs_attention", "failed", "rejected"),
    "needs_attention": ("needs_attention", "failed"),
    "drafted": ("drafted",),
    "rejected": ("rejected",),
    "approved": ("approved",),
    "released": ("released",),
}
# Flags the pipeline writes (drafts.flags) plus two derived ones.
FLAG_FILTERS = ("any", "failed_check", "short_text", "injection", "code", "empty", "non_english")


@dataclass(frozen=True)
class QueueFilter:
    """What the teacher narrowed the queue to. All fields optional."""

    statuses: tuple[str, ...] | None = None
    group: int | None = None          # core.triage priority group
    criterion: str | None = None
    score: int | None = None          # with criterion: teacher's score if reviewed, else the draft's
    flag: str | None = None           # one of FLAG_FILTERS
    search: str = ""                  # in the text, the student's name or id

    def where(self) -> tuple[str, list]:
        # priority 9 = not drafted yet: nothing to review.
        sql, args = ["s.assignment_id = ?", "s.priority < 9"], []
        if self.statuses:
            sql.append(f"s.status IN ({', '.join('?' * len(self.statuses))})")
            args += list(self.statuses)
        if self.group is not None:
            sql.append("s.priority = ?")
            args.append(int(self.group))
        if self.criterion and self.score is not None:
            if not _KEY.match(self.criterion):
                raise NotFound(f"no criterion {self.criterion!r}")
            sql.append("json_extract(COALESCE(r.scores, d.scores), ?) = ?")
            args += [f"$.{self.criterion}", int(self.score)]
        if self.flag == "any":
            sql.append("(json_array_length(d.flags) > 0 OR json_array_length(d.attention_reasons) > 0)")
        elif self.flag == "failed_check":
            sql.append("EXISTS (SELECT 1 FROM json_each(d.checks) c "
                       "WHERE json_extract(c.value, '$.passed') = 0 AND json_extract(c.value, '$.severity') = 'fail')")
        elif self.flag:
            sql.append("EXISTS (SELECT 1 FROM json_each(d.flags) f WHERE f.value = ?)")
            args.append(self.flag)
        text = self.search.strip()
        if text:
            sql.append("(instr(lower(s.text), lower(?)) > 0 OR instr(lower(st.name), lower(?)) > 0 "
                       "OR st.external_id = ?)")
            args += [text, text, text]
        return " AND ".join(sql), args


_QUEUE_COLUMNS = """
    s.id, s.status, s.priority, s.word_count, substr(s.text, 1, 140) AS excerpt,
    st.name AS student_name, st.external_id,
    d.id AS draft_id, d.scores AS draft_scores, d.total AS draft_total, d.verdict, d.flags,
    d.is_offline, d.confidence, d.attention_reasons,
    r.scores AS review_scores, r.status AS review_status, r.version, r.opened_at, r.edited
"""
_QUEUE_FROM = """
    FROM submissions s
    JOIN students st ON st.id = s.student_id
    LEFT JOIN drafts d ON d.id = s.current_draft_id
    LEFT JOIN reviews r ON r.submission_id = s.id
"""


def _queue_row(row: dict) -> dict:
    row = dict(row)
    row["draft_scores"] = loads(row["draft_scores"], {})
    row["review_scores"] = loads(row["review_scores"], None)
    row["flags"] = loads(row["flags"], [])
    row["attention_reasons"] = loads(row["attention_reasons"], [])
    row["scores"] = row["review_scores"] if row["review_scores"] is not None else row["draft_scores"]
    return row


def queue(conn: Database, assignment_id: int, flt: QueueFilter | None = None, *,
          page: int = 0, page_size: int = PAGE_SIZE) -> dict:
    """One page of the review queue in priority order: {"rows", "page", "has_next"}."""
    where, args = (flt or QueueFilter()).where()
    rows = [_queue_row(r) for r in conn.query(
        f"SELECT {_QUEUE_COLUMNS} {_QUEUE_FROM} WHERE {where} ORDER BY s.priority, s.id LIMIT ? OFFSET ?",
        [assignment_id, *args, page_size + 1, max(page, 0) * page_size])]
    return {"rows": rows[:page_size], "page": max(page, 0), "has_next": len(rows) > page_size}


def neighbour(conn: Database, assignment_id: int, position: tuple[int, int], flt: QueueFilter | None = None,
              *, forward: bool = True) -> int | None:
    """The submission after (or before) `position` = (priority, id) in queue order.

    Navigation keeps the teacher's place by the position an item had when it was opened, so
    approving an item (which moves it to the Approved group) still leads to the next one.
    """
    where, args = (flt or QueueFilter()).where()
    op, order = (">", "ASC") if forward else ("<", "DESC")
    row = conn.execute(
        f"SELECT s.id {_QUEUE_FROM} WHERE {where} AND (s.priority, s.id) {op} (?, ?) "
        f"ORDER BY s.priority {order}, s.id {order} LIMIT 1",
        [assignment_id, *args, int(position[0]), int(position[1])]).fetchone()
    return row[0] if row else None


def position(conn: Database, submission_id: int) -> tuple[int, int] | None:
    """(assignment_id, priority) of a submission, or None when it does not exist."""
    row = conn.execute("SELECT assignment_id, priority FROM submissions WHERE id = ?", [submission_id]).fetchone()
    return (row[0], row[1]) if row else None


def group_counts(conn: Database, assignment_id: int) -> dict[int, int]:
    """Submissions per queue group (core.triage priority): an index-only GROUP BY."""
    return dict(conn.execute(
        "SELECT priority, COUNT(*) FROM submissions WHERE assignment_id = ? GROUP BY priority",
        [assignment_id]).fetchall())


# --- one item ---------------------------------------------------------------------------
def _draft(row: dict | None) -> dict | None:
    return drafts.decode(row)


def _review(row: dict | None) -> dict | None:
    if row is None:
        return None
    row = dict(row)
    row["scores"] = loads(row["scores"], {})
    row["reason_codes"] = loads(row["reason_codes"], [])
    return row


def get_draft(conn: Database, draft_id: int) -> dict:
    row = next(conn.query("SELECT * FROM drafts WHERE id = ?", [draft_id]), None)
    if row is None:
        raise NotFound(f"draft {draft_id} does not exist")
    return _draft(row)


def get_review(conn: Database, submission_id: int) -> dict | None:
    return _review(next(conn.query("SELECT * FROM reviews WHERE submission_id = ?", [submission_id]), None))


def get_submission(conn: Database, submission_id: int) -> dict:
    row = next(conn.query("SELECT * FROM submissions WHERE id = ?", [submission_id]), None)
    if row is None:
        raise NotFound(f"submission {submission_id} does not exist")
    return row


def latest_draft_id(conn: Database, submission_id: int) -> int | None:
    return conn.execute("SELECT MAX(id) FROM drafts WHERE submission_id = ?", [submission_id]).fetchone()[0]


def item(conn: Database, submission_id: int) -> dict:
    """Everything the item view shows: submission, student, assignment, drafts, review, releases."""
    sub = get_submission(conn, submission_id)
    student = next(conn.query("SELECT id, external_id, name, pseudonym FROM students WHERE id = ?",
                            [sub["student_id"]]))
    assignment = next(conn.query("SELECT id, course_id, title, week, rubric_id, target_grade FROM assignments "
                               "WHERE id = ?", [sub["assignment_id"]]))
    review = get_review(conn, submission_id)
    current = get_draft(conn, sub["current_draft_id"]) if sub["current_draft_id"] else None
    base = current
    if review and review["draft_id"] and (current is None or review["draft_id"] != current["id"]):
        base = get_draft(conn, review["draft_id"])
    latest = latest_draft_id(conn, submission_id)
    releases = list(conn.query(
        "SELECT ri.release_id, ri.review_version, rel.released_by, rel.released_at "
        "FROM release_items ri JOIN releases rel ON rel.id = ri.release_id "
        "WHERE ri.submission_id = ? ORDER BY ri.release_id", [submission_id]))
    return {"submission": sub, "student": student, "assignment": assignment, "review": review,
            "draft": base, "current_draft": current, "latest_draft_id": latest, "releases": releases}


def drafts_of(conn: Database, submission_id: int) -> list[dict]:
    return list(conn.query(
        "SELECT id, run_id, provider, is_offline, total, verdict, status, created_at FROM drafts "
        "WHERE submission_id = ? ORDER BY id", [submission_id]))


def history(conn: Database, submission_id: int) -> list[dict]:
    """The item's audit trail, oldest first (who, when, what, before, after, why)."""
    rows = list(conn.query(
        "SELECT id, at, actor, action, entity, entity_id, before, after, reason FROM audit_log "
        "WHERE submission_id = ? ORDER BY id", [submission_id]))
    for r in rows:
        r["before"] = loads(r["before"], None)
        r["after"] = loads(r["after"], None)
    return rows


def review_at_version(conn: Database, submission_id: int, version: int) -> dict | None:
    """The review as it was at `version`, reconstructed from the audit log."""
    row = conn.execute(
        "SELECT after FROM audit_log WHERE submission_id = ? AND entity = 'reviews' "
        "AND json_extract(after, '$.version') = ? ORDER BY id DESC LIMIT 1",
        [submission_id, version]).fetchone()
    return loads(row[0], None) if row else None


def last_change(conn: Database, submission_id: int) -> dict | None:
    return next(conn.query(
        "SELECT actor, at, action FROM audit_log WHERE submission_id = ? AND entity = 'reviews' "
        "ORDER BY id DESC LIMIT 1", [submission_id]), None)


# --- release overview -------------------------------------------------------------------
@dataclass
class ReleaseOverview:
    approved_unreleased: int = 0
    released: int = 0
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
    return ReleaseOverview(
        approved_unreleased=counts.get("approved", 0), released=counts.get("released", 0),
        pending=counts.get("drafted", 0) + counts.get("rejected", 0),
        needs_attention=counts.get("needs_attention", 0) + counts.get("failed", 0),
        not_drafted=counts.get("uploaded", 0), bulk_approved_unreleased=bulk, counts=counts)


def exportable_count(conn: Database, assignment_id: int, *, include_approved: bool = False) -> int:
    """How many items an export of this assignment would hold (see core.export)."""
    released = conn.execute(
        "SELECT COUNT(*) FROM submissions s WHERE s.assignment_id = ? "
        "AND EXISTS (SELECT 1 FROM release_items ri WHERE ri.submission_id = s.id)"
        + (" AND s.status != 'approved'" if include_approved else ""), [assignment_id]).fetchone()[0]
    if not include_approved:
        return released
    return released + conn.execute(
        "SELECT COUNT(*) FROM submissions s JOIN reviews r ON r.submission_id = s.id "
        "WHERE s.assignment_id = ? AND s.status = 'approved' AND r.status = 'approved'", [assignment_id]).fetchone()[0]


def releases_of(conn: Database, assignment_id: int) -> list[dict]:
    return list(conn.query("SELECT * FROM releases WHERE assignment_id = ? ORDER BY id DESC", [assignment_id]))


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
