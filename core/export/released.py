"""Exports of what teachers released: a CSV per assignment, a Canvas gradebook-import CSV, and a
ZIP with one Markdown file per student.

Only released versions (locked in `release_items`) are exported; with `include_approved=True`
items whose current review is approved but not yet released are added (db.exports selects
both). Nothing a teacher has not approved can reach a file: both sources are approved versions
by construction.
Spreadsheet cells that start with = + - @ (or a tab / carriage return) are prefixed with an
apostrophe so a spreadsheet shows them as text instead of running them as formulas.

Criterion columns of the CSV are headed by the rubric's criterion keys (`concept_understanding`):
stable column ids for scripts and spreadsheets. The student-facing Markdown uses the rubric's
criterion titles ("Concept understanding").

Students' private links (core.students.links) are stored only hashed, so a file can carry them
only when it is built with the links a release or a fresh mint has just made (`links`:
{submission id: url}): the CSV's `student_link` column, the Canvas file's last column, a line
in each student's Markdown. Built later, those places say plainly that the link is not shown
again and how to make new ones (`python -m core appeals links`, or `export --new-links`).
"""
from __future__ import annotations

import csv
import io
import re
import unicodedata
import zipfile
from dataclasses import dataclass

from sqlite_utils import Database

from core.accounts import access
from core.accounts.access import Actor
from core.errors import FairMarkError
from core.language.interface import Message
from core.moderation import blindness as moderation_blindness
from core.offline import LABEL as OFFLINE_LABEL
from core.signoff import anchored_notes
from core.students import links as student_links
from core.text import escape_commonmark
from db import courses, exports

MARKER = "AI-assisted, teacher-approved"
OFFLINE_MARKER = OFFLINE_LABEL
FORMATS = ("csv", "canvas", "zip")
LINK_COLUMN = "FairMark feedback link"
NO_LINK = ("not shown again (links are stored only hashed): make new ones with python -m core appeals links "
           "--course C --assignment A")
NO_LINK_MD = "Your private feedback link comes from your teacher (ask them for it if you have none)."
_PLAIN_URL = re.compile(r"https?://[^\s<>]+")
_FORMULA_START = frozenset("=+-@\t\r")


def neutralise(value):
    """Make a spreadsheet cell inert: text starting with a formula character gets a leading '."""
    if value.__class__ is str and value[:1] in _FORMULA_START and value:
        return "'" + value
    return value


def marker(is_offline) -> str:
    return f"{MARKER}; {OFFLINE_MARKER}" if is_offline else MARKER


@dataclass
class Export:
    data: bytes
    file_name: str
    mime: str
    summary: dict


def export_items(conn: Database, course_id: int, assignment_id: int | None = None, *,
                 include_approved: bool = False, actor: Actor) -> list[dict]:
    """Released (and optionally approved) items of a course or one assignment, with rubric info."""
    access.check(conn, actor, "release", course=course_id, assignment=assignment_id)
    rows = exports.items(conn, course_id, assignment_id, include_approved=include_approved)
    if include_approved:   # an approved item's scores are the first mark its second marker may not see yet
        rows = moderation_blindness.without_hidden(conn, rows, actor)
    rubrics: dict[int, tuple] = {}
    for r in rows:
        if r["rubric_id"] not in rubrics:
            rubric = courses.get_rubric(conn, r["rubric_id"])
            rubrics[r["rubric_id"]] = (rubric, rubric.max_total, rubric.keys,
                                       {c.key: c.title for c in rubric.criteria})
        rubric, max_total, keys, titles = rubrics[r["rubric_id"]]
        r["total"] = rubric.total(r["scores"])
        r["max_total"] = max_total
        r["criteria"] = keys
        r["titles"] = titles
    notes = anchored_notes.for_items(conn, rows, lambda r: r["titles"])   # released ones as their release locked them
    for r in rows:
        r["notes"] = notes[r["submission_id"]]
    return rows


def csv_bytes(rows: list[list], *, bom: bool) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    for row in rows:
        writer.writerow([neutralise(v) for v in row])
    return buf.getvalue().encode("utf-8-sig" if bom else "utf-8")


