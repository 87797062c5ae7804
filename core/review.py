"""The teacher's sign-off: open, edit, approve, reject, regenerate, bulk approve, release.

Rules this module enforces (pages and the command line only call it):
- The teacher's version wins. `reviews` holds it; nothing here or in the pipeline replaces it
  with a draft unless the teacher explicitly chooses that draft (`use_draft`).
- Every change writes an audit_log row in the same transaction (who, when, before, after, why).
- Saves carry the version the teacher loaded. The UPDATE is conditional on that version, so a
  stale save writes nothing and raises `VersionConflict` saying what the other person changed.
- Release locks the approved review versions in `release_items`; a later edit makes a new
  version that goes back to review and needs its own release.
"""
from __future__ import annotations

import math
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass, field

from sqlite_utils import Database

from core import triage
from core.errors import ConflictError, FairMarkError, GateError, NotFound, RubricError
from core.rubric import Rubric
from core.text import escape_markdown  # noqa: F401  (re-exported: pages call review.escape_markdown)
from core.text import format_timestamp
from db import audit, courses, dumps, now, write_transaction
from db import reviews as q

REASONS = {
    "too_harsh": "Too harsh",
    "too_lenient": "Too lenient",
    "inaccurate": "Inaccurate",
    "generic": "Generic",
    "tone": "Tone",
    "other": "Other (add a note)",
}
# What teachers read instead of the stored codes (statuses, flags, audit actions).
STATUS_LABELS = {
    "uploaded": "Not drafted yet",
    "drafted": "Drafted",
    "needs_attention": "Needs attention",
    "failed": "AI draft failed",
    "approved": "Approved",
    "rejected": "Rejected",
    "released": "Released",
    "in_review": "In review",
}
FLAG_LABELS = {
    "failed_check": "Failed check",
    "short_text": "Short text",
    "injection": "Injection attempt",
    "code": "Code or formulas",
    "empty": "Empty",
    "non_english": "Not English",
}
ACTION_LABELS = {
    "open": "Opened",
    "edit": "Edited",
    "approve": "Approved",
    "reject": "Rejected",
    "regenerate": "Regenerated",
    "use_draft": "Used a new draft",
    "bulk_approve": "Bulk approved",
    "draw_sample": "Drew the sample",
    "release": "Released",
}
# Statuses of items still waiting for the teacher's decision (Approve/Reject moves on to these).
UNDECIDED = ("drafted", "needs_attention", "failed")
# Checks that, when not passed, keep a draft out of bulk approval. "info" results are advisory.
BLOCKING_SEVERITIES = ("fail",)
SAMPLE_FRACTION, SAMPLE_MAX_PER_BAND = 0.1, 5


class VersionConflict(ConflictError):
    """A save based on an older version; `changes` lists {field, before, after}."""

    def __init__(self, message: str, changes: list[dict]):
        super().__init__(message)
        self.changes = changes


# --- helpers ----------------------------------------------------------------------------
@contextmanager
def _writing(conn: Database):
    """Every read-then-write here: take the write lock first (waits for the background run's
    commit instead of failing), and turn a lock still held after the busy timeout into a
    ConflictError the pages show, not a crash."""
    try:
        with write_transaction(conn):
            yield
    except sqlite3.OperationalError as e:
        if "locked" not in str(e) and "busy" not in str(e):
            raise
        raise ConflictError("another save is in progress; try again (nothing was saved)") from e


def snapshot(review: dict) -> dict:
    """What the audit log records about a review (before/after of every change)."""
    return {k: review.get(k) for k in ("version", "status", "scores", "comment", "reason_codes", "note", "draft_id")}


def _rubric_for(conn: Database, submission: dict) -> Rubric:
    return courses.assignment_rubric(conn, submission["assignment_id"])


def _reopen_status(conn: Database, submission: dict) -> str:
    """Submission status for an item that is back in review: what its current draft says."""
    if submission["current_draft_id"]:
        status = conn.execute("SELECT status FROM drafts WHERE id = ?", [submission["current_draft_id"]]).fetchone()[0]
        return status if status in ("drafted", "needs_attention", "failed") else "drafted"
    return "failed" if submission["status"] == "failed" else "drafted"


def _set_status(conn: Database, submission: dict, status: str, rubric: Rubric) -> None:
    draft = q.get_draft(conn, submission["current_draft_id"]) if submission["current_draft_id"] else None
    prio = triage.priority(status, draft["scores"] if draft else None, rubric,
                           confidence=draft["confidence"] if draft else None)
    conn.execute("UPDATE submissions SET status = ?, priority = ? WHERE id = ?", [status, prio, submission["id"]])


