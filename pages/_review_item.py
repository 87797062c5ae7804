"""Review page, item half: the submission, the AI's draft and the teacher's version side by side.

Every action is bound to the item and the review version it was drawn for: widget keys carry
both (`<name>_<submission>_<version>`), and the buttons' callbacks get them as `args`. A click
drawn for another item or an older version (a double click landing after the first one took
effect) is refused, never applied to whatever is on screen now; core refuses a stale version
too. After Approve or Reject the item stays on screen, marked, with "Next item to decide":
the next item never appears under a second click. A successful save (new version) refreshes
the widgets; someone else's save does not silently replace what this teacher is typing: their
next save is refused with a conflict message instead.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from core import checks, leakage
from core.courses import browse
from core.evals import rules
from core.signoff import triage
from core.agents import registry
from core.errors import FairMarkError
from core.judging import scoring
from core.offline import LABEL as OFFLINE_LABEL
from core.signoff import actions, eligibility, injection_view, labels
from core.text import format_timestamp
from pages import _anchored_notes, _appeal_review, _calibration, _comment_bank, _common, _evals_widgets
from pages._review_nav import back_to_queue, go, next_to_decide
from pages._review_queue import show_flash
from pages._i18n import N_, said, t, tn

COLORS = {True: "green", "warn": "orange", "fail": "red", "info": "gray"}
RESULT = "ri_result"  # (submission id, kind, message) of the last action, shown under the buttons


# The history table's columns (core.signoff.labels.history_rows), in the reader's language.
HISTORY_COLUMNS = {"When": N_("When"), "Who": N_("Who"), "Action": N_("Action"), "Reason": N_("Reason"),
                   "Change": N_("Change")}


def loaded_version(sid: int | None) -> int | None:
    """The review version this teacher's screen holds of the item (None: not opened yet)."""
    return None if sid is None else st.session_state.get(_loaded_key(sid))


def _loaded_key(sid: int) -> str:
    return f"review_loaded_{sid}"


def _result(sid: int, kind: str, message: str) -> None:
    st.session_state[RESULT] = (sid, kind, message)


def _refusal(e: FairMarkError):
    """A refusal's message as core gave it (a Message: shown by show_error in the reader's language)."""
    return e.args[0] if len(e.args) == 1 else str(e)


def _fresh(sid: int, version: int) -> bool:
    """Whether a click belongs to what is on screen now: this item, at the version it was drawn
    for. A stale click (the first click already changed the item) is dropped, not re-applied."""
    return st.session_state.get("review_item") == sid and st.session_state.get(_loaded_key(sid)) == version


def _nav(aid: int, data: dict) -> None:
    sid = data["submission"]["id"]
    pos = tuple(st.session_state.get("review_pos") or (data["submission"]["priority"], sid))
    c1, c2, c3, c4 = st.columns([2, 2, 2, 6], vertical_alignment="center")
    c1.button("← " + t("Queue"), key="ri_back", on_click=back_to_queue)
    c2.button("↑ " + t("Previous"), key="ri_prev", on_click=go, args=(aid, sid, pos, False))
    c3.button(t("Next") + " ↓", key="ri_next", on_click=go, args=(aid, sid, pos, True))
    student = data["student"]
    c4.markdown(f"**{_common.md(student['name'] or student['external_id'])}** · "
                + (f"{_common.md(student['external_id'])} · " if student["external_id"] else "")
                + t("status: {status}", status=t(labels.label(labels.STATUS_LABELS, data["submission"]["status"])))
                + (f" · {_version_text(sid, data['review']['version'])}" if data["review"] else ""))
    c4.caption(t("Queue group: {group}", group=t(triage.LABELS.get(data["submission"]["priority"], "")))
               + (" · " + t(OFFLINE_LABEL) if (data["draft"] or {}).get("is_offline") else ""))


def _bulk_reasons(shown: list[dict], rubric) -> None:
    """Why the item is kept out of bulk approval, while it waits for a decision (the view's
    `bulk_reasons`: what the item's status and attention reasons do not already say)."""
    if shown:
        st.info("**" + t("Not for bulk approval: check it yourself") + "**  \n"
                + "  \n".join(f"• {_common.md(said(eligibility.text_of(r, rubric)))}" for r in shown),
                icon=":material/rule:")


def _version_text(sid: int, latest: int) -> str:
    """The review version in the header: the one on screen, and the latest when it is newer
    (the same numbers the "changed since you opened it" message uses)."""
    loaded = st.session_state.get(_loaded_key(sid))
    if loaded is not None and loaded != latest:
        return t("you opened version {loaded}, the latest is version {latest}", loaded=loaded, latest=latest)
    return t("review version {version}", version=latest)


