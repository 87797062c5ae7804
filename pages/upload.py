"""Upload: choose where the reflections go, upload files, check the column mapping and the
preview, then import. The import itself is one transaction in core.ingest.commit; its summary is
read back from the audit log, so it survives a refresh."""
import hashlib
from pathlib import Path

import pandas as pd
import streamlit as st

from core.courses import browse
from core.ingest import commit as ingest
from core.ingest import upload_view
from core.errors import FairMarkError
from core.ingest.mapping import Mapping, parse_score_column
from core.ingest.read import MAX_FILE_BYTES, MAX_TEXT_CHARS
from core.rubric import RUBRIC_DIR, default_rubric_file, load_rubric_file, parse_rubric
from core.text import format_timestamp
from pages import _common
from pages._i18n import N_, said, t, tn

NEW = -1
FIELDS = {"student_id": N_("Student id"), "name": N_("Student name"), "email": N_("E-mail"),
          "text": N_("Reflection text"), "assignment": N_("Week / assignment (optional)")}
SCORES_ARE = {"reference": N_("Expert reference scores (the AI is measured against them)"),
              "calibration": N_("Blind calibration scores (given without seeing any AI draft)")}
# The preview tables' own columns (core names them; rubric keys and group columns are data, kept as they are)
HEADERS = {"file": N_("file"), "row": N_("row"), "assignment": N_("assignment"), "student_id": N_("student_id"),
           "name": N_("name"), "words": N_("words"), "text": N_("text"), "field": N_("field"),
           "message": N_("message")}
MODES = {"all_or_nothing": N_("Reject the whole file (fix it and upload again)"),
         "skip_rejected": N_("Import the good rows, leave out the rejected ones")}


def _headed(rows: list[dict]) -> pd.DataFrame:
    """A preview table with its own column names in the reader's language."""
    return pd.DataFrame(rows).rename(columns=lambda c: t(HEADERS[c]) if c in HEADERS else c)


def _unstage() -> None:
    """Forget the staged files and reset the uploader (a new key is a new, empty widget)."""
    st.session_state.pop("upload_sources", None)
    st.session_state["up_files_gen"] = st.session_state.get("up_files_gen", 0) + 1


def _imported_assignment(result, title: str | None) -> int | None:
    """The assignment the import went to: the one chosen or created here, else the first one
    the rows named (a week/assignment column)."""
    wanted = (title or "").strip().casefold()  # the import matches titles case-insensitively
    found = [a["id"] for a in browse.list_assignments(conn, result.course_id, actor=_common.actor())
             if wanted and a["title"].casefold() == wanted and a["id"] in result.assignment_ids]
    return (found or result.assignment_ids or [None])[0]


def _scores_are(sig: str) -> str:
    """What the uploaded score columns are: reference (expert) scores or blind calibration scores."""
    return st.radio(t("These scores are"), ingest.SCORES_ARE, key=f"map_scores_are_{sig}", horizontal=True,
                    format_func=lambda k: t(SCORES_ARE[k]),
                    help=t("Calibration scores count for the readiness gate and become the AI's examples of each "
                           "level on this assignment; declare them only if nobody saw an AI draft before scoring."))


@st.cache_data(max_entries=4, show_spinner="Reading the file…")
def _read(sources, rubric_json):
    """Parsing a big workbook takes seconds: do it once per upload, not on every widget change."""
    return ingest.read_and_detect(sources, parse_rubric(rubric_json))


st.title(t("Upload reflections"))
conn = _common.get_db()
me = _common.actor()

if done := st.session_state.pop("up_reset", None):
    # After an import: point the pickers at where the reflections went and empty the "new
    # course / new assignment" fields. Set before the widgets are drawn (the only time a keyed
    # widget's value may be written).
    st.session_state["up_course"], st.session_state["up_assignment"] = done
    st.session_state["up_new_course"] = ""
    st.session_state["up_new_title"] = ""
    st.session_state["up_week"] = None

flash = st.session_state.pop("upload_flash", None)
if flash:
    st.success(flash)

# --- 1. where the reflections go ---------------------------------------------------------
# The page's one read (core.ingest.commit.upload_view) is for the course and rubric the pickers below will
# show: their state, else the sidebar's course.
wanted = st.session_state.get("up_course", _common.course_id())
pick_state = str(st.session_state.get("up_rubric") or "")
view = upload_view.upload_page(conn, actor=me, course_id=None if wanted == NEW else wanted,
                               rubric_id=int(pick_state.split(":")[1]) if pick_state.startswith("saved:") else None)
_common.know_people(view["people"])
c1, c2 = st.columns(2)
all_courses = view["courses"]
course_ids = [c["id"] for c in all_courses] + ([NEW] if view["may_create"] else [])
course_names = {c["id"]: c["name"] for c in all_courses} | {NEW: "+ " + t("New course")}
current = _common.course_id()
cid = c1.selectbox(t("Course"), course_ids, format_func=course_names.get,
                   index=course_ids.index(current) if current in course_ids else 0, key="up_course")
course_name = c1.text_input(t("New course name"), key="up_new_course") if cid == NEW else course_names[cid]