def _require_review(conn: Database, submission_id: int) -> dict:
    review = q.get_review(conn, submission_id)
    if review is None:
        raise NotFound(f"submission {submission_id} has not been opened for review yet; open it first")
    return review


def changes(before: dict | None, after: dict | None) -> list[dict]:
    """Field-by-field differences between two audit snapshots (scores per criterion)."""
    before, after, out = before or {}, after or {}, []
    for key in [k for k in (*before, *after) if k != "scores"]:
        if key not in [c["field"] for c in out] and before.get(key) != after.get(key):
            out.append({"field": key, "before": before.get(key), "after": after.get(key)})
    b, a = before.get("scores") or {}, after.get("scores") or {}
    for crit in sorted(set(b) | set(a)):
        if b.get(crit) != a.get(crit):
            out.append({"field": f"score: {crit}", "before": b.get(crit), "after": a.get(crit)})
    return out


def _conflict(conn: Database, submission_id: int, loaded_version: int, current: dict) -> VersionConflict:
    diff = changes(q.review_at_version(conn, submission_id, loaded_version), snapshot(current))
    who = q.last_change(conn, submission_id) or {}
    # Pages show this with st.error (Markdown): the values are teachers' and AI text, which may
    # quote a student's link or image syntax, so they are escaped; `changes` keeps the raw text.
    lines = [f"- {c['field']}: {escape_markdown(_short(c['before']))} -> {escape_markdown(_short(c['after']))}"
             for c in diff]
    msg = (f"This item was changed by {escape_markdown(who.get('actor', 'someone else'))} at {who.get('at', '?')} "
           f"after you opened it (your version {loaded_version}, now version {current['version']}). "
           "Nothing was saved. What changed:\n" + ("\n".join(lines) or "- (no visible fields)") +
           "\nLoad the latest version and make your change again.")
    return VersionConflict(msg, diff)


def _short(value, limit: int = 60) -> str:
    text = "—" if value is None else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _update_review(conn: Database, review: dict, loaded_version: int, fields: dict, *, actor: str) -> dict:
    """Conditional UPDATE on the loaded version; raises VersionConflict and writes nothing if stale."""
    fields = dict(fields, version=loaded_version + 1, updated_by=actor, updated_at=now())
    stored = {k: dumps(v) if k in ("scores", "reason_codes") else v for k, v in fields.items()}
    sets = ", ".join(f"{k} = ?" for k in stored)
    cur = conn.execute(f"UPDATE reviews SET {sets} WHERE id = ? AND version = ?",
                     [*stored.values(), review["id"], loaded_version])
    if cur.rowcount != 1:
        raise _conflict(conn, review["submission_id"], loaded_version, q.get_review(conn, review["submission_id"]))
    return q.get_review(conn, review["submission_id"])


def label(mapping: dict, code) -> str:
    """The human label of a stored code; unknown codes read as words ("non_english" -> "Non english")."""
    if code is None:
        return "—"
    return mapping.get(code) or str(code).replace("_", " ").capitalize()


def criterion_title(rubric: Rubric | None, key: str) -> str:
    """The rubric's title of a criterion key ("real_world_application" -> "Real-world application")."""
    try:
        return rubric.criterion(key).title if rubric is not None else label({}, key)
    except RubricError:  # a key the rubric no longer has (edited rubric): show it as words
        return label({}, key)


def scores_text(scores: dict, rubric: Rubric | None) -> str:
    """Scores as "Clarity: 2, Concept understanding: 2" with the rubric's titles, in rubric order."""
    order = list(rubric.keys) if rubric is not None else []
    keys = [k for k in order if k in scores] + [k for k in scores if k not in order]
    return ", ".join(f"{criterion_title(rubric, k)}: {scores[k]}" for k in keys)


def reason_label(text: str | None) -> str:
    """An audit reason ("too_harsh, tone: note") with its reason codes as labels
    ("Too harsh, Tone: note"). Free text (a reject note, a system reason) is left as it is."""
    if not text:
        return ""
    codes, sep, rest = str(text).partition(": ")
    parts = codes.split(", ")
    if not all(p in REASONS for p in parts):
        return str(text)
    return ", ".join(REASONS[p] for p in parts) + (sep + rest if sep else "")


def _value_text(field_name: str, value) -> str:
    if value is None:
        return "—"
    if field_name == "status":
        return label(STATUS_LABELS, value)
    if field_name == "reason_codes" and isinstance(value, list):
        return ", ".join(label(REASONS, v) for v in value) or "—"
    return str(value)


