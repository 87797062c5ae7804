"""Calibration: the stratified set a teacher scores blind per assignment (`calibration_items`)
and the blind scores (`calibration_scores`, per submission, criterion and rater).

core.calibration owns the rules (how the set is drawn, when an item counts as blind, the
readiness bar); this module holds their SQL. An item is *blind-pending* while it is in a
calibration set and nobody has saved a blind score for it: until then its AI draft is hidden
everywhere (db.queue and db.samples leave it out with `BLIND_PENDING`).
"""
from __future__ import annotations

from sqlite_utils import Database

from db import audit, get_setting, set_setting
from db.errors import ConflictError
from db.message import Message

# A submission row `s` is in a calibration set and has no blind score yet (SQL, for WHERE clauses).
BLIND_PENDING = ("EXISTS (SELECT 1 FROM calibration_items ci WHERE ci.submission_id = s.id AND NOT EXISTS "
                 "(SELECT 1 FROM calibration_scores cs WHERE cs.submission_id = ci.submission_id))")
BAR_KEY = "calibration_bar"
SOURCES = ("blind", "upload")


def pool(conn: Database, assignment_id: int) -> list[dict]:
    """Submissions that may join the calibration set: drafted (scores to compare), never opened
    by a teacher (so the score can still be blind), not in the set and not calibrated yet.
    {submission_id, draft_id, scores (JSON), word_count, attributes (JSON)}."""
    return list(conn.query(
        "SELECT s.id AS submission_id, d.id AS draft_id, d.scores, s.word_count, "
        "st.attributes FROM submissions s JOIN students st ON st.id = s.student_id "
        "JOIN drafts d ON d.id = s.current_draft_id LEFT JOIN reviews r ON r.submission_id = s.id "
        "WHERE s.assignment_id = ? AND s.status IN ('drafted', 'needs_attention') AND d.status != 'failed' "
        "AND r.id IS NULL "
        "AND NOT EXISTS (SELECT 1 FROM calibration_items ci WHERE ci.submission_id = s.id) "
        "AND NOT EXISTS (SELECT 1 FROM calibration_scores cs WHERE cs.submission_id = s.id) "
        "ORDER BY s.id", [assignment_id]))


