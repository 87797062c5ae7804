"""Reading uploaded files into plain rows of text: CSV, XLSX, DOCX, TXT and ZIPs of them.

Nothing here knows about students or rubrics: a reader turns bytes into `RawRow`s
(column name -> cell text) and says which file and row each came from, so every later
message can point the teacher at the exact place to fix.

Conventions for documents (DOCX, TXT — one reflection per file):
- Optional header lines at the very top, one per line, removed from the text:
  `Student ID: s001`, `Name: Ada Lovelace`, `Email: ada@example.edu`, `Week: 2`.
- Otherwise the file name says who wrote it: `<student id>_<name>.docx`, e.g.
  `s001_Ada_Lovelace.docx` -> id "s001", name "Ada Lovelace"; `s001.txt` -> id "s001".
"""
from __future__ import annotations

import csv
import io
import re
import zipfile
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import PurePosixPath

from core.errors import IngestError
from core.ingest.where import in_file, without_file
from core.language.interface import Message

# --- limits: the one place they are set -------------------------------------------------
MAX_FILE_BYTES = 20 * 1024 * 1024      # one uploaded file (or one ZIP member, uncompressed)
MAX_TEXT_CHARS = 20_000                # one reflection
MAX_ROWS = 20_000                      # rows across everything uploaded at once
MAX_ZIP_MEMBERS = 500                  # entries in a ZIP (junk included)
MAX_ZIP_TOTAL_BYTES = 100 * 1024 * 1024  # sum of uncompressed member sizes
MAX_ZIP_RATIO = 100                    # uncompressed/compressed per member: more is a zip bomb

TABLE_TYPES = {"csv", "xlsx"}
DOCUMENT_TYPES = {"docx", "txt"}
SUPPORTED = TABLE_TYPES | DOCUMENT_TYPES | {"zip"}
DOC_COLUMNS = ["student_id", "name", "email", "week", "text"]
_JUNK = re.compile(r"(^|/)(__MACOSX|\.DS_Store|Thumbs\.db|desktop\.ini|~\$[^/]*|\._[^/]*)(/|$)", re.I)
_HEADER = re.compile(r"^\s*(student\s*id|student\s*number|id|student\s*name|name|student|e-?mail|week)\s*:\s*(.*?)\s*$",
                     re.I)


@dataclass
class RawRow:
    source: str            # file name (ZIP members: "archive.zip/member.csv")
    row: int               # spreadsheet row number (header = 1) or 1 for a document
    values: dict[str, str]


@dataclass
class Problem:
    """A row or a file that cannot be imported, with what to do about it."""
    source: str
    row: int | None
    field: str
    message: str


@dataclass
class RawTable:
    columns: list[str] = field(default_factory=list)
    rows: list[RawRow] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)   # unreadable rows/members
    skipped: list[str] = field(default_factory=list)        # junk ZIP entries ignored
    sources: list[str] = field(default_factory=list)

    def add_columns(self, cols) -> None:
        for c in cols:
            if c not in self.columns:
                self.columns.append(c)


def read_files(files: list[tuple[str, bytes]]) -> RawTable:
    """Read every uploaded (file name, bytes); file-level faults raise IngestError."""
    if not files:
        raise IngestError(Message("No file was uploaded; choose a CSV, XLSX, DOCX, TXT or ZIP file"))
    table = RawTable()
    for name, data in files:
        _read_one(table, name, data, in_zip=False)
    if len(table.rows) > MAX_ROWS:
        raise IngestError(Message("The upload has {rows:,} rows; the limit is {limit:,} per import. "
                                  "Split the file and import the parts one after another.",
                                  rows=len(table.rows), limit=MAX_ROWS))
    return table


def _ext(name: str) -> str:
    return PurePosixPath(name).suffix.lower().lstrip(".")


