"""Review page, queue half: group counts, filters, one page of items, bulk approval.

Navigation state lives in st.session_state (and the open item also in the address, so a
refresh keeps it: pages/_common.py): `review_item`, `review_pos` (the item's queue position when it was opened, so
"next" continues from there even after approval moved it), `review_page`, and the filters.
"""
from __future__ import annotations

import streamlit as st

from core.courses import browse
from core.signoff import triage
from core.errors import FairMarkError
from core.offline import LABEL as OFFLINE_LABEL
from core.signoff import bulk, eligibility, labels, review_view
from pages import _calibration, _common
from pages._i18n import N_, said, t, tn

FILTER_KEYS = ("rq_status", "rq_group", "rq_criterion", "rq_score", "rq_flag", "rq_search", "rq_bulk", "rq_all")
# The "no filter" choice of each selectbox. A real value, not None: keep_filters() writes the
# state back on every run, and Streamlit shows a selectbox whose state is None as unset
# ("Choose an option") instead of its "All ..." label.
ALL = "all"
STATUS_LABELS = {ALL: N_("All drafted"), "to_review": N_("To review"), "needs_attention": N_("Needs attention"),
                 "drafted": N_("Drafted"), "rejected": N_("Rejected"), "approved": N_("Approved"),
                 "released": N_("Released")}
FLAG_CHOICES = {ALL: N_("Any or none"), "any": N_("Has a flag")}   # then core's flags (core.signoff.labels)
FLAG_LABELS = {**FLAG_CHOICES, **labels.FLAG_LABELS}
GROUPS = review_view.GROUPS


def keep_filters() -> None:
    """Keep filter values while the item view hides their widgets (Streamlit drops the state
    of widgets that were not rendered in a run unless it is re-assigned)."""
    for key in FILTER_KEYS:
        if key in st.session_state:
            value = st.session_state[key]
            # None (state from before the sentinel) would show as "Choose an option".
            st.session_state[key] = ALL if value is None and key not in ("rq_search", "rq_bulk", "rq_score", "rq_all") else value


def _chosen(key: str):
    """A filter's value, None for the "all" choice."""
    value = st.session_state.get(key)
    return None if value in (None, ALL) else value


def current_filter() -> browse.QueueFilter:
    ss = st.session_state
    status, criterion = _chosen("rq_status"), _chosen("rq_criterion")
    return browse.QueueFilter(
        statuses=browse.STATUS_FILTERS.get(status) if status else None,
        group=_chosen("rq_group"),
        criterion=criterion,
        score=ss.get("rq_score") if criterion else None,
        flag=_chosen("rq_flag"),
        search=ss.get("rq_search") or "",
        everything=bool(ss.get("rq_all")),
    )


def open_item(submission_id: int, position) -> None:
    """Show this item (the page puts it in the address: pages/_common.set_address)."""
    st.session_state["review_item"] = int(submission_id)
    st.session_state["review_pos"] = [int(position[0]), int(position[1])]


def close_item() -> None:
    st.session_state.pop("review_item", None)
    st.session_state.pop("review_pos", None)


def flash(message: str, kind: str = "success") -> None:
    st.session_state["review_flash"] = (kind, message)


def show_flash() -> None:
    kind, message = st.session_state.pop("review_flash", (None, None))
    if message:
        getattr(st, kind)(message)


def _first_page() -> None:
    st.session_state["review_page"] = 0


