"""What the student page shows: a student's own released feedback, read in one call.

Only locked release versions are read (db.student_links.released_for reads release_items):
never a draft, an unreleased edit, the AI's reasoning or evidence, another student or a roster
name. Per item: the criteria with the released score and the rubric's descriptor of that level,
the total, the released comment, the day of its release, and the disclosure of how it was
made, true to what FairMark knows of it:
- an AI draft a teacher approved: "Drafted with AI assistance, checked and approved by <name>";
- a draft from the offline baseline (no language model): it says that instead of "AI";
- an item approved in bulk (its sample was checked, not this item): it says so.
The approver is the one recorded with the released version (release_items.approved_by; for a
release made before that was recorded, the person who released it).

`appeal` in each item is what the appeal form needs (core.appeals.filing.for_student: whether
the student may ask now and why not, the deadline, the criteria, their appeals with outcomes and
the teacher's notes), gathered here so that the page still calls core once per run.

`notes` are the teacher's notes on passages of the student's text that this release holds (kept
ones only: a suggestion of the AI nobody kept never reaches a student); with them comes the
student's own text, so the page can highlight the passages.
"""
from __future__ import annotations

from core.accounts import access
from core.accounts.access import Actor
from core.appeals import filing
from core.language import DEFAULT, SUPPORTED
from core.language import course as course_language
from core.language.interface import Interface
from core.signoff import anchored_notes
from db import courses
from db import student_links as links_db
from db import submissions as submissions_db
from db import users as users_db


def disclosure(approver: str, *, is_offline: bool, in_bulk: bool, language: str = DEFAULT) -> str:
    """The sentence under each item that says how it was made.

    >>> disclosure("Ada Lovelace", is_offline=False, in_bulk=False)
    'Drafted with AI assistance, checked and approved by Ada Lovelace.'
    >>> disclosure("Ada Lovelace", is_offline=True, in_bulk=False)
    "Drafted by FairMark's automatic scoring (no AI language model), checked and approved by Ada Lovelace."
    """
    t = Interface(language)
    if in_bulk:
        return (t("Drafted by FairMark's automatic scoring (no AI language model), approved by {approver} together "
                  "with similar drafts after checking a sample of them.", approver=approver) if is_offline else
                t("Drafted with AI assistance, approved by {approver} together with similar drafts after checking a "
                  "sample of them.", approver=approver))
    return (t("Drafted by FairMark's automatic scoring (no AI language model), checked and approved by {approver}.",
              approver=approver) if is_offline else
            t("Drafted with AI assistance, checked and approved by {approver}.", approver=approver))


def _num(x: float):
    return int(x) if float(x).is_integer() else x


def _notes(conn, row: dict, rubric) -> dict:
    """{"notes", "text"}: the notes on the text this release holds (released kept ones only,
    core.signoff.anchored_notes) and, when there are any, the student's own text they point at."""
    notes = anchored_notes.released_for(conn, row["submission_id"], {c.key: c.title for c in rubric.criteria})
    return {"notes": notes, "text": submissions_db.get_submission(conn, row["submission_id"])["text"] if notes else ""}


def language_of(conn, *, actor: Actor, browser: str | None) -> str:
    """The student page's language: the browser's when FairMark offers it (`browser`, a supported
    code or None), else the course's (core.language.course): a student in Uppsala whose browser is
    set to German reads the page in the course's Swedish, not in English. Only a student actor may."""
    access.require(actor, "student_view")
    if browser in SUPPORTED:
        return browser
    return course_language.stored(courses.get_course(conn, next(iter(actor.courses))).get("language"))


def view(conn, *, actor: Actor, language: str | None = DEFAULT, browser: str | None = None) -> dict:
    """The student page in one read: {"course", "items": [{submission_id, assignment, week,
    released, criteria [{title, score, max, level}], total, max_total, comment, disclosure,
    appeal (filing.for_student's answer), notes (the released notes on the text), text (their own
    text, when there are notes)}]}. Only a student actor may (their own work, in their link's assignment).
    `language`: the page's (core.language), for the day of release and the disclosure; None: chosen
    as language_of does from `browser` (the page's one read), and given back as "language"."""
    access.require(actor, "student_view")
    if language is None:
        language = language_of(conn, actor=actor, browser=browser)
    course_id = next(iter(actor.courses))
    rows = links_db.released_for(conn, actor.student_id, course_id, actor.assignment_id)
    names = users_db.display_names(conn) if rows else {}
    rubrics: dict = {}
    items = []
    for r in rows:
        access.check_student(conn, actor, "student_view", r["submission_id"])   # the query's scope, checked again
        rubric = rubrics.get(r["rubric_id"]) or rubrics.setdefault(r["rubric_id"], courses.get_rubric(conn, r["rubric_id"]))
        scores = r["scores"]
        criteria = [{"title": c.title, "score": scores.get(c.key), "max": rubric.scale_max,
                     "level": c.levels.get(scores.get(c.key), "")} for c in rubric.criteria]
        who = r["approved_by"] or r["released_by"]
        items.append({
            "submission_id": r["submission_id"], "assignment": r["title"], "week": r["week"],
            "released": Interface(language).date(r["released_at"]), "criteria": criteria,
            "total": _num(rubric.total(scores)) if all(c.key in scores for c in rubric.criteria) else None,
            "max_total": _num(rubric.max_total), "comment": r["comment"],
            "disclosure": disclosure(names.get(who, who), is_offline=bool(r["is_offline"]),
                                     in_bulk=bool(r["approved_in_bulk"]), language=language),
            "appeal": filing.for_student(conn, r["submission_id"], actor=actor),
            **_notes(conn, r, rubric),
        })
    return {"course": links_db.course_name(conn, course_id), "items": items, "language": language}
