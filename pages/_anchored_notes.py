"""The review item's notes on the text (issue 27): the teacher's notes on passages of the
submission, the AI's suggested ones to keep, edit or drop, and a form to add one (pick sentences,
since Streamlit cannot read a selection, or paste a passage).

Notes, quotes and the student's sentences are untrusted text: shown escaped
(core.signoff.anchored_notes.note_markdown) or as plain widget labels, never as HTML. The
buttons' callbacks write through core (which checks the actor) and leave their message for the
next run, so the page's one read (core.signoff.review_view) already shows the change."""
from __future__ import annotations

import streamlit as st

from core.errors import FairMarkError
from core.signoff import anchored_notes as notes_core
from pages import _common
from pages._i18n import t

NONE = ""   # "no criterion" in the pickers


def panel(data: dict, view: dict | None, rubric, editable: bool) -> None:
    """Under the submission: the item's notes from the page's view (`anchored_notes`)."""
    if view is None:
        return
    sid = data["submission"]["id"]
    st.markdown("**" + t("Notes on the text") + "**")
    if data["submission"]["status"] == "released" and editable:
        st.caption(t("Released: a note you add or change now reaches the student with this item's next release."))
    message = st.session_state.pop(f"an_result_{sid}", None)
    if message and message[0] == "error":   # core's refusal: a Message, in the reader's language
        _common.show_error(message[1])
    elif message:
        getattr(st, message[0])(_common.md(message[1]))
    criteria = [NONE, *rubric.keys]
    titles = {c.key: c.title for c in rubric.criteria}
    pick_criterion = {"format_func": lambda k: titles.get(k) or t("No criterion") if k else t("No criterion")}
    if not view["notes"] and not view["proposals"]:
        st.caption(t("No notes yet.") + (" " + t("Add one below: the student sees it beside the passage once released.")
                                         if editable else ""))
    for n in view["notes"]:
        with st.container(border=True):
            st.markdown(notes_core.note_markdown(n) + ("  \n:gray[" + t("suggested by the AI, kept") + "]"
                                                         if n["origin"] == "ai" else ""))
            if editable:
                with st.expander(t("Edit or delete"), key=f"an_editbox_{n['id']}"):
                    st.text_area(t("Note"), value=n["note"], key=f"an_text_{n['id']}", max_chars=notes_core.MAX_CHARS)
                    st.selectbox(t("Criterion"), criteria, key=f"an_crit_{n['id']}", **pick_criterion,
                                 index=criteria.index(n["criterion"]) if n["criterion"] in criteria else 0)
                    c1, c2 = st.columns(2)
                    c1.button(t("Save note"), key=f"an_save_{n['id']}", on_click=_edit, args=(sid, n["id"]))
                    c2.button(t("Delete note"), key=f"an_del_{n['id']}", on_click=_delete, args=(sid, n["id"]))
    if view["proposals"]:
        st.markdown("**" + t("Suggested by the AI") + "** (" + t("the student sees only the ones you keep") + ")")
    for p in view["proposals"]:
        key = f"{sid}_{p['draft_id']}_{p['criterion']}"
        with st.container(border=True):
            proposal = dict(p)
            proposal["number"] = t("AI")   # in the note's number's place
            st.markdown(notes_core.note_markdown(proposal))
            if editable:
                st.text_area(t("Note to keep (edit it if you like)"), value=p["note"], key=f"an_prop_{key}",
                             max_chars=notes_core.MAX_CHARS)
                c1, c2 = st.columns(2)
                c1.button(t("Keep"), key=f"an_keep_{key}", on_click=_decide, args=(sid, p["draft_id"], p["criterion"], True))
                c2.button(t("Drop"), key=f"an_drop_{key}", on_click=_decide,
                          args=(sid, p["draft_id"], p["criterion"], False))
    if editable:
        _add(sid, view["sentences"], criteria, pick_criterion)


def _add(sid: int, sentences: list[dict], criteria: list[str], pick_criterion: dict) -> None:
    # keyed: it stays open while the lists above it grow and shrink
    with st.expander(t("Add a note on the text"), key=f"an_addbox_{sid}"):
        st.multiselect(t("Sentences of the submission"), [s["number"] for s in sentences], key=f"an_sent_{sid}",
                       format_func=lambda i: f"{i}. {_short(sentences[i - 1]['text'])}",
                       help=t("Pick one sentence, or several next to each other."))
        st.text_input(t("…or paste a passage from the submission"), key=f"an_quote_{sid}",
                      help=t("The words must occur in the submission (spaces and capitals aside)."))
        st.selectbox(t("Criterion (optional)"), criteria, key=f"an_newcrit_{sid}", **pick_criterion)
        st.text_area(t("Note for the student"), key=f"an_new_{sid}", max_chars=notes_core.MAX_CHARS)
        st.button(t("Add note"), key=f"an_add_{sid}", on_click=_do_add, args=(sid,))


def _short(text: str, n: int = 70) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


def _run(sid: int, done: str, write) -> bool:
    try:
        write(_common.connect(), _common.actor())
    except FairMarkError as e:
        st.session_state[f"an_result_{sid}"] = ("error", e.args[0] if len(e.args) == 1 else str(e))
        return False
    st.session_state[f"an_result_{sid}"] = ("success", done)
    return True


def _do_add(sid: int) -> None:
    ss = st.session_state
    if _run(sid, t("Note added."), lambda conn, me: notes_core.add(
            conn, sid, ss.get(f"an_new_{sid}", ""), actor=me, quote=ss.get(f"an_quote_{sid}", ""),
            sentences=ss.get(f"an_sent_{sid}") or None, criterion=ss.get(f"an_newcrit_{sid}") or None)):
        for k, empty in ((f"an_new_{sid}", ""), (f"an_quote_{sid}", ""), (f"an_sent_{sid}", [])):
            ss[k] = empty


def _edit(sid: int, note_id: int) -> None:
    ss = st.session_state
    _run(sid, t("Note saved."), lambda conn, me: notes_core.edit(
        conn, note_id, ss.get(f"an_text_{note_id}", ""), actor=me, criterion=ss.get(f"an_crit_{note_id}") or None))


def _delete(sid: int, note_id: int) -> None:
    _run(sid, t("Note deleted."), lambda conn, me: notes_core.delete(conn, note_id, actor=me))


def _decide(sid: int, draft_id: int, criterion: str, keep: bool) -> None:
    text = st.session_state.get(f"an_prop_{sid}_{draft_id}_{criterion}")
    _run(sid, t("Kept: the student sees this note once the item is released.") if keep else t("Dropped."),
         lambda conn, me: notes_core.decide(conn, sid, draft_id=draft_id, criterion=criterion, keep=keep, actor=me,
                                            note=text if keep else None))