def _attention(data: dict) -> None:
    """Why the item needs a human, at the top (it used to be only in the Revisions tab)."""
    reasons = (data["draft"] or {}).get("attention_reasons") or []
    if not reasons:
        return
    text = "  \n".join(f"• {_common.md(said(r))}" for r in reasons)   # core's Messages (core.signoff.attention)
    if data["submission"]["status"] in actions.UNDECIDED:
        st.warning("**" + t("Why this item needs attention") + f"**  \n{text}", icon=":material/flag:")
    else:
        st.caption(t("It needed attention because: {reasons}", reasons="; ".join(_common.md(r) for r in reasons)))


# --- the item -------------------------------------------------------------------------------
def _submission(data: dict, rubric, notes: dict | None = None) -> None:
    sub, draft = data["submission"], data["draft"] or {}
    evaluation = draft.get("outputs", {}).get("evaluator") or {}
    quotes = [v.get("evidence_quote", "") for v in evaluation.values() if isinstance(v, dict)]
    st.subheader(t("Submission") + " · " + tn("{count} word", "{count} words", sub["word_count"]))
    flagged = injection_view.summary(sub["text"], draft.get("scores") or {}, rubric, evaluation)
    if flagged:  # what was found, where, and whether the scores look steered; highlighted below
        st.warning(_common.md(flagged["message"]) + "  \n" + _common.md(flagged["steering"]), icon=":material/flag:")
    height = labels.scroll_height(sub["text"], sub["word_count"])  # scroll long texts only
    box = {"border": True, **({"height": height} if height else {})}
    if st.toggle(t("Highlight evidence quotes and notes"), value=True, key="ri_highlight"):
        with st.container(**box):
            st.markdown(injection_view.highlight_markdown(sub["text"], quotes, (flagged or {}).get("spans", []),
                                                          notes=(notes or {}).get("notes", [])))
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
        st.caption(_common.md(t("Evidence for {criteria}: found in the text", criteria=", ".join(criteria)) if found
                              else t("Evidence for {criteria}: NOT found in the text (unfounded quote)",
                                     criteria=", ".join(criteria))))
        st.text(f"“{qt}”")


def _checks(results: list[dict]) -> None:
    """Pass/fail chips in one wrapping line; failed ones explained underneath."""
    chips = []
    for c in results:
        state = checks.status(c)     # a warning is not a failure: it gets its own icon and colour
        color = {"pass": "green", "warn": "orange"}.get(state, COLORS.get(c.get("severity"), "red"))
        icon = {"pass": ":material/check:", "warn": ":material/warning:"}.get(state, ":material/close:")
        word = {"pass": t("passed"), "warn": t("warning")}.get(state) or t("failed")
        chips.append(f":{color}-badge[{icon} {_common.md(said(c['label']))} ({word})]")
    st.markdown(" ".join(chips))
    for c in results:
        if not c["passed"] and c.get("detail"):
            st.caption(_common.md(f"{said(c['label'])}: {said(c['detail'])}"))   # core's Messages


def _values(sid: int, version: int, rubric) -> dict:
    """The editor's widget values as drawn for (item, version): read from their keys."""
    ss, k = st.session_state, f"{sid}_{version}"
    return {"scores": {c.key: ss.get(f"ri_score_{k}_{c.key}") for c in rubric.criteria},
            "comment": ss.get(f"ri_comment_{k}", ""), "reasons": ss.get(f"ri_reasons_{k}") or [],
            "note": ss.get(f"ri_note_{k}", "")}


def _do(verb: str, aid: int, sid: int, version: int, name: str) -> None:
    """Save / Approve / Reject / Back to review, bound to the item and version they were drawn for."""
    if not _fresh(sid, version):
        st.toast(t("That click was for an earlier state of this item, so nothing was done."))
        return
    conn, actor = _common.connect(), _common.actor()
    rubric = browse.assignment_rubric(conn, aid, actor=actor)
    v = _values(sid, version, rubric)
    try:
        if verb == "save":
            out = actions.save_edit(conn, sid, version=version, actor=actor, **v)
            message = (("success", t("Saved (version {version}).", version=out["version"])) if out["version"] != version
                       else ("info", t("Nothing to save: your scores, comment and note are unchanged.")))
        elif verb == "approve":
            out = actions.approve(conn, sid, version=version, actor=actor, **v)
            message = ("success", t("Approved {name}.", name=name))
        elif verb == "reject":
            out = actions.reject(conn, sid, version=version, note=v["note"], actor=actor)
            message = ("info", t("Rejected: the item is back in the queue with your note."))
        else:
            out = actions.back_to_review(conn, sid, version=version, actor=actor)
            message = ("success", t("Back to review: the approval is withdrawn (recorded in the history)."))
    except FairMarkError as e:  # a conflict included: its message says what changed
        _result(sid, "error", _refusal(e))
        return
    st.session_state[_loaded_key(sid)] = out["version"]  # our own change: no conflict warning for it
    _result(sid, *message)


