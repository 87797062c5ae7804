"""Review page, item half: the submission, the AI's draft and the teacher's version side by side.

Widget keys carry the review version the teacher loaded, so a successful save (new version)
refreshes the widgets, while someone else's save does not silently replace what this teacher
is typing: their next save is refused with a conflict message instead.
"""
from __future__ import annotations

import dataclasses

import pandas as pd
import streamlit as st

from core import checks, leakage, triage
from core.agents import registry
from core.errors import FairMarkError
from core.judging import scoring
from core.offline import LABEL as OFFLINE_LABEL
from core.signoff import actions, labels
from core.text import escape_markdown
from db import courses, drafts, queue, reviews, votes
from pages import _calibration, _common, _evals_widgets
from pages._review_queue import close_item, current_filter, flash, open_item, show_flash

COLORS = {True: "green", "warn": "orange", "fail": "red", "info": "gray"}


def current_item(conn, aid: int) -> int | None:
    sid = st.session_state.get("review_item")
    if sid is None and st.query_params.get("item", "").isdigit():
        sid = int(st.query_params["item"])
    if sid is None:
        return None
    row = queue.position(conn, sid)
    if row is None or row[0] != aid:
        close_item()
        return None
    if st.session_state.get("review_item") != sid or not st.session_state.get("review_pos"):
        open_item(sid, (row[1], sid))
    return sid


def _go(conn, aid: int, forward: bool) -> bool:
    pos = st.session_state.get("review_pos")
    nxt = queue.neighbour(conn, aid, tuple(pos), current_filter(), forward=forward) if pos else None
    if nxt is None:
        return False
    open_item(nxt, (queue.position(conn, nxt)[1], nxt))
    return True


def _next_undecided(conn, aid: int) -> int | None:
    """After a decision: the next item still waiting for one (within the filters), from the
    teacher's place onwards, then from the top of the queue; None when nothing is left."""
    flt = current_filter()
    statuses = tuple(s for s in (flt.statuses or actions.UNDECIDED) if s in actions.UNDECIDED)
    if not statuses:
        return None
    flt = dataclasses.replace(flt, statuses=statuses)
    pos = st.session_state.get("review_pos")
    nxt = queue.neighbour(conn, aid, tuple(pos), flt, forward=True) if pos else None
    if nxt is None:
        nxt = queue.neighbour(conn, aid, (-1, -1), flt, forward=True)
    if nxt is not None:
        open_item(nxt, (queue.position(conn, nxt)[1], nxt))
    return nxt


def _after_decision(conn, aid: int, done: str, kind: str = "success") -> None:
    """Move on to the next undecided item, or back to the queue when none is left."""
    if _next_undecided(conn, aid) is not None:
        flash(f"{done} This is the next item to decide.", kind)
        return
    close_item()
    left = queue.queue(conn, aid, queue.QueueFilter(statuses=actions.UNDECIDED), page_size=1)["rows"]
    flash(f"{done} " + ("Nothing left to decide in this assignment." if not left
                        else "Nothing left to decide among the items your filters show."), kind)


def _nav(conn, aid: int, data: dict) -> None:
    c1, c2, c3, c4 = st.columns([2, 2, 2, 6], vertical_alignment="center")
    if c1.button("← Queue", key="ri_back"):
        close_item()
        st.rerun()
    if c2.button("↑ Previous", key="ri_prev"):
        if _go(conn, aid, forward=False):
            st.rerun()
        st.toast("This is the first item.")
    if c3.button("Next ↓", key="ri_next"):
        if _go(conn, aid, forward=True):
            st.rerun()
        st.toast("This is the last item.")
    student = data["student"]
    c4.markdown(f"**{escape_markdown(student['name'] or student['external_id'])}** · "
                f"{escape_markdown(student['external_id'])} · status: "
                f"{labels.label(labels.STATUS_LABELS, data['submission']['status'])}"
                f" · review version {data['review']['version']}")
    c4.caption(f"Queue group: {triage.LABELS.get(data['submission']['priority'], '')}"
               + (f" · {OFFLINE_LABEL}" if (data["draft"] or {}).get("is_offline") else ""))


def _submission(data: dict, rubric) -> None:
    sub, draft = data["submission"], data["draft"] or {}
    evaluation = draft.get("outputs", {}).get("evaluator") or {}
    quotes = [v.get("evidence_quote", "") for v in evaluation.values() if isinstance(v, dict)]
    st.subheader(f"Submission · {sub['word_count']} words")
    box = {"border": True, **({"height": 480} if sub["word_count"] > 220 else {})}  # scroll long texts only
    if st.toggle("Highlight evidence quotes", value=True, key="ri_highlight"):
        with st.container(**box):
            st.markdown(labels.highlight_markdown(sub["text"], quotes))
    else:
        with st.container(**box):
            st.text(sub["text"])
    by_quote: dict[str, list[str]] = {}
    for key, ev in evaluation.items():
        qt = ((ev or {}).get("evidence_quote") or "").strip()
        if qt:
            by_quote.setdefault(qt, []).append(labels.criterion_title(rubric, key))
    for qt, criteria in by_quote.items():
        found = bool(labels.find_quotes(sub["text"], [qt]))
        st.caption("Evidence for " + ", ".join(criteria) + (": found in the text" if found
                                                           else ": NOT found in the text (unfounded quote)"))
        st.text(f"“{qt}”")


