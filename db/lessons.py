"""Lessons (issue 17): the import's writes, one review's writes, the teacher's decisions, the
queue, reference verdicts and the call log per lesson. Every statement about lessons lives here.

A teacher's change (accept or reject a fix, approve) is written only while the lesson is still
at the version the teacher loaded (optimistic lock, like `reviews.version`), with its audit row
in the same transaction. A review is stored only while the lesson is at the version the review
started from, so a run never overwrites what a teacher did meanwhile.
"""
from __future__ import annotations

from sqlite_utils import Database

from db import audit, courses, dumps, loads, now, write_transaction
from db import runs as runs_db
from db import votes as votes_db
from db.errors import ConflictError, IngestError, NotFound
from db.message import Message

ELIGIBLE = ("uploaded", "failed")
ELIGIBLE_REDO = ("uploaded", "failed", "reviewed")


def _lesson(row: dict | None) -> dict | None:
    if row is None:
        return None
    row = dict(row)
    row["spec"] = loads(row["spec"], {})
    return row


# --- import ------------------------------------------------------------------------------
def write_import(conn: Database, *, actor: str, course_name: str, rows: list[dict], course_description: str = "",
                 is_synthetic: bool = False) -> dict:
    """Store lessons ({title, text, text_hash, spec, sources, source_file}) in ONE transaction.
    The same title with the same text is left alone; with a new text it replaces an unapproved
    lesson (its review starts over); an approved lesson is never replaced."""
    counts = {"imported": 0, "replaced": 0, "unchanged": 0}
    ids = []
    with write_transaction(conn):
        course_id = courses.ensure_course(conn, course_name, course_description, is_synthetic)
        for r in rows:
            old = next(conn.query("SELECT * FROM lessons WHERE course_id = ? AND title = ?", [course_id, r["title"]]),
                       None)
            if old is not None and old["text_hash"] == r["text_hash"]:
                counts["unchanged"] += 1
                ids.append(old["id"])
                continue
            if old is not None and old["status"] == "approved":
                raise IngestError(Message("{file}: lesson '{title}' is already approved in this course; give the new "
                                          "version another title to upload it beside the approved one.",
                                          file=r["source_file"], title=r["title"]))
            values = [r["text"], r["text"], r["text_hash"], dumps(r["spec"]), r.get("sources", ""), r["source_file"]]
            if old is None:
                lid = conn.execute(
                    "INSERT INTO lessons (course_id, title, text, original_text, text_hash, spec, sources, source_file) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [course_id, r["title"], *values]).lastrowid
                counts["imported"] += 1
            else:
                lid = old["id"]
                conn.execute("UPDATE lessons SET text = ?, original_text = ?, text_hash = ?, spec = ?, sources = ?, "
                             "source_file = ?, status = 'uploaded', tier = NULL, score = NULL, priority = 9, "
                             "in_sample = 0, current_review_id = NULL, version = version + 1 WHERE id = ?",
                             [*values, lid])
                counts["replaced"] += 1
            audit(conn, actor=actor, action="import_lesson" if old is None else "replace_lesson", entity="lessons",
                  entity_id=lid, after={"title": r["title"], "file": r["source_file"], "text_hash": r["text_hash"]})
            ids.append(lid)
    return {"course_id": course_id, "lesson_ids": ids, **counts}


# --- reads -------------------------------------------------------------------------------
def get(conn: Database, lesson_id: int) -> dict:
    row = _lesson(next(conn.query("SELECT * FROM lessons WHERE id = ?", [lesson_id]), None))
    if row is None:
        raise NotFound(Message("lesson {id} does not exist", id=lesson_id))
    return row


def queue(conn: Database, course_id: int) -> list[dict]:
    """The course's lessons, what needs a teacher first (priority), with their last review."""
    return [_lesson(r) for r in conn.query(
        "SELECT l.*, r.first_verdict, r.is_offline, r.provider, r.created_at AS reviewed_at, r.error AS review_error "
        "FROM lessons l LEFT JOIN lesson_reviews r ON r.id = l.current_review_id "
        "WHERE l.course_id = ? ORDER BY l.priority, l.id", [course_id])]


def eligible(conn: Database, course_id: int, *, redo: bool = False, lesson_ids: list[int] | None = None) -> list[int]:
    if lesson_ids is not None and not lesson_ids:
        return []
    statuses = ELIGIBLE_REDO if redo else ELIGIBLE
    sql = f"SELECT id FROM lessons WHERE course_id = ? AND status IN ({', '.join('?' * len(statuses))})"
    args: list = [course_id, *statuses]
    if lesson_ids is not None:
        sql += f" AND id IN ({', '.join('?' * len(lesson_ids))})"
        args += list(lesson_ids)
    return [r[0] for r in conn.execute(sql + " ORDER BY id", args).fetchall()]


def review(conn: Database, review_id: int | None) -> dict | None:
    row = next(conn.query("SELECT * FROM lesson_reviews WHERE id = ?", [review_id]), None) if review_id else None
    if row is not None:
        row["record"] = loads(row["record"], {})
    return row


def fixes(conn: Database, review_id: int) -> list[dict]:
    return list(conn.query("SELECT * FROM lesson_fixes WHERE review_id = ? ORDER BY round, id", [review_id]))


def get_fix(conn: Database, fix_id: int) -> dict:
    row = next(conn.query("SELECT * FROM lesson_fixes WHERE id = ?", [fix_id]), None)
    if row is None:
        raise NotFound(Message("fix {id} does not exist", id=fix_id))
    return row


def history(conn: Database, lesson_id: int) -> list[dict]:
    """The lesson's audit trail, oldest first."""
    rows = list(conn.query("SELECT id, at, actor, action, before, after, reason FROM audit_log "
                           "WHERE entity = 'lessons' AND entity_id = ? ORDER BY id", [lesson_id]))
    for r in rows:
        r["before"], r["after"] = loads(r["before"], None), loads(r["after"], None)
    return rows


def tier_counts(conn: Database, course_id: int) -> dict[str, int]:
    counts = dict.fromkeys(("ready", "sampled", "needs_review", "approved", "uploaded", "failed"), 0)
    for status, tier, n in conn.execute("SELECT status, tier, COUNT(*) FROM lessons WHERE course_id = ? "
                                        "GROUP BY status, tier", [course_id]).fetchall():
        key = tier if status == "reviewed" and tier else status
        counts[key] = counts.get(key, 0) + n
    return counts


# --- one review's writes ----------------------------------------------------------------------
def save_review(conn: Database, lesson_id: int, *, loaded_version: int, review: dict, fixes: list[dict],
                votes: list[dict], status: str, tier: str | None, score: float | None, priority: int,
                run_id: int | None, item_status: str) -> int | None:
    """The review, its fixes and votes, the lesson's tier and the run item, in ONE transaction.
    None (nothing written) when the lesson changed since the review started or was approved."""
    with write_transaction(conn):     # read-then-write while the run's other workers write too
        cur = conn.execute("SELECT version, status FROM lessons WHERE id = ?", [lesson_id]).fetchone()
        if cur is None or cur[0] != loaded_version or cur[1] == "approved":
            return None
        review_id = conn.execute(
            "INSERT INTO lesson_reviews (lesson_id, run_id, provider, is_offline, text_hash, record, first_verdict, "
            "score, tier, status, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [lesson_id, run_id, review["provider"], int(review["is_offline"]), review["text_hash"],
             dumps(review["record"]), review.get("first_verdict"), score, tier, status, review.get("error")]).lastrowid
        for f in fixes:
            conn.execute("INSERT INTO lesson_fixes (lesson_id, review_id, round, dimension, section, before, after, "
                         "critique, gain, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         [lesson_id, review_id, f["round"], f["dimension"], f["section"], f["before"], f["after"],
                          f["critique"], f["gain"], f["status"]])
        if votes:
            votes_db.save(conn, "lesson", lesson_id, votes, draft_id=review_id, run_id=run_id)
        conn.execute("UPDATE lessons SET status = ?, tier = ?, score = ?, priority = ?, in_sample = 0, "
                     "current_review_id = ? WHERE id = ?", [status, tier, score, priority, review_id, lesson_id])
        if run_id is not None:
            runs_db.finish_item(conn, run_id, lesson_id, item_status, review.get("error"))
    return review_id


