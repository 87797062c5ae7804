"""Review page, an item's appeal (core.appeals.deciding): the student's words per criterion, a
blind re-mark (the released score and the AI's draft hidden until the teacher commits theirs),
and the decision: keep or change, with a note to the student either way."""
from __future__ import annotations

import streamlit as st

from core.appeals import deciding
from core.errors import FairMarkError
from core.signoff import actions
from core.text import format_timestamp
from pages import _common
from pages._i18n import N_, said, t
from pages._review_nav import back_to_queue
from pages._review_queue import flash

BLIND = "ri_appeal_blind"   # the items this teacher re-marks blind (session state)
OUTCOMES = {"keep": N_("Keep the released score"), "change": N_("Change the score")}


def blind_requested(sid: int | None) -> bool:
    """Whether the teacher asked to re-mark this item's appeal blind (the page's read hides the rest)."""
    return sid is not None and sid in st.session_state.get(BLIND, ())


def _blind(sid: int, on: bool) -> None:
    shown = set(st.session_state.get(BLIND, ()))
    st.session_state[BLIND] = (shown | {sid}) if on else (shown - {sid})


def _title(rubric, key: str) -> str:
    return rubric.criterion(key).title if key in rubric.keys else key


def _words(appeal: dict, rubric, *, scores: bool) -> None:
    for c in appeal["criteria"]:
        extra = "" if not scores else " · " + t("released score {score}", score=f"{c['released_score']:g}")
        if scores and appeal["blind_scores"] and c["criterion"] in appeal["blind_scores"]:
            extra += " · " + t("your blind re-mark {score}", score=appeal["blind_scores"][c["criterion"]])
        st.markdown(f"**{_common.md(_title(rubric, c['criterion']))}**{extra}")
        st.text(c["reason"])   # the student's words: never Markdown


def render_blind(conn, item: dict) -> None:
    """The blind re-mark: the reflection, the appealed criteria with the student's words, the
    score pickers; nothing of the released score or the AI's draft."""
    data, sid = item["blind"], item["submission_id"]
    rubric = data["rubric"]
    st.button("← " + t("Queue"), key="ri_back_blind", on_click=back_to_queue)
    st.info(t("Blind re-mark of an appeal: the released score and the AI's draft stay hidden until you commit "
              "your scores. Committed scores are final; then you decide the appeal as usual."))
    left, right = st.columns([5, 4], gap="large")
    with left:
        st.subheader(t("Submission"))
        with st.container(border=True):
            st.text(data["text"])
    with right:
        st.subheader(t("What the student asks"))
        _words(data, rubric, scores=False)
        picked = {}
        for c in data["criteria"]:
            crit = rubric.criterion(c["criterion"])
            picked[crit.key] = st.selectbox(t("Your score: {criterion}", criterion=_common.md(crit.title)),
                                            rubric.levels, index=None,
                                            format_func=lambda lvl, c=crit: f"{lvl} — {c.levels[lvl]}",
                                            key=f"ap_blind_{sid}_{crit.key}")
        if st.button(t("Commit blind re-mark"), type="primary", key=f"ap_blind_commit_{sid}",
                     disabled=any(v is None for v in picked.values())):
            try:
                deciding.remark(conn, data["appeal_id"], picked, actor=_common.actor())
            except FairMarkError as e:
                _common.show_error(e)
            else:
                flash(t("Blind re-mark committed. The released score is shown beside it now."))
                st.rerun()
        st.button(t("Leave the blind re-mark"), key=f"ap_blind_leave_{sid}", on_click=_blind, args=(sid, False))


def _decide(conn, appeal: dict, picked: dict, outcome: str, reason, note: str, version) -> None:
    try:
        out = deciding.decide(conn, appeal["appeal_id"], actor=_common.actor(), outcome=outcome,
                              scores=picked if outcome == "change" else None, reason_code=reason, note=note,
                              version=version)
    except FairMarkError as e:
        _common.show_error(e)
        return
    st.session_state.pop(f"review_loaded_{appeal['submission_id']}", None)  # our own new version: no conflict
    if out["status"] == "kept":
        flash(t("Appeal decided: the score is kept. The student sees your note."))
    elif out["released"]:
        flash(t("Appeal decided: the score is changed and released to the student and sent to the LMS.")
              if (out["lms"] or {}).get("linked") else
              t("Appeal decided: the score is changed and released to the student."))
    else:
        flash(said(out["waiting"]), "warning")
    st.rerun()


def panel(conn, item: dict) -> None:
    """The item's open appeal above the editor: the student's words and, for a teacher who may
    review, the blind re-mark button and the decision form."""
    appeal, rubric, sid = item["appeal"], item["rubric"], item["submission_id"]
    with st.container(border=True):
        st.markdown("**" + t("Appeal from the student") + f"** · {format_timestamp(appeal['opened'])}")
        _words(appeal, rubric, scores=True)
        if not item["editable"]:
            return
        if appeal["blind_scores"] is None:
            st.button(t("Re-mark blind first"), key=f"ap_blind_start_{sid}", on_click=_blind, args=(sid, True),
                      help=t("Hide the released score and the AI's draft until you commit your own scores."))
        with st.form(f"ap_decide_{appeal['appeal_id']}"):
            outcome = st.radio(t("Decision"), list(OUTCOMES), format_func=lambda o: t(OUTCOMES[o]), horizontal=True,
                               key=f"ap_outcome_{sid}")
            picked = {}
            for c in appeal["criteria"]:
                crit = rubric.criterion(c["criterion"])
                start = (appeal["blind_scores"] or {}).get(crit.key, c["released_score"])
                picked[crit.key] = st.selectbox(
                    t("New score: {criterion} (for a change)", criterion=_common.md(crit.title)), rubric.levels,
                    index=rubric.levels.index(int(start)) if start is not None else None,
                    format_func=lambda lvl, c=crit: f"{lvl} — {c.levels[lvl]}", key=f"ap_score_{sid}_{crit.key}")
            reason = st.selectbox(t("Why did you change it? (for a change)"), list(actions.REASONS), index=None,
                                  format_func=lambda r: t(actions.REASONS[r]), key=f"ap_reason_{sid}")
            note = st.text_area(t("Note to the student (required)"), key=f"ap_note_{sid}",
                                help=t("The student sees it with the outcome, whether you keep or change the score."))
            if st.form_submit_button(t("Decide the appeal"), type="primary"):
                # the version the teacher opened (the review item's own conflict check keeps it)
                seen = st.session_state.get(f"review_loaded_{sid}", (item.get("review") or {}).get("version"))
                _decide(conn, appeal, picked, outcome, reason, note, seen)
