"""The dashboards' counts, kept up to date instead of recomputed (issue 18; tables in m017a).

Each submission contributes a few dozen *cells* to the counts: per criterion one (reference
kind, dimension, value, rubric, criterion, source, AI score, reference score), for every
reference it has (auto, expert, blind, teacher, each rater) and every dimension the dashboards
split by (none, week, version, word count, each student attribute), plus its teacher's
decision for the edit analytics. `agg_cells` holds their sums per scope (all courses, each
course, each assignment), so any figure in any scope reads a table whose size does not grow
with the submissions. `agg_pairs` keeps each (submission, criterion) with its student, for the
intervals, which resample students.

Freshness: triggers put a submission in `agg_dirty` whenever its draft, review, reference or
calibration scores, status, student attributes or assignment change. `refresh(conn)` (called by
every dashboard read) recomputes only those submissions, subtracts what each had contributed
(`agg_subs.cells`) and adds the new contribution. It reads and computes outside the write
lock and then writes in one short transaction per chunk, applying only submissions whose
counted state is still the one it read (a concurrent refresh already did the others); a
submission changed again meanwhile keeps its newer mark and stays dirty. On PostgreSQL that
transaction holds the refreshes' own lock, not the writers' (only refreshes write these tables),
so a page's refresh never queues behind a run's drafts (`_clean`).
`version(conn)` is bumped by a refresh that changed anything: the dashboards cache under it,
so writes the dashboards do not read (the call log, a run's heartbeat, opening an item) leave
their cache alone.
"""
from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict

from sqlite_utils import Database

import db
from db import appeals
from db.errors import Busy

CHUNK = 500            # submissions per refresh transaction: keeps the write lock short
NOT_RECORDED = "(not recorded)"
# A model/prompt version as "provider model · prompt <hash>"; the offline baseline is
# OFFLINE_VERSION (core/reports names it in the teachers' words).
OFFLINE_VERSION = "offline"
VERSION_SQL = (f"CASE WHEN d.is_offline = 1 THEN '{OFFLINE_VERSION}' "
               "ELSE d.provider || ' ' || COALESCE(json_extract(d.models, '$.evaluator'), '?') END "
               "|| ' · prompt ' || COALESCE(substr(json_extract(d.prompt_hashes, '$.evaluator'), 1, 8), '—')")
REFERENCES = ("auto", "expert", "blind", "teacher")
PAIR_DIMS = ("", "week", "version", "word_count")   # plus attr:NAME per student attribute
PAIR_COLUMNS = ("submission_id", "criterion", "course_id", "assignment_id", "student_id", "rubric_id", "week",
                "version", "word_count", "attributes", "ai", "expert", "blind", "teacher", "raters", "moderated")


def version(conn: Database, scope: str | None = None) -> int:
    """Bumped by every refresh that changed a count (the dashboards' cache key); with `scope`
    ('all', 'c<course id>', 'a<assignment id>') only by changes to that scope's submissions, so a
    run on one course leaves the other courses' cached views alone."""
    topic = "aggregates" if scope is None else f"aggregates:{scope}"
    row = conn.execute("SELECT version FROM analytics_topics WHERE topic = ?", [topic]).fetchone()
    return row[0] if row else 0


def calls_version(conn: Database) -> int:
    """Bumped by every write to the call log and the runs (the Costs page's cache key)."""
    return conn.execute("SELECT version FROM analytics_topics WHERE topic = 'calls'").fetchone()[0]


def dirty_count(conn: Database) -> int:
    return conn.execute("SELECT COUNT(*) FROM agg_dirty").fetchone()[0]


def refresh(conn: Database, *, chunk: int = CHUNK) -> int:
    """Bring the counts up to date with every change since the last refresh; returns how many
    submissions were recounted. Cheap when nothing changed (one indexed probe)."""
    done, after = 0, -1
    while True:
        ids = [r[0] for r in conn.execute("SELECT submission_id FROM agg_dirty WHERE submission_id > ? "
                                          "ORDER BY submission_id LIMIT ?", [after, chunk]).fetchall()]
        if not ids:
            return done
        for _ in range(5):   # a concurrent refresh counted some of them first: read them again
            try:
                done += _refresh_chunk(conn, ids)
                break
            except _Stale:
                continue
            except Busy:
                # PostgreSQL: another host's refresh is counting right now (the same dirty rows, most
                # likely); waiting for it made every page of 4 hosts queue behind one another.
                return done
        after = ids[-1]


