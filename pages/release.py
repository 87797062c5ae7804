"""Release: what is approved and pending, the gates, releasing (locks versions), exports."""
import pandas as pd
import streamlit as st

from core import export
from core.errors import FairMarkError
from core.signoff import release
from core.text import format_timestamp
from db import courses, exports, releases
from pages import _common

st.title("Release")
conn = _common.get_db()
aid = _common.require_assignment()
if aid is not None:
    assignment = courses.get_assignment(conn, aid)
    flash = st.session_state.pop("release_flash", None)
    if flash:
        st.success(flash)
    ov = releases.release_overview(conn, aid)
    for col, (label, value) in zip(st.columns(5), [
            ("Approved, not released", ov.approved_unreleased), ("Released", ov.released),
            ("Pending review", ov.pending), ("Needs attention", ov.needs_attention),
            ("Not drafted", ov.not_drafted)]):
        col.metric(label, value)

    st.subheader("Release gates")
    gates = release.release_gates(conn, aid)
    for g in gates:
        mark = ":green[:material/check_circle:]" if g.ok else ":red[:material/cancel:]"
        st.markdown(f"{mark} **{g.name}** — {g.detail}")
    if st.session_state.pop("release_clear_note", False):
        st.session_state["release_note"] = ""  # a release happened: the next one starts with an empty note
    note = st.text_input("Release note (optional)", key="release_note")
    if st.button(f"Release {ov.approved_unreleased} approved item(s)", type="primary",
                 disabled=not all(g.ok for g in gates), key="release_go"):
        try:
            out = release.release(conn, aid, actor=_common.actor(), note=note)
        except FairMarkError as e:
            st.error(str(e))
        else:
            st.session_state["release_clear_note"] = True
            st.session_state["release_flash"] = (f"Released {out['n_items']} item(s). Those versions are locked: "
                                                 "a later edit makes a new version that needs its own release.")
            st.rerun()

    st.subheader("Export")
    include = st.checkbox("Also include approved items that are not released yet", key="release_include_approved")
    available = exports.exportable_count(conn, aid, include_approved=include)
    if not available:
        st.caption("Nothing to export yet: only released items are exported"
                   + ("." if include else " (tick the box to include approved ones)."))
    else:
        cid = assignment["course_id"]

        def build(fmt: str):
            # Deferred: the file is built only when the teacher clicks download.
            return lambda: export.export(conn, cid, aid, fmt=fmt, include_approved=include).data

        st.caption(f"{available} item(s). Every file marks them “{export.MARKER}”; drafts from the offline "
                   "baseline say so.")
        c1, c2, c3 = st.columns(3)
        c1.download_button("Download CSV", build("csv"), file_name=f"{assignment['title']}.csv",
                           mime="text/csv", key="dl_csv")
        c2.download_button("Download Canvas gradebook CSV", build("canvas"),
                           file_name=f"{assignment['title']}-canvas.csv", mime="text/csv", key="dl_canvas")
        c3.download_button("Download feedback ZIP (Markdown per student)", build("zip"),
                           file_name=f"{assignment['title']}-feedback.zip", mime="application/zip", key="dl_zip")

    history = releases.releases_of(conn, aid)
    if history:
        st.subheader("Releases")
        st.dataframe(pd.DataFrame([{"Release": h["id"], "Released at": format_timestamp(h["released_at"]),
                                    "Released by": h["released_by"], "Items": h["n_items"], "Note": h["note"]}
                                   for h in history]), hide_index=True, width="stretch")