def _use_draft(sid: int, draft_id: int, version: int) -> None:
    if not _fresh(sid, version):
        return
    try:
        out = actions.use_draft(_common.connect(), sid, draft_id, version=version, actor=_common.actor())
    except FairMarkError as e:
        _result(sid, "error", _refusal(e))
        return
    st.session_state[_loaded_key(sid)] = out["version"]
    _result(sid, "success", t("Now using draft #{draft} (version {version}).", draft=draft_id, version=out["version"]))


def _guidance(rubric) -> None:
    """The rubric's notes for graders (markers and the Evaluator read them; students never do)."""
    notes = [(c.title, c.guidance) for c in rubric.criteria if c.guidance.strip()]
    if notes:
        with st.expander(t("Notes for graders (not shown to students)")):
            for title, text in notes:
                st.markdown(f"**{_common.md(title)}**")
                st.text(text)


def _editor(conn, aid: int, data: dict, rubric, loaded: int, banks: dict | None = None,
            language: str = "en") -> None:
    sub, rv, draft = data["submission"], data["review"], data["draft"] or {}
    sid = sub["id"]
    k = f"{sid}_{loaded}"
    stale = loaded != rv["version"]
    approved = rv["status"] == "approved" and sub["status"] in ("approved", "released")
    rejected = rv["status"] == "rejected"
    st.subheader(t("Your version"))
    if rv["status"] != "in_review" or sub["status"] in ("approved", "released"):
        shown = sub["status"] if sub["status"] == "released" else rv["status"]
        st.info(t("Status: {status}", status="**" + t(labels.label(labels.STATUS_LABELS, shown)) + "**")
                + (" " + t("by {name}", name=_common.md(_common.person(rv["approved_by"]))) if rv["approved_by"] else "")
                + (f", {format_timestamp(rv['approved_at'])}" if rv["approved_at"] else "")
                + (" · " + t("released version locked; a change makes a new version that needs its own release")
                   if sub["status"] == "released" else ""))
    if rejected and rv["note"]:
        st.warning(t("Rejected: {note}", note=_common.md(rv["note"])))
    for crit in rubric.criteria:
        ai = (draft.get("scores") or {}).get(crit.key)
        current = rv["scores"].get(crit.key)
        st.selectbox(
            _common.md(crit.title) + " (" + t("AI: {score}", score="—" if ai is None else ai) + ")", rubric.levels,
            index=rubric.levels.index(current) if current in rubric.levels else None,
            format_func=lambda lvl, c=crit: f"{lvl} — {c.levels[lvl]}", key=f"ri_score_{k}_{crit.key}")
    _guidance(rubric)
    comment = st.text_area(t("Comment for the student"), height=200, key=f"ri_comment_{k}",  # the bank may set it
                           value=None if f"ri_comment_{k}" in st.session_state else rv["comment"])
    st.caption(tn("{count} word", "{count} words", checks.words(comment)) + " ("
               + t("limit {limit}", limit=checks.MAX_WORDS) + ")")
    _comment_bank.panel(data, banks, rubric, f"ri_comment_{k}")
    _checks(actions.comment_checks(comment, submission_text=sub["text"],
                                   evaluation=draft.get("outputs", {}).get("evaluator"),
                                   target_grade=data["assignment"]["target_grade"],
                                   answer_key=leakage.key_of(data["assignment"]), language=language))
    st.multiselect(t("Why did you change it?"), list(actions.REASONS), format_func=lambda r: t(actions.REASONS[r]),
                   key=f"ri_reasons_{k}", help=t("Required when you change a score or the comment."))
    st.text_input(t("Note (required for 'Other' and for Reject)"), value=rv["note"], key=f"ri_note_{k}")
    name = _common.md(data["student"]["name"] or data["student"]["external_id"])
    # Every button is drawn on every run (a refused action never hides the others) and carries
    # (item, version). Two rows of two: at 1440 px four buttons in this column cut "Regenerate".
    c1, c2 = st.columns(2)
    c3, c4 = st.columns(2)
    bound = {"on_click": _do, "width": "stretch", "disabled": stale}
    c1.button(t("Save"), key=f"ri_save_{k}", args=("save", aid, sid, loaded, name), **bound)
    c2.button(t("Approved") if approved else t("Approve"), type="primary", key=f"ri_approve_{k}",
              args=("approve", aid, sid, loaded, name), **{**bound, "disabled": stale or approved},
              help=t("Already approved: send it back to review first to change the decision.") if approved else None)
    c3.button(t("Rejected") if rejected else t("Reject"), key=f"ri_reject_{k}", args=("reject", aid, sid, loaded, name),
              **{**bound, "disabled": stale or rejected})
    offline = not _common.settings().llm_configured
    # Bound to the latest draft too: a second click after a new draft arrived is not a new request.
    regen = c4.button(t("Regenerate"), key=f"ri_regen_{k}_{data['latest_draft_id'] or 0}", width="stretch",
                      help=(t("The offline baseline is deterministic: it gives the same draft unless the assignment "
                              "or rubric changed. Your version stays.") if offline
                            else t("Ask for a new AI draft; your version stays.")))
    if approved or rejected:
        pos = tuple(st.session_state.get("review_pos") or (sub["priority"], sid))
        d1, d2 = st.columns(2)
        d1.button(t("Next item to decide") + " →", key=f"ri_nextdecide_{k}", type="primary", width="stretch",
                  on_click=next_to_decide,
                  args=(aid, sid, pos))
        if sub["status"] != "released":
            d2.button(t("Back to review"), key=f"ri_undo_{k}", args=("back", aid, sid, loaded, name), **bound,
                      help=t("Withdraw the decision before release; recorded in the history."))
    result = st.session_state.pop(RESULT, None)  # shown once, like a flash
    if result and result[0] == sid:
        kind, message = result[1], result[2]
        _common.show_error(message) if kind == "error" else getattr(st, kind)(message)
    if regen:
        with st.spinner(t("Drafting again…")):
            try:
                out = actions.regenerate(conn, sid, actor=_common.actor())
            except FairMarkError as e:
                _result(sid, "error", _refusal(e))
            else:
                if out.same and out.offline:
                    _result(sid, "info", t("The offline baseline gives the same draft: it is deterministic, so "
                                           "regenerating changes nothing unless the assignment or rubric changed. "
                                           "Your version is unchanged."))
                elif out.same:
                    _result(sid, "info", t("The new AI draft is the same as the current one. Your version is "
                                           "unchanged."))
                else:
                    _result(sid, "info", t("New draft #{draft} is ready below. Your version is unchanged unless you "
                                           "choose it.", draft=out.draft_id))
        st.rerun()