def _read_one(table: RawTable, name: str, data: bytes, *, in_zip: bool) -> None:
    ext = _ext(name)
    if len(data) > MAX_FILE_BYTES:
        raise IngestError(Message("{name} is {size:.1f} MB; the limit is {limit} MB per file. Split it into "
                                  "smaller files.", name=name, size=len(data) / 1e6,
                                  limit=MAX_FILE_BYTES // (1024 * 1024)))
    if ext not in SUPPORTED:
        if better := {"xls": "xlsx", "doc": "docx"}.get(ext):
            raise IngestError(Message("{name}: .{ext} files are not supported; upload CSV, XLSX, DOCX, TXT or a ZIP "
                                      "of them. Save it as .{better}.", name=name, ext=ext, better=better))
        raise IngestError(Message("{name}: .{ext} files are not supported; upload CSV, XLSX, DOCX, TXT or a ZIP "
                                  "of them.", name=name, ext=ext or "?"))
    if ext == "zip":
        if in_zip:
            raise IngestError(Message("{name} is a ZIP inside a ZIP; unzip it and upload the inner files "
                                      "directly", name=name))
        _read_zip(table, name, data)
        return
    table.sources.append(name)
    if ext == "csv":
        cols, rows, problems = read_csv(data, name)
    elif ext == "xlsx":
        cols, rows, problems = read_xlsx(data, name)
    else:
        text = decode_text(data, name) if ext == "txt" else read_docx(data, name)
        cols, rows, problems = DOC_COLUMNS, [document_row(name, text)], []
    table.add_columns(cols)
    table.rows.extend(rows)
    table.problems.extend(problems)


def _read_zip(table: RawTable, name: str, data: bytes) -> None:
    found, problems_before = False, len(table.problems)
    for m in zip_members(name, data, SUPPORTED - {"zip"}, Message("CSV, XLSX, DOCX and TXT")):
        if m.junk:
            table.skipped.append(m.member)
            continue
        try:
            if m.problem:
                raise IngestError(m.problem)
            _read_one(table, m.label, m.data, in_zip=True)
            found = True
        except IngestError as e:
            table.problems.append(Problem(m.label, None, "file", without_file(e, m.label)))
    if not found and len(table.problems) == problems_before:
        raise IngestError(Message("{name} contains no CSV, XLSX, DOCX or TXT files", name=name))



@dataclass(frozen=True)
class Member:
    """One file of a ZIP: its bytes, or why it is not read (`problem`); junk is only named."""
    label: str                 # "archive.zip/folder/file.txt"
    member: str
    data: bytes = b""
    problem: str = ""          # a Message: what to do about it
    junk: bool = False


def zip_members(name: str, data: bytes, types: set[str], described: str) -> list[Member]:
    """The files of an uploaded ZIP (reflections and lessons alike). The archive as a whole is
    refused (IngestError) when it is not a ZIP, too large, has too many entries or a member
    expands like a zip bomb; a member that cannot be read (password, nested ZIP, another type
    than `types`, over the size limit, damaged) comes back with its problem."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except (zipfile.BadZipFile, OSError) as e:
        raise IngestError(Message("{name} is not a valid ZIP file (it is damaged or not a ZIP); re-create the "
                                  "archive", name=name)) from e
    if len(infos) > MAX_ZIP_MEMBERS:
        raise IngestError(Message("{name} holds {entries:,} entries; the limit is {limit}. Split it into several "
                                  "ZIP files.", name=name, entries=len(infos), limit=MAX_ZIP_MEMBERS))
    total = sum(i.file_size for i in infos)
    if total > MAX_ZIP_TOTAL_BYTES:
        raise IngestError(Message("{name} unpacks to {size:.0f} MB; the limit is {limit} MB. Split it into "
                                  "several ZIP files.", name=name, size=total / 1e6,
                                  limit=MAX_ZIP_TOTAL_BYTES // (1024 * 1024)))
    for info in infos:
        if info.file_size > 1024 * 1024 and info.file_size > MAX_ZIP_RATIO * max(info.compress_size, 1):
            raise IngestError(Message("{name}: member {member} expands {ratio} times; that looks like a zip bomb, "
                                      "so the archive was refused", name=name, member=info.filename,
                                      ratio=info.file_size // max(info.compress_size, 1)))
    out = []
    for info in (i for i in infos if not i.is_dir()):
        member, ext = info.filename, _ext(info.filename)
        label = f"{name}/{member}"
        if _JUNK.search(member):
            out.append(Member(label, member, junk=True))
        elif info.flag_bits & 0x1:
            out.append(Member(label, member, problem=Message("the member is password-protected; add it without a "
                                                             "password")))
        elif ext == "zip":
            out.append(Member(label, member, problem=Message("a ZIP inside a ZIP is not opened; unzip it and add "
                                                             "its files to the outer ZIP")))
        elif ext not in types:
            out.append(Member(label, member, problem=Message("unsupported file type .{ext}; only {described} "
                                                             "files are read", ext=ext or "?", described=described)))
        else:
            try:
                with zf.open(info) as fh:
                    blob = fh.read(MAX_FILE_BYTES + 1)  # never trust the declared size
            except (zipfile.BadZipFile, OSError, RuntimeError, EOFError):
                out.append(Member(label, member, problem=Message("cannot be unpacked: this part of the ZIP is "
                                                                 "damaged; re-create the ZIP")))
                continue
            too_big = (Message("Larger than {limit} MB; split it", limit=MAX_FILE_BYTES // (1024 * 1024))
                       if len(blob) > MAX_FILE_BYTES else "")
            out.append(Member(label, member, b"" if too_big else blob, too_big))
    return out


# --- text decoding ------------------------------------------------------------------
def decode_text(data: bytes, name: str) -> str:
    """UTF-8 (with or without BOM), UTF-16 with BOM, else Windows-1252; anything else is refused."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as e:
            raise IngestError(in_file(name, Message("broken UTF-16 text; save it as UTF-8"))) from e
    if b"\x00" in data:
        raise IngestError(Message("{name} contains NUL bytes, so it is not a text file; save it as CSV UTF-8 (or "
                                  "plain text UTF-8) and upload again", name=name))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError as e:
        raise IngestError(Message(
            "{name} is not UTF-8, UTF-8 with BOM or Windows-1252 text (byte 0x{byte:02x} at position {position}); "
            "open it in your spreadsheet or editor and save it as 'CSV UTF-8' / UTF-8 text",
            name=name, byte=data[e.start], position=e.start)) from e


# --- CSV ----------------------------------------------------------------------------
def _header(raw: list, name: str) -> list[str]:
    cols = []
    for i, c in enumerate(raw, start=1):
        c = "" if c is None else str(c).strip()
        cols.append(c or f"column_{i}")
    seen = set()
    for c in cols:
        if c.lower() in seen:
            raise IngestError(in_file(name, Message("the column {column!r} appears twice in the header row; rename "
                                                    "one of them", column=c)))
        seen.add(c.lower())
    return cols


def read_csv(data: bytes, name: str):
    text = decode_text(data, name)
    if not text.strip():
        raise IngestError(Message("{name} is empty; it needs a header row and one row per reflection", name=name))
    try:
        dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t")
        delimiter = dialect.delimiter
    except csv.Error:
        delimiter = ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        records = list(reader)
    except csv.Error as e:
        raise IngestError(Message("{name} is not a well-formed CSV file near line {line}: {error}. Check for a "
                                  "quote (\") that is opened but never closed, or save the sheet again as CSV from "
                                  "your spreadsheet program.", name=name, line=reader.line_num, error=str(e))) from e
    # Number rows before dropping blank ones, so row numbers match what a spreadsheet shows.
    numbered = [(n, r) for n, r in enumerate(records, start=1) if any(cell.strip() for cell in r)]
    if not numbered:
        raise IngestError(Message("{name} is empty; it needs a header row and one row per reflection", name=name))
    cols = _header(numbered[0][1], name)
    rows, problems = [], []
    for n, rec in numbered[1:]:
        if len(rec) != len(cols):
            if len(rec) > len(cols) and not any(v.strip() for v in rec[len(cols):]):
                rec = rec[:len(cols)]  # trailing empty cells are harmless
            else:
                problems.append(Problem(name, n, "row", Message.plural(
                    "has {count} values but the header has {columns} columns; put text that contains commas in "
                    "double quotes",
                    "has {count} values but the header has {columns} columns; put text that contains commas in "
                    "double quotes", len(rec), columns=len(cols))))
                continue
        rows.append(RawRow(name, n, {c: v.strip() for c, v in zip(cols, rec)}))
    return cols, rows, problems


# --- XLSX ---------------------------------------------------------------------------
def _cell_text(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, (datetime, date)):
        return v.isoformat()
    text = getattr(v, "text", None)  # openpyxl ArrayFormula keeps its formula in .text
    if isinstance(text, str):
        return text
    return str(v).strip()


def read_xlsx(data: bytes, name: str):
    from openpyxl import load_workbook

    try:
        # data_only=False: a formula cell gives its '=...' text; nothing is ever evaluated.
        wb = load_workbook(io.BytesIO(data), read_only=True, data_only=False)
    except Exception as e:  # openpyxl raises many types for a broken file
        raise IngestError(Message("{name} could not be opened as an Excel workbook (.xlsx): it is damaged or not "
                                  "really an .xlsx file. Open it in Excel or LibreOffice and save it again as .xlsx "
                                  "or CSV.", name=name)) from e
    try:
        ws = wb.worksheets[0]
        it = ws.iter_rows(values_only=True)
        header = None
        rows = []
        n = 0
        for n, values in enumerate(it, start=1):
            if header is None:
                if values and any(v is not None and str(v).strip() for v in values):
                    header = _header(list(values), name)
                continue
            cells = [_cell_text(v) for v in values]
            if not any(c for c in cells):
                continue
            extra = [c for c in cells[len(header):] if c]
            if extra:
                rows.append(Problem(name, n, "row", Message("has a value ({value!r}) in a column without a header; "
                                                            "give that column a header or delete it",
                                                            value=extra[0][:30])))
                continue
            cells = (cells + [""] * len(header))[:len(header)]
            rows.append(RawRow(name, n, dict(zip(header, cells))))
            if len(rows) > MAX_ROWS:
                break
    finally:
        wb.close()
    if header is None:
        raise IngestError(in_file(name, Message("the first sheet is empty; put a header row and one row per "
                                                "reflection there")))
    problems = [r for r in rows if isinstance(r, Problem)]
    return header, [r for r in rows if isinstance(r, RawRow)], problems


# --- documents ----------------------------------------------------------------------
def read_docx(data: bytes, name: str, *, markdown: bool = False) -> str:
    """A Word document's text: its paragraphs, then its tables' rows (some students answer inside
    a template table). `markdown` (lesson files): Title and Heading styles become '#' headings,
    list paragraphs '- ' items, and paragraphs are separated by blank lines."""
    import docx

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as e:
        raise IngestError(Message("{name} could not be opened as a Word document (.docx): it is damaged or not "
                                  "really a .docx file. Save it again from Word as .docx, or as plain text.",
                                  name=name)) from e
    parts = []
    for p in document.paragraphs:
        style = (p.style.name if p.style is not None else "") or ""
        level = re.match(r"Heading (\d)", style)
        if markdown and (style == "Title" or level):
            parts += [f"{'#' * (int(level.group(1)) if level else 1)} {p.text.strip()}", ""]
        elif markdown and "List" in style:
            parts.append(f"- {p.text.strip()}")
        else:
            parts += [p.text, ""] if markdown else [p.text]
    for t in document.tables:
        for r in t.rows:
            parts.append(" ".join(c.text for c in r.cells))
    return "\n".join(parts)


def document_row(name: str, text: str) -> RawRow:
    """One reflection from a DOCX/TXT: header lines first, else the file name names the student."""
    values = dict.fromkeys(DOC_COLUMNS, "")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    body_start = 0
    for i, line in enumerate(lines):
        if not line.strip():
            if any(values.values()):
                body_start = i + 1
                continue
            continue
        m = _HEADER.match(line)
        if not m or i > 8:
            body_start = i
            break
        key = m.group(1).lower().replace(" ", "")
        field_ = {"studentid": "student_id", "studentnumber": "student_id", "id": "student_id",
                  "studentname": "name", "name": "name", "student": "name", "email": "email",
                  "e-mail": "email", "week": "week"}[key]
        values[field_] = m.group(2)
        body_start = i + 1
    values["text"] = "\n".join(lines[body_start:]).strip()
    if not values["student_id"] and not values["name"]:
        stem = PurePosixPath(name).stem
        sid, _, rest = stem.partition("_")
        values["student_id"] = sid.strip()
        values["name"] = rest.replace("_", " ").strip()
    return RawRow(name, 1, values)
