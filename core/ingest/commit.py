"""Uploading reflections in two steps: `build_preview` (read, map, validate) then `commit`.

    preview = build_preview(db, [("week1.csv", data)], Target("AI literacy", "Week 1"))
    result = commit(db, preview, mode="skip_rejected", actor="teacher")

The preview writes nothing. `commit` writes everything (course, new assignments, students,
submissions, reference scores, audit rows) in ONE transaction, or nothing at all.
- mode "all_or_nothing": a preview with any rejected row or unreadable file imports nothing.
- mode "skip_rejected": the good rows are imported, the rejected ones are listed.
Duplicates (same student, same assignment, same text — in the file or already in the
database) are skipped and counted, never errors.

Reference scores are checked against the rubric of the row's assignment: within the scale,
whole or half points (a half point is what an average of two raters gives, e.g. 2.5);
an empty cell means "no score from that rater".
Students get a random pseudonym at import; only the pseudonym ever reaches an LLM.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field

import db
from core.courses import catalogue
from core.accounts.access import Actor
from core.errors import IngestError
from core.language.interface import Message
from core.ingest.mapping import Mapping, check_mapping, detect_mapping, norm
from core.ingest.read import MAX_TEXT_CHARS, Problem, RawRow, RawTable, read_files
from core.rubric import Rubric, default_rubric
from core.text import words
from db import courses
from db import submissions as subs

MODES = ("all_or_nothing", "skip_rejected")
# What uploaded score columns are: "reference" (expert scores the AI is measured against), or
# "calibration" (blind scores a teacher gave without seeing any AI draft: they count for the
# readiness gate and become the Evaluator's examples, core.calibration).
SCORES_ARE = ("reference", "calibration")
_WEEK = re.compile(r"^\s*(?:week|wk|w|module|unit)?\s*[-_ ]?\s*(\d{1,3})\s*$", re.I)
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


@dataclass
class Target:
    """Where the reflections go. Missing course/assignment are created on commit."""
    course_name: str
    assignment_title: str | None = None   # rows without a week/assignment value go here
    rubric: Rubric | None = None          # rubric for assignments this import creates (default: seed rubric)
    week: int | None = None               # week of a newly created target assignment


@dataclass
class ReadyRow:
    source: str
    row: int
    assignment: str          # assignment title (existing or to be created)
    external_id: str
    name: str
    email: str
    attributes: dict
    text: str
    text_hash: str
    word_count: int
    scores: dict             # rater -> {criterion: score}


@dataclass
class Preview:
    target: Target
    mapping: Mapping
    columns: list[str]
    rows: list[ReadyRow] = field(default_factory=list)
    rejected: list[Problem] = field(default_factory=list)
    duplicates: int = 0
    duplicate_rows: list[dict] = field(default_factory=list)
    skipped_members: list[str] = field(default_factory=list)
    new_course: bool = False
    new_assignments: dict = field(default_factory=dict)    # title -> week
    rubric_by_assignment: dict = field(default_factory=dict)  # title -> Rubric
    sources: list[str] = field(default_factory=list)
    mapping_problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> int:
        return len(self.rows)

    @property
    def ignored_columns(self) -> list[str]:
        """Columns of the file no field, score or group attribute uses: they are not imported."""
        used = set(self.mapping.used_columns())
        return [c for c in self.columns if c not in used]

    def rows_table(self, limit: int | None = None) -> list[dict]:
        """Rows as plain data for a preview table (student text is data, never HTML)."""
        out = []
        for r in self.rows[:limit]:
            d = {"file": r.source, "row": r.row, "assignment": r.assignment, "student_id": r.external_id,
                 "name": r.name, "words": r.word_count, "text": r.text[:300]}
            for rater, sc in r.scores.items():
                for k, v in sc.items():
                    d[f"{k} ({rater})"] = v
            for k, v in r.attributes.items():
                d[k] = v
            out.append(d)
        return out

    def rejected_table(self) -> list[dict]:
        return [rejection_dict(p) for p in self.rejected]


@dataclass
class ImportResult:
    imported: int
    duplicates: int
    rejected: list[dict]
    refused: bool = False           # all_or_nothing and some rows were rejected: nothing written
    course_id: int | None = None
    assignment_ids: list[int] = field(default_factory=list)
    new_students: int = 0
    import_id: int | None = None    # audit_log id of the import summary

    def summary(self) -> dict:
        return asdict(self)


def rejection_dict(p: Problem) -> dict:
    """A rejected row as plain data, its message in English (a page shows `p.message` said)."""
    return {"row": p.row, "field": p.field, "message": p.message[:1].upper() + p.message[1:], "file": p.source}


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def clean_text(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "").strip()


# --- step 1: preview ----------------------------------------------------------------
def read_and_detect(files: list[tuple[str, bytes]], rubric: Rubric | None = None) -> tuple[RawTable, Mapping]:
    table = read_files(files)
    return table, detect_mapping(table.columns, rubric or default_rubric())


def build_preview(conn, files: list[tuple[str, bytes]], target: Target, mapping: Mapping | dict | None = None,
                  *, table: RawTable | None = None, actor: Actor) -> Preview:
    """Read, map and validate; writes nothing. File-level faults raise IngestError."""
    catalogue.check_course_name(conn, actor, target.course_name)
    if not target.course_name or not target.course_name.strip():
        raise IngestError(Message("Choose a course (or type the name of a new one)"))
    course = courses.find_course(conn, target.course_name.strip())
    existing = courses.list_assignments(conn, course["id"]) if course else []
    target_rubric = rubric_for(conn, target, actor=actor)
    table = table or read_files(files)
    if isinstance(mapping, dict):
        mapping = Mapping.from_dict(mapping)
    mapping = mapping or detect_mapping(table.columns, target_rubric)
    p = Preview(target=target, mapping=mapping, columns=table.columns, new_course=course is None,
                skipped_members=table.skipped, sources=table.sources, rejected=list(table.problems))
    p.mapping_problems = check_mapping(mapping, table.columns)
    if not mapping.assignment and not target.assignment_title:
        p.mapping_problems.append(Message("Choose the assignment these reflections belong to, or map a "
                                          "week/assignment column"))
    if p.mapping_problems:
        return p
    seen = subs.existing_keys(conn, course["id"]) if course else set()
    resolver = _AssignmentResolver(conn, existing, target, target_rubric)
    for raw in table.rows:
        ready = _validate(raw, mapping, resolver, p)
        if ready is None:
            continue
        key = (ready.assignment.casefold(), ready.external_id, ready.text_hash)
        if key in seen:
            p.duplicates += 1
            p.duplicate_rows.append({"file": raw.source, "row": raw.row, "student_id": ready.external_id,
                                     "assignment": ready.assignment})
            continue
        seen.add(key)
        p.rows.append(ready)
    used = {r.assignment for r in p.rows}  # an assignment is created only if a row lands in it
    p.new_assignments = {t: w for t, w in resolver.new.items() if t in used}
    p.rubric_by_assignment = {t: r for t, r in resolver.rubrics.items() if t in used}
    return p


def rubric_for(conn, target: Target, *, actor: Actor) -> Rubric:
    """The rubric rows without a week/assignment value are scored on: the target assignment's
    when it exists, else the rubric given for a new one, else the default (in the course's
    language, core.rubric.default_rubric)."""
    catalogue.check_course_name(conn, actor, target.course_name)
    course = courses.find_course(conn, (target.course_name or "").strip())
    found = _match_title(courses.list_assignments(conn, course["id"]), target.assignment_title) if (
        course and target.assignment_title) else None
    if found:
        return courses.get_rubric(conn, found["rubric_id"])
    return target.rubric or default_rubric(course["language"] if course else "en")


def _match_title(assignments: list[dict], title: str) -> dict | None:
    t = title.strip().casefold()
    return next((a for a in assignments if a["title"].casefold() == t), None)


class _AssignmentResolver:
    """Turns a row's week/assignment cell into an assignment title (existing or new)."""

    def __init__(self, conn, existing: list[dict], target: Target, rubric: Rubric):
        self.db, self.existing, self.target, self.rubric = conn, existing, target, rubric
        self.new: dict[str, int | None] = {}
        self.rubrics: dict[str, Rubric] = {}

    def resolve(self, value: str) -> str | None:
        value = (value or "").strip()
        if not value:
            if not self.target.assignment_title:
                return None
            value = self.target.assignment_title.strip()
            found = _match_title(self.existing, value)
            return self._use(found, value, self.target.week)
        found = _match_title(self.existing, value)
        if found:
            return self._use(found, value, None)
        m = _WEEK.match(value)
        if m:
            week = int(m.group(1))
            by_week = [a for a in self.existing if a["week"] == week]
            if len(by_week) == 1:
                return self._use(by_week[0], value, week)
            return self._use(None, f"Week {week}", week)
        return self._use(None, value, None)

    def _use(self, found: dict | None, title: str, week: int | None) -> str:
        if found:
            if found["title"] not in self.rubrics:
                self.rubrics[found["title"]] = courses.get_rubric(self.db, found["rubric_id"])
            return found["title"]
        key = next((t for t in self.new if t.casefold() == title.casefold()), title)
        self.new.setdefault(key, week)
        self.rubrics.setdefault(key, self.rubric)
        return key


