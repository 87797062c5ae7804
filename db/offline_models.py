"""The learned offline scorer's SQL: what it may learn from, its stored versions and the
teacher's options (tables `offline_models`, `offline_scorer_options`, m016).

What counts as a teacher's score for training (core.offline.scorer owns the rule, this is its SQL):
- blind calibration scores and uploads declared as calibration (`calibration_scores`, sources
  'blind' and 'upload'), averaged over raters per submission and criterion;
- with `use_edits`, the scores of items a teacher approved one by one (`reviews`, status
  approved, `approved_in_bulk = 0`), for submissions without a calibration score;
- never a bulk approval (those are the AI's scores) and never `reference_scores` (the experts'
  scores measure agreement; a model trained on them would be graded on its own answers).
"""
from __future__ import annotations

from sqlite_utils import Database

from db import audit, dumps, loads

_BLIND = ("SELECT s.id AS submission_id, s.assignment_id, s.student_id, s.text, a.prompt, a.key_concepts, "
          "cs.criterion, AVG(cs.score) AS score, 'calibration' AS source FROM calibration_scores cs "
          "JOIN submissions s ON s.id = cs.submission_id JOIN assignments a ON a.id = s.assignment_id "
          "WHERE s.assignment_id IN ({ids}) GROUP BY s.id, a.id, cs.criterion")
_EDITS = ("SELECT s.id AS submission_id, s.assignment_id, s.student_id, s.text, a.prompt, a.key_concepts, "
          "j.key AS criterion, CAST(j.value AS REAL) AS score, 'teacher' AS source FROM reviews r "
          "JOIN submissions s ON s.id = r.submission_id JOIN assignments a ON a.id = s.assignment_id, json_each(r.scores) j "
          "WHERE s.assignment_id IN ({ids}) AND r.status = 'approved' AND r.approved_in_bulk = 0 "
          "AND NOT EXISTS (SELECT 1 FROM calibration_scores cs WHERE cs.submission_id = s.id)")


def _ids(assignment_ids: list[int]) -> str:
    return ", ".join(str(int(a)) for a in assignment_ids)


def training_rows(conn: Database, assignment_ids: list[int], *, use_edits: bool) -> list[dict]:
    """Every teacher score the scorer may learn from: {submission_id, assignment_id, student_id, text,
    prompt, key_concepts (JSON), criterion, score, source ('calibration' | 'teacher')}, in
    submission order."""
    ids = _ids(assignment_ids)
    sql = _BLIND.format(ids=ids) + (" UNION ALL " + _EDITS.format(ids=ids) if use_edits else "")
    return list(conn.query(f"SELECT * FROM ({sql}) AS teacher_scores ORDER BY submission_id, criterion"))


def fingerprint(conn: Database, assignment_ids: list[int], *, use_edits: bool) -> tuple:
    """Changes whenever the scores `training_rows` would return may have changed (cheap: two
    aggregates), so a stored model is reused until then."""
    ids = _ids(assignment_ids)
    blind = conn.execute("SELECT COUNT(*), MAX(cs.id) FROM calibration_scores cs JOIN submissions s "
                         f"ON s.id = cs.submission_id WHERE s.assignment_id IN ({ids})").fetchone()
    edits = conn.execute("SELECT COUNT(*), MAX(r.updated_at), SUM(r.version) FROM reviews r JOIN submissions s "
                         "ON s.id = r.submission_id WHERE s.assignment_id IN "
                         f"({ids}) AND r.status = 'approved' AND r.approved_in_bulk = 0").fetchone() \
        if use_edits else ()
    return (*blind, *edits)


def pool_texts(conn: Database, assignment_id: int) -> list[dict]:
    """The assignment's submissions (scored or not): {submission_id, text}; the predicted
    levels are spread over these like the teacher's scores."""
    return list(conn.query("SELECT id AS submission_id, text FROM submissions WHERE assignment_id = ? ORDER BY id",
                           [assignment_id]))


