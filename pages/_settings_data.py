"""Settings tab "Data" (admins): a backup to download and one to restore, deleting one student's
or a whole course's data on request, the retention period for old courses (core.data_care;
each step audited) and how long students' private links last (core.students.links).

A deletion is bound to what the admin confirmed, as an approval is to the item drawn: its form,
tick and button are keyed by the student's (course's) id, so a tick given for one student is
never a tick for another, and after a deletion the pickers go back to "choose one"."""
import tempfile
from datetime import datetime
from pathlib import Path

import streamlit as st

from core import data_care
from core.errors import FairMarkError
from core.students import links as student_links
from core.text import format_date
from pages import _common
from pages._i18n import said, t

# Deletions so far in this browser session: part of the pickers' keys, so that after a deletion
# they are new widgets showing "choose one" (the browser keeps an old widget's choice on screen).
ROUND = "_data_round_{}"  # .format("student" / "course")


def render(conn) -> None:
    me = _common.actor()
    flash = st.container()
    kind = data_care.backup_format(conn)
    _backup(conn, me, kind)
    _restore(me, kind)

    st.subheader(t("Delete on request"))
    pick = f"data_course_{st.session_state.get(ROUND.format('course'), 0)}"
    data = data_care.data_view(conn, st.session_state.get(pick), actor=me)  # the tab's one read
    courses = data["courses"]
    if courses:
        names = {c["id"]: c["name"] for c in courses}
        if pick in st.session_state and st.session_state[pick] != data["course"]:
            st.session_state[pick] = data["course"]          # no longer there: the first one
        cid = st.selectbox(t("Course"), list(names), format_func=names.get, key=pick)
        chosen = _delete_student(conn, me, cid, data["students"])
        _delete_course(conn, me, cid, names[cid])
    else:
        chosen = False
    # A deletion's message stays until the next student is chosen: a second click on the old
    # Delete button reruns the page, and the message must not vanish with it.
    if msg := st.session_state.get("data_flash"):
        if chosen or not st.session_state.get("data_flash_sticky"):
            st.session_state.pop("data_flash")
        if not chosen:
            flash.success(msg)  # Markdown: the names in it were escaped when it was written

    st.subheader(t("Retention"))
    days = data["retention_days"]
    with st.form("data_retention"):
        keep = st.number_input(t("Delete courses with no work for this many days (empty: keep them)"), 30, 3650,
                               value=days, step=30)
        if st.form_submit_button(t("Save")):
            _do(lambda: data_care.set_retention(conn, keep, actor=me), t("Saved."))
    expired = data["expired"]
    st.caption(t("{courses} would be deleted by `python -m core data apply-retention`.",
                 courses=_common.md(", ".join(t("{name} (last work {date})", name=c["name"],
                                                date=format_date(c["last_activity"])) for c in expired)))
               if expired else t("No course is past the retention period."))

    st.subheader(t("Students' links"))
    with st.form("data_student_links"):
        link_days = st.number_input(t("A student's private link to their feedback lasts this many days (when the "
                                      "assignment has no appeal deadline; with one, until the deadline)"), 1, 3650,
                                    value=data["link_days"], step=30)
        if st.form_submit_button(t("Save")):
            _do(lambda: student_links.set_link_days(conn, link_days, actor=me), t("Saved."))


def _backup(conn, me, kind: dict) -> None:
    st.subheader(t("Backup"))
    st.caption(t("A consistent copy of the whole database, taken while the app keeps running ({made_with}). "
                 "Prepare it, then download it; restore it below or with `python -m core data restore FILE`.",
                 made_with=t(kind["made_with"])))
    # Built in this script run (which knows who is signed in), not in a deferred download,
    # which runs outside it; a failure is shown here, not swallowed by the browser.
    if st.button(t("Prepare a backup"), key="data_backup_make"):
        try:
            data = data_care.backup_bytes(conn, actor=me)
        except FairMarkError as e:
            _common.show_error(e)
        else:
            at = datetime.now().strftime("%Y-%m-%d-%H%M")
            st.download_button(t("Download the backup ({size} MB)", size=f"{len(data) / 1_000_000:.1f}"), data,
                               file_name=f"fairmark-backup-{at}{kind['suffix']}", mime=kind["mime"],
                               on_click="ignore", key="data_backup")


