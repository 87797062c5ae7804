"""What the lesson page shows, gathered in one read: the lesson, its current review, the
judges' votes, the issues with their quoted spans located in the text, the entropy flags, the
fixes and the audit trail.

>>> [(t, i) for t, i in segments("The sun is cold. Rain falls.", [{"quote": "sun is  COLD"}])]
[('The ', None), ('sun is cold', 0), ('. Rain falls.', None)]
"""
from __future__ import annotations

import re

from core.accounts import access
from core.accounts.access import Actor
from core.lessons import costs as lesson_costs
from core.language.interface import read_back
from core.lessons import rubric, sections, tiers
from core.lessons import runs as lesson_runs
from core.offline import LABEL as OFFLINE_LABEL
from db import courses as courses_db
from db import lessons as lessons_db
from db import votes as votes_db


def find(quote: str, text: str) -> tuple[int, int] | None:
    """Where a quote occurs in the text, ignoring case and spacing (None: not found, which may
    mean the judge made it up)."""
    words = re.findall(r"\S+", (quote or "").strip().strip("\"'“”…."))
    if not words:
        return None
    m = re.search(r"\s+".join(re.escape(w) for w in words), text, re.IGNORECASE)
    return (m.start(), m.end()) if m else None


def segments(text: str, issues: list[dict]) -> list[tuple[str, int | None]]:
    """The text cut into plain pieces and quoted spans (with the index of their issue)."""
    spans = sorted((pos[0], pos[1], i) for i, issue in enumerate(issues) if (pos := find(issue.get("quote", ""), text)))
    out, at = [], 0
    for start, end, i in spans:
        if start < at:          # overlapping quotes: the first one wins
            continue
        if start > at:
            out.append((text[at:start], None))
        out.append((text[start:end], i))
        at = end
    if at < len(text):
        out.append((text[at:], None))
    return out


def lesson_view(conn, lesson_id: int, *, actor: Actor) -> dict:
    access.check(conn, actor, "read", lesson=lesson_id)
    return _lesson(conn, lesson_id)


def _lesson(conn, lesson_id: int) -> dict:
    lesson = lessons_db.get(conn, lesson_id)
    review = lessons_db.review(conn, lesson["current_review_id"])
    record = (review or {}).get("record") or {}
    judged = record.get("first") or {}
    issues, seen = [], {}
    for a in judged.get("votes", []):
        for i in a["verdict"]["issues"]:
            key = (i["dimension"], " ".join(i["quote"].lower().split()))
            if key in seen:                      # the same quote from another judge: one row, both names
                seen[key]["judge"] += f", {a['judge']}"
                continue
            seen[key] = {**i, "judge": a["judge"], "found": find(i["quote"], lesson["original_text"]) is not None}
            issues.append(seen[key])
    return {
        "lesson": lesson, "review": review, "record": record, "issues": issues, **_said(record, review),
        "tier_reasons": _read_back(record.get("tier_reasons_said"), record.get("tier_reasons", [])),
        "tier_label": tiers.LABELS.get(lesson["tier"] if lesson["status"] != "uploaded" else None),
        "offline_label": OFFLINE_LABEL if review and review["is_offline"] else None,
        "votes": votes_db.of(conn, "lesson", lesson_id, draft_id=review["id"]) if review else [],
        "dimensions": {d.key: d.label for d in rubric.DIMENSIONS},
        "fixes": lessons_db.fixes(conn, review["id"]) if review else [],
        "history": lessons_db.history(conn, lesson_id),
    }


def _said(record: dict, review: dict | None) -> dict:
    """What core wrote into the review, as Messages where the review kept their form (the page says
    them in the teacher's language; core.lessons.review._keep_forms): the Stage 1 checks (their labels
    and details), the notes (the judges' panel, the fact check), the rounds' notes, why the entropy
    was not measured and a failed review's error. A review stored before: its English, N_ labels as
    they are (the page translates those)."""
    checks, forms = record.get("heuristics", []), record.get("heuristics_said")
    if forms and len(forms) == len(checks):
        checks = [{**c, "label": read_back(f["label"], c.get("label")), "detail": read_back(f["detail"], c.get("detail"))}
                  for c, f in zip(checks, forms)]
    entropy = record.get("entropy") or {}
    if "skipped_said" in entropy:
        entropy = {**entropy, "skipped": read_back(entropy["skipped_said"], entropy.get("skipped"))}
    return {
        "checks": checks,
        "notes": _read_back(record.get("notes_said"), record.get("notes", [])),
        "rounds": [{**r, "note": read_back(r["note_said"], r.get("note"))} if "note_said" in r else r
                   for r in record.get("rounds", [])],
        "entropy": entropy,
        # the review keeps its error's first 2,000 characters
        "error": read_back(record.get("error_said"), (review or {}).get("error"), 2000),
    }


def _read_back(forms, english: list) -> list:
    """Texts kept with their forms side by side: each a Message while its form reads as its English
    (a review stored before the forms: its English as it is)."""
    if not forms or len(forms) != len(english):
        return list(english)
    return [read_back(form, text) for form, text in zip(forms, english)]


def lessons_page(conn, db_path, course_id: int | None, *, redo: bool = False, actor: Actor) -> dict:
    """What the Lessons page shows, in one read: {"course" (None without one), "queue", "waiting"
    (lessons a review would take, `redo`: those reviewed before too), "run" (the latest run's
    progress), "tiers" (counts), "costs" (costs.course_costs), "may" {"upload": upload lessons and the
    demo, "review": start a review in this course}}."""
    access.check(conn, actor, "read", course=course_id)
    may = {"upload": "lessons" in access.allowed(actor),
           "review": "lessons" in access.allowed(actor, course_id)}
    if course_id is None:
        return {"course": None, "queue": [], "may": may}
    return {"course": courses_db.get_course(conn, course_id), "queue": lessons_db.queue(conn, course_id),
            "waiting": len(lessons_db.eligible(conn, course_id, redo=redo)),
            "run": lesson_runs.latest_in(conn, db_path, course_id), "tiers": lessons_db.tier_counts(conn, course_id),
            "costs": lesson_costs.costs_in(conn, course_id), "may": may}


def lesson_page(conn, course_id: int | None, lesson_id: int | None = None, *, actor: Actor) -> dict:
    """What the Lesson page shows, in one read: {"queue" (the course's lessons in queue order),
    "lesson_id" (the one asked for, else the first), and lesson_view's keys for it}."""
    access.check(conn, actor, "read", course=course_id)
    queue = lessons_db.queue(conn, course_id) if course_id is not None else []
    ids = [lesson["id"] for lesson in queue]
    if not ids:
        return {"queue": [], "lesson_id": None}
    lesson_id = lesson_id if lesson_id in ids else ids[0]
    return {"queue": queue, "lesson_id": lesson_id, **_lesson(conn, lesson_id)}


def fix_diff(before: str, after: str) -> str:
    """A unified diff of a fix, one sentence per line, so a changed sentence shows as one
    `-` line and one `+` line instead of a whole rewritten paragraph.

    >>> print(fix_diff("It rains. Water falls.", "It rains. Drops fall."))
    --- before
    +++ after
    @@ -1,2 +1,2 @@
     It rains.
    -Water falls.
    +Drops fall.
    """
    import difflib

    def lines(text: str) -> list[str]:
        return [s.text for s in sections.sentences(text)] or [text]

    return "\n".join(difflib.unified_diff(lines(before), lines(after), "before", "after", lineterm="", n=2))
