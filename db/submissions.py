"""Submissions: the writes of an import (students, submissions, reference scores, audit) and
the one writer of a submission's status.

`write_import` is the only writer for uploads and the demo course; it runs in one
transaction, so an import lands completely or not at all. `set_status` (and its set-based
sibling `set_status_many`) is the only place that changes submissions.status, always together
with the priority the caller computed.
"""
from __future__ import annotations

import secrets

from sqlite_utils import Database

from db import audit, courses, dumps, lti_roster, loads, now
from db.errors import NotFound
from db.message import Message

_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud without mistakes


def new_pseudonym(conn: Database, rng=None) -> str:
    """A random 'Student-XXXXX', unique in the database and unrelated to the name."""
    choice = rng.choice if rng is not None else secrets.choice
    while True:
        p = "Student-" + "".join(choice(_ALPHABET) for _ in range(5))
        if conn.execute("SELECT 1 FROM students WHERE pseudonym = ?", [p]).fetchone() is None:
            return p


def existing_keys(conn: Database, course_id: int) -> set[tuple[str, str, str]]:
    """(assignment title casefolded, student external id, text hash) of every submission in a course."""
    rows = conn.execute(
        "SELECT a.title, st.external_id, s.text_hash FROM submissions s "
        "JOIN assignments a ON a.id = s.assignment_id JOIN students st ON st.id = s.student_id "
        "WHERE a.course_id = ?", [course_id]).fetchall()
    return {(t.casefold(), e, h) for t, e, h in rows}


def write_import(conn: Database, *, actor: str, course_name: str, new_assignments: dict,
                 rubric_by_assignment: dict, rows: list, summary: dict, course_description: str = "",
                 is_synthetic: bool = False, assignment_details: dict | None = None, rng=None,
                 scores_are: str = "reference") -> dict:
    """Write validated rows (core.ingest.commit.ReadyRow) in ONE transaction; returns counts and ids.

    Rows already in the database (same student, assignment and text) are skipped and counted,
    so a re-run is harmless. `assignment_details` (title -> prompt, key_concepts, target_grade)
    fills in assignments this import creates. The rows' scores go to `reference_scores`, or
    with scores_are="calibration" to `calibration_scores` (blind scores, source 'upload').
    """
    if scores_are not in ("reference", "calibration"):
        raise ValueError("scores_are must be 'reference' or 'calibration'")
    at = now()
    details = assignment_details or {}
    with conn.atomic():
        course_id = courses.ensure_course(conn, course_name, course_description, is_synthetic)
        ids: dict[str, int] = {}
        for title, rubric in rubric_by_assignment.items():
            found = courses.find_assignment(conn, course_id, title)
            if found:
                ids[title] = found["id"]
                continue
            rid = courses.save_rubric(conn, rubric)
            extra = details.get(title, {})
            aid = courses.ensure_assignment(conn, course_id, title, rubric_id=rid, week=new_assignments.get(title),
                                            **extra)
            audit(conn, actor=actor, action="create", entity="assignments", entity_id=aid,
                  after={"title": title, "rubric_id": rid, "week": new_assignments.get(title)},
                  reason="created by an import")
            ids[title] = aid
        students: dict[str, int] = {}
        new_students = imported = duplicates = 0
        for r in rows:
            sid = students.get(r.external_id)
            if sid is None:
                sid, created = _ensure_student(conn, course_id, r, rng)
                students[r.external_id] = sid
                new_students += created
            cur = conn.execute(
                "INSERT OR IGNORE INTO submissions (assignment_id, student_id, text, text_hash, word_count, "
                "source_file, source_row, status, priority) VALUES (?, ?, ?, ?, ?, ?, ?, 'uploaded', 9)",
                [ids[r.assignment], sid, r.text, r.text_hash, r.word_count, r.source, r.row])
            if cur.rowcount == 0:  # written by someone else since the preview
                duplicates += 1
                continue
            sub_id = cur.lastrowid
            imported += 1
            for rater, scores in r.scores.items():
                for criterion, score in scores.items():
                    if scores_are == "calibration":
                        conn.execute("INSERT INTO calibration_scores (submission_id, criterion, rater, score, source, "
                                     "scored_by, scored_at) VALUES (?, ?, ?, ?, 'upload', ?, ?)",
                                     [sub_id, criterion, rater, score, actor, at])
                    else:
                        conn.execute("INSERT INTO reference_scores (submission_id, rater, criterion, score) "
                                     "VALUES (?, ?, ?, ?)", [sub_id, rater, criterion, score])
            audit(conn, actor=actor, action="import", entity="submissions", entity_id=sub_id, submission_id=sub_id,
                  after={"source_file": r.source, "source_row": r.row, "words": r.word_count,
                         f"{'calibration' if scores_are == 'calibration' else 'reference'}_raters": sorted(r.scores)})
        totals = {"imported": imported, "duplicates_at_commit": duplicates, "new_students": new_students,
                  "course_id": course_id, "assignment_ids": sorted(set(ids.values())), **summary}
        import_id = None
        if imported:
            import_id = audit(conn, actor=actor, action="import", entity="imports", entity_id=course_id,
                              after=totals, reason=", ".join(summary.get("files", []))[:500])
    return {"imported": imported, "duplicates": duplicates, "new_students": new_students, "course_id": course_id,
            "assignment_ids": sorted(set(ids.values())), "import_id": import_id}