def run_tiers(conn: Database, run_id: int) -> dict[str, int]:
    """How the run's lessons came out: tier of each lesson's review in this run."""
    out = dict.fromkeys(("ready", "sampled", "needs_review"), 0)
    for tier, n in conn.execute("SELECT tier, COUNT(*) FROM lesson_reviews WHERE run_id = ? AND status = 'reviewed' "
                                "GROUP BY tier", [run_id]):
        out[tier] = n
    return out


def sampled_in_run(conn: Database, run_id: int) -> list[int]:
    return [r[0] for r in conn.execute(
        "SELECT l.id FROM lessons l JOIN lesson_reviews r ON r.id = l.current_review_id "
        "WHERE r.run_id = ? AND l.tier = 'sampled' AND l.status = 'reviewed' ORDER BY l.id", [run_id])]


def mark_sample(conn: Database, lesson_ids: list[int], priority: int) -> None:
    with conn.atomic():
        for lid in lesson_ids:
            conn.execute("UPDATE lessons SET in_sample = 1, priority = ? WHERE id = ? AND status = 'reviewed'",
                         [priority, lid])


# --- the teacher's decisions -----------------------------------------------------------------
def _bump(conn: Database, lesson_id: int, loaded_version: int, sets: dict) -> None:
    cols = "".join(f"{k} = ?, " for k in sets)
    n = conn.execute(f"UPDATE lessons SET {cols}version = version + 1 WHERE id = ? AND version = ?",
                     [*sets.values(), lesson_id, loaded_version]).rowcount
    if n == 0:
        raise ConflictError(Message("Lesson {id} changed since you opened it (someone decided a fix, approved it or a "
                                    "review finished). Reload the lesson and decide again.", id=lesson_id))