class _Stale(Exception):
    """Another refresh counted some of these submissions between our read and our write."""


def _refresh_chunk(conn: Database, ids: list[int]) -> int:
    # Read and compute in one read snapshot, outside the write lock.
    with db.read_snapshot(conn):
        marks = dict(_in(conn, "SELECT submission_id, mark FROM agg_dirty WHERE submission_id IN ({})", ids))
        ids = sorted(marks)
        old = {sid: (cid, aid, json.loads(cells), state) for sid, cid, aid, cells, state in
               _in(conn, "SELECT submission_id, course_id, assignment_id, cells, state FROM agg_subs "
                         "WHERE submission_id IN ({})", ids)}
        new = _contributions(conn, ids)
    state = {sid: (new[sid]["state"] if sid in new else None) for sid in ids}
    was = {sid: (old[sid][3] if sid in old else None) for sid in ids}
    changed = [sid for sid in ids if state[sid] != was[sid]]
    delta: Counter = Counter()
    for sid in changed:
        if sid in old:
            _add(delta, old[sid][0], old[sid][1], old[sid][2], -1)
        if sid in new:
            _add(delta, new[sid]["course_id"], new[sid]["assignment_id"], new[sid]["cells"], +1)
    with db.write_transaction(conn, lock="aggregates if free"):
        # Apply only on top of the counted state read above (the delta subtracts it).
        now = dict(_in(conn, "SELECT submission_id, state FROM agg_subs WHERE submission_id IN ({})", changed))
        if any(now.get(sid) != was[sid] for sid in changed):
            raise _Stale()
        _apply(conn, _with_groups(conn, delta))
        _in(conn, "DELETE FROM agg_pairs WHERE submission_id IN ({})", changed)
        _in(conn, "DELETE FROM agg_subs WHERE submission_id IN ({})", changed)
        rows = [new[sid] for sid in changed if sid in new]
        conn.conn.executemany(
            "INSERT INTO agg_subs (submission_id, course_id, assignment_id, cells, multi_version, comment_edited_at, "
            "state) VALUES (?,?,?,?,?,?,?)",
            [(r["submission_id"], r["course_id"], r["assignment_id"], json.dumps(r["cells"]), r["multi_version"],
              r["comment_edited_at"], r["state"]) for r in rows])
        conn.conn.executemany(f"INSERT INTO agg_pairs ({', '.join(PAIR_COLUMNS)}) VALUES "
                              f"({', '.join('?' * len(PAIR_COLUMNS))})", [p for r in rows for p in r["pairs"]])
        # A submission changed again since our read has a new mark: it stays dirty.
        _clean(conn, marks)
        if changed:
            conn.execute("UPDATE analytics_topics SET version = version + 1 WHERE topic = 'aggregates'")
            scopes = {"all"} | {f"{kind}{x}" for sid in changed for part in (old.get(sid), new.get(sid)) if part
                                for kind, x in _scopes_of(part)}
            conn.conn.executemany("INSERT INTO analytics_topics (topic, version) VALUES (?, 1) "
                                  "ON CONFLICT(topic) DO UPDATE SET version = version + 1",
                                  [(f"aggregates:{x}",) for x in sorted(scopes)])
    return len(ids)


def _scopes_of(part) -> list[tuple[str, int]]:
    """The course and assignment of a submission's old (tuple) or new (dict) contribution."""
    if isinstance(part, dict):
        return [("c", part["course_id"]), ("a", part["assignment_id"])]
    return [("c", part[0]), ("a", part[1])]


def _add(delta: Counter, course_id: int, assignment_id: int, cells: list, sign: int) -> None:
    for cell in cells:
        key = tuple(cell)
        for scope in ("all", f"c{course_id}", f"a{assignment_id}"):
            delta[(scope, *key)] += sign


