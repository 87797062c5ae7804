"""Release: what is approved and pending, the gates, releasing (locks versions), the grades sent to the
LMS and those waiting, exports."""
from urllib.parse import urlsplit

import pandas as pd
import streamlit as st

from core.export import released as export
from core.errors import FairMarkError
from core.lti import grades
from core.signoff import release
from core.text import format_timestamp
from pages import _common
from pages._i18n import said, t, tn

LINKS = "release_student_links"   # {"assignment", "links": {submission id: url}} of this session's last release


def _site() -> str | None:
    """This page's own address (scheme and host), for the students' links when no public address is set."""
    try:
        parts = urlsplit(st.context.url or "")
    except (AttributeError, RuntimeError, ValueError):
        return None
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") and parts.netloc else None


st.title(t("Release"))
conn = _common.get_db()
me = _common.actor()
aid = _common.require_assignment()
if aid is not None:
    view = release.release_page(conn, aid, actor=me,
                                include_approved=bool(st.session_state.get("release_include_approved")))
    _common.know_people(view["people"])
    assignment = view["assignment"]
    if flash := st.session_state.pop("release_flash", None):
        st.success(flash)
    ov = view["overview"]
    for col, (label, value, help_) in zip(st.columns(5), [
            (t("Approved, not released"), ov.approved_unreleased, None),
            (t("Released"), ov.released, t("Items with a released version (what the exports hold).")
             + (" " + t("{count} of them were changed since: the new version needs its own release.",
                        count=ov.changed_since_release) if ov.changed_since_release else "")),
            (t("Pending review"), ov.pending, None), (t("Needs attention"), ov.needs_attention, None),
            (t("Not drafted"), ov.not_drafted, None)]):
        col.metric(label, value, help=help_)
    if ov.changed_since_release:
        st.caption(tn("{count} released item(s) were changed after their release. Students keep the released "
                      "version until the new one is approved and released.",
                      "{count} released item(s) were changed after their release. Students keep the released "
                      "version until the new one is approved and released.", ov.changed_since_release))

    st.subheader(t("Release gates"))
    gates = view["gates"]
    for g in gates:
        mark = ":green[:material/check_circle:]" if g.ok else ":red[:material/cancel:]"
        st.markdown(f"{mark} **{t(g.name)}** — {said(g.detail)}")
    if not ov.approved_unreleased:
        st.info(t("Nothing waits for release: every approved item is released.") if ov.released
                else t("Nothing waits for release: approve items on the Review page first."))
    if st.session_state.pop("release_clear_note", False):
        st.session_state["release_note"] = ""  # a release happened: the next one starts with an empty note
    st.text_input(t("Release note (optional)"), key="release_note")

    def _release(n: int) -> None:
        """Bound to the count on the button: if it changed meanwhile, nothing is released."""
        try:
            out = release.release(_common.connect(), aid, actor=_common.actor(),
                                  note=st.session_state.get("release_note", ""), expected=n, base_url=_site())
        except FairMarkError as e:
            st.session_state["release_error"] = e.args[0] if len(e.args) == 1 else str(e)   # for show_error
        else:
            st.session_state["release_clear_note"] = True
            # The students' private links exist in plain only now: this page's exports carry them.
            st.session_state[LINKS] = {"assignment": aid, "links": {m["submission_id"]: m["url"] for m in out["links"]}}
            lms = out.get("lms") or {}
            sent = (" " + tn("{count} grade(s) reached the LMS", "{count} grade(s) reached the LMS", lms["posted"]) + (
                "; " + tn("{count} could not be sent yet (see LMS gradebook below).",
                          "{count} could not be sent yet (see LMS gradebook below).", len(lms["failed"]))
                if lms["failed"] else ".")) if "posted" in lms else (f" {lms['error']}" if lms.get("error") else "")
            st.session_state["release_flash"] = tn(
                "Released {count} item(s). Those versions are locked: a later edit makes a new version that needs "
                "its own release.", "Released {count} item(s). Those versions are locked: a later edit makes a new "
                "version that needs its own release.", out["n_items"]) + sent

    st.button(tn("Release {count} approved item(s)", "Release {count} approved item(s)", ov.approved_unreleased),
              type="primary",
              disabled=not ov.approved_unreleased or not all(g.ok for g in gates), key="release_go",
              on_click=_release, args=(ov.approved_unreleased,))
    if err := st.session_state.pop("release_error", None):
        _common.show_error(err)

    if (lms := view["lms"]) is not None:
        st.subheader(t("LMS gradebook"))
        st.caption(tn("{count} grade(s) and comment(s) reached the LMS", "{count} grade(s) and comment(s) reached "
                      "the LMS", lms["sent"]) + "; " + tn("{count} wait to be sent.", "{count} wait to be sent.",
                                                          lms["waiting"])
                   + " " + t("Only released results are sent, each version once."))
        if lms["problems"]:
            st.warning(tn("{count} grade(s) could not be sent. FairMark sends them again by itself once the time "
                          "shown has come, or send them now.", "{count} grade(s) could not be sent. FairMark sends "
                          "them again by itself once the time shown has come, or send them now.", len(lms["problems"])))
            st.dataframe(pd.DataFrame([{t("Student"): p["student"], t("Why"): p["why"], t("Tries"): p["tries"],
                                        t("Next try"): p["next_try"]} for p in lms["problems"]]),
                         hide_index=True, width="stretch")

        def _push() -> None:
            try:
                out = grades.retry(_common.connect(), assignment["course_id"], aid, actor=_common.actor())
            except FairMarkError as e:
                st.session_state["release_error"] = e.args[0] if len(e.args) == 1 else str(e)   # for show_error
            else:
                st.session_state["release_flash"] = (
                    tn("Sent {count} grade(s) to the LMS", "Sent {count} grade(s) to the LMS", out["posted"])
                    + ("; " + tn("{count} still could not be sent.", "{count} still could not be sent.",
                                 len(out["failed"])) if out["failed"] else "."))

        if lms["waiting"] and "release" in view["may"]:
            st.button(tn("Send {count} waiting grade(s) to the LMS now", "Send {count} waiting grade(s) to the LMS now",
                         lms["waiting"]), key="release_lms_push",
                      on_click=_push)

    st.subheader(t("Export"))
    include = st.checkbox(t("Also include approved items that are not released yet"), key="release_include_approved")
    available = view["exportable"]
    if not available:
        st.caption(t("Nothing to export yet: only released items are exported.") if include else
                   t("Nothing to export yet: only released items are exported (tick the box to include approved ones)."))
    else:
        cid = assignment["course_id"]

        fresh = st.session_state.get(LINKS) or {}
        links = fresh.get("links") if fresh.get("assignment") == aid else None

        def build(fmt: str):
            # Deferred: the file is built only when the teacher clicks download.
            return lambda: export.export(conn, cid, aid, fmt=fmt, include_approved=include, actor=me, links=links).data

        st.caption(tn("{count} item(s). Every file marks them “{marker}”; drafts from the offline baseline say so.",
                      "{count} item(s). Every file marks them “{marker}”; drafts from the offline baseline say so.",
                      available, marker=export.MARKER))
        st.caption(t("The files below carry the private links of the release you just made ({count}), for your "
                     "students to open their feedback: FairMark keeps only a fingerprint of each link, so files made "
                     "later cannot show them again.", count=len(links)) if links else
                   t("Students' private links are in the files made right after a release. To send new ones, make "
                     "them with `python -m core appeals links --course C --assignment A` (the old ones stop working)."))
        c1, c2, c3 = st.columns(3)
        # No rerun on the click: a rerun replaces the deferred file before the browser asks for it.
        c1.download_button(t("Download CSV"), data=build("csv"), file_name=f"{assignment['title']}.csv",
                           mime="text/csv", key="dl_csv", on_click="ignore")
        c2.download_button(t("Download Canvas gradebook CSV"), data=build("canvas"),
                           file_name=f"{assignment['title']}-canvas.csv", mime="text/csv", key="dl_canvas",
                           on_click="ignore")
        c3.download_button(t("Download feedback ZIP (Markdown per student)"), data=build("zip"),
                           file_name=f"{assignment['title']}-feedback.zip", mime="application/zip", key="dl_zip",
                           on_click="ignore")

    history = view["history"]
    if history:
        st.subheader(t("Releases"))
        st.dataframe(pd.DataFrame([{t("Release"): h["id"], t("Released at"): format_timestamp(h["released_at"]),
                                    t("Released by"): _common.person(h["released_by"]), t("Items"): h["n_items"],
                                    t("Note"): h["note"]}
                                   for h in history]), hide_index=True, width="stretch")
