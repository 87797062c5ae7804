"""Review page, which item is shown and moving between items: the item asked for, Previous /
Next and "Next item to decide" (widget callbacks, bound to the item they were drawn on), and
back to the queue."""
from __future__ import annotations

import dataclasses

import streamlit as st

from core.courses import browse
from core.signoff import actions
from pages import _common
from pages._i18n import t
from pages._review_queue import close_item, current_filter, flash, open_item


def requested() -> int | None:
    """The item the address or a click asked for (the view says whether it is shown)."""
    return st.session_state.get("review_item")


def follow(view: dict) -> dict | None:
    """The item the page's view shows, else None: an item of another assignment or course (a
    crafted address) is shown as no item at all and closed."""
    item = view["item"]
    if item is None:
        if requested() is not None:
            close_item()
        return None
    if not st.session_state.get("review_pos"):
        open_item(item["submission_id"], (item["priority"], item["submission_id"]))
    return item


def go(aid: int, sid: int, pos: tuple, forward: bool) -> None:
    """Previous / Next from the item the button was drawn on."""
    if st.session_state.get("review_item") != sid:
        return
    conn, me = _common.connect(), _common.actor()
    nxt = browse.queue_neighbour(conn, aid, tuple(pos), current_filter(), forward=forward, actor=me)
    if nxt is None:
        st.toast(t("This is the last item.") if forward else t("This is the first item."))
        return
    open_item(nxt, (browse.queue_position(conn, nxt, actor=me)[1], nxt))


def next_to_decide(aid: int, sid: int, pos: tuple) -> None:
    """The next item still waiting for a decision (within the filters), from the teacher's
    place onwards, then from the top of the queue; back to the queue when none is left."""
    if st.session_state.get("review_item") != sid:
        return
    conn, me = _common.connect(), _common.actor()
    flt = current_filter()
    statuses = tuple(s for s in (flt.statuses or actions.UNDECIDED) if s in actions.UNDECIDED)
    nxt = None
    if statuses:
        flt = dataclasses.replace(flt, statuses=statuses)
        nxt = browse.queue_neighbour(conn, aid, tuple(pos), flt, forward=True, actor=me)
        if nxt is None:
            nxt = browse.queue_neighbour(conn, aid, (-1, -1), flt, forward=True, actor=me)
    if nxt is not None:
        open_item(nxt, (browse.queue_position(conn, nxt, actor=me)[1], nxt))
        return
    close_item()
    left = browse.queue_page(conn, aid, browse.QueueFilter(statuses=actions.UNDECIDED), page_size=1, actor=me)["rows"]
    flash(t("Nothing left to decide in this assignment.") if not left
          else t("Nothing left to decide among the items your filters show."), "success")


def back_to_queue() -> None:
    close_item()