def _restore(me, kind: dict) -> None:
    st.subheader(t("Restore a backup"))
    st.caption(t("Replaces the whole database with a backup file. The file is checked first (a FairMark database, "
                 "not damaged, {versions}); the current database is kept beside it. "
                 "Every session ends: everyone, you too, signs in again.", versions=t(kind["versions"])))
    replace = t("Replace the whole database with this backup")
    with st.form("data_restore", clear_on_submit=True):
        upload = st.file_uploader(t("Backup file ({suffix})", suffix=kind["suffix"]), key="data_restore_file")
        sure = st.checkbox(replace, key="data_restore_sure")
        if not st.form_submit_button(t("Restore")):
            return
    if upload is None:
        st.error(t("Choose the backup file to restore: nothing was changed."))
        return
    if not sure:
        st.error(t("Tick \"{box}\" to restore it: nothing was changed.", box=replace))
        return
    shown = Path(upload.name).name
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "upload.db"
            path.write_bytes(upload.getvalue())
            data_care.restore(_common.settings().db_path, path, actor=me, shown_as=shown)
    except FairMarkError as e:
        _common.show_error(e)
        return
    st.success(t("Restored {file}. Every session has ended: sign in again.", file=_common.md(shown)))
    st.button(t("Sign in again"), key="data_restore_signin")
    st.stop()


def _delete_student(conn, me, cid: int, students: list[dict]) -> bool:
    """The picker and, once a student is chosen, the form bound to them (True: one is chosen)."""
    shown = {s["id"]: s["name"] or s["external_id"] for s in students}
    pick = f"data_student_{cid}_{st.session_state.get(ROUND.format('student'), 0)}"
    labels = {s["id"]: f"{shown[s['id']]} ({s['external_id']})" if s["external_id"] else shown[s["id"]]
              for s in students}
    sid = st.selectbox(t("Student"), list(shown), index=None, placeholder=t("Choose the student"),
                       format_func=labels.get, key=pick)
    if sid is None:
        return False
    # Only the button deletes: Enter in the reason box would submit the form unticked (a refusal that
    # also cleared the reason the teacher had typed).
    with st.form(f"data_delete_student_{sid}", clear_on_submit=True, enter_to_submit=False):
        reason = st.text_input(t("Reason (audit log)"), placeholder=t("e.g. the student's request of 3 May"),
                               key=f"data_student_reason_{sid}")
        everything = t("Delete everything about {name}", name=_common.md(shown[sid]))
        sure = st.checkbox(everything + ": " + t("their reflections, drafts, reviews, scores and releases"),
                           key=f"data_student_sure_{sid}")
        clicked = st.form_submit_button(t("Delete the student's data"))
    if clicked and not sure:
        st.error(t("Tick \"{box}\" to confirm: nothing was deleted.", box=everything))
    elif clicked:
        _do(lambda: data_care.delete_student(conn, sid, actor=me, reason=reason),
            t("Deleted {name}'s data", name=_common.md(shown[sid])), leave_out=("students",), picker="student")
    return True


def _delete_course(conn, me, cid: int, name: str) -> None:
    st.caption(t("To delete the course with everything in it, type its name exactly as shown here") + ":")
    st.code(name, language=None)  # shown as text (a label would render shortcodes); its copy button copies it
    with st.form(f"data_delete_course_{cid}", clear_on_submit=True, enter_to_submit=False):   # only the button deletes
        typed = st.text_input(t("The course's name"), key=f"data_course_name_{cid}")
        reason = st.text_input(t("Reason (audit log)"), key=f"data_course_reason_{cid}")
        clicked = st.form_submit_button(t("Delete the course"))
    if not clicked:
        return
    if typed.strip() != name.strip():
        st.error(t("Type the course's name exactly as shown above to delete it: nothing was deleted.")
                 if typed.strip() else
                 t("Type the course's name exactly as shown above to delete it (the box was empty): nothing was "
                   "deleted."))
        return
    _do(lambda: data_care.delete_course(conn, cid, actor=me, reason=reason),
        t("Deleted the course {name} and everything in it", name=_common.md(name)), leave_out=("courses",),
        picker="course")


def _do(action, done: str, *, leave_out: tuple[str, ...] = (), picker: str | None = None) -> None:
    try:
        counts = action()
    except FairMarkError as e:
        _common.show_error(e)
    else:
        # `done` is Markdown (any name in it escaped): the message shows no invisible characters;
        # what was deleted ("3 reflections, …") is core's Message, in the reader's language
        st.session_state["data_flash"] = (done + ": " + said(data_care.deleted_words(counts, leave_out=leave_out)) + "."
                                          if isinstance(counts, dict) else done)
        st.session_state["data_flash_sticky"] = bool(picker)
        if picker:  # a deletion: its picker starts again
            st.session_state[ROUND.format(picker)] = st.session_state.get(ROUND.format(picker), 0) + 1
        st.rerun()
