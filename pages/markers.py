"""Markers: each marker's severity against the consensus, how they edit the AI's drafts and how
often they keep its scores. Coordinators see every marker; a marker sees only their own figures."""
import streamlit as st

from core.errors import FairMarkError
from core.moderation import markers
from core.text import escape_markdown
from pages import _common
from pages._i18n import said, t

st.title(t("Markers"))
st.caption(t("From the moderation samples: the consensus is the moderator's settled score where there is one, else "
             "the other marker's blind mark, never the marker's own. Intervals resample students."))
conn = _common.get_db()
cid = _common.require_course()

if cid is not None:
    try:
        view = markers.figures(conn, cid, actor=_common.actor())
    except FairMarkError as e:
        _common.show_error(e)
        st.stop()
    if not view["markers"]:
        st.info(t("No markers in this course yet: grant instructors or teaching assistants the course."))
    for fig in view["markers"]:
        with st.container(border=True):
            st.subheader(escape_markdown(_common.person(fig["marker"])))
            if fig["severity"]:
                st.markdown("\n".join(f"- {escape_markdown(said(s['text']))}" for s in fig["severity"]))   # core's
            else:
                st.caption(t("No item marked twice yet."))
            edits = said(fig["edits"]["text"])   # core's Message, in the reader's language
            st.caption(escape_markdown(edits[:1].upper() + edits[1:]))
