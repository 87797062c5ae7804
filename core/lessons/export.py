"""An approved lesson out, as Markdown (with its specification as YAML front matter) or DOCX,
followed by its review record: who and what reviewed it, the tier and scores, the Stage 1
checks, every fix and its decision, and the teacher's approval. Only approved lessons leave.

The lesson text is the teacher's Markdown and stays as it is; the review record quotes names,
sections and sentences, so in a Markdown file it is escaped (core.text.escape_commonmark). File
names keep every script's letters (core.export.released.safe_name), and a course's files never overwrite
each other."""
from __future__ import annotations

import io
import re
from pathlib import Path

import yaml

from core.accounts import access
from core.accounts.access import Actor
from core.errors import ConflictError
from core.export.released import safe_name
from core.language.interface import Message
from core.lessons import rubric, tiers
from core.offline import LABEL as OFFLINE_LABEL
from core.text import escape_commonmark, format_timestamp
from db import lessons as lessons_db

FORMATS = ("md", "docx")


def _approved(conn, lesson_id: int) -> dict:
    lesson = lessons_db.get(conn, lesson_id)
    if lesson["status"] != "approved":
        raise ConflictError(Message("Lesson '{title}' is not approved yet: only approved lessons are exported. "
                                    "Open it on the Lesson page, decide its fixes and approve it.", title=lesson["title"]))
    return lesson


def review_record(conn, lesson_id: int, *, actor: Actor) -> list[str]:
    """The review record as lines of plain text (one fact each)."""
    access.check(conn, actor, "read", lesson=lesson_id)
    lesson = lessons_db.get(conn, lesson_id)
    review = lessons_db.review(conn, lesson["current_review_id"]) or {}
    record = review.get("record") or {}
    final = record.get("final") or {}
    lines = [f"Approved by {lesson['approved_by']} on {format_timestamp(lesson['approved_at'])}"
             if lesson["status"] == "approved" else "Not approved"]
    if review.get("is_offline"):
        lines.append(f"Reviewed by the {OFFLINE_LABEL} (Stage 1 checks only)")
    elif record.get("panel"):
        lines.append("Judged by " + ", ".join(record["panel"]))
    lines.append(f"Tier: {tiers.LABELS.get(lesson['tier'])}"
                 + (f", weighted score {lesson['score']:.2f}" if lesson["score"] is not None else ""))
    for key, score in (final.get("scores") or {}).items():
        lines.append(f"{rubric.BY_KEY[key].label}: {score:.2f}")
    lines += [f"Why: {r}" for r in record.get("tier_reasons", [])]
    for c in record.get("heuristics", []):
        state = "passed" if c["passed"] else ("skipped" if c["severity"] == "info" else "not passed")
        lines.append(f"Stage 1 - {c['label']}: {state} ({c['detail']})")
    flags = (record.get("entropy") or {}).get("flags", [])
    lines += [f"Entropy flag ({f.get('verdict', 'unchecked')}): {f['sentence']}" for f in flags]
    if (record.get("entropy") or {}).get("skipped"):
        lines.append(record["entropy"]["skipped"])
    for f in lessons_db.fixes(conn, review["id"]) if review else []:
        by = f" by {f['decided_by']}" if f["decided_by"] else ""
        lines.append(f"Fix, round {f['round']}, {rubric.BY_KEY[f['dimension']].label} in '{f['section']}': "
                     f"{f['status']}{by}")
    return lines


def to_markdown(conn, lesson_id: int, *, actor: Actor) -> str:
    access.check(conn, actor, "read", lesson=lesson_id)
    lesson = _approved(conn, lesson_id)
    front = {"title": lesson["title"], **{k: v for k, v in lesson["spec"].items() if v not in ("", [], None)},
             "status": "approved", "approved_by": lesson["approved_by"], "approved_at": lesson["approved_at"],
             "tier": lesson["tier"], "score": lesson["score"]}
    body = "\n".join(f"- {escape_commonmark(line)}" for line in review_record(conn, lesson_id, actor=actor))
    return (f"---\n{yaml.safe_dump(front, sort_keys=False, allow_unicode=True)}---\n\n{lesson['text'].rstrip()}\n\n"
            f"---\n\n## Review record\n\n{body}\n")


def to_docx(conn, lesson_id: int, *, actor: Actor) -> bytes:
    access.check(conn, actor, "read", lesson=lesson_id)
    import docx

    lesson = _approved(conn, lesson_id)
    document = docx.Document()
    document.add_heading(lesson["title"], level=0)
    for block in re.split(r"\n\s*\n", lesson["text"]):
        for line in block.splitlines():
            head = re.match(r"(#{1,6})\s+(.*)", line)
            if head:
                document.add_heading(head.group(2).strip(), level=min(len(head.group(1)), 4))
            elif re.match(r"\s*[-*+]\s+", line):
                document.add_paragraph(re.sub(r"^\s*[-*+]\s+", "", line), style="List Bullet")
            elif line.strip():
                document.add_paragraph(line.strip())
    document.add_heading("Review record", level=1)
    for line in review_record(conn, lesson_id, actor=actor):
        document.add_paragraph(line, style="List Bullet")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def file_name(title: str, fmt: str) -> str:
    """A safe file name from the title, in any script.

    >>> file_name("Wind & Weather: part 1", "md"), file_name("Круговорот воды", "docx"), file_name("???", "md")
    ('Wind_Weather_part_1.md', 'Круговорот_воды.docx', 'lesson.md')
    """
    return f"{safe_name(title, 'lesson')}.{fmt}"


def render(conn, lesson_id: int, fmt: str, *, actor: Actor) -> bytes:
    access.check(conn, actor, "read", lesson=lesson_id)
    if fmt not in FORMATS:
        raise ConflictError(Message("unknown format {format!r}; use one of {formats}", format=fmt, formats=", ".join(FORMATS)))
    return to_markdown(conn, lesson_id, actor=actor).encode("utf-8") if fmt == "md" else to_docx(conn, lesson_id, actor=actor)


def export_course(conn, course_id: int, out_dir, fmt: str = "md", *, actor: Actor) -> list[str]:
    """Every approved lesson of a course into `out_dir`, one file each; returns the files
    written. Titles that make the same file name (also differing only in case, as on Windows
    and macOS) get -2, -3, ...: no lesson overwrites another."""
    access.check(conn, actor, "read", course=course_id)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written, taken = [], set()
    for lesson in lessons_db.queue(conn, course_id):
        if lesson["status"] == "approved":
            name, n = file_name(lesson["title"], fmt), 1
            while name.casefold() in taken:
                n += 1
                name = f"{safe_name(lesson['title'], 'lesson')}-{n}.{fmt}"
            taken.add(name.casefold())
            path = out / name
            path.write_bytes(render(conn, lesson["id"], fmt, actor=actor))
            written.append(str(path))
    return written