_FIELD_LABELS = {"version": "Version", "status": "Status", "comment": "Comment", "reason_codes": "Reasons",
                 "note": "Note", "draft_id": "AI draft", "opened_at": "Opened"}


def change_text(diff: list[dict], rubric: Rubric | None) -> str:
    """`changes()` output as teachers read it: criterion titles, status labels, reason labels."""
    out = []
    for c in diff:
        fld = c["field"]
        if fld.startswith("score: "):
            name = criterion_title(rubric, fld[len("score: "):])
        else:
            name = _FIELD_LABELS.get(fld, label({}, fld))
        before, after = _value_text(fld, c["before"]), _value_text(fld, c["after"])
        if fld == "opened_at":
            before, after = format_timestamp(c["before"]) or "—", format_timestamp(c["after"]) or "—"
        out.append(f"{name}: {_short(before)} → {_short(after)}")
    return "; ".join(out)


def history_rows(history: list[dict], rubric: Rubric | None) -> list[dict]:
    """An item's audit history (db.reviews.history) as table rows with labels, not codes."""
    return [{"When": format_timestamp(h["at"]), "Who": h["actor"], "Action": label(ACTION_LABELS, h["action"]),
             "Reason": reason_label(h["reason"]), "Change": change_text(changes(h["before"], h["after"]), rubric)}
            for h in history]


def student_score_rows(rows: list[dict], rubric: Rubric | None) -> list[dict]:
    """A student's released items (db.reviews.student_released) as table rows: week, assignment,
    one column per criterion titled as in the rubric, total, release date."""
    out = []
    for r in rows:
        row = {"Week": r["week"], "Assignment": r["title"]}
        keys = list(rubric.keys) if rubric is not None else []
        for k in keys + [k for k in r["scores"] if k not in keys]:
            row[criterion_title(rubric, k)] = r["scores"].get(k)
        if rubric is not None and set(r["scores"]) >= set(rubric.keys):
            row["Total"] = f"{rubric.total(r['scores']):g} / {rubric.max_total:g}"
        row["Released"] = format_timestamp(r["released_at"])
        out.append(row)
    return out


def word_count(text: str) -> int:
    return len(text.split())


# --- open -------------------------------------------------------------------------------
def open_item(conn: Database, submission_id: int, *, actor: str) -> dict:
    """The teacher opens an item: create their review from the current draft the first time,
    and record when it was first opened (the bulk-approval sample counts opened items).
    Idempotent: opening again changes nothing."""
    with _writing(conn):
        sub = q.get_submission(conn, submission_id)
        review = q.get_review(conn, submission_id)
        if review is None:
            if sub["status"] == "uploaded":
                raise FairMarkError("this submission has no draft yet: run Assess first")
            draft = q.get_draft(conn, sub["current_draft_id"]) if sub["current_draft_id"] else None
            at = now()
            rid = conn.execute(
                "INSERT INTO reviews (submission_id, draft_id, version, scores, comment, status, opened_at, "
                "updated_by, updated_at) VALUES (?, ?, 1, ?, ?, 'in_review', ?, ?, ?)",
                [submission_id, draft["id"] if draft else None, dumps(draft["scores"] if draft else {}),
                 draft["comment"] if draft else "", at, actor, at]).lastrowid
            review = q.get_review(conn, submission_id)
            audit(conn, actor=actor, action="open", entity="reviews", entity_id=rid, submission_id=submission_id,
                  before=None, after=snapshot(review), reason="first opened; review created from the draft")
        elif review["opened_at"] is None:
            at = now()
            conn.execute("UPDATE reviews SET opened_at = ? WHERE id = ?", [at, review["id"]])
            audit(conn, actor=actor, action="open", entity="reviews", entity_id=review["id"],
                  submission_id=submission_id, before={"opened_at": None}, after={"opened_at": at})
            review = q.get_review(conn, submission_id)
    return review


# --- edit / approve / reject -------------------------------------------------------------
def check_reasons(reasons, note: str) -> list[str]:
    reasons = sorted(set(reasons or ()))
    bad = [r for r in reasons if r not in REASONS]
    if bad:
        raise FairMarkError(f"unknown reason code(s) {bad}; use one of {', '.join(REASONS)}")
    if "other" in reasons and not (note or "").strip():
        raise FairMarkError("reason 'other' needs a note saying what was wrong")
    return reasons


