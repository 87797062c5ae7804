"""Second marking: mark the items of the moderation sample you were given, blind. Nothing of the
first marker's scores or the AI's draft is shown for an item until you have committed your mark."""
import streamlit as st

from core.errors import FairMarkError
from core.moderation import marking
from core.text import escape_markdown
from pages import _common
from pages._i18n import t, tn

st.title(t("Second marking"))
st.caption(t("A coordinator drew a sample of this assignment to be marked twice. Mark each of your items without "
             "seeing the first marker's scores or the AI's draft; they appear once you commit. A second mark is final."))
conn = _common.get_db()
aid = _common.require_assignment()


def _open(sid) -> None:
    st.session_state["sm_item"] = sid


if aid is not None:
    me = _common.actor()
    try:
        view = marking.marking_page(conn, aid, item=st.session_state.get("sm_item"), actor=me)
    except FairMarkError as e:
        _common.show_error(e)
        st.stop()
    rubric, seen = view["rubric"], view["item"]
    if seen is None:
        if not view["items"]:
            st.info(t("You have no items to mark a second time in this assignment."))
        for row in view["items"]:
            with st.container(border=True):
                c1, c2 = st.columns([6, 2], vertical_alignment="center")
                c1.markdown(f"**{escape_markdown(row['student'])}** · "
                            + (t("you marked it") if row["marked"] else t("not marked by you yet")))
                c2.button(t("Open") if row["marked"] else t("Mark blind"), key=f"sm_open_{row['submission_id']}",
                          on_click=_open, args=(row["submission_id"],))
    else:
        sid = seen["submission"]["id"]
        st.button("← " + t("Your items"), key="sm_back", on_click=_open, args=(None,))
        left, right = st.columns([5, 4], gap="large")
        with left:
            st.subheader(t("Reflection") + " · " + tn("{count} word", "{count} words", seen["submission"]["word_count"]))
            with st.container(border=True):
                st.text(seen["submission"]["text"])
        with right:
            if not seen["marked"]:
                st.subheader(t("Your blind mark"))
                picked = {c.key: st.selectbox(_common.md(c.title), rubric.levels, index=None, key=f"sm_score_{sid}_{c.key}",
                                              format_func=lambda lvl, c=c: f"{lvl} — {c.levels[lvl]}")
                          for c in rubric.criteria}
                if st.button(t("Commit my mark"), type="primary", key=f"sm_save_{sid}",
                             disabled=any(v is None for v in picked.values())):
                    try:
                        marking.mark(conn, sid, picked, actor=me)
                    except FairMarkError as e:
                        _common.show_error(e)
                    else:
                        st.rerun()
            else:
                st.subheader(t("Your mark, the first marker's and the AI's"))
                first, ai = seen.get("first") or {}, (seen.get("ai") or {}).get("scores") or {}
                st.dataframe([{t("Criterion"): c.title, t("You (blind)"): seen["mine"].get(c.key),
                               t("First marker"): first.get(c.key), t("AI"): ai.get(c.key)} for c in rubric.criteria],
                             hide_index=True, width="stretch")
                if seen.get("ai"):
                    st.caption(t("The AI's draft comment"))
                    st.text(seen["ai"]["comment"] or "(" + t("no comment drafted") + ")")