def add_items(conn: Database, assignment_id: int, picked: list[tuple[int, int, str]], *, actor: str,
              at: str) -> None:
    """Add (submission_id, draft_id, stratum) rows to the assignment's set, with one audit row."""
    with conn.atomic():  # a savepoint inside the caller's transaction, else its own
        conn.conn.executemany(
            "INSERT INTO calibration_items (assignment_id, submission_id, draft_id, stratum, drawn_by, drawn_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(assignment_id, sid, did, stratum, actor, at) for sid, did, stratum in picked])
        audit(conn, actor=actor, action="draw_calibration", entity="calibration_items", entity_id=assignment_id,
              after={"added": [sid for sid, _, _ in picked]}, reason="stratified calibration set")


def remove_item(conn: Database, assignment_id: int, submission_id: int, *, actor: str) -> int:
    """Take a still-pending item out of the set (a teacher skips it); returns the rowcount."""
    n = conn.execute("DELETE FROM calibration_items AS ci WHERE assignment_id = ? AND submission_id = ? "
                     "AND NOT EXISTS (SELECT 1 FROM calibration_scores cs WHERE cs.submission_id = ci.submission_id)",
                     [assignment_id, submission_id]).rowcount
    if n:
        audit(conn, actor=actor, action="skip_calibration", entity="calibration_items", entity_id=assignment_id,
              submission_id=submission_id, reason="taken out of the calibration set before scoring")
    return n


def items(conn: Database, assignment_id: int) -> list[dict]:
    """The set in drawing order: {submission_id, stratum, drawn_by, drawn_at, external_id, name,
    word_count, raters (comma-separated, who saved a blind score)}."""
    return list(conn.query(
        "SELECT ci.submission_id, ci.stratum, ci.drawn_by, ci.drawn_at, st.external_id, st.name, s.word_count, "
        "(SELECT group_concat(rater, ', ') FROM (SELECT DISTINCT rater FROM calibration_scores cs "
        " WHERE cs.submission_id = ci.submission_id ORDER BY rater) AS r) AS raters "
        "FROM calibration_items ci JOIN submissions s ON s.id = ci.submission_id "
        "JOIN students st ON st.id = s.student_id WHERE ci.assignment_id = ? "
        "ORDER BY ci.drawn_at, ci.submission_id", [assignment_id]))


def in_set(conn: Database, submission_id: int) -> bool:
    return conn.execute("SELECT 1 FROM calibration_items WHERE submission_id = ?", [submission_id]).fetchone() \
        is not None


def is_blind_pending(conn: Database, submission_id: int) -> bool:
    return bool(conn.execute(f"SELECT {BLIND_PENDING} FROM submissions s WHERE s.id = ?",
                             [submission_id]).fetchone()[0])


def pending_count(conn: Database, assignment_id: int) -> int:
    return conn.execute(f"SELECT COUNT(*) FROM submissions s WHERE s.assignment_id = ? AND {BLIND_PENDING}",
                        [assignment_id]).fetchone()[0]


def scores_of(conn: Database, submission_id: int) -> dict[str, dict[str, float]]:
    """{rater: {criterion: score}} of one submission's blind scores."""
    out: dict[str, dict[str, float]] = {}
    for rater, criterion, score in conn.execute(
            "SELECT rater, criterion, score FROM calibration_scores WHERE submission_id = ? ORDER BY id",
            [submission_id]).fetchall():
        out.setdefault(rater, {})[criterion] = score
    return out


def save_scores(conn: Database, submission_id: int, rater: str, scores: dict[str, float], *, source: str,
                actor: str, at: str) -> None:
    """One rater's scores of one submission, all criteria at once. Final: a rater who already
    scored this submission is refused (after the reveal a change would not be blind)."""
    if source not in SOURCES:
        raise ValueError(f"source must be one of {SOURCES}")
    if conn.execute("SELECT 1 FROM calibration_scores WHERE submission_id = ? AND rater = ?",
                    [submission_id, rater]).fetchone():
        raise ConflictError(Message("{rater} already saved blind scores for submission {id}; blind scores are final (a "
                                    "change after seeing the AI's draft would not be blind)", rater=rater, id=submission_id))
    with conn.atomic():
        conn.conn.executemany(
            "INSERT INTO calibration_scores (submission_id, criterion, rater, score, source, scored_by, scored_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(submission_id, k, rater, v, source, actor, at) for k, v in scores.items()])
        audit(conn, actor=actor, action="calibration_score", entity="calibration_scores",
              submission_id=submission_id, after={"rater": rater, "scores": scores, "source": source})


def rater_pairs(conn: Database, assignment_id: int) -> list[tuple]:
    """(student_id, criterion, first rater's score, second rater's score) where two raters
    scored the same submission blind: the human ceiling. The first two raters to save count."""
    return conn.execute(
        "WITH ranked AS (SELECT cs.*, s.student_id, DENSE_RANK() OVER (PARTITION BY cs.submission_id "
        " ORDER BY (SELECT MIN(id) FROM calibration_scores x WHERE x.submission_id = cs.submission_id "
        "  AND x.rater = cs.rater)) AS k FROM calibration_scores cs JOIN submissions s ON s.id = cs.submission_id "
        " WHERE s.assignment_id = ?) "
        "SELECT a.student_id, a.criterion, a.score, b.score FROM ranked a JOIN ranked b "
        "ON b.submission_id = a.submission_id AND b.criterion = a.criterion AND a.k = 1 AND b.k = 2 "
        "ORDER BY a.student_id, a.criterion", [assignment_id]).fetchall()


def anchor_rows(conn: Database, assignment_id: int, exclude_submission_id: int | None = None) -> list[dict]:
    """Blind-scored submissions of an assignment that can serve as the Evaluator's examples,
    one row per (submission, criterion) where every rater gave the same whole score:
    {submission_id, text, name, email, pseudonym, criterion, score}. The submission being
    scored is left out (leave-one-out: an item is never its own example), and so is any text
    whose draft was flagged for instructions aimed at the AI (it would speak to every prompt)."""
    return list(conn.query(
        "SELECT s.id AS submission_id, s.text, st.name, st.email, st.pseudonym, cs.criterion, "
        "MIN(cs.score) AS score FROM calibration_scores cs JOIN submissions s ON s.id = cs.submission_id "
        "JOIN students st ON st.id = s.student_id WHERE s.assignment_id = ? AND s.id IS NOT ? "
        "AND NOT EXISTS (SELECT 1 FROM drafts d, json_each(d.flags) f WHERE d.id = s.current_draft_id "
        " AND f.value = 'injection') "
        "GROUP BY s.id, st.id, cs.criterion "
        "HAVING MIN(cs.score) = MAX(cs.score) AND MIN(cs.score) = CAST(MIN(cs.score) AS INT) "
        "ORDER BY s.id, cs.criterion", [assignment_id, exclude_submission_id]))


def calibrated_students(conn: Database, assignment_id: int) -> int:
    """Students of an assignment with at least one blind score."""
    return conn.execute("SELECT COUNT(DISTINCT s.student_id) FROM calibration_scores cs "
                        "JOIN submissions s ON s.id = cs.submission_id WHERE s.assignment_id = ?",
                        [assignment_id]).fetchone()[0]


def blind_scored_by_offline(conn: Database, assignment_id: int) -> bool:
    """Whether the drafts the readiness gate compares with the blind scores are all the offline
    baseline's: then readiness measures its agreement. The draft compared is the reviewed one,
    else the current one (the pairs of db.aggregates)."""
    n, offline = conn.execute(
        "SELECT COUNT(*), TOTAL(d.is_offline) FROM submissions s LEFT JOIN reviews r ON r.submission_id = s.id "
        "JOIN drafts d ON d.id = COALESCE(r.draft_id, s.current_draft_id) "
        "WHERE s.assignment_id = ? AND EXISTS (SELECT 1 FROM calibration_scores cs WHERE cs.submission_id = s.id)",
        [assignment_id]).fetchone()
    return n > 0 and offline == n


def get_bar(conn: Database) -> dict | None:
    """The admin's readiness bar (core.calibration.readiness.Bar fields), None when never set."""
    return get_setting(conn, BAR_KEY)


def save_bar(conn: Database, bar: dict, *, actor: str) -> None:
    before = get_bar(conn)
    with conn.atomic():
        set_setting(conn, BAR_KEY, bar)
        audit(conn, actor=actor, action="edit_calibration_bar", entity="app_settings", before=before, after=bar)