def _criteria(items: list[dict]) -> list[str]:
    keys: list[str] = []
    for it in items:
        keys += [k for k in it["criteria"] if k not in keys]
    return keys


def link_of(it: dict, links: dict | None) -> str:
    """An item's private link for a file: the freshly minted one, else NO_LINK (only released
    items have links)."""
    if it["state"] != "released":
        return ""
    return (links or {}).get(it["submission_id"]) or NO_LINK


def to_csv(items: list[dict], links: dict | None = None) -> bytes:
    """One row per item: student, per-criterion scores, total, comment, provenance marker, the
    student's private link, the notes on the text (one a line: "1. “quote” (Criterion): note"). UTF-8 with a byte-order mark so spreadsheet programs read accented
    names correctly."""
    keys = _criteria(items)
    header = ["assignment", "week", "student_id", "name", *keys, "total", "max_total", "comment", "marker",
              "status", "review_version", "released_at", "student_link", "notes_on_text"]
    rows = [header]
    for it in items:
        rows.append([it["title"], it["week"], it["external_id"], it["name"], *[it["scores"].get(k, "") for k in keys],
                     _num(it["total"]), _num(it["max_total"]), it["comment"], marker(it["is_offline"]),
                     it["state"], it["version"], it["released_at"] or "", link_of(it, links),
                     anchored_notes.as_text(it.get("notes") or [])])
    return csv_bytes(rows, bom=True)


def _num(x: float):
    return int(x) if float(x).is_integer() else x


def to_canvas(items: list[dict], links: dict | None = None) -> bytes:
    """Canvas gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, then one column per
    assignment holding the total; the second row gives Points Possible. Canvas matches students
    by SIS User ID (our external id); its internal ID is left empty. The last column, LINK_COLUMN,
    holds each student's private links (one per assignment, separated by spaces): Canvas shows it
    as a column it does not know, which the teacher leaves out of the import."""
    assignments: dict[int, dict] = {}
    students: dict[str, dict] = {}
    for it in items:
        assignments.setdefault(it["assignment_id"], {"title": it["title"], "max": it["max_total"]})
        st = students.setdefault(it["external_id"], {"name": it["name"], "section": str(
            it["attributes"].get("section", "")), "totals": {}})
        st["totals"][it["assignment_id"]] = _num(it["total"])
        if it["state"] == "released":
            st.setdefault("links", []).append(link_of(it, links))
    aids = list(assignments)
    rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *[assignments[a]["title"] for a in aids],
             LINK_COLUMN],
            ["Points Possible", "", "", "", "", *[_num(assignments[a]["max"]) for a in aids], ""]]
    for ext in sorted(students):
        st = students[ext]
        rows.append([st["name"], "", ext, "", st["section"], *[st["totals"].get(a, "") for a in aids],
                     " ".join(dict.fromkeys(st.get("links", [])))])
    return csv_bytes(rows, bom=False)


_UNSAFE = re.compile(r"[^\w.-]+")  # \w is Unicode-aware: letters and digits of every script stay
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}


def safe_name(text: str, fallback: str = "student", limit: int = 80) -> str:
    """A file name part: Unicode letters and digits kept (NFC, so "Zoë" is one letter ë on every
    system), anything that could leave the folder or confuse a file system replaced by "_".

    >>> safe_name("Zoë Ñúñez"), safe_name("../../etc/passwd"), safe_name("con")
    ('Zoë_Ñúñez', 'etc_passwd', '_con')
    """
    name = _UNSAFE.sub("_", unicodedata.normalize("NFC", str(text))).strip("._")[:limit].strip("._")
    return ("_" + name if name.lower() in _RESERVED else name) or fallback


def _cell(text) -> str:
    """A Markdown table cell: escaped, on one line."""
    return escape_commonmark(" ".join(str(text).split()))


def _link_line(it: dict, links: dict | None) -> list[str]:
    """The Markdown line with the student's private link (an autolink: FairMark's own address)."""
    if it["state"] != "released":
        return []
    url = (links or {}).get(it["submission_id"])
    if url and _PLAIN_URL.fullmatch(url):
        return [f"Your feedback page in FairMark: <{url}>", ""]
    return [f"Your feedback page in FairMark: {escape_commonmark(url)}" if url else NO_LINK_MD, ""]


