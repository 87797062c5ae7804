"""Commands `init`, `demo` and `import`: set up the database and bring reflections in."""
from __future__ import annotations

from pathlib import Path

from core import demo
from core.ingest import commit as ingest
from core.cli.common import emit
from core.cli.common import actor, add_db_arg, open_db
from core.errors import IngestError
from core.ingest.mapping import apply_overrides
from core.rubric import load_rubric_file
from db import file_of


def register(sub) -> None:
    p = sub.add_parser("init", help="create or migrate the database; prints {db, tables}")
    add_db_arg(p)
    p.set_defaults(func=run_init)

    p = sub.add_parser("demo", help="load the synthetic AI-literacy demo course (loading twice changes nothing)")
    p.add_argument("--language", default="en", help="en: the AI-literacy course (the default); sv: the small "
                                                     "Swedish course, assessed and given feedback in Swedish")
    add_db_arg(p)
    p.set_defaults(func=run_demo)

    p = sub.add_parser(
        "import", help="import reflections from CSV, XLSX, DOCX, TXT or ZIP",
        description="Import reflections. The course and assignment are created when missing (the assignment "
                    "with --rubric, else the default reflection rubric). A file with any rejected row imports "
                    "nothing unless --skip-rejected is given. Exit code 1 when nothing was imported because "
                    "of rejected rows or unmappable columns (use --map); 2 when a file cannot be read.")
    p.add_argument("file", nargs="+", help="file(s) to import")
    p.add_argument("--course", required=True, help="course name (created if missing)")
    p.add_argument("--assignment", required=True,
                   help="assignment title for rows without a week/assignment column (created if missing)")
    p.add_argument("--rubric", help="rubric file (YAML/JSON) for an assignment this import creates")
    p.add_argument("--week", type=int, help="week number of a newly created assignment")
    p.add_argument("--skip-rejected", action="store_true",
                   help="import the good rows and list the rejected ones (default: reject the whole file)")
    p.add_argument("--scores-are", choices=ingest.SCORES_ARE, default="reference",
                   help="score columns are expert reference scores (default), or blind calibration scores "
                        "a teacher gave without seeing any AI draft (they count for the readiness gate)")
    p.add_argument("--map", action="append", default=[], metavar="FIELD=COLUMN",
                   help="use COLUMN for FIELD (repeatable): student_id, name, email, text or assignment; a "
                        "criterion key for reference scores (criterion:rater for a named rater); attribute for "
                        "a group attribute. E.g. --map student_id=essay_id --map text=essay")
    add_db_arg(p)
    p.set_defaults(func=run_import)


def run_init(args) -> int:
    conn = open_db(args)
    path = file_of(conn)
    emit({"db": path, "tables": len([t for t in conn.table_names() if not t.startswith("_")])})
    return 0


def run_demo(args) -> int:
    conn = open_db(args)
    emit(demo.load_demo(conn, actor=actor(args, conn), language=args.language))
    return 0


def run_import(args) -> int:
    files = []
    for name in args.file:
        path = Path(name)
        if not path.is_file():
            raise IngestError(f"{name}: no such file")
        files.append((path.name, path.read_bytes()))
    rubric = load_rubric_file(args.rubric) if args.rubric else None
    conn = open_db(args)
    who = actor(args, conn)
    target = ingest.Target(args.course, args.assignment, rubric=rubric, week=args.week)
    scored_on = ingest.rubric_for(conn, target, actor=who)
    table, detected = ingest.read_and_detect(files, scored_on)  # an unreadable file: IngestError, exit 2
    mapping = apply_overrides(detected, args.map, table.columns, scored_on)
    preview = ingest.build_preview(conn, files, target, mapping, table=table, actor=who)
    if preview.mapping_problems:
        # The file was read; its columns could not be mapped: nothing imported (exit 1), and what to do.
        emit({"imported": 0, "mapping_problems": preview.mapping_problems, "columns": table.columns,
              "hint": "choose the columns with --map FIELD=COLUMN, e.g. --map student_id=essay_id --map text=essay"})
        return 1
    mode = "skip_rejected" if args.skip_rejected else "all_or_nothing"
    result = ingest.commit(conn, preview, mode=mode, actor=who,
                           scores_are=args.scores_are)
    emit({"imported": result.imported, "duplicates": result.duplicates, "rejected": result.rejected,
          "refused": result.refused, "course_id": result.course_id, "assignment_ids": result.assignment_ids,
          "skipped_files": preview.skipped_members, "ignored_columns": preview.ignored_columns,
          "scores_are": args.scores_are})
    return 1 if result.imported == 0 and result.rejected else 0
