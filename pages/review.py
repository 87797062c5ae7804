"""Review: the queue (most-needed first) or one item, chosen by the `item` query parameter."""
import streamlit as st

from pages import _common, _review_item, _review_queue

st.title("Review")
conn = _common.get_db()
aid = _common.require_assignment()
if aid is not None:
    _review_queue.keep_filters()
    sid = _review_item.current_item(conn, aid)
    if sid is None:
        _review_queue.render(conn, aid)
    else:
        _review_item.render(conn, aid, sid)