def _filters(rubric) -> None:
    c1, c2, c3, c4, c5, c6 = st.columns([2, 2, 2, 1, 2, 3])
    c1.selectbox(t("Status"), list(STATUS_LABELS), format_func=lambda s: t(STATUS_LABELS[s]), key="rq_status",
                 on_change=_first_page)
    if st.session_state.get("rq_criterion") not in (ALL, *rubric.keys):
        st.session_state["rq_criterion"] = ALL  # another assignment's rubric
    c2.selectbox(t("Group"), [ALL, *GROUPS], format_func=lambda g: t("All groups") if g == ALL else t(triage.LABELS[g]),
                 key="rq_group", on_change=_first_page)
    c3.selectbox(t("Criterion"), [ALL, *rubric.keys],
                 format_func=lambda k: t("Any criterion") if k == ALL else rubric.criterion(k).title,
                 key="rq_criterion", on_change=_first_page)
    if st.session_state.get("rq_score") not in rubric.levels:
        st.session_state["rq_score"] = rubric.levels[0]
    c4.selectbox(t("Score"), rubric.levels, key="rq_score", on_change=_first_page,
                 disabled=_chosen("rq_criterion") is None)
    c5.selectbox(t("Flag"), list(FLAG_LABELS), key="rq_flag", on_change=_first_page,
                 format_func=lambda f: t(FLAG_CHOICES[f]) if f in FLAG_CHOICES else t(labels.FLAG_LABELS[f]))
    c6.text_input(t("Search text, name or student id"), key="rq_search", on_change=_first_page)
    st.toggle(t("Every item, not only those assigned to me"), key="rq_all", on_change=_first_page,
              help=t("Where a coordinator assigned markers, your queue shows your items; this shows all of them."))


def _row(row: dict, rubric) -> None:
    with st.container(border=True):
        c1, c2, c3, c4 = st.columns([3, 3, 6, 1], vertical_alignment="center")
        c1.markdown(f"**{_common.md(row['student_name'] or row['external_id'])}**  \n"
                    + (f"{_common.md(row['external_id'])} · " if row["external_id"] else "")
                    + tn("{count} word", "{count} words", row["word_count"]))
        c1.caption(t(triage.LABELS.get(row["priority"], "")) + (" · " + t("opened") if row["opened_at"] else ""))
        scores = row["scores"] or {}
        total = rubric.total(scores) if set(scores) >= set(rubric.keys) else None
        c2.markdown(t("Total") + f" **{'—' if total is None else f'{total:g}'}** / {rubric.max_total:g}"
                    + (" · " + t("edited") if row["edited"] else ""))
        # The offline baseline has no Reviewer verdict (issue 21): only its label.
        tags = ([] if row["is_offline"] else [t(labels.verdict_label(row["verdict"]))]) + [
            *(t(labels.label(labels.FLAG_LABELS, fl)) for fl in row["flags"])] + ([t(OFFLINE_LABEL)] if row["is_offline"] else [])
        tags += [t(eligibility.SHORT[r["code"]]) for r in row.get("held_back") or []
                 if r.get("code") in eligibility.SHORT and r.get("code") != eligibility.OFFLINE_ONLY]
        c2.caption(" · ".join(_common.md(str(tag)) for tag in tags))
        c3.text(row["excerpt"] + ("…" if row["word_count"] > 20 else ""))
        c4.button(t("Open"), key=f"open_{row['id']}", on_click=open_item, args=(row["id"], (row["priority"], row["id"])))


def _bulk(conn, aid: int, panel: dict | None) -> None:
    """The bulk approval panel as the page's view read it (`panel`: {"block", "state"})."""
    if not st.toggle(t("Bulk approve confident drafts"), key="rq_bulk",
                     help=t("Drafts on which the judges agreed and were sure, the Reviewer confirmed the comment, "
                            "with no veto, failed check or flag; each other item says why it is left out.")):
        return
    if panel is None:   # the view was read with the panel closed (it opens with the toggle's click)
        return
    me = _common.actor()
    if block := panel["block"]:
        st.info(said(block))   # core's Message (core.calibration.readiness.block_text)
        return
    state = panel["state"]
    if state.candidates == 0:
        st.info(t("No drafts qualify for bulk approval right now."))
        return
    bands = ", ".join(t("{count} in the {band} band", count=n, band=b) for b, n in sorted(state.by_band.items()))
    st.markdown(tn("{n} drafts qualify ({bands}). Before approving them together, open a stratified sample (at "
                   "least one per band) and check it.", "{n} drafts qualify ({bands}). Before approving them "
                   "together, open a stratified sample (at least one per band) and check it.", state.candidates,
                   n=f"**{state.candidates}**", bands=bands))
    if state.stale:
        st.caption(tn("{count} sampled item(s) got a new AI draft since they were drawn, so they no longer count: "
                      "draw the sample again and open the new items.", "{count} sampled item(s) got a new AI draft "
                      "since they were drawn, so they no longer count: draw the sample again and open the new items.",
                      len(state.stale)))
    if state.missing:
        if st.button(t("Draw the sample"), key="rq_draw"):
            bulk.draw_sample(conn, aid, actor=me)
            st.rerun()
    for s in state.sample:
        c1, c2 = st.columns([5, 1], vertical_alignment="center")
        mark = (":green[:material/check_box:] " + t("opened") if s["opened_at"]
                else ":gray[:material/check_box_outline_blank:]")
        c1.markdown(f"{mark} {_common.md(s['student_name'])} (" + t("{band} band", band=s["band"]) + ")")
        c2.button(t("Open"), key=f"sample_{s['submission_id']}", on_click=open_item,
                  args=(s["submission_id"], (0, s["submission_id"])))
    if state.unopened:
        st.caption(tn("{count} sampled item(s) still to open.", "{count} sampled item(s) still to open.",
                      len(state.unopened)))
    if st.button(tn("Bulk approve {count} items…", "Bulk approve {count} items…", state.candidates), key="rq_bulk_go",
                 disabled=not state.checked):
        st.session_state["rq_confirm"] = state.candidates
    if st.session_state.get("rq_confirm"):
        _confirm(conn, aid, st.session_state["rq_confirm"])


