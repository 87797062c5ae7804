"""The review queue: one page of items in priority order, the item before or after a place in
it, and the counts per queue group.

Every queue read is one indexed SQL statement over `submissions (assignment_id, priority, id)`
with LIMIT, so a page costs the same at 100 or 100,000 submissions. JSON filters (criterion
score, flag) are evaluated only on rows the index walk reaches.
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlite_utils import Database

from db import loads, moderation
from db.calibration import BLIND_PENDING
from db.errors import NotFound
from db.message import Message
from db.rubric_model import CRITERION_KEY

PAGE_SIZE = 25

# What a teacher means by "status" in the queue filter -> submissions.status values.
STATUS_FILTERS: dict[str, tuple[str, ...]] = {
    "to_review": ("drafted", "needs_attention", "failed", "rejected"),
    "needs_attention": ("needs_attention", "failed"),
    "drafted": ("drafted",),
    "rejected": ("rejected",),
    "approved": ("approved",),
    "released": ("released",),
}


@dataclass(frozen=True)
class QueueFilter:
    """What the teacher narrowed the queue to. All fields optional."""

    statuses: tuple[str, ...] | None = None
    group: int | None = None          # core.signoff.triage priority group
    criterion: str | None = None
    score: int | None = None          # with criterion: teacher's score if reviewed, else the draft's
    flag: str | None = None           # "any", "failed_check" (derived) or a code in drafts.flags
    search: str = ""                  # in the text, the student's name or id
    marker: str | None = None         # the reader: only their items (unless `everything`), never one they mark blind
    everything: bool = False

    def where(self) -> tuple[str, list]:
        # priority 9 = not drafted yet: nothing to review. A calibration item waiting for its
        # blind score is not in the queue at all: its draft stays hidden (db.calibration).
        sql, args = ["s.assignment_id = ?", "s.priority < 9", f"NOT {BLIND_PENDING}"], []
        if self.statuses:
            sql.append(f"s.status IN ({', '.join('?' * len(self.statuses))})")
            args += list(self.statuses)
        if self.group is not None:
            sql.append("s.priority = ?")
            args.append(int(self.group))
        if self.criterion and self.score is not None:
            if not CRITERION_KEY.match(self.criterion):  # safe in a JSON path
                raise NotFound(Message("no criterion {criterion!r}", criterion=self.criterion))
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
        if self.marker:
            sql.append(f"NOT {moderation.SECOND_BLIND}" + ("" if self.everything else f" AND {moderation.MARKERS_OWN}"))
            args += [self.marker] * (1 if self.everything else 3)
        text = self.search.strip()
        if text:
            sql.append("(instr(lower(s.text), lower(?)) > 0 OR instr(lower(st.name), lower(?)) > 0 "
                       "OR st.external_id = ?)")
            args += [text, text, text]
        return " AND ".join(sql), args


_QUEUE_COLUMNS = """
    s.id, s.status, s.priority, s.word_count, substr(s.text, 1, 140) AS excerpt,
    st.name AS student_name, st.email AS student_email, st.pseudonym, st.external_id,
    d.id AS draft_id, d.scores AS draft_scores, d.total AS draft_total, d.verdict, d.flags,
    d.is_offline, d.confidence, d.attention_reasons, d.held_back,
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
    row["held_back"] = loads(row["held_back"], [])
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
    """Submissions per queue group (core.signoff.triage priority), calibration items waiting for their
    blind score left out (their group would hint at the hidden draft)."""
    # Kept by triggers (m017c), minus the few hidden calibration items: a few rows at any size.
    counts = dict(conn.execute("SELECT priority, n FROM queue_counts WHERE assignment_id = ? AND n > 0",
                               [assignment_id]).fetchall())
    for priority, n in conn.execute(
            f"SELECT s.priority, COUNT(*) FROM calibration_items ci JOIN submissions s ON s.id = ci.submission_id "
            f"WHERE ci.assignment_id = ? AND s.assignment_id = ? AND {BLIND_PENDING} GROUP BY 1",
            [assignment_id, assignment_id]).fetchall():
        counts[priority] -= n
    return {p: n for p, n in sorted(counts.items()) if n > 0}


def all_items(conn: Database, assignment_id: int, submission_id: int | None = None) -> list[dict]:
    """Every submission of an assignment in queue order (the command line's queue), or only
    `submission_id`'s, with what the queue rows have plus the draft's `judging`, the review's
    draft (`review_draft_id`) and `blind_pending` (a calibration item waiting for its blind
    score: the caller shows nothing the AI produced)."""
    rows, where, args = [], "s.assignment_id = ?", [assignment_id]
    if submission_id is not None:
        where, args = where + " AND s.id = ?", [assignment_id, submission_id]
    for r in conn.query(f"SELECT {_QUEUE_COLUMNS}, d.judging, r.draft_id AS review_draft_id, "
                        f"{BLIND_PENDING} AS blind_pending {_QUEUE_FROM} WHERE {where} ORDER BY s.priority, s.id",
                        args):
        row = _queue_row(r)
        row["judging"] = loads(row["judging"], {})
        rows.append(row)
    return rows