def _ensure_student(conn: Database, course_id: int, r, rng) -> tuple[int, int]:
    # A student the LMS roster brought matches by LMS id, e-mail, then SIS id; else the student id.
    rostered = lti_roster.upload_match(conn, course_id, r.external_id, r.email)
    row = conn.execute("SELECT id, attributes FROM students WHERE id = ?", [rostered]).fetchone() if rostered else \
        conn.execute("SELECT id, attributes FROM students WHERE course_id = ? AND external_id = ?",
                     [course_id, r.external_id]).fetchone()
    if row:
        sid, attrs = row[0], loads(row[1], {})
        added = {k: v for k, v in r.attributes.items() if k not in attrs}
        if added:  # new attribute columns fill gaps; an upload never overwrites known values
            conn.execute("UPDATE students SET attributes = ? WHERE id = ?", [dumps({**attrs, **added}), sid])
        return sid, 0
    sid = conn.execute(
        "INSERT INTO students (course_id, external_id, name, email, pseudonym, attributes) VALUES (?, ?, ?, ?, ?, ?)",
        [course_id, r.external_id, r.name, r.email, new_pseudonym(conn, rng), dumps(r.attributes)]).lastrowid
    return sid, 1


# --- status ---------------------------------------------------------------------------
def set_status(conn: Database, submission_id: int, status: str, priority: int, *,
               only_from: tuple[str, ...] | None = None, current_draft_id: int | None = None) -> int:
    """THE writer of one submission's status: status and its queue priority (computed by the
    caller with core.signoff.triage.priority) always change together, so the queue order never lies.

    `only_from`: the statuses the row must have right now. The condition is in the UPDATE
    itself, so a decision that lands between the caller's read and this write still wins (the
    pipeline passes the statuses it owns and never overwrites a teacher's approval).
    `current_draft_id`: also point the submission at this draft (the pipeline's new draft, the
    draft a teacher chose). Returns the rowcount: 0 when the row was not in `only_from`.
    """
    sets, args = ["status = ?", "priority = ?"], [status, priority]
    if current_draft_id is not None:
        sets.append("current_draft_id = ?")
        args.append(current_draft_id)
    where = "id = ?"
    args.append(submission_id)
    if only_from is not None:
        where += f" AND status IN ({', '.join('?' * len(only_from))})"
        args += list(only_from)
    return conn.execute(f"UPDATE submissions SET {', '.join(sets)} WHERE {where}", args).rowcount


def set_status_many(conn: Database, submission_ids: list[int], status: str, priority: int) -> int:
    """`set_status` for a whole set in one statement (bulk approval, release): every submission
    gets the same status and priority. Returns how many rows changed."""
    return conn.execute("UPDATE submissions SET status = ?, priority = ? WHERE id IN (SELECT value FROM json_each(?))",
                        [status, priority, dumps(list(submission_ids))]).rowcount


# --- reads --------------------------------------------------------------------------
def get_submission(conn: Database, submission_id: int) -> dict:
    row = next(conn.query("SELECT * FROM submissions WHERE id = ?", [submission_id]), None)
    if row is None:
        raise NotFound(Message("submission {id} does not exist", id=submission_id))
    return row


def reference_scores(conn: Database, submission_id: int) -> dict[str, dict[str, float]]:
    """rater -> {criterion: score} for one submission."""
    out: dict[str, dict[str, float]] = {}
    for r in conn.query("SELECT rater, criterion, score FROM reference_scores WHERE submission_id = ?",
                      [submission_id]):
        out.setdefault(r["rater"], {})[r["criterion"]] = r["score"]
    return out


def recent_imports(conn: Database, course_id: int | None = None, limit: int = 10) -> list[dict]:
    """Import summaries from the audit log, newest first (what the Upload page lists)."""
    sql = "SELECT id, at, actor, reason, after FROM audit_log WHERE action = 'import' AND entity = 'imports'"
    args: list = []
    if course_id is not None:
        sql += " AND entity_id = ?"
        args.append(course_id)
    rows = list(conn.query(sql + " ORDER BY id DESC LIMIT ?", [*args, limit]))
    for r in rows:
        r["after"] = loads(r["after"], {})
    return rows


def table_counts(conn: Database) -> dict[str, int]:
    """Row count of every table (the CLI's init summary; tests compare before/after)."""
    return {t: conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in sorted(conn.table_names())}