def save_edit(conn: Database, submission_id: int, *, version: int, scores: dict, comment: str,
              reasons=(), note: str = "", actor: str) -> dict:
    """Save the teacher's scores and comment. Scores must be within the rubric; a reason code is
    required when scores or comment changed. Editing an approved, rejected or released item puts
    it back in review (a released version stays locked in its release)."""
    with _writing(conn):
        sub = q.get_submission(conn, submission_id)
        rubric = _rubric_for(conn, sub)
        review = _require_review(conn, submission_id)
        if review["version"] != version:
            raise _conflict(conn, submission_id, version, review)
        missing = [c.title for c in rubric.criteria if scores.get(c.key) is None]
        if missing:
            raise FairMarkError(f"choose a score for: {', '.join(missing)}")
        scores = rubric.validate_scores(scores)
        comment = (comment or "").strip()
        reasons = check_reasons(reasons, note)
        changed = scores != review["scores"] or comment != review["comment"]
        if not changed and not reasons and (note or "") == review["note"]:
            return review
        draft = q.get_draft(conn, review["draft_id"]) if review["draft_id"] else None
        # A reason says what was wrong with the AI's work; marking an item whose AI
        # assessment failed (no scores) by hand needs none.
        if changed and not reasons and draft is not None and draft["scores"]:
            raise FairMarkError("pick at least one reason for your change (too harsh, too lenient, inaccurate, "
                                "generic, tone, or other with a note)")
        edited = draft is None or scores != draft["scores"] or comment != draft["comment"]
        fields = {"scores": scores, "comment": comment, "edited": int(edited),
                  "reason_codes": sorted(set(review["reason_codes"]) | set(reasons)), "note": note or ""}
        reopened = review["status"] != "in_review" or sub["status"] in ("approved", "released", "rejected")
        if reopened:
            fields.update(status="in_review", approved_by=None, approved_at=None, approved_in_bulk=0)
        after = _update_review(conn, review, version, fields, actor=actor)
        if reopened:
            _set_status(conn, sub, _reopen_status(conn, sub), rubric)
        audit(conn, actor=actor, action="edit", entity="reviews", entity_id=review["id"], submission_id=submission_id,
              before=snapshot(review), after=snapshot(after), reason=_reason_text(reasons, note))
    return after


def _reason_text(reasons, note: str) -> str:
    return ", ".join(reasons) + (f": {note.strip()}" if (note or "").strip() else "")


def approve(conn: Database, submission_id: int, *, version: int, actor: str, scores: dict | None = None,
            comment: str | None = None, reasons=(), note: str = "") -> dict:
    """Approve the teacher's version (saving any edits first, with their reasons)."""
    with _writing(conn):
        review = _require_review(conn, submission_id)
        if scores is not None or comment is not None:
            review = save_edit(conn, submission_id, version=version,
                               scores=review["scores"] if scores is None else scores,
                               comment=review["comment"] if comment is None else comment,
                               reasons=reasons, note=note, actor=actor)
            version = review["version"]
        if review["version"] != version:
            raise _conflict(conn, submission_id, version, review)
        sub = q.get_submission(conn, submission_id)
        if review["status"] == "approved" and sub["status"] in ("approved", "released"):
            return review
        rubric = _rubric_for(conn, sub)
        rubric.validate_scores(review["scores"])
        if not review["comment"].strip():
            raise FairMarkError("the comment is empty: write feedback for the student before approving")
        at = now()
        after = _update_review(conn, review, version, {"status": "approved", "approved_by": actor,
                                                     "approved_at": at, "approved_in_bulk": 0}, actor=actor)
        _set_status(conn, sub, "approved", rubric)
        audit(conn, actor=actor, action="approve", entity="reviews", entity_id=review["id"],
              submission_id=submission_id, before=snapshot(review), after=snapshot(after))
    return after


def reject(conn: Database, submission_id: int, *, version: int, note: str, actor: str) -> dict:
    """Reject the draft: the item goes back to the queue (Rejected group) with the teacher's note."""
    if not (note or "").strip():
        raise FairMarkError("Say why you reject it: the note goes back to the queue with the item.")
    with _writing(conn):
        review = _require_review(conn, submission_id)
        if review["version"] != version:
            raise _conflict(conn, submission_id, version, review)
        sub = q.get_submission(conn, submission_id)
        after = _update_review(conn, review, version, {"status": "rejected", "note": note.strip(),
                                                     "approved_by": None, "approved_at": None,
                                                     "approved_in_bulk": 0}, actor=actor)
        _set_status(conn, sub, "rejected", _rubric_for(conn, sub))
        audit(conn, actor=actor, action="reject", entity="reviews", entity_id=review["id"],
              submission_id=submission_id, before=snapshot(review), after=snapshot(after), reason=note.strip())
    return after


# --- regenerate ---------------------------------------------------------------------------
def _db_file(conn: Database) -> str:
    row = conn.execute("PRAGMA database_list").fetchone()
    if not row or not row[2]:
        raise FairMarkError("regenerate needs a database file (not an in-memory database)")
    return row[2]


