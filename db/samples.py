"""Bulk approval: which drafts qualify, the stratified sample of them (`review_samples`), and
the set-based writes that approve them all at once.

A candidate is a drafted item whose Reviewer was CONFIDENT (the offline baseline has no
Reviewer verdict), with no failed blocking check, no flag, no attention reason, nothing in
`drafts.held_back` (core.signoff.eligibility: split votes, unsure, veto, ...) but the codes the
caller lifts, no teacher edit, not waiting for a blind calibration score, and not in a band the
readiness bar's band gap holds back. core.signoff.bulk owns the rules around it (the band cut,
which check severities block, which codes are lifted, which bands are held back, the sample
size, the gates) and passes them in as an `Eligibility`.
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlite_utils import Database

from db.actors import audit_fields
from db.calibration import BLIND_PENDING


@dataclass(frozen=True)
class Eligibility:
    divisor: float                # drafts.total / divisor = the draft's mean score
    band_cut: float               # a mean at or below it is the 'low' band, above it 'high'
    blocking: tuple[str, ...]     # check severities that keep a draft out when the check failed
    lifted: tuple[str, ...] = ()          # held_back codes that do not keep a draft out here
    blocked_bands: tuple[str, ...] = ()   # bands whose drafts are held back ('low' / 'high')


def _candidates(rule: Eligibility, assignment_id: int) -> tuple[str, list]:
    """The candidates of one assignment as a subquery (submission_id, draft_id, band)."""
    # An empty list is NULL here: `x NOT IN (NULL)` would hold nothing back, so an empty `lifted` or
    # `bands` is said as no condition (`NOT IN ()`, SQLite's, is not SQL that PostgreSQL takes).
    sev = ", ".join("?" * len(rule.blocking)) or "NULL"
    lifted, bands = ", ".join("?" * len(rule.lifted)), ", ".join("?" * len(rule.blocked_bands))
    not_lifted = f"json_extract(h.value, '$.code') NOT IN ({lifted})" if lifted else "1 = 1"
    not_held = f"band NOT IN ({bands})" if bands else "1 = 1"
    sql = f"""
        SELECT * FROM (SELECT s.id AS submission_id, d.id AS draft_id,
               CASE WHEN d.total / ? <= ? THEN 'low' ELSE 'high' END AS band
        FROM submissions s
        JOIN drafts d ON d.id = s.current_draft_id
        LEFT JOIN reviews r ON r.submission_id = s.id
        WHERE s.assignment_id = ? AND s.status = 'drafted' AND d.status = 'drafted'
          AND (d.verdict = 'CONFIDENT' OR d.is_offline = 1)
          AND NOT EXISTS (SELECT 1 FROM json_each(d.held_back) h
                          WHERE {not_lifted})
          AND json_array_length(d.flags) = 0 AND json_array_length(d.attention_reasons) = 0
          AND NOT EXISTS (SELECT 1 FROM json_each(d.checks) c WHERE json_extract(c.value, '$.passed') = 0
                          AND json_extract(c.value, '$.severity') IN ({sev}))
          AND (r.id IS NULL OR (r.status = 'in_review' AND r.edited = 0 AND r.draft_id = d.id))
          AND NOT {BLIND_PENDING}
          -- a moderation sample's first mark is a marker's own (a bulk approval copies the AI)
          AND NOT EXISTS (SELECT 1 FROM moderation_items mi WHERE mi.submission_id = s.id)) AS candidates WHERE {not_held}
    """
    return sql, [rule.divisor, rule.band_cut, assignment_id, *rule.lifted, *rule.blocking, *rule.blocked_bands]


def candidates_by_band(conn: Database, assignment_id: int, rule: Eligibility) -> dict[str, int]:
    sql, args = _candidates(rule, assignment_id)
    return dict(conn.execute(f"SELECT band, COUNT(*) FROM ({sql}) AS c GROUP BY band", args).fetchall())


def sample_rows(conn: Database, assignment_id: int) -> list[dict]:
    """The drawn sample: {submission_id, band, draft_id, opened_at, student_name, live}.

    `live`: the sampled draft is still the submission's current one (only then does the row
    count); `opened_at` is set only if the teacher's review was opened on that very draft
    (open_item creates the review from the current draft)."""
    return list(conn.query(
        "SELECT rs.submission_id, rs.band, rs.draft_id, "
        "CASE WHEN r.draft_id = rs.draft_id THEN r.opened_at END AS opened_at, st.name AS student_name, "
        "CASE WHEN s.current_draft_id = rs.draft_id THEN 1 ELSE 0 END AS live FROM review_samples rs "
        "JOIN submissions s ON s.id = rs.submission_id JOIN students st ON st.id = s.student_id "
        "LEFT JOIN reviews r ON r.submission_id = rs.submission_id "
        "WHERE rs.assignment_id = ? ORDER BY rs.band, rs.submission_id", [assignment_id]))


def drafted_since_draw(conn: Database, assignment_id: int, rule: Eligibility) -> bool:
    """Whether a candidate's draft is newer than the latest draw of the sample."""
    sql, args = _candidates(rule, assignment_id)
    return bool(conn.execute(
        f"SELECT EXISTS (SELECT 1 FROM ({sql}) c JOIN drafts d ON d.id = c.draft_id "
        "WHERE d.created_at > (SELECT MAX(drawn_at) FROM review_samples WHERE assignment_id = ?))",
        [*args, assignment_id]).fetchone()[0])


