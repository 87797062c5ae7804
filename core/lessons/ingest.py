"""Lesson files in: Markdown, TXT, DOCX, or a ZIP of them; each may carry its specification as
YAML front matter. read -> build every specification -> ONE transaction, so a bad file (its name
and the field to fix in the message) changes nothing.

>>> [(f.title, f.body) for f in read_files([("rain.md", b"---\\ntarget_grade: 5\\n---\\n# Rain\\nIt rains.")])]
[('Rain', '# Rain\\nIt rains.')]
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

import db
from core.courses import catalogue
from core.ingest import read as ingest_read
from core.accounts.access import Actor
from core.errors import IngestError
from core.ingest.commit import clean_text, text_hash
from core.ingest.read import decode_text, read_docx, zip_members
from core.language.interface import Message
from core.lessons.spec import LessonSpec, split_front_matter
from db import lessons as lessons_db

LESSON_TYPES = ("md", "markdown", "txt", "docx")


@dataclass(frozen=True)
class LessonFile:
    name: str
    meta: dict
    body: str

    @property
    def title(self) -> str:
        """Front matter's title, else the first heading, else the file name."""
        if self.meta.get("title"):
            return str(self.meta["title"]).strip()
        m = re.search(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", self.body, re.MULTILINE)
        if m:
            return m.group(1).strip()
        return PurePosixPath(self.name).stem.replace("_", " ").replace("-", " ").strip().capitalize()


def _ext(name: str) -> str:
    return PurePosixPath(name).suffix.lower().lstrip(".")


def _one(name: str, data: bytes) -> LessonFile:
    text = read_docx(data, name, markdown=True) if _ext(name) == "docx" else decode_text(data, name)
    meta, body = split_front_matter(clean_text(text), file=name)
    body = clean_text(body)
    if not body:
        raise IngestError(Message("{file} has no lesson text (only front matter, or nothing at all).", file=name))
    return LessonFile(name, meta, body)


def read_files(files: list[tuple[str, bytes]]) -> list[LessonFile]:
    out: list[LessonFile] = []
    for name, data in files:
        ext = _ext(name)
        if len(data) > (limit := ingest_read.MAX_FILE_BYTES):
            raise IngestError(Message("{file} is {size:.1f} MB; the limit is {limit} MB per file. Split the lesson into "
                                      "smaller files.", file=name, size=len(data) / 1e6, limit=limit // (1024 * 1024)))
        if ext == "zip":
            out += _read_zip(name, data)
        elif ext in LESSON_TYPES:
            out.append(_one(name, data))
        else:
            raise IngestError(Message("{file}: .{ext} files are not lessons; upload Markdown (.md), text (.txt), "
                                      "Word (.docx) or a ZIP of them.", file=name, ext=ext or "?"))
    if not out:
        raise IngestError(Message("No lesson files were given."))
    return out


def _read_zip(name: str, data: bytes) -> list[LessonFile]:
    """The ZIP's lesson files (core.ingest.read's checks, as for reflections); any member that
    cannot be read refuses the upload, naming it."""
    out = []
    for m in zip_members(name, data, set(LESSON_TYPES), "Markdown (.md), text (.txt) and Word (.docx)"):
        if m.problem:
            raise IngestError(Message("{file}: {problem}.", file=m.label, problem=m.problem))
        if not m.junk:
            out.append(_one(m.label, m.data))
    if not out:
        raise IngestError(Message("{file} contains no lesson files (.md, .txt, .docx).", file=name))
    return out


def prepare(files: list[LessonFile], defaults: dict | None = None) -> list[dict]:
    """Rows ready to store; every lesson is checked before anything is written."""
    rows, titles = [], {}
    for f in files:
        spec = LessonSpec.build({**f.meta, "title": f.title}, defaults, file=f.name)
        if spec.title.casefold() in titles:
            raise IngestError(Message("{file} and {other} are both titled '{title}'; give each lesson its own title "
                                      "(front matter `title:`).", file=f.name, other=titles[spec.title.casefold()],
                                      title=spec.title))
        titles[spec.title.casefold()] = f.name
        rows.append({"title": spec.title, "text": f.body, "text_hash": text_hash(f.body), "spec": spec.stored(),
                     "sources": spec.sources, "source_file": f.name})
    return rows


def import_lessons(conn, files: list[tuple[str, bytes]], *, course_name: str, defaults: dict | None = None,
                   actor: Actor, course_description: str = "", is_synthetic: bool = False) -> dict:
    """Read, check and store lesson files in one transaction; returns counts and the lesson ids."""
    existing = catalogue.check_course_name(conn, actor, course_name)
    if not (course_name or "").strip():
        raise IngestError(Message("Lessons belong to a course: give the course's name."))
    rows = prepare(read_files(files), defaults)
    with db.write_transaction(conn):
        out = lessons_db.write_import(conn, actor=actor, course_name=course_name.strip(), rows=rows,
                                      course_description=course_description, is_synthetic=is_synthetic)
        if existing is None:
            catalogue.grant_creator(conn, actor, out["course_id"])
    return out