def _checks(results: list[dict]) -> None:
    """Pass/fail chips in one wrapping line; failed ones explained underneath."""
    chips = []
    for c in results:
        state = checks.status(c)     # a warning is not a failure: it gets its own icon and colour
        color = {"pass": "green", "warn": "orange"}.get(state, COLORS.get(c.get("severity"), "red"))
        icon = {"pass": ":material/check:", "warn": ":material/warning:"}.get(state, ":material/close:")
        word = {"pass": "passed", "warn": "warning"}.get(state, "failed")
        chips.append(f":{color}-badge[{icon} {escape_markdown(c['label'])} ({word})]")
    st.markdown(" ".join(chips))
    for c in results:
        if not c["passed"] and c.get("detail"):
            st.caption(escape_markdown(f"{c['label']}: {c['detail']}"))


def _editor(conn, aid: int, data: dict, rubric, loaded: int) -> None:
    sid, rv, draft = data["submission"]["id"], data["review"], data["draft"] or {}
    k = f"{sid}_{loaded}"
    st.subheader("Your version")
    if rv["status"] != "in_review" or data["submission"]["status"] in ("approved", "released"):
        shown = data["submission"]["status"] if data["submission"]["status"] == "released" else rv["status"]
        st.info(f"Status: **{labels.label(labels.STATUS_LABELS, shown)}**"
                + (f" by {escape_markdown(rv['approved_by'])}" if rv["approved_by"] else "")
                + (" · released version locked; a change makes a new version that needs its own release"
                   if data["submission"]["status"] == "released" else ""))
    if rv["status"] == "rejected" and rv["note"]:
        st.warning("Rejected: " + escape_markdown(rv["note"]))
    scores = {}
    for crit in rubric.criteria:
        ai = (draft.get("scores") or {}).get(crit.key)
        current = rv["scores"].get(crit.key)
        scores[crit.key] = st.selectbox(
            f"{crit.title} (AI: {'—' if ai is None else ai})", rubric.levels,
            index=rubric.levels.index(current) if current in rubric.levels else None,
            format_func=lambda lvl, c=crit: f"{lvl} — {c.levels[lvl]}", key=f"ri_score_{k}_{crit.key}")
    comment = st.text_area("Comment for the student", value=rv["comment"], height=200, key=f"ri_comment_{k}")
    st.caption(f"{checks.words(comment)} words (limit {checks.MAX_WORDS})")
    _checks(actions.comment_checks(comment, submission_text=data["submission"]["text"],
                                   evaluation=draft.get("outputs", {}).get("evaluator"), target_grade=data["assignment"]["target_grade"],
                                   answer_key=leakage.key_of(data["assignment"])))
    reasons = st.multiselect("Why did you change it?", list(actions.REASONS), format_func=actions.REASONS.get,
                             key=f"ri_reasons_{k}", help="Required when you change a score or the comment.")
    note = st.text_input("Note (required for 'Other' and for Reject)", value=rv["note"], key=f"ri_note_{k}")
    actor = _common.actor()
    # Two rows of two: at 1440 px four buttons in this column cut "Regenerate" short.
    c1, c2 = st.columns(2)
    c3, c4 = st.columns(2)
    clean = {kk: v for kk, v in scores.items()}
    try:
        if c1.button("Save", key=f"ri_save_{k}", width="stretch"):
            saved = actions.save_edit(conn, sid, version=loaded, scores=clean, comment=comment, reasons=reasons,
                                     note=note, actor=actor)
            st.session_state[f"review_loaded_{sid}"] = saved["version"]
            flash(f"Saved (version {saved['version']}).")
            st.rerun()
        if c2.button("Approve", type="primary", key=f"ri_approve_{k}", width="stretch"):
            out = actions.approve(conn, sid, version=loaded, scores=clean, comment=comment, reasons=reasons,
                                 note=note, actor=actor)
            st.session_state[f"review_loaded_{sid}"] = out["version"]
            name = escape_markdown(data["student"]["name"] or data["student"]["external_id"])
            _after_decision(conn, aid, f"Approved {name}.")
            st.rerun()
        if c3.button("Reject", key=f"ri_reject_{k}", width="stretch"):
            out = actions.reject(conn, sid, version=loaded, note=note, actor=actor)
            # Our own change: without this, coming back to the item warns of a conflict.
            st.session_state[f"review_loaded_{sid}"] = out["version"]
            _after_decision(conn, aid, "Rejected: the item is back in the queue with your note.", "info")
            st.rerun()
        if c4.button("Regenerate", key=f"ri_regen_{k}", width="stretch",
                     help="Ask for a new AI draft; your version stays."):
            with st.spinner("Drafting again…"):
                new_id = actions.regenerate(conn, sid, actor=actor)
            flash(f"New draft #{new_id} is ready below. Your version is unchanged unless you choose it.", "info")
            st.rerun()
    except FairMarkError as e:  # ConflictError included: its message says what changed
        st.error(str(e))