def drop_from_sample(conn: Database, assignment_id: int, submission_ids: list[int]) -> None:
    conn.execute(f"DELETE FROM review_samples WHERE assignment_id = ? AND submission_id IN "
                 f"({', '.join('?' * len(submission_ids))})", [assignment_id, *submission_ids])


def pick(conn: Database, assignment_id: int, rule: Eligibility, band: str, n: int) -> list[tuple[int, int]]:
    """Up to n (submission_id, draft_id) candidates of a band not in the sample yet: drafts the
    teacher has not opened first (re-sampling one already seen adds nothing), spread over ids by
    a multiplicative hash (deterministic, not "the first n")."""
    sql, args = _candidates(rule, assignment_id)
    return [tuple(r) for r in conn.execute(
        f"SELECT c.submission_id, c.draft_id FROM ({sql}) c "
        "LEFT JOIN reviews seen ON seen.submission_id = c.submission_id AND seen.draft_id = c.draft_id "
        "AND seen.opened_at IS NOT NULL "
        "WHERE c.band = ? AND c.submission_id NOT IN "
        "(SELECT submission_id FROM review_samples WHERE assignment_id = ?) "
        "ORDER BY seen.id IS NOT NULL, (c.submission_id * 2654435761) % 4294967296 LIMIT ?",
        [*args, band, assignment_id, n]).fetchall()]


def add_to_sample(conn: Database, assignment_id: int, band: str, picked: list[tuple[int, int]], *,
                  actor: str, at: str) -> None:
    conn.conn.executemany(
        "INSERT INTO review_samples (assignment_id, submission_id, band, drawn_by, drawn_at, draft_id) "
        "VALUES (?, ?, ?, ?, ?, ?)", [(assignment_id, sid, band, actor, at, did) for sid, did in picked])


# What the audit log records about a review, as SQL (the same keys as core.signoff.actions.snapshot).
_SNAPSHOT = ("json_object('version', r.version, 'status', r.status, 'scores', json(r.scores), "
             "'comment', r.comment, 'reason_codes', json(r.reason_codes), 'note', r.note, 'draft_id', r.draft_id)")


def approve_candidates(conn: Database, assignment_id: int, rule: Eligibility, *, actor: str, at: str,
                       reason: str) -> list[int]:
    """Approve every candidate's review in a few set-based statements, with one audit row each
    (before/after snapshots). Items never opened get their review first (version 0 -> 1 by the
    approval). Returns the approved submission ids; the caller sets their status
    (db.submissions.set_status_many) in the same transaction."""
    sql, args = _candidates(rule, assignment_id)
    conn.execute("DROP TABLE IF EXISTS temp.bulk_items")
    conn.execute("CREATE TEMP TABLE bulk_items (submission_id INTEGER PRIMARY KEY, draft_id INTEGER, before TEXT)")
    conn.execute(f"INSERT INTO temp.bulk_items SELECT c.submission_id, c.draft_id, NULL FROM ({sql}) c", args)
    conn.execute(f"UPDATE temp.bulk_items SET before = (SELECT {_SNAPSHOT} FROM reviews r "
                 "WHERE r.submission_id = bulk_items.submission_id)")
    conn.execute("INSERT INTO reviews (submission_id, draft_id, version, scores, comment, status, updated_by, "
                 "updated_at) SELECT b.submission_id, d.id, 0, d.scores, d.comment, 'in_review', ?, ? "
                 "FROM temp.bulk_items b JOIN drafts d ON d.id = b.draft_id WHERE b.before IS NULL", [actor, at])
    conn.execute("UPDATE reviews SET status = 'approved', version = version + 1, approved_by = ?, approved_at = ?, "
                 "approved_in_bulk = 1, updated_by = ?, updated_at = ? "
                 "WHERE submission_id IN (SELECT submission_id FROM temp.bulk_items)", [actor, at, actor, at])
    conn.execute(
        "INSERT INTO audit_log (at, actor, user_id, role, action, entity, entity_id, submission_id, before, after, "
        f"reason) SELECT ?, ?, ?, ?, 'bulk_approve', 'reviews', r.id, b.submission_id, b.before, {_SNAPSHOT}, ? "
        "FROM temp.bulk_items b JOIN reviews r ON r.submission_id = b.submission_id",
        [at, *audit_fields(actor), reason])
    ids = [r[0] for r in conn.execute("SELECT submission_id FROM temp.bulk_items ORDER BY submission_id").fetchall()]
    conn.execute("DROP TABLE temp.bulk_items")
    return ids