read_for = NEW if view["course_id"] is None else view["course_id"]
if cid == read_for:
    existing = view["assignments"]
else:   # the picker's state was not one the view could follow: read this course's own
    existing = browse.list_assignments(conn, cid, actor=me) if cid != NEW else []
a_ids = [a["id"] for a in existing] + [NEW]
a_titles = {a["id"]: a["title"] for a in existing} | {NEW: "+ " + t("New assignment")}
cur_a = _common.assignment_id()
aid = c2.selectbox(t("Assignment"), a_ids, format_func=a_titles.get,
                   index=a_ids.index(cur_a) if cur_a in a_ids else 0, key="up_assignment")
week = None
if aid == NEW:
    title = c2.text_input(t("New assignment title"), key="up_new_title")
    week = c2.number_input(t("Week"), min_value=0, max_value=99, value=None, step=1, key="up_week")
    saved = {f"saved:{r['id']}": f"{_common.rubric_label(r['name'])} (v{r['version']})"
             for r in view["saved_rubrics"]}
    bundled = {f"file:{p.name}": f"{_common.rubric_label(load_rubric_file(p).name)} ({t('bundled file')})"
               for p in sorted(RUBRIC_DIR.glob("*.yaml"))}
    choices = saved | bundled
    # The default rubric in the course's language (reflection.sv.yaml in a Swedish course).
    course_language = next((c.get("language") or "en" for c in all_courses if c["id"] == cid), "en")
    default_pick = f"file:{default_rubric_file(course_language).name}"
    pick = c2.selectbox(t("Rubric"), list(choices), format_func=choices.get, key="up_rubric",
                        index=list(choices).index(default_pick) if default_pick in choices else 0)
    if not pick.startswith("saved:"):
        rubric = load_rubric_file(RUBRIC_DIR / pick.split(":", 1)[1])
    elif pick == pick_state and view["rubric"] is not None:
        rubric = view["rubric"]
    else:   # a default the state did not hold yet
        rubric = browse.get_rubric(conn, int(pick.split(":")[1]), actor=me)
else:
    title = a_titles[aid]
    rubric = (view["rubrics"][aid] if cid == read_for else
              browse.get_rubric(conn, existing[a_ids.index(aid)]["rubric_id"], actor=me))
st.caption(t("Rows with a week/assignment column go to the matching assignment (a new one is created for an "
             "unknown week); all other rows go to the assignment chosen here."))