def _validate(raw: RawRow, m: Mapping, resolver: _AssignmentResolver, p: Preview) -> ReadyRow | None:
    v = raw.values
    problems = []

    def reject(field_: str, message: str) -> None:
        problems.append(Problem(raw.source, raw.row, field_, message))

    text = clean_text(v.get(m.text, ""))
    if not text:
        reject(m.text, Message("the reflection text is empty; paste the text in or delete the row"))
    elif len(text) > MAX_TEXT_CHARS:
        reject(m.text, Message("the text has {characters:,} characters; the limit is {limit:,}. Shorten it or split "
                               "it into two submissions", characters=len(text), limit=MAX_TEXT_CHARS))
    sid = v.get(m.student_id, "").strip() if m.student_id else ""
    name = " ".join(v.get(m.name, "").split()) if m.name else ""
    email = v.get(m.email, "").strip() if m.email else ""
    if email and not _EMAIL.match(email):
        reject(m.email, Message("{email!r} is not an e-mail address; correct it or clear the cell", email=email))
    external_id = sid or email.lower() or name.casefold()
    if not external_id:
        who = m.student_id or m.email or m.name
        reject(who, Message("no student id, e-mail or name in this row; fill in who wrote the reflection"))
    elif len(external_id) > 200:
        reject(m.student_id or m.email or m.name, Message("the student identifier is longer than 200 characters; "
                                                          "check that the right column is mapped"))
    assignment = resolver.resolve(v.get(m.assignment, "") if m.assignment else "")
    if assignment is None:
        reject(m.assignment, Message("the week/assignment cell is empty and no target assignment was chosen; "
                                     "fill it in or choose an assignment"))
    scores: dict[str, dict[str, float]] = {}
    if assignment is not None:
        rubric = resolver.rubrics[assignment]
        for sc in m.scores:
            cell = v.get(sc.column, "").strip()
            if not cell:
                continue
            if sc.criterion not in rubric.keys:
                reject(sc.column, Message("criterion '{criterion}' is not in the rubric '{rubric}' of assignment "
                                          "'{assignment}'; unmap this column or choose another rubric",
                                          criterion=sc.criterion, rubric=rubric.name, assignment=assignment))
                continue
            score, err = _score(cell, rubric)
            if err:
                reject(sc.column, err)
            else:
                scores.setdefault(sc.rater, {})[sc.criterion] = score
    attributes = {norm(c): v.get(c, "").strip() for c in m.attributes if v.get(c, "").strip()}
    if problems:
        p.rejected.extend(problems)
        return None
    return ReadyRow(raw.source, raw.row, assignment, external_id, name, email, attributes, text,
                    text_hash(text), words(text), scores)


