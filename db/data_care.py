"""Deleting a student's or a course's data, and the backup copy (issue 13). Every statement
about removing data is here, children before parents (foreign keys are on), so one call is one
transaction that leaves nothing behind. The rules (who may, what is audited) are
core/data_care.py's."""
from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from sqlite_utils import Database

from db.migrations import ORDER, migrations

# What hangs on a set of submissions (temp table doomed_subs), in deletion order: (label, statement).
_SUBMISSION_DATA = (
    ("appeal_criteria", "DELETE FROM appeal_criteria WHERE appeal_id IN (SELECT id FROM appeals "
                        "WHERE submission_id IN (SELECT id FROM temp.doomed_subs))"),
    ("appeals", "DELETE FROM appeals WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    # Students' private links and the cookies they opened (m026b)
    ("student_sessions", "DELETE FROM student_sessions WHERE link_id IN (SELECT id FROM student_links "
                         "WHERE submission_id IN (SELECT id FROM temp.doomed_subs))"),
    ("student_links", "DELETE FROM student_links WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("pair_choices", "DELETE FROM pair_choices WHERE pair_id IN (SELECT id FROM comparison_pairs "
                     "WHERE submission_id IN (SELECT id FROM temp.doomed_subs))"),
    ("comparison_pairs", "DELETE FROM comparison_pairs WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("next_step_marks", "DELETE FROM next_step_marks WHERE submission_id IN (SELECT id FROM temp.doomed_subs) "
                        "OR previous_submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("saved_eval_cases", "DELETE FROM saved_eval_cases WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("moderation_settlements", "DELETE FROM moderation_settlements WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("moderation_marks", "DELETE FROM moderation_marks WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("moderation_items", "DELETE FROM moderation_items WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("marker_assignments", "DELETE FROM marker_assignments WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("calibration_scores", "DELETE FROM calibration_scores WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("calibration_items", "DELETE FROM calibration_items WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("review_samples", "DELETE FROM review_samples WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    # Notes on the student's text (m027c): kept, dropped and the copies releases locked.
    ("released_notes", "DELETE FROM released_notes WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("anchored_notes", "DELETE FROM anchored_notes WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("release_items", "DELETE FROM release_items WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("reviews", "DELETE FROM reviews WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("judge_votes", "DELETE FROM judge_votes WHERE subject = 'submission' "
                    "AND subject_id IN (SELECT id FROM temp.doomed_subs)"),
    ("run_items", "DELETE FROM run_items WHERE subject = 'submission' "
                  "AND subject_id IN (SELECT id FROM temp.doomed_subs)"),
    ("llm_calls", "DELETE FROM llm_calls WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("audit_log", "DELETE FROM audit_log WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("reference_scores", "DELETE FROM reference_scores WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("submissions.current_draft", "UPDATE submissions SET current_draft_id = NULL "
                                  "WHERE id IN (SELECT id FROM temp.doomed_subs)"),
    ("drafts", "DELETE FROM drafts WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("lti_passbacks", "DELETE FROM lti_passbacks WHERE submission_id IN (SELECT id FROM temp.doomed_subs)"),
    ("submissions", "DELETE FROM submissions WHERE id IN (SELECT id FROM temp.doomed_subs)"),
)

# A course's LMS links (m025a): the LMS people linked there (their FairMark accounts made by a
# launch are deactivated and lose their name), the resource links and the context itself.
_LTI_PEOPLE = "(SELECT id FROM lti_users WHERE context_row IN (SELECT id FROM lti_contexts WHERE course_id = " \
              "(SELECT id FROM temp.doomed_course)))"
_LTI_COURSE_DATA = (
    ("sessions.lti", "UPDATE sessions SET ended_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE ended_at IS NULL "
                     f"AND user_id IN (SELECT user_id FROM lti_users WHERE id IN {_LTI_PEOPLE})"),
    ("users.lti", "UPDATE users SET active = 0, display_name = '' WHERE id IN "
                  f"(SELECT user_id FROM lti_users WHERE id IN {_LTI_PEOPLE})"),
    ("audit_log", f"DELETE FROM audit_log WHERE entity = 'lti_users' AND entity_id IN {_LTI_PEOPLE}"),
    ("lti_users", f"DELETE FROM lti_users WHERE id IN {_LTI_PEOPLE}"),
    ("lti_links", "DELETE FROM lti_links WHERE context_row IN (SELECT id FROM lti_contexts WHERE course_id = "
                  "(SELECT id FROM temp.doomed_course)) OR assignment_id IN "
                  "(SELECT id FROM assignments WHERE course_id = (SELECT id FROM temp.doomed_course))"),
    ("lti_contexts", "DELETE FROM lti_contexts WHERE course_id = (SELECT id FROM temp.doomed_course)"),
    ("student_sessions", "DELETE FROM student_sessions WHERE course_id = (SELECT id FROM temp.doomed_course)"),
)

# The Rubric builder's drafts (m027a) among temp.doomed_drafts: their calls to the model, their
# scored examples (student text) and their audit rows, then the drafts.
_DRAFT_DATA = (
    ("llm_calls", "DELETE FROM llm_calls WHERE rubric_draft_id IN (SELECT id FROM temp.doomed_drafts)"),
    ("rubric_draft_examples", "DELETE FROM rubric_draft_examples WHERE draft_id IN (SELECT id FROM temp.doomed_drafts)"),
    ("audit_log", "DELETE FROM audit_log WHERE entity = 'rubric_drafts' AND entity_id IN "
                  "(SELECT id FROM temp.doomed_drafts)"),
    ("rubric_drafts", "DELETE FROM rubric_drafts WHERE id IN (SELECT id FROM temp.doomed_drafts)"),
)

# What else belongs to a course (temp tables doomed_course, doomed_lessons), after its submissions.
_COURSE_DATA = (
    *_LTI_COURSE_DATA,
    *_DRAFT_DATA,
    ("run_items", "DELETE FROM run_items WHERE subject = 'lesson' AND subject_id IN (SELECT id FROM temp.doomed_lessons)"),
    ("lesson_fixes", "DELETE FROM lesson_fixes WHERE lesson_id IN (SELECT id FROM temp.doomed_lessons)"),
    ("lesson_references", "DELETE FROM lesson_references WHERE lesson_id IN (SELECT id FROM temp.doomed_lessons)"),
    ("judge_votes", "DELETE FROM judge_votes WHERE subject = 'lesson' AND subject_id IN "
                    "(SELECT id FROM lesson_reviews WHERE lesson_id IN (SELECT id FROM temp.doomed_lessons))"),
    ("lessons.current_review", "UPDATE lessons SET current_review_id = NULL "
                               "WHERE id IN (SELECT id FROM temp.doomed_lessons)"),
    ("lesson_reviews", "DELETE FROM lesson_reviews WHERE lesson_id IN (SELECT id FROM temp.doomed_lessons)"),
    ("llm_calls", "DELETE FROM llm_calls WHERE lesson_id IN (SELECT id FROM temp.doomed_lessons) "
                  "OR run_id IN (SELECT id FROM runs WHERE course_id = (SELECT id FROM temp.doomed_course))"),
    ("lessons", "DELETE FROM lessons WHERE id IN (SELECT id FROM temp.doomed_lessons)"),
    ("pair_choices", "DELETE FROM pair_choices WHERE comparison_id IN "
                     "(SELECT id FROM comparisons WHERE course_id = (SELECT id FROM temp.doomed_course))"),
    ("comparison_pairs", "DELETE FROM comparison_pairs WHERE comparison_id IN "
                         "(SELECT id FROM comparisons WHERE course_id = (SELECT id FROM temp.doomed_course))"),
    ("comparisons", "DELETE FROM comparisons WHERE course_id = (SELECT id FROM temp.doomed_course)"),
    ("judge_votes", "DELETE FROM judge_votes WHERE run_id IN "
                    "(SELECT id FROM runs WHERE course_id = (SELECT id FROM temp.doomed_course))"),
    ("run_items", "DELETE FROM run_items WHERE run_id IN "
                  "(SELECT id FROM runs WHERE course_id = (SELECT id FROM temp.doomed_course))"),
    ("drafts.run", "UPDATE drafts SET run_id = NULL WHERE run_id IN "
                   "(SELECT id FROM runs WHERE course_id = (SELECT id FROM temp.doomed_course))"),
    ("runs", "DELETE FROM runs WHERE course_id = (SELECT id FROM temp.doomed_course)"),
    ("judge_agreement", "DELETE FROM judge_agreement WHERE assignment_id IN "
                        "(SELECT id FROM assignments WHERE course_id = (SELECT id FROM temp.doomed_course))"),
    ("release_items", "DELETE FROM release_items WHERE release_id IN (SELECT id FROM releases WHERE assignment_id IN "
                      "(SELECT id FROM assignments WHERE course_id = (SELECT id FROM temp.doomed_course)))"),
    ("releases", "DELETE FROM releases WHERE assignment_id IN "
                 "(SELECT id FROM assignments WHERE course_id = (SELECT id FROM temp.doomed_course))"),
    ("lti_line_items", "DELETE FROM lti_line_items WHERE assignment_id IN "
                       "(SELECT id FROM assignments WHERE course_id = (SELECT id FROM temp.doomed_course))"),
    ("assignments", "DELETE FROM assignments WHERE course_id = (SELECT id FROM temp.doomed_course)"),
    ("lti_roster", "DELETE FROM lti_roster WHERE course_id = (SELECT id FROM temp.doomed_course)"),
    ("students", "DELETE FROM students WHERE course_id = (SELECT id FROM temp.doomed_course)"),
    ("grants", "DELETE FROM grants WHERE course_id = (SELECT id FROM temp.doomed_course)"),
    # The course's comment bank and its teachers' own banks there (m027b), with their audit rows.
    ("audit_log", "DELETE FROM audit_log WHERE entity = 'bank_comments' AND entity_id IN "
                  "(SELECT id FROM bank_comments WHERE course_id = (SELECT id FROM temp.doomed_course))"),
    ("bank_comments", "DELETE FROM bank_comments WHERE course_id = (SELECT id FROM temp.doomed_course)"),
    ("audit_log", "DELETE FROM audit_log WHERE entity = 'courses' AND entity_id = (SELECT id FROM temp.doomed_course)"),
    ("courses", "DELETE FROM courses WHERE id = (SELECT id FROM temp.doomed_course)"),
)


def _run(conn: Database, statements, counts: dict) -> None:
    for label, sql in statements:
        n = conn.execute(sql).rowcount
        if n and "." not in label:  # "table.column" statements only unlink rows
            counts[label] = counts.get(label, 0) + n


def _doomed(conn: Database, name: str, select: str, args: list) -> None:
    conn.execute(f"DROP TABLE IF EXISTS temp.{name}")
    conn.execute(f"CREATE TEMP TABLE {name} (id INTEGER PRIMARY KEY)")
    conn.execute(f"INSERT INTO temp.{name} {select}", args)


def delete_student(conn: Database, student_id: int, *, drafts: list[int] = (),
                   bank_comments: list[int] = ()) -> dict[str, int]:
    """Every row about one student; returns {table: rows deleted}. Call inside a transaction.
    `drafts`, `bank_comments`: the rubric drafts and bank comments of their course whose text
    names them (core.data_care finds them), deleted too."""
    _doomed(conn, "doomed_subs", "SELECT id FROM submissions WHERE student_id = ?", [student_id])
    counts: dict[str, int] = {}
    _run(conn, _SUBMISSION_DATA, counts)
    # The student's LMS link (a learner's launches) and its audit rows.
    for label, sql in (("audit_log", "DELETE FROM audit_log WHERE entity = 'lti_users' AND entity_id IN "
                                     "(SELECT id FROM lti_users WHERE student_id = ?)"),
                       ("lti_users", "DELETE FROM lti_users WHERE student_id = ?"),
                       # the student page's cookies of their Learner launches (a link's went with the link)
                       ("student_sessions", "DELETE FROM student_sessions WHERE student_id = ?")):
        if n := conn.execute(sql, [student_id]).rowcount:
            counts[label] = counts.get(label, 0) + n
    # A rubric draft holding an example by or naming the student goes whole (its text may quote them).
    _doomed(conn, "doomed_drafts", "SELECT DISTINCT draft_id FROM rubric_draft_examples WHERE student_id = ?",
            [student_id])
    conn.conn.executemany("INSERT OR IGNORE INTO temp.doomed_drafts (id) VALUES (?)", [[d] for d in drafts])
    _run(conn, _DRAFT_DATA, counts)
    conn.execute("DROP TABLE temp.doomed_drafts")
    # Bank comments naming them, with their audit rows (which hold the text).
    _doomed(conn, "doomed_bank", "SELECT id FROM bank_comments WHERE 0", [])
    conn.conn.executemany("INSERT OR IGNORE INTO temp.doomed_bank (id) VALUES (?)", [[b] for b in bank_comments])
    _run(conn, (("audit_log", "DELETE FROM audit_log WHERE entity = 'bank_comments' AND entity_id IN "
                              "(SELECT id FROM temp.doomed_bank)"),
                ("bank_comments", "DELETE FROM bank_comments WHERE id IN (SELECT id FROM temp.doomed_bank)")), counts)
    conn.execute("DROP TABLE temp.doomed_bank")
    roster = conn.execute("DELETE FROM lti_roster WHERE student_id = ?", [student_id]).rowcount
    if roster:
        counts["lti_roster"] = roster
    counts["students"] = conn.execute("DELETE FROM students WHERE id = ?", [student_id]).rowcount
    conn.execute("DROP TABLE temp.doomed_subs")
    return counts


def delete_course(conn: Database, course_id: int) -> dict[str, int]:
    """Every row of one course (its students' work, runs, lessons, comparisons, releases, grants,
    rubric drafts, comment banks);
    returns {table: rows deleted}. Call inside a transaction."""
    _doomed(conn, "doomed_subs", "SELECT s.id FROM submissions s JOIN assignments a ON a.id = s.assignment_id "
                                 "WHERE a.course_id = ?", [course_id])
    _doomed(conn, "doomed_lessons", "SELECT id FROM lessons WHERE course_id = ?", [course_id])
    _doomed(conn, "doomed_course", "SELECT ?", [course_id])
    _doomed(conn, "doomed_drafts", "SELECT id FROM rubric_drafts WHERE course_id = ?", [course_id])
    counts: dict[str, int] = {}
    _run(conn, _SUBMISSION_DATA, counts)
    _run(conn, _COURSE_DATA, counts)
    for name in ("doomed_subs", "doomed_lessons", "doomed_course", "doomed_drafts"):
        conn.execute(f"DROP TABLE temp.{name}")
    return counts


def last_activity(conn: Database) -> list[dict]:
    """Each course with the time of its latest work (creation, upload, run, release, lesson,
    rubric draft, bank comment, note on a student's text)."""
    return list(conn.query(
        """SELECT c.id, c.name, MAX(COALESCE(t, c.created_at)) AS last_activity FROM courses c LEFT JOIN (
               SELECT a.course_id, s.created_at AS t FROM submissions s JOIN assignments a ON a.id = s.assignment_id
               UNION ALL SELECT course_id, created_at FROM runs
               UNION ALL SELECT a.course_id, r.released_at FROM releases r JOIN assignments a ON a.id = r.assignment_id
               UNION ALL SELECT course_id, created_at FROM lessons
               UNION ALL SELECT course_id, created_at FROM rubric_drafts
               UNION ALL SELECT course_id, created_at FROM bank_comments
               UNION ALL SELECT a.course_id, COALESCE(n.updated_at, n.created_at) FROM anchored_notes n
                   JOIN submissions s ON s.id = n.submission_id JOIN assignments a ON a.id = s.assignment_id
           ) x ON x.course_id = c.id GROUP BY c.id ORDER BY c.id"""))


def backup_to(conn: Database, dest: str | Path) -> None:
    """A consistent copy of the whole database while others keep working (SQLite's online backup;
    on PostgreSQL pg_dump's custom format, db/postgres/tools.py), as the new file dest."""
    if getattr(conn, "url", None):
        from db.postgres import tools

        tools.dump(conn.url, dest)
        return
    target = sqlite3.connect(str(dest))
    try:
        conn.conn.backup(target)
    finally:
        target.close()


def copy_file(source: str | Path, dest: str | Path) -> None:
    """A consistent copy of a database file that no one else is using (SQLite's backup)."""
    src = sqlite3.connect(f"file:{Path(source).resolve()}?mode=ro", uri=True)
    try:
        target = sqlite3.connect(str(dest))
        try:
            src.backup(target)
        finally:
            target.close()
    finally:
        src.close()


def restore_from(conn: Database, source: str | Path) -> None:
    """Overwrite this database with a backup file, page by page, under SQLite's lock."""
    src = sqlite3.connect(f"file:{Path(source).resolve()}?mode=ro", uri=True)
    try:
        src.backup(conn.conn)
    finally:
        src.close()


def restore_postgres(conn, source: str | Path) -> None:
    """Overwrite a PostgreSQL database with a pg_dump archive, inside the transaction the caller
    holds on conn (db.write_transaction): committed with what the caller writes after it, or not at all."""
    from db.postgres import connection, tools

    tools.replay(conn.pg, source, connection.Error)


def copy_to_postgres(conn: Database, url: str, before=None) -> dict[str, int]:
    """This SQLite database copied into the empty PostgreSQL database at url (db/postgres/migrate.py):
    {table: rows}, every count checked."""
    from db.postgres import migrate

    return migrate.copy(conn, url, before)


SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file


def check_backup(source: str | Path) -> list[str]:
    """What is wrong with a file offered for restore ([] when it is a sound FairMark database
    this version can open): an SQLite file, `PRAGMA integrity_check` ok, FairMark's tables, and
    no migration this version does not know (a backup from a newer FairMark)."""
    path = Path(source).resolve()
    with open(path, "rb") as fh:
        if fh.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
            return ["it is not an SQLite database file (a FairMark backup is one; choose the .db file made by "
                    "\"Prepare a backup\" in Settings, Data, or by python -m core data backup)"]
    try:
        src = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as e:
        return [f"cannot open it ({e})"]
    try:
        found = [line for r in src.execute("PRAGMA integrity_check(3)") for line in r[0].splitlines()]
        if found != ["ok"]:
            return ["it is damaged (SQLite's integrity check: "
                    + "; ".join(line for line in found if not line.startswith("***")) + ")"]
        tables = {r[0] for r in src.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"_sqlite_migrations", "courses", "submissions"} <= tables:
            return ["it is not a FairMark database (no courses or migrations table)"]
        applied = [r[0] for r in src.execute("SELECT name FROM _sqlite_migrations WHERE migration_set = ?",
                                             [migrations.name])]
        newer = [name for name in applied if name not in ORDER]
        if newer:
            return [f"it was made by a newer version of FairMark (its database has {len(newer)} change(s) this "
                    f"version does not know: {', '.join(newer[:3])}); update FairMark, then restore it"]
        return []
    except sqlite3.DatabaseError as e:
        return [f"it is damaged (SQLite: {e})"]
    finally:
        src.close()


def check_postgres_backup(source: str | Path) -> list[str]:
    """check_backup for a PostgreSQL database's backup ([] when sound): pg_dump's custom format, its
    table of contents readable with FairMark's tables, and made at this version's migrations exactly
    (a PostgreSQL database starts at the head: an older backup cannot be brought up to date there)."""
    from db.errors import ConfigError
    from db.postgres import tools

    path = Path(source).resolve()
    with open(path, "rb") as fh:
        head = fh.read(len(SQLITE_HEADER))
    if head == SQLITE_HEADER:
        return ["it is a backup of a SQLite database, and this FairMark's database is PostgreSQL (a SQLite "
                "database is copied into PostgreSQL with: python -m core data migrate-to URL --db FILE)"]
    tools.program("pg_restore")   # refused plainly, with how to install it, when it is missing
    if not head.startswith(tools.MAGIC):
        return ["it is not a PostgreSQL backup (a FairMark backup of PostgreSQL is pg_dump's custom format: choose "
                "the .dump file made by \"Prepare a backup\" in Settings, Data, or by python -m core data backup)"]
    try:
        toc = tools.contents(path)
    except ConfigError as e:
        return [f"it is damaged ({e})"]
    tables = {m.group(1) for line in toc for m in [re.search(r"\d+ \d+ TABLE public (\S+) ", line + " ")] if m}
    if not {"_sqlite_migrations", "courses", "submissions"} <= tables:
        return ["it is not a FairMark database (no courses or migrations table)"]
    try:
        rows = tools.table_rows(path, "_sqlite_migrations")
    except ConfigError as e:
        return [f"it is damaged ({e})"]
    applied = [r.get("name") for r in rows if r.get("migration_set") == migrations.name]
    newer = [name for name in applied if name not in ORDER]
    if newer:
        return [f"it was made by a newer version of FairMark (its database has {len(newer)} change(s) this "
                f"version does not know: {', '.join(newer[:3])}); update FairMark, then restore it"]
    missing = [name for name in ORDER if name not in applied]
    if missing:
        return [f"it was made by an older version of FairMark (its database lacks {len(missing)} change(s): "
                f"{', '.join(missing[:3])}); a PostgreSQL database is restored from a backup of this version only"]
    return []