def sharing_rubric(conn: Database, assignment_id: int) -> list[int]:
    """The assignment and the other assignments of its course on the same rubric version."""
    return [r[0] for r in conn.execute(
        "SELECT b.id FROM assignments a JOIN assignments b ON b.course_id = a.course_id AND b.rubric_id = a.rubric_id "
        "WHERE a.id = ? ORDER BY b.id = a.id DESC, b.id", [assignment_id]).fetchall()]


def save(conn: Database, row: dict, *, actor: str) -> int:
    """A new version of the assignment's scorer (version = last + 1), audited."""
    with conn.atomic():
        version = conn.execute("SELECT COALESCE(MAX(version), 0) + 1 FROM offline_models WHERE assignment_id = ?",
                               [row["assignment_id"]]).fetchone()[0]
        cols = {**row, "version": version, "trained_by": actor}
        for key in ("options", "training", "criteria", "agreement", "calibration"):
            cols[key] = dumps(cols[key])
        names = list(cols)
        model_id = conn.execute(f"INSERT INTO offline_models ({', '.join(names)}) VALUES "
                                f"({', '.join('?' for _ in names)})", [cols[n] for n in names]).lastrowid
        audit(conn, actor=actor, action="train_offline_scorer", entity="offline_models", entity_id=model_id,
              after={"assignment_id": row["assignment_id"], "version": version, "data_hash": row["data_hash"],
                     "criteria": row["criteria"]})
    return model_id


_SUMMARY = ("id, assignment_id, rubric_id, version, options, data_hash, criteria, agreement, calibration, seconds, "
            "trained_by, trained_at, length(training) AS training_chars, model IS NOT NULL AS has_model")


def _decode(row: dict | None) -> dict | None:
    if row is None:
        return None
    for key, default in (("options", {}), ("criteria", {}), ("agreement", {}), ("calibration", {}),
                         ("training", [])):
        if key in row:
            row[key] = loads(row[key], default)
    return row


def latest(conn: Database, assignment_id: int) -> dict | None:
    """The assignment's newest version (without the model's bytes and the training list)."""
    return _decode(next(conn.query(f"SELECT {_SUMMARY} FROM offline_models WHERE assignment_id = ? "
                                   "ORDER BY version DESC LIMIT 1", [assignment_id]), None))


def versions(conn: Database, assignment_id: int) -> list[dict]:
    return [_decode(r) for r in conn.query(f"SELECT {_SUMMARY} FROM offline_models WHERE assignment_id = ? "
                                           "ORDER BY version DESC", [assignment_id])]


def model_bytes(conn: Database, model_id: int) -> bytes | None:
    row = conn.execute("SELECT model FROM offline_models WHERE id = ?", [model_id]).fetchone()
    return row[0] if row else None


def training_of(conn: Database, model_id: int) -> list[dict]:
    """The scores a version was trained on."""
    row = conn.execute("SELECT training FROM offline_models WHERE id = ?", [model_id]).fetchone()
    return loads(row[0], []) if row else []


def get_options(conn: Database, assignment_id: int) -> dict | None:
    row = next(conn.query("SELECT min_per_criterion, use_edits, pool FROM offline_scorer_options "
                          "WHERE assignment_id = ?", [assignment_id]), None)
    return None if row is None else {"min_per_criterion": row["min_per_criterion"],
                                     "use_edits": bool(row["use_edits"]), "pool": bool(row["pool"])}


def save_options(conn: Database, assignment_id: int, options: dict, *, actor: str, at: str) -> None:
    before = get_options(conn, assignment_id)
    with conn.atomic():
        conn.execute("INSERT INTO offline_scorer_options (assignment_id, min_per_criterion, use_edits, pool, "
                     "updated_by, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (assignment_id) DO UPDATE SET "
                     "min_per_criterion = excluded.min_per_criterion, use_edits = excluded.use_edits, "
                     "pool = excluded.pool, updated_by = excluded.updated_by, updated_at = excluded.updated_at",
                     [assignment_id, int(options["min_per_criterion"]), int(bool(options["use_edits"])),
                      int(bool(options["pool"])), actor, at])
        audit(conn, actor=actor, action="offline_scorer_options", entity="offline_scorer_options",
              entity_id=assignment_id, before=before, after=options)
