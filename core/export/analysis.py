"""The analysis export: every submission's AI scores next to the teacher's and the uploaded
reference scores, for a coordinator's own statistics. Not feedback: nothing here is for
students, so every row and the file name say so (`python -m core export --format analysis`,
the Agreement page's download).

Columns: marker, student_id, assignment, week, submission_id, draft_id (the current AI draft),
then per criterion `<key>_ai`, `<key>_teacher`, `<key>_reference` (the mean of the uploaded
raters), then teacher_kind, status, flags and one column per group attribute. Every submission
is included, whatever its status. A coordinator without a names grant for the course gets each
student's pseudonym in `student_id` (`core.accounts.access.sees_names`), the rows in pseudonym order. `<key>_teacher` holds the teacher's approved scores and
`teacher_kind` says how they were approved: "edited" (the teacher changed the AI's draft),
"approved" (as drafted), "bulk" (bulk approval: these are the AI's scores); both are empty
while the teacher has not approved the item. A calibration item nobody has scored blind yet
shows no AI columns (draft_id, `<key>_ai`, flags): its draft is hidden everywhere until then.
"""
from __future__ import annotations

from sqlite_utils import Database

from core.accounts import access
from core.accounts.access import Actor
from core.errors import FairMarkError
from core.language.interface import Message
from core.export.released import Export, csv_bytes, safe_name
from core.moderation import blindness as moderation_blindness
from db import courses, exports

MARKER = "analysis only — not for students"


def teacher_kind(row: dict) -> str:
    if row["review_status"] != "approved":
        return ""
    if row["approved_in_bulk"]:
        return "bulk"
    return "edited" if row["edited"] else "approved"


def _number(value):
    if value is None or value == "":
        return ""
    return int(value) if float(value).is_integer() else round(float(value), 3)


def analysis_table(conn: Database, course_id: int, assignment_id: int | None = None, *, actor: Actor) -> list[list]:
    access.check(conn, actor, "dashboards", course=course_id, assignment=assignment_id)
    rows = moderation_blindness.blank_export_rows(conn, exports.analysis_rows(conn, course_id, assignment_id), actor)
    names = access.sees_names(actor, course_id)
    if not names:
        rows.sort(key=lambda r: (r["week"], r["title"], r["pseudonym"], r["submission_id"]))
    keys: list[str] = []
    for rid in dict.fromkeys(r["rubric_id"] for r in rows):
        keys += [k for k in courses.get_rubric(conn, rid).keys if k not in keys]
    base = ["marker", "student_id", "assignment", "week", "submission_id", "draft_id"]
    attributes = sorted({a for r in rows for a in r["attributes"]})
    header = base + [f"{k}_{part}" for k in keys for part in ("ai", "teacher", "reference")]
    header += ["teacher_kind", "status", "flags"]
    header += [a if a not in header else f"group_{a}" for a in attributes]
    table = [header]
    for r in rows:
        kind = teacher_kind(r)
        line = [MARKER, r["external_id"] if names else r["pseudonym"], r["title"], r["week"], r["submission_id"], r["draft_id"] or ""]
        for k in keys:
            line += [_number(r["ai_scores"].get(k)), _number(r["teacher_scores"].get(k)) if kind else "",
                     _number(r["reference"].get(k))]
        line += [kind, r["status"], ";".join(r["flags"])]
        line += [r["attributes"].get(a, "") for a in attributes]
        table.append(line)
    return table


def export(conn: Database, course_id: int, assignment_id: int | None = None, *, actor: Actor) -> Export:
    access.check(conn, actor, "dashboards", course=course_id, assignment=assignment_id)
    table = analysis_table(conn, course_id, assignment_id, actor=actor)
    if len(table) == 1:
        raise FairMarkError(Message("nothing to export: no submissions here yet (import reflections first)"))
    course = courses.get_course(conn, course_id)
    title = courses.get_assignment(conn, assignment_id)["title"] if assignment_id else None
    name = safe_name(course["name"], "course") + (f"-{safe_name(title, 'assignment')}" if title else "")
    rows = table[1:]
    summary = {"items": len(rows), "students": len({r[1] for r in rows}), "assignments": len({r[2] for r in rows}),
               "teacher_scored": sum(bool(r[table[0].index("teacher_kind")]) for r in rows)}
    return Export(csv_bytes(table, bom=True), f"{name}-analysis-NOT-for-students.csv", "text/csv", summary)