def _cancel_confirm() -> None:
    st.session_state.pop("rq_confirm", None)


def _confirm(conn, aid: int, n: int) -> None:
    # Decorated here, not at import: the dialog's title is in this session's language.
    st.dialog(t("Confirm bulk approval"), on_dismiss=_cancel_confirm)(_confirm_body)(conn, aid, n)


def _confirm_body(conn, aid: int, n: int) -> None:
    st.markdown(tn("Approve {n} drafts as they are? Each approval is recorded in the audit log under your name; "
                   "they will still need to be released.", "Approve {n} drafts as they are? Each approval is "
                   "recorded in the audit log under your name; they will still need to be released.", n,
                   n=f"**{n}**"))
    c1, c2 = st.columns(2)
    if c1.button(tn("Approve {count} items", "Approve {count} items", n), type="primary", key="rq_confirm_yes"):
        _cancel_confirm()
        try:
            done = bulk.bulk_approve(conn, aid, expected=n, actor=_common.actor())
        except FairMarkError as e:
            flash(_common.md(said(e)), "error")
        else:
            flash(tn("Approved {count} items.", "Approved {count} items.", done))
        st.rerun()
    if c2.button(t("Cancel"), key="rq_confirm_no"):
        _cancel_confirm()
        st.rerun()


def render(conn, aid: int, view: dict) -> None:
    """The queue from the page's view (core.signoff.review_view.review_page)."""
    q = view["queue"]
    rubric = q["rubric"]
    show_flash()
    _calibration.queue_notice(view["readiness"], q["pending"])
    counts = q["counts"]
    shown = [g for g in GROUPS if counts.get(g)]
    if not shown:
        st.info(t("Nothing to review yet: run the assessment on the Assess page first.") if q["uploaded"]
                else t("Nothing to review yet: no reflections were uploaded for this assignment (Upload page)."))
        return
    for col, g in zip(st.columns(len(shown)), shown):
        col.metric(t(triage.LABELS[g]), counts[g])
    if "bulk_approve" in view["may"]:
        with st.container(border=True):
            _bulk(conn, aid, q["bulk"])
    _filters(rubric)
    page = st.session_state.get("review_page", 0)
    if q["error"]:
        _common.show_error(q["error"])
        return
    result = q["page"]
    if not result["rows"]:
        st.info(t("No items match these filters."))
    for row in result["rows"]:
        _row(row, rubric)
    c1, c2, c3 = st.columns([1, 1, 4], vertical_alignment="center")
    if c1.button("← " + t("Previous page"), key="rq_prev", disabled=page == 0):
        st.session_state["review_page"] = page - 1
        st.rerun()
    if c2.button(t("Next page") + " →", key="rq_next", disabled=not result["has_next"]):
        st.session_state["review_page"] = page + 1
        st.rerun()
    c3.caption(t("Page {page}", page=page + 1))