def regenerate(conn: Database, submission_id: int, *, actor: str, llm=None, assess_one=None) -> int:
    """Ask the pipeline for a new draft of this item. The teacher's review is not touched: the
    new draft is offered next to it and replaces it only through `use_draft`."""
    if assess_one is None:
        from core import pipeline  # lazy: the pipeline pulls in the agents and the LLM client

        assess_one = pipeline.assess_one
    before = q.latest_draft_id(conn, submission_id)
    # The pipeline never writes `reviews` (db.drafts.save_draft), so the teacher's version is
    # untouched by construction; a colleague's save meanwhile is theirs, not the pipeline's.
    draft_id = assess_one(_db_file(conn), submission_id, llm=llm)
    with _writing(conn):
        audit(conn, actor=actor, action="regenerate", entity="drafts", entity_id=draft_id, submission_id=submission_id,
              before={"draft_id": before}, after={"draft_id": draft_id},
              reason="new draft requested; the teacher's version is kept")
    return draft_id


def use_draft(conn: Database, submission_id: int, draft_id: int, *, version: int, actor: str) -> dict:
    """The teacher chooses a (regenerated) draft as their version: scores and comment replaced."""
    with _writing(conn):
        review = _require_review(conn, submission_id)
        if review["version"] != version:
            raise _conflict(conn, submission_id, version, review)
        draft = q.get_draft(conn, draft_id)
        if draft["submission_id"] != submission_id:
            raise NotFound(f"draft {draft_id} belongs to another submission")
        sub = q.get_submission(conn, submission_id)
        # The chosen draft becomes the submission's current one (the pipeline leaves a
        # teacher's approved/rejected item pointing at the old draft).
        conn.execute("UPDATE submissions SET current_draft_id = ? WHERE id = ?", [draft_id, submission_id])
        sub = q.get_submission(conn, submission_id)
        after = _update_review(conn, review, version, {
            "draft_id": draft_id, "scores": draft["scores"], "comment": draft["comment"], "edited": 0,
            "status": "in_review", "approved_by": None, "approved_at": None, "approved_in_bulk": 0}, actor=actor)
        _set_status(conn, sub, _reopen_status(conn, sub), _rubric_for(conn, sub))
        audit(conn, actor=actor, action="use_draft", entity="reviews", entity_id=review["id"],
              submission_id=submission_id, before=snapshot(review), after=snapshot(after),
              reason=f"teacher chose draft {draft_id}")
    return after


# --- comment checks (live, on the teacher's text) ------------------------------------------
def comment_checks(comment: str, *, submission_text: str = "", evaluation: dict | None = None,
                   target_grade: float | None = None) -> list[dict]:
    """The pipeline's deterministic checks (core.checks) on the teacher's edited comment."""
    from core import checks  # lazy: textstat/pyphen load only when an item is open

    return checks.comment_checks(comment, submission_text, evaluation=evaluation, target_grade=target_grade)


# --- bulk approval ------------------------------------------------------------------------
def _candidates_sql(rubric: Rubric) -> tuple[str, list]:
    """Drafted items whose Reviewer was CONFIDENT, with no failed check, no flag, no attention
    reason and no teacher edit; band = predicted band of the draft's mean score."""
    divisor = 1.0 if any(c.weight for c in rubric.criteria) else float(len(rubric.criteria))
    sev = ", ".join("?" * len(BLOCKING_SEVERITIES))
    sql = f"""
        SELECT s.id AS submission_id, d.id AS draft_id,
               CASE WHEN d.total / ? <= ? THEN 'low' ELSE 'high' END AS band
        FROM submissions s
        JOIN drafts d ON d.id = s.current_draft_id
        LEFT JOIN reviews r ON r.submission_id = s.id
        WHERE s.assignment_id = ? AND s.status = 'drafted' AND d.status = 'drafted'
          AND d.verdict = 'CONFIDENT'
          AND json_array_length(d.flags) = 0 AND json_array_length(d.attention_reasons) = 0
          AND NOT EXISTS (SELECT 1 FROM json_each(d.checks) c WHERE json_extract(c.value, '$.passed') = 0
                          AND json_extract(c.value, '$.severity') IN ({sev}))
          AND (r.id IS NULL OR (r.status = 'in_review' AND r.edited = 0 AND r.draft_id = d.id))
    """
    return sql, [divisor, rubric.band_cut, *BLOCKING_SEVERITIES]


def _sample_target(n: int) -> int:
    return min(n, max(1, min(SAMPLE_MAX_PER_BAND, math.ceil(n * SAMPLE_FRACTION))))