def _apply(conn: Database, delta: Counter) -> None:
    changes = [(*key, n) for key, n in delta.items() if n]
    if not changes:
        return
    conn.conn.executemany(
        "INSERT INTO agg_cells (scope, ref, dim, value, rubric_id, criterion, source, ai, reference, n) "
        "VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO UPDATE SET n = n + excluded.n", changes)
    conn.conn.executemany(
        "DELETE FROM agg_cells WHERE scope = ? AND ref = ? AND dim = ? AND value = ? AND rubric_id = ? "
        "AND criterion = ? AND source = ? AND ai = ? AND reference = ? AND n = 0", [c[:-1] for c in changes])


def _with_groups(conn: Database, delta: Counter) -> Counter:
    """The delta with each course's change added to the groups that course belongs to (read in
    the write transaction, so a group made meanwhile is never missed nor counted twice)."""
    courses = sorted({int(key[0][1:]) for key in delta if key[0].startswith("c")})
    groups: dict = defaultdict(list)
    for course_id, scope in _in(conn, "SELECT course_id, scope FROM agg_groups WHERE course_id IN ({})", courses):
        groups[f"c{course_id}"].append(scope)
    for key, n in list(delta.items()):
        for scope in groups.get(key[0], ()):
            delta[(scope, *key[1:])] += n
    return delta


# --- several courses as one scope: a user's granted courses -----------------------------------
def group_key(course_ids) -> str:
    """The agg_cells scope of a set of courses ('g<hash>'), the same for the same set.

    >>> group_key([3, 1, 2]) == group_key((1, 2, 3, 3))
    True
    """
    ids = ",".join(str(c) for c in sorted({int(c) for c in course_ids}))
    return "g" + hashlib.sha256(ids.encode()).hexdigest()[:24]


def ensure_group(conn: Database, course_ids) -> str:
    """The scope key of these courses' summed counts, made the first time it is asked for (the
    sum of the courses' rows) and kept up to date by `refresh` from then on: a coordinator's
    "all courses" reads one scope's rows, however many courses are granted. Groups that no
    user's grants make any more are dropped when a new one is made."""
    key = group_key(course_ids)
    if conn.execute("SELECT 1 FROM agg_groups WHERE scope = ? LIMIT 1", [key]).fetchone():
        return key
    from db import users

    ids = {int(c) for c in course_ids}
    with db.write_transaction(conn, lock="aggregates"):
        if conn.execute("SELECT 1 FROM agg_groups WHERE scope = ? LIMIT 1", [key]).fetchone():
            return key
        wanted = {key} | {group_key(users.granted_courses(conn, uid)) for (uid,) in
                          conn.execute("SELECT id FROM users WHERE role != 'admin'").fetchall()}
        stale = [g for (g,) in conn.execute("SELECT DISTINCT scope FROM agg_groups").fetchall() if g not in wanted]
        for g in stale:
            conn.execute("DELETE FROM agg_cells WHERE scope = ?", [g])
            conn.execute("DELETE FROM agg_groups WHERE scope = ?", [g])
        conn.conn.executemany("INSERT INTO agg_groups (scope, course_id) VALUES (?, ?)",
                              [(key, c) for c in sorted(ids)])
        others = [f"c{c}" for (c,) in conn.execute("SELECT id FROM courses").fetchall() if c not in ids]
        # Most courses granted: all courses minus the others reads fewer rows than the sum.
        keys, sign = ([f"c{c}" for c in sorted(ids)], "n") if len(ids) <= len(others) else (
            ["all", *others], "CASE WHEN scope = 'all' THEN n ELSE -n END")
        cols = "ref, dim, value, rubric_id, criterion, source, ai, reference"
        conn.execute(f"INSERT INTO agg_cells (scope, {cols}, n) SELECT ?, {cols}, SUM({sign}) FROM agg_cells "
                     f"WHERE scope IN ({', '.join('?' * len(keys))}) GROUP BY {cols} HAVING SUM({sign}) != 0",
                     [key, *keys])
    return key


