"""AI drafts: the pipeline's only writer, and the one decoder of a stored draft.

`save_draft` is the end of one submission's assessment: the draft row, the submission's
status / priority / current draft and the run item are written in ONE transaction, so an
interrupted run leaves either all of them or none (resume then redoes the item).

Each agent role's answer lives in `outputs` (role -> JSON), so a new role needs no migration.
"""
from __future__ import annotations

from sqlite_utils import Database

from db import dumps, loads, now, submissions, votes as votes_db
from db.errors import NotFound
from db.message import Message
from db.rubric_model import Rubric

# The pipeline may change a submission's status only from these (docs/contracts.md): a
# teacher's approved / rejected / released item is never touched.
PIPELINE_OWNED = ("uploaded", "drafted", "needs_attention", "failed")
# JSON columns and what an empty one decodes to.
JSON_COLUMNS = {"models": {}, "prompt_hashes": {}, "scores": {}, "outputs": {}, "checks": [], "revisions": [],
                "flags": [], "attention_reasons": [], "judging": {}, "held_back": [],
                "attention_said": []}   # attention_said: the reasons' forms (m030t), parallel; NULL before
RUN_ITEM_STATUS = {"drafted": "done", "needs_attention": "needs_attention", "failed": "failed"}


def load_item(conn: Database, submission_id: int) -> dict:
    """Everything one assessment needs: submission, student, assignment, rubric and the course's language."""
    row = next(conn.query(
        "SELECT s.id, s.text, s.status, s.assignment_id, s.student_id, st.name AS student_name, "
        "st.email AS student_email, st.pseudonym, a.title, a.prompt, a.key_concepts, a.target_grade, "
        "a.answer_key, a.answer_kind, a.answer_tolerance, a.source_text, a.rubric_id, r.definition AS rubric, "
        "c.language "
        "FROM submissions s JOIN students st ON st.id = s.student_id "
        "JOIN assignments a ON a.id = s.assignment_id JOIN rubrics r ON r.id = a.rubric_id "
        "JOIN courses c ON c.id = a.course_id "
        "WHERE s.id = ?", [submission_id]), None)
    if row is None:
        raise NotFound(Message("submission {id} does not exist", id=submission_id))
    row["key_concepts"] = loads(row["key_concepts"], [])
    row["rubric"] = Rubric.model_validate_json(row["rubric"])
    return row


def save_draft(conn: Database, draft: dict, *, priority: int, run_id: int | None = None,
               votes: list[dict] | None = None) -> int | None:
    """Insert a draft and, in the same transaction, point the submission at it (when the
    pipeline still owns the submission's status) with the queue `priority` core computed, and
    finish the run item. The judges' `votes` that decided its scores (db.votes rows) are
    stored with it.

    Returns the draft id, or None when the run item was no longer pending (nothing written)."""
    # The error's form (core.language.interface.stored) goes to the run item beside its English, not to the draft.
    said = draft.get("error_said")
    cols = {k: dumps(v) if k in JSON_COLUMNS else v for k, v in draft.items() if k != "error_said"}
    cols["run_id"] = run_id
    names = list(cols)
    status = draft["status"]
    with conn.atomic():
        if run_id is not None:
            # Claim the run item first: if another worker already finished it (two resumes
            # racing), write nothing, so there is never a duplicate draft.
            claimed = conn.execute(
                "UPDATE run_items SET status = ?, error = ?, error_said = ?, finished_at = ? "
                "WHERE run_id = ? AND subject = 'submission' AND subject_id = ? AND status = 'pending'",
                [RUN_ITEM_STATUS[status], draft.get("error"), dumps(said) if said else None, now(), run_id,
                 draft["submission_id"]]).rowcount
            if not claimed:
                return None
        draft_id = conn.execute(
            f"INSERT INTO drafts ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})",
            [cols[n] for n in names]).lastrowid
        if votes:
            votes_db.save(conn, "submission", draft["submission_id"], votes, draft_id=draft_id, run_id=run_id)
        # Only while the pipeline owns the status: a teacher's approval that lands between
        # reading and writing still wins.
        submissions.set_status(conn, draft["submission_id"], status, priority, only_from=PIPELINE_OWNED,
                               current_draft_id=draft_id)
    return draft_id


def send_to_teacher(conn: Database, draft_id: int, reason: str, *, priority: int, said=None) -> bool:
    """Add an attention reason to a current draft that was routed as "drafted" and send its
    submission to a teacher (needs attention), in one transaction; a teacher's decision already
    taken, or a draft that is no longer current, is left alone. Returns whether it changed.
    `said`: the reason's form beside its English (drafts.attention_said), None for plain text."""
    with conn.atomic():
        row = conn.execute("SELECT d.submission_id, d.attention_reasons, d.attention_said FROM drafts d JOIN submissions s "
                           "ON s.current_draft_id = d.id WHERE d.id = ? AND d.status = 'drafted' "
                           "AND s.status = 'drafted'", [draft_id]).fetchone()
        if row is None:
            return False
        reasons = loads(row[1], [])
        kept = loads(row[2], [])
        kept = kept if isinstance(kept, list) else []
        forms = (kept + [None] * len(reasons))[:len(reasons)] + [said]   # parallel to the reasons
        conn.execute("UPDATE drafts SET attention_reasons = ?, attention_said = ?, status = 'needs_attention' "
                     "WHERE id = ?", [dumps(reasons + [reason]), dumps(forms), draft_id])
        submissions.set_status(conn, row[0], "needs_attention", priority, only_from=("drafted",))
    return True


def decode(row: dict | None) -> dict | None:
    """A drafts row with its JSON columns decoded (the one decoder every reader uses)."""
    if row is None:
        return None
    row = dict(row)
    for key, empty in JSON_COLUMNS.items():
        if key in row:
            row[key] = loads(row[key], type(empty)())
    return row


def get_draft(conn: Database, draft_id: int) -> dict:
    row = next(conn.query("SELECT * FROM drafts WHERE id = ?", [draft_id]), None)
    if row is None:
        raise NotFound(Message("draft {id} does not exist", id=draft_id))
    return decode(row)


def latest_draft_id(conn: Database, submission_id: int) -> int | None:
    return conn.execute("SELECT MAX(id) FROM drafts WHERE submission_id = ?", [submission_id]).fetchone()[0]


def drafts_of(conn: Database, submission_id: int) -> list[dict]:
    """The submission's drafts, oldest first (without their JSON: what a list shows)."""
    return list(conn.query(
        "SELECT id, run_id, provider, is_offline, total, verdict, status, created_at FROM drafts "
        "WHERE submission_id = ? ORDER BY id", [submission_id]))