@dataclass
class SampleState:
    candidates: int
    by_band: dict          # band -> number of candidates
    sample: list           # [{submission_id, band, draft_id, opened_at, student_name}]
    missing: dict          # band -> how many more sampled items it needs
    unopened: list         # submission ids in the sample not opened yet
    # Sampled submissions whose draft changed since drawing (redo run, regenerate): no longer
    # part of the sample; draw_sample replaces them.
    stale: list = field(default_factory=list)

    @property
    def checked(self) -> bool:
        return self.candidates > 0 and not self.missing and not self.unopened


def sample_state(conn: Database, assignment_id: int) -> SampleState:
    rubric = courses.assignment_rubric(conn, assignment_id)
    sql, args = _candidates_sql(rubric)
    by_band = dict(conn.execute(f"SELECT band, COUNT(*) FROM ({sql}) GROUP BY band",
                              [*args[:2], assignment_id, *args[2:]]).fetchall())
    # A row counts only while the sampled draft is still current, and as opened only if the
    # teacher's review was opened on that very draft (open_item creates it from the current one).
    rows = list(conn.query(
        "SELECT rs.submission_id, rs.band, rs.draft_id, "
        "CASE WHEN r.draft_id = rs.draft_id THEN r.opened_at END AS opened_at, st.name AS student_name, "
        "COALESCE(s.current_draft_id = rs.draft_id, 0) AS live FROM review_samples rs "
        "JOIN submissions s ON s.id = rs.submission_id JOIN students st ON st.id = s.student_id "
        "LEFT JOIN reviews r ON r.submission_id = rs.submission_id "
        "WHERE rs.assignment_id = ? ORDER BY rs.band, rs.submission_id", [assignment_id]))
    sample = [{k: v for k, v in row.items() if k != "live"} for row in rows if row["live"]]
    stale = [row["submission_id"] for row in rows if not row["live"]]
    if rows and _new_since_draw(conn, sql, args, assignment_id):
        # Candidates drafted after the sample was drawn (a redo run, a regenerate) were never
        # represented in it: the batch changed, so the whole sample must be drawn again.
        stale = [row["submission_id"] for row in rows]
        sample = []
    have = {}
    for row in sample:
        have[row["band"]] = have.get(row["band"], 0) + 1
    missing = {band: _sample_target(n) - have.get(band, 0) for band, n in by_band.items()
               if _sample_target(n) > have.get(band, 0)}
    unopened = [r["submission_id"] for r in sample if not r["opened_at"]]
    return SampleState(sum(by_band.values()), by_band, sample, missing, unopened, stale)


def _new_since_draw(conn: Database, sql: str, args: list, assignment_id: int) -> bool:
    return bool(conn.execute(
        f"SELECT EXISTS (SELECT 1 FROM ({sql}) c JOIN drafts d ON d.id = c.draft_id "
        "WHERE d.created_at > (SELECT MAX(drawn_at) FROM review_samples WHERE assignment_id = ?))",
        [*args[:2], assignment_id, *args[2:], assignment_id]).fetchone()[0])


def draw_sample(conn: Database, assignment_id: int, *, actor: str) -> SampleState:
    """Add items to the stratified sample until every band present among the bulk-approval
    candidates has its share (at least one). Already drawn items stay while their draft is
    current: the sample is stable; items with a new draft since (stale) are dropped and replaced."""
    with _writing(conn):
        state = sample_state(conn, assignment_id)
        rubric = courses.assignment_rubric(conn, assignment_id)
        sql, args = _candidates_sql(rubric)
        if state.stale:
            conn.execute(f"DELETE FROM review_samples WHERE assignment_id = ? AND submission_id IN "
                       f"({', '.join('?' * len(state.stale))})", [assignment_id, *state.stale])
        drawn = {}
        for band, need in state.missing.items():
            # Deterministic spread over ids (a multiplicative hash), not "the first n".
            # Drafts the teacher has not seen yet first: re-sampling one already opened adds nothing.
            picked = conn.execute(
                f"SELECT c.submission_id, c.draft_id FROM ({sql}) c "
                "LEFT JOIN reviews seen ON seen.submission_id = c.submission_id AND seen.draft_id = c.draft_id "
                "AND seen.opened_at IS NOT NULL "
                "WHERE c.band = ? AND c.submission_id NOT IN "
                "(SELECT submission_id FROM review_samples WHERE assignment_id = ?) "
                "ORDER BY seen.id IS NOT NULL, (c.submission_id * 2654435761) % 4294967296 LIMIT ?",
                [*args[:2], assignment_id, *args[2:], band, assignment_id, need]).fetchall()
            at = now()
            conn.conn.executemany(
                "INSERT INTO review_samples (assignment_id, submission_id, band, drawn_by, drawn_at, draft_id) "
                "VALUES (?, ?, ?, ?, ?, ?)", [(assignment_id, i, band, actor, at, d) for i, d in picked])
            drawn[band] = [i for i, _ in picked]
        if drawn or state.stale:
            audit(conn, actor=actor, action="draw_sample", entity="review_samples", entity_id=assignment_id,
                  before={"stale": state.stale} if state.stale else None, after=drawn,
                  reason="stratified sample for bulk approval"
                         + ("; items with a new draft since they were drawn were replaced" if state.stale else ""))
        return sample_state(conn, assignment_id)