def _already_decided(fix_id: int, status: str) -> Message:
    """The refusal of a fix decided before (or discarded by the re-judging), in a sentence per status."""
    if status == "accepted":
        return Message("Fix {id} was already accepted: reload the lesson.", id=fix_id)
    if status == "rejected":
        return Message("Fix {id} was already rejected: reload the lesson.", id=fix_id)
    if status == "discarded":
        return Message("Fix {id} was already discarded: reload the lesson.", id=fix_id)
    return Message("Fix {id} was already {status}: reload the lesson.", id=fix_id, status=status)


def decide_fix(conn: Database, fix_id: int, *, lesson_id: int, loaded_version: int, accepted: bool, actor: str,
               new_text: str | None = None) -> None:
    """Mark a proposed fix accepted (the lesson takes `new_text`) or rejected (the text stays)."""
    status = "accepted" if accepted else "rejected"
    with write_transaction(conn):
        fix = get_fix(conn, fix_id)
        if fix["lesson_id"] != lesson_id:
            raise NotFound(Message("fix {fix} is not a fix of lesson {lesson}", fix=fix_id, lesson=lesson_id))
        if fix["status"] != "proposed":
            raise ConflictError(_already_decided(fix_id, fix["status"]))
        conn.execute("UPDATE lesson_fixes SET status = ?, decided_by = ?, decided_at = ? WHERE id = ?",
                     [status, actor, now(), fix_id])
        _bump(conn, lesson_id, loaded_version, {"text": new_text} if accepted else {})
        audit(conn, actor=actor, action=("accept_fix" if accepted else "reject_fix"), entity="lessons",
              entity_id=lesson_id, before={"section": fix["section"], "text": fix["before"]},
              after={"section": fix["section"], "text": fix["after"], "status": status, "fix_id": fix_id})


def approve(conn: Database, lesson_id: int, *, loaded_version: int, actor: str, priority: int,
            reference: dict | None, note: str = "") -> None:
    with write_transaction(conn):
        at = now()
        _bump(conn, lesson_id, loaded_version, {"status": "approved", "approved_by": actor, "approved_at": at,
                                                "priority": priority})
        if reference is not None:
            save_reference(conn, lesson_id, f"teacher:{actor}", reference["verdict"], reference.get("problems", []))
        audit(conn, actor=actor, action="approve_lesson", entity="lessons", entity_id=lesson_id,
              after={"status": "approved", "verdict": (reference or {}).get("verdict")}, reason=note)


# --- reference verdicts and costs ---------------------------------------------------------------
def save_reference(conn: Database, lesson_id: int, rater: str, verdict: str, problems: list[str]) -> None:
    conn.execute("INSERT OR REPLACE INTO lesson_references (lesson_id, rater, verdict, problems) VALUES (?, ?, ?, ?)",
                 [lesson_id, rater, verdict, dumps(problems)])


def reference_pairs(conn: Database, course_id: int | None = None) -> list[dict]:
    """Each reference verdict beside the pipeline's verdict on the lesson as uploaded (its latest
    review of the original text), with the problems the reference names and the review's record."""
    sql = ("SELECT l.id AS lesson_id, l.title, l.course_id, ref.rater, ref.verdict AS reference, ref.problems, "
           "r.first_verdict AS judged, r.is_offline, r.record FROM lesson_references ref "
           "JOIN lessons l ON l.id = ref.lesson_id "
           "JOIN lesson_reviews r ON r.id = (SELECT MAX(id) FROM lesson_reviews x WHERE x.lesson_id = l.id AND "
           "x.status = 'reviewed' AND x.text_hash = l.text_hash)")
    args: list = []
    if course_id is not None:
        sql += " WHERE l.course_id = ?"
        args.append(course_id)
    rows = list(conn.query(sql + " ORDER BY l.id, ref.rater", args))
    for r in rows:
        r["problems"], r["record"] = loads(r["problems"], []), loads(r["record"], {})
    return rows


def spend(conn: Database, course_id: int) -> list[dict]:
    """Calls, tokens and dollars per lesson of a course, from the call log (cache hits are calls
    that cost nothing)."""
    return list(conn.query(
        "SELECT l.id AS lesson_id, l.title, COUNT(c.id) AS calls, COALESCE(SUM(c.cache_hit), 0) AS cache_hits, "
        "COALESCE(SUM(c.tokens_in), 0) AS tokens_in, COALESCE(SUM(c.tokens_out), 0) AS tokens_out, "
        "COALESCE(SUM(c.cost_usd), 0) AS cost_usd FROM lessons l LEFT JOIN llm_calls c ON c.lesson_id = l.id "
        "WHERE l.course_id = ? GROUP BY l.id ORDER BY l.id", [course_id]))


def lesson_status(conn: Database, lesson_id: int) -> str | None:
    row = conn.execute("SELECT status FROM lessons WHERE id = ?", [lesson_id]).fetchone()
    return None if row is None else row[0]
