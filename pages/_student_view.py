"""The student page (issue 26): what a browser with a live student cookie and no staff session
sees, and nothing else (no menu, no sidebar, no sign-in form). One column that reads on a phone.

The cookie (`fairmark_student`, HttpOnly) was set by /s/<token> or a Learner launch
(core.web.student); it is read server-side through st.context.cookies, like the staff session's,
and checked again on every run (a revoked link stops at once). The page calls core once per run
(core.students.page.view) and shows every text escaped (core.text.escape_markdown).
"""
from __future__ import annotations

import streamlit as st

from core.accounts.access import Actor
from core.signoff import anchored_notes
from core.students import page as student_page
from core.students import sessions
from core.text import escape_markdown
from pages import _i18n, _signin, _student_appeal
from pages._i18n import t

TOKEN = "_student_token"   # this Streamlit session's student token (tests set it; browsers cannot)


def _cookie() -> str | None:
    try:
        value = st.context.cookies.get(sessions.COOKIE)
    except (AttributeError, RuntimeError):
        return None
    return value if isinstance(value, str) else None


def visitor(conn) -> Actor | None:
    """The student of this browser: a live student cookie and no staff session (a teacher who
    opens a student's link in their own signed-in browser keeps the staff pages)."""
    token = st.session_state.get(TOKEN) or _cookie()
    if not token or _signin.current(conn, touch=False) is not None:
        return None
    return sessions.resume(conn, token)


def md(text) -> str:
    return escape_markdown(text).replace("\n", "  \n")


def appeal_spot(conn, me: Actor, item: dict) -> None:
    """One item's appeals and the form to ask for a second look (pages/_student_appeal.py), from
    the view's `appeal`: no second core read; sending calls core.appeals.filing.file."""
    _student_appeal.render(conn, me, item)


def notes_on_text(item: dict) -> None:
    """The teacher's notes on passages of the student's text: the text with the passages
    highlighted and numbered (escaped: core.signoff.anchored_notes), then the notes."""
    st.markdown("**" + t("Notes on your text") + "**")
    with st.container(border=True):
        st.markdown(anchored_notes.highlight_markdown(item["text"], item["notes"]))
    for n in item["notes"]:
        st.markdown(anchored_notes.note_markdown(n))


def render(conn, me: Actor, view: dict | None = None) -> None:
    """The page from app.py's one read of core (`view`), or read here (a test renders it alone)."""
    view = view if view is not None else student_page.view(conn, actor=me, language=_i18n.language())
    st.title(t("Your feedback"))
    if view["course"]:
        st.caption(md(view["course"]))
    if not view["items"]:
        st.info(t("Nothing has been released for you here yet. Your teacher checks every piece of feedback before "
                  "you see it; come back when they tell you it is ready."))
        return
    for item in view["items"]:
        with st.container(border=True):
            week = t("Week {week}: ", week=item["week"]) if item["week"] is not None else ""
            # "Week 1" needs no "Week 1: " before it (nor "Vecka 1: ": the title is the teacher's, often English)
            if item["assignment"].startswith((week.rstrip(": "), f"Week {item['week']}")):
                week = ""
            st.subheader(md(week + item["assignment"]))
            st.caption(md(t("Released on {date}", date=item["released"])))
            for c in item["criteria"]:
                score = t("not scored") if c["score"] is None else t("{part} of {whole}", part=c["score"], whole=c["max"])
                st.markdown(f"**{md(c['title'])}**: {md(score)}")
                if c["level"]:
                    st.caption(md(c["level"]))
            if item["total"] is not None:
                st.markdown(md(t("Total: {total} of {max}", total=item["total"], max=item["max_total"])))
            st.markdown("**" + t("Comment") + "**")
            st.markdown(md(item["comment"]))
            if item.get("notes"):
                notes_on_text(item)
            st.caption(md(item["disclosure"]))
            if item["appeal"] is not None:
                appeal_spot(conn, me, item)