def _clean(conn: Database, marks: dict[int, int]) -> None:
    """Take the recounted submissions off agg_dirty, each only if its mark is still the one read.

    On PostgreSQL a refresh holds only the aggregates' lock, not the writers' (db.write_transaction):
    a row a writer is marking again right now is skipped, not waited for (it stays dirty and is
    recounted next time), so a refresh never waits on a writer and the two can never deadlock. On
    SQLite the refresh holds the one write lock, and no row is ever locked by another."""
    if not marks:
        return
    if db.on_postgresql(conn):
        ids = sorted(marks)
        free = _in(conn, "SELECT submission_id, mark FROM agg_dirty WHERE submission_id IN ({}) "
                         "ORDER BY submission_id FOR UPDATE SKIP LOCKED", ids)
        marks = {sid: mark for sid, mark in free if marks.get(sid) == mark}
    conn.conn.executemany("DELETE FROM agg_dirty WHERE submission_id = ? AND mark = ?", list(marks.items()))


def _in(conn: Database, sql: str, ids: list[int]) -> list:
    if not ids:
        return []
    return conn.execute(sql.format(", ".join("?" * len(ids))), ids).fetchall()


# --- what one submission contributes ----------------------------------------------------------
_SUBMISSIONS = f"""
    SELECT s.id, a.course_id, s.assignment_id, s.student_id, a.rubric_id,
           COALESCE(CAST(a.week AS TEXT), '(no week)'), {VERSION_SQL}, s.word_count, st.attributes, d.id, d.scores,
           s.status, r.status, r.approved_in_bulk, r.scores, r.comment != d.comment, r.reason_codes, r.updated_at
    FROM submissions s
    JOIN assignments a ON a.id = s.assignment_id
    JOIN students st ON st.id = s.student_id
    LEFT JOIN reviews r ON r.submission_id = s.id
    LEFT JOIN drafts d ON d.id = COALESCE(r.draft_id, s.current_draft_id)
    WHERE s.id IN ({{}})"""


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _contributions(conn: Database, ids: list[int]) -> dict[int, dict]:
    """For each submission that exists: its cells, pair rows, judge flag and state hash."""
    expert = {(s, c): v for s, c, v in _in(conn, "SELECT submission_id, criterion, AVG(score) FROM reference_scores "
                                                 "WHERE submission_id IN ({}) GROUP BY 1, 2", ids)}
    raters: dict = defaultdict(dict)
    for s, c, rater, v in _in(conn, "SELECT submission_id, criterion, rater, score FROM reference_scores "
                                    "WHERE submission_id IN ({})", ids):
        raters[(s, c)][rater] = v
    blind = {(s, c): v for s, c, v in _in(conn, "SELECT submission_id, criterion, AVG(score) FROM calibration_scores "
                                                "WHERE submission_id IN ({}) GROUP BY 1, 2", ids)}
    moderated = {(s, c): v for s, c, v in _in(conn, "SELECT submission_id, criterion, score FROM "
                                                    "moderation_settlements WHERE submission_id IN ({})", ids)}
    # Each blind rater's score is in the state too: the readiness gate compares raters with each
    # other (its human ceiling), which a change that keeps the mean would not show otherwise.
    blind_raters: dict = defaultdict(list)
    for s, c, rater, v in _in(conn, "SELECT submission_id, criterion, rater, score FROM calibration_scores "
                                    "WHERE submission_id IN ({}) ORDER BY 1, 2, 3", ids):
        blind_raters[s].append((c, rater, v))
    # Scored by two or more versions (judge_view), and its newest draft (a new draft of a version
    # changes what judge_view compares, even when the counts stay the same).
    versions = {s: (k, last) for s, k, last in _in(
        conn, f"SELECT d.submission_id, COUNT(DISTINCT {VERSION_SQL}), MAX(d.id) FROM drafts d "
              "WHERE d.submission_id IN ({}) AND d.status != 'failed' GROUP BY 1", ids)}
    multi = {s for s, (k, _) in versions.items() if k > 1}
    # An appeal's re-mark is never a reference (appealed items are a selected sample): the
    # teacher reference keeps the score released before the appeal changed it.
    contested = appeals.changed_contested(conn, ids)
    out = {}
    for row in _in(conn, _SUBMISSIONS, ids):
        (sid, cid, aid, student, rubric, week, version_, words, attrs_raw, draft_id, ai_raw, sub_status,
         r_status, bulk, r_raw, comment_changed, codes_raw, updated_at) = row
        attrs = db.loads(attrs_raw, {}) or {}
        attrs = attrs if isinstance(attrs, dict) else {}
        ai_scores = (db.loads(ai_raw, {}) or {}) if draft_id is not None else {}
        ai_scores = ai_scores if isinstance(ai_scores, dict) else {}
        teacher_scores = {}
        if r_status is not None:
            teacher_scores = db.loads(r_raw, {}) or {}
            teacher_scores = teacher_scores if isinstance(teacher_scores, dict) else {}
        teacher_final = ((r_status == "approved" or (sub_status == "released" and r_status != "rejected"))
                         and r_status is not None and bulk == 0)
        cells, pairs = [], []
        for crit, ai in ai_scores.items():
            if type(ai) is not int:   # only whole AI scores are pairs (json_each type 'integer')
                continue
            t = contested.get((sid, crit), teacher_scores.get(crit)) if teacher_final else None
            ref = {"expert": expert.get((sid, crit)), "blind": blind.get((sid, crit)),
                   "teacher": t if _number(t) else None}
            rs, settled = raters.get((sid, crit)), moderated.get((sid, crit))
            pairs.append((sid, crit, cid, aid, student, rubric, week, version_, words, attrs_raw, ai, ref["expert"],
                          ref["blind"], ref["teacher"], json.dumps(rs, sort_keys=True) if rs else None, settled))
            kinds = [(k, k, v) for k, v in ref.items() if v is not None]
            # "auto": the most honest reference there is: expert, then the moderator's settled score, then blind
            honest = [(k, v) for k, v in (("expert", ref["expert"]), ("moderated", settled), ("blind", ref["blind"]))
                      if v is not None]
            if honest:
                kinds.append(("auto", *honest[0]))
            kinds += [(f"rater:{name}", "expert", v) for name, v in sorted((rs or {}).items())]
            values = {"": "", "week": week, "version": version_, "word_count": str(words)}
            for name, v in attrs.items():
                values[f"attr:{name}"] = NOT_RECORDED if v in (None, "") else str(v)
            for kind, source, refv in kinds:
                for dim, value in values.items():
                    cells.append([kind, dim, value, rubric, crit, source, float(ai), float(refv)])
        edited_at = None
        decided = draft_id is not None and r_status in ("approved", "rejected")
        if decided:
            changed = any(v != ai_scores.get(k) for k, v in teacher_scores.items()
                          if not (v is None and ai_scores.get(k) is None))
            cells.append(["edit", "outcome", f"{r_status}|{bulk}|{int(changed)}|{int(comment_changed)}", 0, "", "",
                          0.0, 0.0])
        if decided and not bulk:
            for code in _elements(db.loads(codes_raw, [])):
                cells.append(["edit", "reason", str(code), 0, "", "", 0.0, 0.0])
            if comment_changed:
                edited_at = updated_at
            if r_status == "approved":
                for crit, t in teacher_scores.items():
                    a = ai_scores.get(crit)
                    if a is not None and _number(a) and _number(t):
                        cells.append(["edit", "change", "", 0, crit, "", float(a), float(t)])
        cells.sort(key=repr)
        state = hashlib.sha256(json.dumps([cid, aid, cells, pairs, versions.get(sid), edited_at, blind_raters.get(sid)],
                                          default=str).encode()).hexdigest()
        out[sid] = {"submission_id": sid, "course_id": cid, "assignment_id": aid, "cells": cells, "pairs": pairs,
                    "multi_version": int(sid in multi), "comment_edited_at": edited_at, "state": state}
    return out


def _elements(value) -> list:
    """What json_each yields for a reason-code list (the values of an object, the items of an array)."""
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, list):
        return value
    return [] if value is None else [value]
