"""Students' appeals of released feedback (m026c): filing one, a teacher's blind re-mark and
decision, what a release of the changed score marks, and the reads behind the student's view,
the command line's list and the dashboards' appeal rates. The rules are core.appeals'."""
from __future__ import annotations

from sqlite_utils import Database

from db import dumps, loads

_COLUMNS = ("id, submission_id, assignment_id, student_id, status, contested_release_id, contested_version, "
            "opened_at, opened_by, decided_at, decided_by, decided_user_id, note, reason_code, blind_scores, "
            "blind_by, blind_at, new_release_id")


def _with_criteria(conn: Database, rows: list[dict]) -> list[dict]:
    ids = [r["id"] for r in rows]
    crit: dict[int, list[dict]] = {i: [] for i in ids}
    if ids:
        for c in conn.query("SELECT appeal_id, criterion, reason, released_score, new_score FROM appeal_criteria "
                            "WHERE appeal_id IN (SELECT value FROM json_each(?)) ORDER BY appeal_id, criterion",
                            [dumps(ids)]):
            crit[c.pop("appeal_id")].append(c)
    for r in rows:
        r["blind_scores"] = loads(r["blind_scores"], None)
        r["criteria"] = crit[r["id"]]
    return rows


# --- writes ------------------------------------------------------------------------------
def insert(conn: Database, *, submission_id: int, assignment_id: int, student_id: int, release_id: int,
           version: int, opened_by: str, at: str, criteria: list[tuple[str, str, float | None]]) -> int:
    """A new open appeal with its criteria [(criterion, reason, released score)]; the partial
    unique index raises sqlite3.IntegrityError when the submission already has an open one."""
    appeal_id = conn.execute(
        "INSERT INTO appeals (submission_id, assignment_id, student_id, contested_release_id, contested_version, "
        "opened_at, opened_by) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [submission_id, assignment_id, student_id, release_id, version, at, opened_by]).lastrowid
    conn.conn.executemany("INSERT INTO appeal_criteria (appeal_id, criterion, reason, released_score) "
                          "VALUES (?, ?, ?, ?)", [(appeal_id, c, r, s) for c, r, s in criteria])
    return appeal_id


def save_blind(conn: Database, appeal_id: int, scores: dict, *, by: str, at: str) -> int:
    """A blind re-mark, once, on an open appeal; 0 when it was already given or the appeal closed."""
    return conn.execute("UPDATE appeals SET blind_scores = ?, blind_by = ?, blind_at = ? "
                        "WHERE id = ? AND status = 'open' AND blind_scores IS NULL",
                        [dumps(scores), by, at, appeal_id]).rowcount


def close(conn: Database, appeal_id: int, *, status: str, by: str, user_id: int | None, at: str, note: str,
          reason_code: str | None, new_scores: dict) -> int:
    """Decide an open appeal (kept | changed) with the note to the student and, per criterion, the
    new score; 0 when it was no longer open (decided meanwhile)."""
    n = conn.execute("UPDATE appeals SET status = ?, decided_by = ?, decided_user_id = ?, decided_at = ?, note = ?, "
                     "reason_code = ? WHERE id = ? AND status = 'open'",
                     [status, by, user_id, at, note, reason_code, appeal_id]).rowcount
    if n:
        conn.conn.executemany("UPDATE appeal_criteria SET new_score = ? WHERE appeal_id = ? AND criterion = ?",
                              [(v, appeal_id, k) for k, v in new_scores.items()])
    return n


def mark_released(conn: Database, submission_ids: list[int], release_id: int) -> list[int]:
    """A release carried these submissions' changed scores: their decided, unreleased changes
    now name it. Returns the appeals so marked."""
    ids = [r[0] for r in conn.execute(
        "SELECT id FROM appeals WHERE status = 'changed' AND new_release_id IS NULL "
        "AND submission_id IN (SELECT value FROM json_each(?))", [dumps(list(submission_ids))]).fetchall()]
    conn.execute("UPDATE appeals SET new_release_id = ? WHERE id IN (SELECT value FROM json_each(?))",
                 [release_id, dumps(ids)])
    return ids


# --- reads -------------------------------------------------------------------------------
def get(conn: Database, appeal_id: int) -> dict | None:
    rows = list(conn.query(f"SELECT {_COLUMNS} FROM appeals WHERE id = ?", [appeal_id]))
    return _with_criteria(conn, rows)[0] if rows else None


def open_of(conn: Database, submission_id: int) -> dict | None:
    rows = list(conn.query(f"SELECT {_COLUMNS} FROM appeals WHERE submission_id = ? AND status = 'open'",
                           [submission_id]))
    return _with_criteria(conn, rows)[0] if rows else None


def is_open(conn: Database, submission_id: int) -> bool:
    return conn.execute("SELECT 1 FROM appeals WHERE submission_id = ? AND status = 'open'",
                        [submission_id]).fetchone() is not None


def open_among(conn: Database, submission_ids: list[int]) -> list[int]:
    """The submissions of `submission_ids` with an open appeal."""
    return [r[0] for r in conn.execute("SELECT submission_id FROM appeals WHERE status = 'open' "
                                       "AND submission_id IN (SELECT value FROM json_each(?))",
                                       [dumps(list(submission_ids))]).fetchall()]


def of_submission(conn: Database, submission_id: int) -> list[dict]:
    """Every appeal of a submission, newest first."""
    return _with_criteria(conn, list(conn.query(
        f"SELECT {_COLUMNS} FROM appeals WHERE submission_id = ? ORDER BY id DESC", [submission_id])))


def listed(conn: Database, course_id: int, assignment_id: int | None = None) -> list[dict]:
    """A course's appeals (one assignment's with `assignment_id`), open ones first, then oldest first."""
    sql = (f"SELECT {', '.join('ap.' + c.strip() for c in _COLUMNS.split(','))} FROM appeals ap "
           "JOIN assignments a ON a.id = ap.assignment_id WHERE a.course_id = ?")
    args: list = [course_id]
    if assignment_id is not None:
        sql, args = sql + " AND ap.assignment_id = ?", [*args, assignment_id]
    return _with_criteria(conn, list(conn.query(sql + " ORDER BY ap.status != 'open', ap.id", args)))


def released_version(conn: Database, submission_id: int) -> dict | None:
    """The submission's latest released version: {release_id, review_version, scores}; None
    when it was never released."""
    row = next(conn.query("SELECT release_id, review_version, scores FROM release_items WHERE submission_id = ? "
                          "ORDER BY release_id DESC LIMIT 1", [submission_id]), None)
    return None if row is None else {**row, "scores": loads(row["scores"], {})}


def changed_contested(conn: Database, submission_ids: list[int]) -> dict[tuple[int, str], float]:
    """(submission, criterion) -> the released score an appeal changed: what the dashboards'
    teacher reference keeps instead of the re-mark (an appealed item is a selected sample)."""
    return {(s, c): v for s, c, v in conn.execute(
        "SELECT ap.submission_id, ac.criterion, ac.released_score FROM appeal_criteria ac "
        "JOIN appeals ap ON ap.id = ac.appeal_id WHERE ap.status = 'changed' AND ac.new_score IS NOT NULL "
        "AND ac.released_score IS NOT NULL AND ap.submission_id IN (SELECT value FROM json_each(?)) "
        "ORDER BY ap.id DESC", [dumps(list(submission_ids))]).fetchall()}  # the earliest appeal last: it wins


def rate_rows(conn: Database, scope) -> list[dict]:
    """One row per released submission in a dashboard scope (db.analytics.Scope): its assignment (id, title, rubric), student,
    the student's attributes (JSON), its first released scores (before any appeal) and its
    appeals' count, decided count and changed count."""
    where, args = scope.where("s", "a")
    rows = list(conn.query(
        f"""SELECT s.id AS submission_id, s.assignment_id, a.title, a.week, a.rubric_id, s.student_id,
                   st.attributes,
                   (SELECT ri.scores FROM release_items ri WHERE ri.submission_id = s.id
                    ORDER BY ri.release_id LIMIT 1) AS scores,
                   (SELECT COUNT(*) FROM appeals ap WHERE ap.submission_id = s.id) AS appeals,
                   (SELECT COUNT(*) FROM appeals ap WHERE ap.submission_id = s.id AND ap.status != 'open') AS decided,
                   (SELECT COUNT(*) FROM appeals ap WHERE ap.submission_id = s.id AND ap.status = 'changed') AS changed
            FROM submissions s JOIN assignments a ON a.id = s.assignment_id JOIN students st ON st.id = s.student_id
            WHERE {where} AND EXISTS (SELECT 1 FROM release_items ri WHERE ri.submission_id = s.id)
            ORDER BY a.week, a.title, s.id""", args))
    for r in rows:
        r["scores"] = loads(r["scores"], {})
        r["attributes"] = loads(r["attributes"], {}) or {}
    return rows
