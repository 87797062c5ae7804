"""The student page's appeal part (issue 26): a student's appeals of one released item with their
outcomes, and the form to ask for a second look (criteria, a reason each, at most 1,000
characters). The student page (pages/_student_view.py) calls `render` for each released item
it shows, with the item of core.students.page.view, whose "appeal" is core.appeals.filing's
data: no core read here, so the page reads core once per run. Filing goes through
core.appeals.filing.file (it checks the student actor first). Student and teacher words are
escaped (core.text.escape_markdown), never Markdown or HTML, and wrap at phone width."""
from __future__ import annotations

import streamlit as st

from core.appeals import filing
from core.errors import FairMarkError
from core.text import format_timestamp
from pages import _common
from pages._i18n import N_, date, number, said, t, tn

STATUS = {"open": N_("Waiting for your teacher"), "kept": N_("Your teacher kept the score"),
          "changed": N_("Your teacher changed the score")}


def _score(value) -> str:
    return "—" if value is None else f"{value:g}"


def _appeals(shown: list[dict]) -> None:
    for a in shown:
        with st.container(border=True):
            st.markdown(f"**{t(STATUS[a['status']])}** · " + t("asked {when}", when=format_timestamp(a["opened"]))
                        + (" · " + t("decided {when}", when=format_timestamp(a["decided"])) if a["decided"] else ""))
            for c in a["criteria"]:
                outcome = (" → " + t("new score {score}", score=_score(c["new_score"]))
                           if c["new_score"] is not None else "")
                st.markdown(f"**{_common.md(c['title'])}** · " + t("score {score}", score=_score(c["released_score"]))
                            + outcome)
                st.caption(t("What you wrote"))
                st.markdown(_common.md(c["reason"]))
            if a["note"]:
                st.caption(t("Note from {name}", name=_common.md(said(a["decided_by"]))))
                st.markdown(_common.md(a["note"]))


def _file(conn, actor, sid: int) -> None:
    """The button's callback: the criteria and reasons as the widgets hold them at the click."""
    ss = st.session_state
    reasons = {key: ss.get(f"sa_reason_{sid}_{key}", "") for key in ss.get(f"sa_criteria_{sid}") or []}
    try:
        filing.file(conn, sid, reasons, actor=actor)
    except FairMarkError as e:
        st.session_state[f"sa_result_{sid}"] = ("error", said(e))
    else:
        st.session_state[f"sa_result_{sid}"] = ("success", t("Sent. Your teacher will look at it again; the "
                                                             "outcome will show here."))
        for key in [k for k in st.session_state if str(k).startswith(f"sa_reason_{sid}_")]:
            del st.session_state[key]


def render(conn, actor, item: dict) -> None:
    """A released item's appeals and, while the student may file one, the form. `item` is the
    student page's released item: "submission_id" and "appeal" (core.appeals.filing.for_student's
    answer, gathered by core.students.page.view)."""
    sid = int(item["submission_id"])
    data = item["appeal"]
    st.markdown("**" + t("Ask for a second look") + "**")
    kind, message = st.session_state.pop(f"sa_result_{sid}", (None, None))
    if message:
        (st.error if kind == "error" else st.success)(_common.md(message))
    _appeals(data["appeals"])
    if not data["can_file"]:
        if data["why_not"] and data["why_not"] != filing.ALREADY_OPEN:
            st.info(_common.md(said(data["why_not"])))
        return
    limit = data["max_reason"]
    st.caption(t("You can ask until {date} ({time}).", date=date(data["deadline"]),
                 time=format_timestamp(data["deadline"])) + " "
               + tn("Choose the criteria you disagree with and say why for each, in at most {count} character.",
                    "Choose the criteria you disagree with and say why for each, in at most {count} characters.",
                    limit))
    titles = {c["criterion"]: t("{criterion} (score {score})", criterion=c["title"], score=_score(c["released_score"]))
              for c in data["criteria"]}
    chosen = st.multiselect(t("Criteria"), list(titles), format_func=titles.get, key=f"sa_criteria_{sid}",
                            placeholder=t("Choose one or more"))
    for key in chosen:
        text = st.text_area(t("Why? {criterion}", criterion=titles[key]), key=f"sa_reason_{sid}_{key}", max_chars=limit,
                            help=tn("At most {count} character.", "At most {count} characters.", limit))
        st.caption(tn("{written} of {count} character", "{written} of {count} characters", limit,
                      written=number(len(text))))
    st.button(t("Send my appeal"), type="primary", key=f"sa_send_{sid}", disabled=not chosen,
              on_click=_file, args=(conn, actor, sid))