def bulk_approve(conn: Database, assignment_id: int, *, expected: int, actor: str) -> int:
    """Approve every bulk candidate at once, after the sample was opened. `expected` is the
    count the teacher confirmed; if the set changed meanwhile nothing is approved."""
    with _writing(conn):
        state = sample_state(conn, assignment_id)
        if state.candidates == 0:
            raise GateError("no items qualify for bulk approval (CONFIDENT, no failed check, no flag, not edited)")
        if state.missing:
            raise GateError("draw the sample first: every band needs at least one sampled item "
                            f"(missing: {', '.join(f'{b} band ({n})' for b, n in state.missing.items())})")
        if state.unopened:
            raise GateError(f"open the sampled items first: {len(state.unopened)} of {len(state.sample)} "
                            f"not opened yet (submissions {', '.join(map(str, state.unopened))})")
        if state.candidates != expected:
            raise ConflictError(f"the number of items changed from {expected} to {state.candidates} since you "
                                "confirmed; nothing was approved. Check and confirm again.")
        rubric = courses.assignment_rubric(conn, assignment_id)
        sql, args = _candidates_sql(rubric)
        at = now()
        conn.execute("DROP TABLE IF EXISTS temp.bulk_items")
        conn.execute("CREATE TEMP TABLE bulk_items (submission_id INTEGER PRIMARY KEY, draft_id INTEGER, before TEXT)")
        conn.execute(f"INSERT INTO temp.bulk_items SELECT c.submission_id, c.draft_id, NULL FROM ({sql}) c",
                   [*args[:2], assignment_id, *args[2:]])
        snap = ("json_object('version', r.version, 'status', r.status, 'scores', json(r.scores), "
                "'comment', r.comment, 'reason_codes', json(r.reason_codes), 'note', r.note, 'draft_id', r.draft_id)")
        conn.execute(f"UPDATE temp.bulk_items SET before = (SELECT {snap} FROM reviews r "
                   "WHERE r.submission_id = bulk_items.submission_id)")
        # Items never opened get their review now (version 0 -> 1 by the approval below).
        conn.execute("INSERT INTO reviews (submission_id, draft_id, version, scores, comment, status, updated_by, "
                   "updated_at) SELECT b.submission_id, d.id, 0, d.scores, d.comment, 'in_review', ?, ? "
                   "FROM temp.bulk_items b JOIN drafts d ON d.id = b.draft_id WHERE b.before IS NULL", [actor, at])
        conn.execute("UPDATE reviews SET status = 'approved', version = version + 1, approved_by = ?, approved_at = ?, "
                   "approved_in_bulk = 1, updated_by = ?, updated_at = ? "
                   "WHERE submission_id IN (SELECT submission_id FROM temp.bulk_items)", [actor, at, actor, at])
        conn.execute("UPDATE submissions SET status = 'approved', priority = ? "
                   "WHERE id IN (SELECT submission_id FROM temp.bulk_items)", [triage.APPROVED])
        n = conn.execute(
            "INSERT INTO audit_log (at, actor, action, entity, entity_id, submission_id, before, after, reason) "
            f"SELECT ?, ?, 'bulk_approve', 'reviews', r.id, b.submission_id, b.before, {snap}, ? "
            "FROM temp.bulk_items b JOIN reviews r ON r.submission_id = b.submission_id",
            [at, actor, f"bulk approval of {expected} items after a stratified sample of {len(state.sample)}"]
        ).rowcount
        conn.execute("DROP TABLE temp.bulk_items")
    return n


# --- release ------------------------------------------------------------------------------
@dataclass
class Gate:
    name: str
    ok: bool
    detail: str