def _new_draft(new: dict | None, data: dict, loaded: int, rubric) -> None:
    if new is None:
        return
    with st.container(border=True):
        st.markdown("**" + t("A newer AI draft (#{draft}) exists.", draft=new["id"]) + "** "
                    + t("Your version stays unless you choose this one."))
        st.text(labels.scores_text(new["scores"], rubric) + " · " + t("total {total}", total=f"{new['total']:g}"))
        st.text(new["comment"])
        st.button(t("Use this draft as my version"), key=f"ri_use_{new['id']}_{loaded}", on_click=_use_draft,
                  args=(data["submission"]["id"], new["id"], loaded))


def _blocks(blocks: list[tuple[str, str]]) -> None:
    """A role's output as plain text (AI and student words are never rendered as Markdown)."""
    for kind, text in blocks:
        if kind == "heading":
            st.markdown(f"**{_common.md(text)}**")
        elif kind == "warning":
            st.warning(_common.md(text))
        else:
            st.text(said(text))   # core's Message (the offline baseline's reasoning) in the reader's language


def _ai_details(item: dict, rubric) -> None:
    """One tab per agent role that answered (from the role registry), then the revisions and
    the audit history."""
    data = item["data"]
    draft = data["draft"] or {}
    outputs = draft.get("outputs") or {}
    shown = [r for r in registry.roles() if r.name in outputs]
    judged = bool(draft.get("judging")) and not draft.get("is_offline")   # the offline baseline has no judges
    tabs = st.tabs([t(r.label) for r in shown] + ([t("Judges")] if judged else []) + [t("Revisions"), t("History")])
    for role, tab in zip(shown, tabs):
        with tab:
            if draft.get("is_offline"):
                st.caption(t(OFFLINE_LABEL))
            _blocks(role.describe(outputs[role.name], rubric))
    if judged:
        with tabs[len(shown)]:
            _blocks(scoring.describe(draft["judging"], rubric))
            cast = item["votes"]
            if cast:
                st.dataframe(pd.DataFrame(cast)[["criterion", "judge", "tier", "score", "confidence", "weight"]],
                             hide_index=True, width="stretch")
    with tabs[-2]:
        if not draft.get("is_offline"):   # the offline baseline has no Reviewer verdict (issue 21)
            st.markdown(f"**{_common.md(t(labels.verdict_label(draft.get('verdict'))))}** "
                        + tn("after {count} revision round", "after {count} revision rounds", draft.get("rounds") or 0))
        for reason in draft.get("attention_reasons") or []:
            st.warning(_common.md(said(reason)))
        for rev in draft.get("revisions") or []:
            with st.expander(t("Round {round}", round=rev.get("round"))):
                st.text(rev.get("comment", ""))
                if rev.get("failed_checks"):
                    names = {c.get("name"): said(c.get("label")) for c in rules.said(draft.get("checks") or [])
                             if isinstance(c, dict)}   # stored with their forms; an older draft's by its English
                    st.caption(t("Failed checks: {checks}", checks=_common.md(", ".join(
                        str(names.get(c) or labels.label({}, c)) for c in rev["failed_checks"]))))
    with tabs[-1]:
        history = _history(labels.history_rows(item["history"], rubric, _common.person))
        st.dataframe(history.rename(columns=lambda c: t(HISTORY_COLUMNS.get(c, c))), hide_index=True, width="stretch")