# --- 2. the file(s) --------------------------------------------------------------------------
files = st.file_uploader(
    t("Reflections: CSV or Excel (one row per reflection), Word or text files (one reflection each; "
      "file name `<student id>_<name>.docx` or a first line `Student ID: …`), or a ZIP of them"),
    type=["csv", "xlsx", "docx", "txt", "zip"], accept_multiple_files=True,
    key=f"up_files_{st.session_state.get('up_files_gen', 0)}",
    help=t("At most {mb} MB per file and {chars} characters per reflection. "
           "Encodings: UTF-8 (with or without BOM) or Windows-1252.",
           mb=MAX_FILE_BYTES // (1024 * 1024), chars=f"{MAX_TEXT_CHARS:,}"))
if files:
    # Kept until imported or cleared, so a trip to another page does not lose the staged upload.
    st.session_state["upload_sources"] = [(f.name, f.getvalue()) for f in files]
sources = st.session_state.get("upload_sources")

if not sources:
    st.subheader(t("Recent imports"))
    recent = (view["recent"] if cid == read_for else
              browse.recent_imports(conn, cid, actor=me, limit=10) if cid != NEW else [])
    if recent:
        st.dataframe(pd.DataFrame([{t("when"): format_timestamp(r["at"]), t("who"): _common.person(r["actor"]),
                                    t("files"): r["reason"], t("imported"): r["after"].get("imported"),
                                    t("rejected rows left out"): r["after"].get("rejected") or 0} for r in recent]),
                     hide_index=True)
    else:
        st.caption(t("Nothing imported yet."))
    st.stop()


if st.button(t("Clear the staged file(s)")):
    _unstage()
    st.rerun()
try:
    table, detected = _read(sources, rubric.to_json())
except FairMarkError as e:
    _common.show_error(e)  # names the file, a column or a row value
    st.stop()

# --- 3. column mapping -------------------------------------------------------------------------
sig = hashlib.sha1(repr([(n, len(b)) for n, b in sources]).encode() + rubric.content_hash.encode()).hexdigest()[:8]
st.subheader(t("Columns"))
options = [None, *table.columns]
label = lambda c: "— " + t("none") + " —" if c is None else c  # noqa: E731
cols = st.columns(len(FIELDS))
chosen = {}
for col, (field, text) in zip(cols, FIELDS.items()):
    value = getattr(detected, field)
    chosen[field] = col.selectbox(t(text), options, index=options.index(value) if value in options else 0,
                                  format_func=label, key=f"map_{field}_{sig}")
free = [c for c in table.columns if c not in chosen.values()]
score_label = {c: (f"{c} → {s.criterion} ({s.rater})" if (s := parse_score_column(c, rubric)) else c) for c in free}
score_cols = st.multiselect(
    t("Reference score columns (named `<criterion>` or `<criterion>_<rater>`, e.g. `clarity_rater1`)"),
    free, default=[s.column for s in detected.scores if s.column in free], format_func=score_label.get,
    key=f"map_scores_{sig}")
scores_are = _scores_are(sig) if score_cols else "reference"
attr_cols = st.multiselect(t("Group attribute columns (e.g. section, ELL) for the fairness pages"),
                           [c for c in free if c not in score_cols],
                           default=[c for c in detected.attributes if c in free and c not in score_cols],
                           key=f"map_attrs_{sig}")
scores = []
for c in score_cols:
    parsed = parse_score_column(c, rubric)
    if parsed is None:
        st.warning(_common.md(t("Column {column} names no criterion of the rubric '{rubric}' ({keys}); it is left "
                                "out. Rename it to <criterion>_<rater>.", column=repr(c),
                                rubric=_common.rubric_label(rubric.name), keys=", ".join(rubric.keys))))
    else:
        scores.append(parsed)
mapping = Mapping(**chosen, scores=scores, attributes=attr_cols)

# --- 4. preview ----------------------------------------------------------------------------------
target = ingest.Target(course_name or "", title or None, rubric=rubric, week=None if week is None else int(week))
try:
    preview = ingest.build_preview(conn, sources, target, mapping, table=table, actor=me)
except FairMarkError as e:
    _common.show_error(e)
    st.stop()
for problem in preview.mapping_problems:
    problem = said(problem)   # core's Message, in the reader's language
    st.warning(_common.md(problem[:1].upper() + problem[1:]))
if preview.mapping_problems:
    st.stop()

st.subheader(t("Preview"))
m1, m2, m3 = st.columns(3)
m1.metric(t("Ready to import"), preview.ok)
m2.metric(t("Rejected rows"), len(preview.rejected))
m3.metric(t("Duplicates (skipped)"), preview.duplicates)
notes = []
if preview.new_course:
    notes.append(t("creates the course {name}", name=f"**{_common.md(course_name)}**"))
if preview.new_assignments:
    notes.append(tn("creates the assignment {names}", "creates the assignments {names}", len(preview.new_assignments),
                    names=", ".join(f"**{_common.md(a)}**" for a in preview.new_assignments)))
if preview.skipped_members:
    notes.append(tn("ignores {count} system file in the ZIP", "ignores {count} system files in the ZIP",
                    len(preview.skipped_members)))
if preview.ignored_columns:
    notes.append(tn("leaves out the column {names} (no field, score or group uses it)",
                    "leaves out the columns {names} (no field, score or group uses them)", len(preview.ignored_columns),
                    names=", ".join(f"**{_common.md(c)}**" for c in preview.ignored_columns)))
if notes:
    st.caption(t("This import {what}.", what="; ".join(notes)))
if preview.rows:
    st.dataframe(_headed(preview.rows_table(limit=500)), hide_index=True)  # plain data, never HTML
if preview.rejected:
    st.markdown("**" + t("Rejected rows — what to fix") + "**")
    # A file that could not be read has no row: say so instead of "None".
    rejected = preview.rejected_table()
    for r, problem in zip(rejected, preview.rejected):
        r["row"] = t("whole file") if r["row"] is None else r["row"]
        message = said(problem.message)   # which row, which field, what to do: in the reader's language
        r["message"] = message[:1].upper() + message[1:]
    st.dataframe(_headed(rejected), hide_index=True)
    mode = st.radio(t("This upload has rejected rows"), list(MODES), key="up_mode", format_func=lambda k: t(MODES[k]))
else:
    mode = "all_or_nothing"

if st.button(t("Import"), type="primary", disabled=not preview.rows):
    try:
        result = ingest.commit(conn, preview, mode=mode, actor=me, scores_are=scores_are)
    except FairMarkError as e:
        _common.show_error(e)
    else:
        if result.refused:
            st.error(tn("Nothing was imported: {count} row(s) were rejected. Fix them and upload again, or choose "
                        "to import without the rejected rows.",
                        "Nothing was imported: {count} row(s) were rejected. Fix them and upload again, or choose "
                        "to import without the rejected rows.", len(result.rejected)))
        else:
            _unstage()
            imported_to = _imported_assignment(result, title)
            _common.select(result.course_id, imported_to)  # the sidebar (and so Assess) follows the import
            st.session_state["up_reset"] = (result.course_id, imported_to if imported_to is not None else NEW)
            st.session_state["upload_flash"] = (
                tn("Imported {count} reflection(s)", "Imported {count} reflection(s)", result.imported) + "; "
                + tn("{count} duplicate(s) skipped", "{count} duplicate(s) skipped", result.duplicates)
                + ("; " + tn("{count} rejected row(s) left out", "{count} rejected row(s) left out",
                             len(result.rejected)) if result.rejected else "") + ".")
            st.rerun()
st.caption(t("Files: {names}", names=_common.md(", ".join(Path(n).name for n, _ in sources))))