def _new_draft(conn, data: dict, loaded: int, rubric) -> None:
    latest = data["latest_draft_id"]
    if not latest or latest == data["review"]["draft_id"]:
        return
    new = drafts.get_draft(conn, latest)
    with st.container(border=True):
        st.markdown(f"**A newer AI draft (#{latest}) exists.** Your version stays unless you choose this one.")
        st.text(labels.scores_text(new["scores"], rubric) + f" · total {new['total']:g}")
        st.text(new["comment"])
        if st.button("Use this draft as my version", key=f"ri_use_{latest}_{loaded}"):
            try:
                out = actions.use_draft(conn, data["submission"]["id"], latest, version=loaded, actor=_common.actor())
            except FairMarkError as e:
                st.error(str(e))
            else:
                st.session_state[f"review_loaded_{data['submission']['id']}"] = out["version"]
                flash(f"Now using draft #{latest} (version {out['version']}).")
                st.rerun()


def _blocks(blocks: list[tuple[str, str]]) -> None:
    """A role's output as plain text (AI and student words are never rendered as Markdown)."""
    for kind, text in blocks:
        if kind == "heading":
            st.markdown(f"**{escape_markdown(text)}**")
        elif kind == "warning":
            st.warning(escape_markdown(text))
        else:
            st.text(text)


def _ai_details(conn, data: dict, rubric) -> None:
    """One tab per agent role that answered (from the role registry), then the revisions and
    the audit history."""
    draft = data["draft"] or {}
    outputs = draft.get("outputs") or {}
    shown = [r for r in registry.roles() if r.name in outputs]
    judged = bool(draft.get("judging")) and not draft.get("is_offline")   # the offline baseline has no judges
    tabs = st.tabs([r.label for r in shown] + (["Judges"] if judged else []) + ["Revisions", "History"])
    for role, tab in zip(shown, tabs):
        with tab:
            if draft.get("is_offline"):
                st.caption(OFFLINE_LABEL)
            _blocks(role.describe(outputs[role.name], rubric))
    if judged:
        with tabs[len(shown)]:
            _blocks(scoring.describe(draft["judging"], rubric))
            cast = votes.of(conn, "submission", data["submission"]["id"], draft_id=draft["id"])
            if cast:
                st.dataframe(pd.DataFrame(cast)[["criterion", "judge", "tier", "score", "confidence", "weight"]],
                             hide_index=True, width="stretch")
    with tabs[-2]:
        st.markdown(f"Verdict: **{draft.get('verdict') or '—'}** after {draft.get('rounds', 0)} revision round(s)")
        for reason in draft.get("attention_reasons") or []:
            st.warning(escape_markdown(reason))
        for rev in draft.get("revisions") or []:
            with st.expander(f"Round {rev.get('round')}"):
                st.text(rev.get("comment", ""))
                if rev.get("failed_checks"):
                    names = {c.get("name"): c.get("label") for c in draft.get("checks") or [] if isinstance(c, dict)}
                    st.caption("Failed checks: " + escape_markdown(", ".join(
                        str(names.get(c) or labels.label({}, c)) for c in rev["failed_checks"])))
    with tabs[-1]:
        rows = labels.history_rows(reviews.history(conn, data["submission"]["id"]), rubric)
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def render(conn, aid: int, sid: int) -> None:
    try:
        actions.open_item(conn, sid, actor=_common.actor())
        data = reviews.item(conn, sid)
    except FairMarkError as e:
        st.error(str(e))
        if st.button("← Queue", key="ri_back_err"):
            close_item()
            st.rerun()
        return
    rubric = courses.get_rubric(conn, data["assignment"]["rubric_id"])
    vkey = f"review_loaded_{sid}"
    if vkey not in st.session_state:
        st.session_state[vkey] = data["review"]["version"]
    loaded = st.session_state[vkey]
    _nav(conn, aid, data)
    show_flash()
    _calibration.banner(conn, aid, short=True)
    _calibration.offsets(conn, aid)
    if loaded != data["review"]["version"]:
        st.warning(f"This item changed since you opened it (you have version {loaded}, the latest is "
                   f"{data['review']['version']}). Saving is refused until you load the latest version.")
        if st.button("Load the latest version", key=f"ri_reload_{sid}"):
            st.session_state[vkey] = data["review"]["version"]
            st.rerun()
    left, right = st.columns([5, 4], gap="large")
    with left:
        _submission(data, rubric)
    with right:
        _editor(conn, aid, data, rubric, loaded)
        _new_draft(conn, data, loaded, rubric)
    _ai_details(conn, data, rubric)
    _evals_widgets.review_item(conn, data)