def _history(rows: list[dict]) -> pd.DataFrame:
    """The history table in the reader's language: the actions are core's labels, the reasons and
    changes its Messages (a typed reason as typed), said before the table is made (a DataFrame
    keeps only their English text)."""
    return pd.DataFrame([{**row, "Action": t(row["Action"]), "Reason": said(row["Reason"]),
                          "Change": said(row["Change"])} for row in rows])


def _reload(sid: int, version: int) -> None:
    st.session_state[_loaded_key(sid)] = version
    st.session_state.pop(RESULT, None)


def render(conn, aid: int, view: dict) -> None:
    """The item from the page's view (core.signoff.review_view.review_page)."""
    me, item = _common.actor(), view["item"]
    sid = item["submission_id"]
    if item["hidden"]:  # waiting for its blind score: nothing of the draft, a way to Calibrate
        _calibration.hidden_notice()
        st.button("← " + t("Queue"), key="ri_back_err", on_click=back_to_queue)
        return
    if item.get("blind"):  # re-marking an appeal blind: the text and the student's words only
        _appeal_review.render_blind(conn, item)
        return
    if item["error"]:
        _common.show_error(item["error"])
        st.button("← " + t("Queue"), key="ri_back_err", on_click=back_to_queue)
        return
    _common.set_address(item=sid)
    _common.know_people(item["people"])
    data, rubric, editable = item["data"], item["rubric"], item["editable"]
    vkey = _loaded_key(sid)
    if editable and vkey not in st.session_state:
        st.session_state[vkey] = data["review"]["version"]
    loaded = st.session_state.get(vkey)
    _nav(aid, data)
    if not editable:
        st.caption(_common.md(t("Read only: your role ({role}) may look at this item but not change it.",
                                role=me.role_label)))
    show_flash()
    _attention(data)
    if item["appeal"]:
        _appeal_review.panel(conn, item)
    _bulk_reasons(item["bulk_reasons"], rubric)
    _calibration.banner(view["readiness"], short=True)
    _calibration.offsets(view["offsets"])
    newer = item["changed"]
    if newer is not None:  # who saved, when and what, with the versions the header names
        st.warning(_common.md(said(newer)))
        st.button(t("Load the latest version"), key=f"ri_reload_{sid}", on_click=_reload,
                  args=(sid, data["review"]["version"]))
    left, right = st.columns([5, 4], gap="large")
    with left:
        _submission(data, rubric, item.get("anchored_notes"))
        _anchored_notes.panel(data, item.get("anchored_notes"), rubric, editable)
    with right:
        if editable:
            _editor(conn, aid, data, rubric, loaded, item.get("comment_bank"), item["language"])
            _new_draft(item["newer_draft"], data, loaded, rubric)
        elif data["draft"]:
            st.subheader(t("The AI's draft"))
            st.text(labels.scores_text(data["draft"]["scores"], rubric))
            st.text(data["draft"]["comment"] or "")
    _ai_details(item, rubric)
    if editable:
        _evals_widgets.review_item(conn, item)