def release_gates(conn: Database, assignment_id: int) -> list[Gate]:
    ov = q.release_overview(conn, assignment_id)
    gates = [
        Gate("Something to release", ov.approved_unreleased > 0,
             f"{ov.approved_unreleased} approved item(s) not yet released" if ov.approved_unreleased
             else "no approved item waits for release"),
        Gate("No item needing attention left unreviewed", ov.needs_attention == 0,
             "all items that needed attention were approved or rejected" if ov.needs_attention == 0
             else f"{ov.needs_attention} item(s) needing attention still wait for a decision"),
    ]
    if ov.bulk_approved_unreleased:
        state = sample_state(conn, assignment_id)
        ok = bool(state.sample) and not state.unopened
        gates.append(Gate("Bulk-approval sample checked", ok,
                          f"{len(state.sample)} sampled item(s) opened before {ov.bulk_approved_unreleased} "
                          "bulk approval(s)" if ok else f"{len(state.unopened)} sampled item(s) not opened"))
    else:
        gates.append(Gate("Bulk-approval sample checked", True, "no bulk approvals in this release"))
    return gates


def release(conn: Database, assignment_id: int, *, actor: str, note: str = "") -> dict:
    """Release every approved, unreleased item of the assignment and lock those versions."""
    with _writing(conn):
        failed = [g for g in release_gates(conn, assignment_id) if not g.ok]
        if failed:
            raise GateError("release refused: " + "; ".join(f"{g.name} — {g.detail}" for g in failed))
        at = now()
        rel_id = conn.execute("INSERT INTO releases (assignment_id, released_by, released_at, note) VALUES (?, ?, ?, ?)",
                            [assignment_id, actor, at, note]).lastrowid
        n = conn.execute(
            # rubric_id: the assignment's rubric now, the one approve validated the scores against
            # and the teacher sees; locked so a later rubric switch cannot change released totals.
            "INSERT INTO release_items (release_id, submission_id, review_version, scores, comment, is_offline, "
            "rubric_id) SELECT ?, s.id, r.version, r.scores, r.comment, COALESCE(d.is_offline, 0), a.rubric_id "
            "FROM submissions s JOIN assignments a ON a.id = s.assignment_id "
            "JOIN reviews r ON r.submission_id = s.id LEFT JOIN drafts d ON d.id = r.draft_id "
            "WHERE s.assignment_id = ? AND s.status = 'approved' AND r.status = 'approved'",
            [rel_id, assignment_id]).rowcount
        conn.execute("UPDATE releases SET n_items = ? WHERE id = ?", [n, rel_id])
        conn.execute("UPDATE submissions SET status = 'released', priority = ? "
                   "WHERE id IN (SELECT submission_id FROM release_items WHERE release_id = ?)",
                   [triage.RELEASED, rel_id])
        conn.execute(
            "INSERT INTO audit_log (at, actor, action, entity, entity_id, submission_id, before, after, reason) "
            "SELECT ?, ?, 'release', 'release_items', ri.release_id, ri.submission_id, "
            "json_object('status', 'approved', 'version', ri.review_version), "
            "json_object('status', 'released', 'version', ri.review_version, 'release_id', ri.release_id), ? "
            "FROM release_items ri WHERE ri.release_id = ?", [at, actor, note, rel_id])
        audit(conn, actor=actor, action="release", entity="releases", entity_id=rel_id,
              after={"assignment_id": assignment_id, "n_items": n}, reason=note)
    return {"release_id": rel_id, "n_items": n, "released_at": at}


# --- evidence quotes ----------------------------------------------------------------------
def find_quotes(text: str, quotes) -> list[tuple[int, int]]:
    """Non-overlapping (start, end) spans of the quotes found in the text (case-insensitive)."""
    low, spans = text.lower(), []
    for quote in quotes:
        quote = (quote or "").strip().strip('"“”').strip()
        if len(quote) < 3:
            continue
        i = low.find(quote.lower())
        if i >= 0:
            spans.append((i, i + len(quote)))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged


def highlight_markdown(text: str, quotes) -> str:
    """Student text as safe Markdown with the evidence quotes in bold (no HTML anywhere)."""
    out, pos = [], 0
    for s, e in find_quotes(text, quotes):
        out.append(escape_markdown(text[pos:s]))
        inner = escape_markdown(text[s:e])
        out.append(f"**{inner.strip()}**" if inner.strip() else inner)
        pos = e
    out.append(escape_markdown(text[pos:]))
    lines = []
    for line in "".join(out).split("\n"):
        # Leading spaces or tabs would make an indented code block (where escapes show
        # literally); non-breaking spaces keep the indentation as plain text.
        body = line.lstrip(" \t")
        indent = line[: len(line) - len(body)].replace("\t", "    ")
        lines.append("\u00a0" * len(indent) + body)
    # Two trailing spaces keep the student's line breaks.
    return "  \n".join(lines)