def _notes_lines(it: dict) -> list[str]:
    """The teacher's notes on passages of the text, under the comment (none: nothing)."""
    lines = anchored_notes.as_commonmark(it.get("notes") or [])
    return ["### Notes on your text", "", *lines, ""] if lines else []


def to_zip(items: list[dict], links: dict | None = None) -> bytes:
    """One Markdown file per student with every exported assignment of theirs. Every name, title
    and comment is escaped (core.text.escape_commonmark): no HTML, link or image from user text
    works in any Markdown viewer."""
    by_student: dict[str, list[dict]] = {}
    for it in items:
        by_student.setdefault(it["external_id"], []).append(it)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for ext, its in sorted(by_student.items()):
            name = its[0]["name"]
            lines = [f"# Feedback for {_cell(name or ext)}", "", f"Student ID: {_cell(ext)}", ""]
            for it in its:
                week = f"Week {it['week']}: " if it["week"] is not None else ""
                lines += [f"## {_cell(week + it['title'])}", "", "| Criterion | Score |", "|---|---|"]
                titles = it.get("titles") or {}
                lines += [f"| {_cell(titles.get(k) or k.replace('_', ' '))} | {it['scores'].get(k, '')} |"
                          for k in it["criteria"]]
                lines += [f"| **Total** | **{_num(it['total'])} / {_num(it['max_total'])}** |", "",
                          "### Comment", "", escape_commonmark(it["comment"]), "", *_notes_lines(it),
                          f"_{marker(it['is_offline'])}_", "", *_link_line(it, links)]
            zf.writestr(f"{safe_name(ext)}-{safe_name(name)}.md", "\n".join(lines))
    return buf.getvalue()


def export(conn: Database, course_id: int, assignment_id: int | None = None, *, fmt: str,
           include_approved: bool = False, actor: Actor, links: dict | None = None,
           new_links: bool = False) -> Export:
    """Build one export file; raises FairMarkError when there is nothing released to export.
    `links` ({submission id: url}) are the private links a release has just minted;
    `new_links` mints fresh ones for the released items first (revoking the old ones) and puts
    them in the file (one assignment only)."""
    access.check(conn, actor, "release", course=course_id, assignment=assignment_id)
    if fmt not in FORMATS:
        raise FairMarkError(Message("unknown export format {fmt!r}; use one of {formats}", fmt=fmt,
                                    formats=", ".join(FORMATS)))
    if new_links:
        if assignment_id is None:
            raise FairMarkError(Message("new links are made for one assignment at a time: name the assignment"))
        links = {m["submission_id"]: m["url"] for m in student_links.mint(conn, course_id, assignment_id, actor=actor)}
    items = export_items(conn, course_id, assignment_id, include_approved=include_approved, actor=actor)
    if not items:
        raise FairMarkError(Message("nothing to export: no released or approved items yet") if include_approved
                            else Message("nothing to export: no released items yet (release them first, or export "
                                         "approved ones explicitly)"))
    course = courses.get_course(conn, course_id)
    base = safe_name(course["name"], "course") + (f"-{safe_name(items[0]['title'], 'assignment')}" if assignment_id
                                                  else "")
    if fmt == "csv":
        data, name, mime = to_csv(items, links), f"{base}.csv", "text/csv"
    elif fmt == "canvas":
        data, name, mime = to_canvas(items, links), f"{base}-canvas.csv", "text/csv"
    else:
        data, name, mime = to_zip(items, links), f"{base}-feedback.zip", "application/zip"
    summary = {"items": len(items), "students": len({i["external_id"] for i in items}),
               "assignments": len({i["assignment_id"] for i in items}),
               "released": sum(i["state"] == "released" for i in items),
               "approved_unreleased": sum(i["state"] == "approved" for i in items),
               "offline_items": sum(bool(i["is_offline"]) for i in items),
               "links": sum(1 for i in items if i["state"] == "released" and (links or {}).get(i["submission_id"]))}
    return Export(data, name, mime, summary)