def _score(cell: str, rubric: Rubric) -> tuple[float | None, str | None]:
    """The score in a cell, or why it is not one (a Message)."""
    scale = dict(rubric=rubric.name, low=rubric.scale_min, high=rubric.scale_max)
    if cell.startswith("="):
        return None, Message("{cell!r} is a spreadsheet formula, which is never evaluated; type the score itself",
                             cell=cell[:40])
    try:
        value = float(cell.replace(",", "."))
    except ValueError:
        return None, Message("{cell!r} is not a number; scores on the rubric '{rubric}' run from {low} to {high}",
                             cell=cell[:40], **scale)
    if value != value or value * 2 != int(value * 2):  # NaN or not a whole/half point
        return None, Message("{cell} is not a whole or half point; scores on the rubric '{rubric}' run from {low} to "
                             "{high} in steps of 1 (0.5 for averaged raters)", cell=cell, **scale)
    if not rubric.scale_min <= value <= rubric.scale_max:
        return None, Message("{cell} is outside the scale; scores on the rubric '{rubric}' run from {low} to {high}",
                             cell=cell, **scale)
    return (int(value) if value.is_integer() else value), None


# --- step 2: commit -----------------------------------------------------------------
def commit(conn, preview: Preview, *, mode: str = "all_or_nothing", actor: Actor,
           scores_are: str = "reference") -> ImportResult:
    """Write the previewed rows in one transaction (see module docstring for the modes);
    the score columns as reference scores or as blind calibration scores (`SCORES_ARE`)."""
    existing = catalogue.check_course_name(conn, actor, preview.target.course_name)
    if mode not in MODES:
        raise IngestError(Message("Unknown import mode {mode!r}; use one of {modes}", mode=mode,
                                  modes=", ".join(MODES)))
    if scores_are not in SCORES_ARE:
        raise IngestError(Message("Unknown kind of scores {kind!r}; use one of {kinds}", kind=scores_are,
                                  kinds=", ".join(SCORES_ARE)))
    if preview.mapping_problems:
        raise IngestError(Message("The column mapping is incomplete: {problems}",
                                  problems=Message.joined("; ", preview.mapping_problems)))
    rejected = preview.rejected_table()
    if rejected and mode == "all_or_nothing":
        return ImportResult(0, preview.duplicates, rejected, refused=True)
    if not preview.rows:
        return ImportResult(0, preview.duplicates, rejected)
    t = preview.target
    with db.write_transaction(conn):
        out = subs.write_import(
            conn, actor=actor, course_name=t.course_name.strip(),
            new_assignments=preview.new_assignments, rubric_by_assignment=preview.rubric_by_assignment,
            rows=preview.rows, summary={"files": preview.sources, "mode": mode, "rejected": len(rejected),
                                        "duplicates_in_preview": preview.duplicates,
                                        "mapping": preview.mapping.to_dict(), "scores_are": scores_are},
            scores_are=scores_are,
        )
        if existing is None:
            catalogue.grant_creator(conn, actor, out["course_id"])
    return ImportResult(out["imported"], preview.duplicates + out["duplicates"], rejected,
                        course_id=out["course_id"], assignment_ids=out["assignment_ids"],
                        new_students=out["new_students"], import_id=out["import_id"])


def import_files(conn, files: list[tuple[str, bytes]], target: Target, *, mode: str = "all_or_nothing",
                 actor: Actor, mapping: Mapping | None = None, scores_are: str = "reference") -> ImportResult:
    """Preview and commit in one call (command line, scripts)."""
    catalogue.check_course_name(conn, actor, target.course_name)
    preview = build_preview(conn, files, target, mapping, actor=actor)
    return commit(conn, preview, mode=mode, actor=actor, scores_are=scores_are)
