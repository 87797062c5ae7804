"""Review: the queue (most-needed first) or one item, chosen by the `item` query parameter.
Everything a run shows comes from one read (core.signoff.review_view.review_page)."""
import streamlit as st

from core.signoff import review_view
from pages import _appeal_review, _common, _review_item, _review_nav, _review_queue
from pages._i18n import t

st.title(t("Review"))
conn = _common.get_db()
aid = _common.require_assignment()
if aid is not None:
    _review_queue.keep_filters()
    sid = _review_nav.requested()
    view = review_view.review_page(conn, aid, actor=_common.actor(), item=sid,
                                   loaded_version=_review_item.loaded_version(sid),
                                   flt=_review_queue.current_filter(), page=st.session_state.get("review_page", 0),
                                   with_bulk=bool(st.session_state.get("rq_bulk")),
                                   appeal_blind=_appeal_review.blind_requested(sid))
    if _review_nav.follow(view) is None:
        _review_queue.render(conn, aid, view)
    else:
        _review_item.render(conn, aid, view)
