"""The review item's comment bank panel (issue 27): search the teacher's own bank and the course
bank, insert a comment after a chosen sentence of the comment (Streamlit has no cursor), save the
comment or one of its sentences to a bank, and import or export a bank as CSV.

Bank text is teacher text but untrusted like any typed text: it is shown in selectboxes and
st.text (plain), never as Markdown or HTML. The buttons' callbacks change the comment box's
session value, so the inserted text appears in the box before the teacher saves the item."""
from __future__ import annotations

import streamlit as st

from core.courses import comment_bank as bank
from core.errors import FairMarkError
from pages import _common
from pages._i18n import said, t, tn

END = -1  # "at the end" among the insert positions


def panel(data: dict, banks: dict | None, rubric, comment_key: str) -> None:
    """The bank panel under the comment box whose session key is `comment_key`; `banks` is the
    view's (core.courses.comment_bank.search_of: read with the page's one check)."""
    if banks is None:
        return
    sid, course_id = data["submission"]["id"], data["assignment"]["course_id"]
    k = comment_key.removeprefix("ri_comment_")
    with st.expander(t("Comment bank")):
        query = st.text_input(t("Search the bank"), key=f"cb_query_{k}", placeholder=t("any words of a comment"))
        found = {"mine": bank.matching(banks["mine"], query), "course": bank.matching(banks["course"], query)}
        shown = [(t("Yours"), r) for r in found["mine"]] + [(t("Course"), r) for r in found["course"]]
        titles = {c.key: c.title for c in rubric.criteria}
        message = st.session_state.pop(f"cb_result_{k}", None)
        if message:
            getattr(st, message[0])(_common.md(message[1]))
        sentences = bank.sentences(st.session_state.get(comment_key, ""))
        if shown:
            # Options are the comments' ids, not positions: an insertion counts a use, which can
            # reorder the list (most used first) and changes the picked one's label.
            by_id = {row["id"]: (which, row) for which, row in shown}
            pick = st.selectbox(t("Bank comment"), list(by_id), key=f"cb_pick_{k}",
                                format_func=lambda i: _label(by_id[i], titles))
            st.text(by_id[pick][1]["text"])
            where = st.selectbox(t("Insert after"), [END, *range(len(sentences))], key=f"cb_where_{k}",
                                 format_func=lambda i: t("the end of the comment") if i == END else
                                 t("sentence {number}: {text}", number=i + 1, text=_short(sentences[i])))
            st.button(t("Insert into the comment"), key=f"cb_insert_{k}", on_click=_insert,
                      args=(k, comment_key, pick, None if where == END else where))
        else:
            st.caption(t("No bank comment matches.") if query else t("The bank is empty: save a comment to it below."))
        _save(sid, k, comment_key, sentences, banks["may_curate"], rubric)
        _csv(course_id, k, banks)


def _label(entry, titles) -> str:
    which, row = entry
    tied = f" · {titles.get(row['criterion'], row['criterion'])}" if row["criterion"] else ""
    tied += " " + t("level {level}", level=row["level"]) if row["level"] is not None else ""
    return f"{which}{tied} · " + tn("used {count}×", "used {count}×", row["uses"]) + f" · {_short(row['text'])}"


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


def _insert(k: str, comment_key: str, bank_comment_id: int, after) -> None:
    try:
        st.session_state[comment_key] = bank.insert_into(_common.connect(), bank_comment_id,
                                                         st.session_state.get(comment_key, ""),
                                                         actor=_common.actor(), after=after)
        # Set the pick again: the browser keeps showing a label it was sent until the value is
        # set, so the count in it ("used 1×") would stay the old one.
        st.session_state[f"cb_pick_{k}"] = bank_comment_id
        st.session_state[f"cb_result_{k}"] = ("success", t("Inserted: save the item to keep it."))
    except FairMarkError as e:
        st.session_state[f"cb_result_{k}"] = ("error", said(e))   # core's Message in the reader's language


def _save(sid: int, k: str, comment_key: str, sentences: list[str], may_curate: bool, rubric) -> None:
    st.markdown("**" + t("Save to bank") + "**")
    options = [END, *range(len(sentences))]
    what = st.selectbox(t("What to save"), options, key=f"cb_what_{k}",
                        format_func=lambda i: t("the whole comment") if i == END else
                        t("sentence {number}: {text}", number=i + 1, text=_short(sentences[i])))
    crits = [None, *(c.key for c in rubric.criteria)]
    titles = {c.key: c.title for c in rubric.criteria}
    c1, c2, c3 = st.columns(3)
    crit = c1.selectbox(t("For criterion"), crits, key=f"cb_crit_{k}",
                        format_func=lambda c: t("any") if c is None else titles[c])
    level = c2.selectbox(t("At level"), [None, *rubric.levels], key=f"cb_level_{k}",
                         format_func=lambda lvl: t("any") if lvl is None else str(lvl))
    banks = ["mine", "course"] if may_curate else ["mine"]
    which = c3.selectbox(t("Into"), banks, key=f"cb_into_{k}",
                         format_func=lambda b: t("my bank") if b == "mine" else t("the course bank"))
    st.button(t("Save to bank"), key=f"cb_save_{k}", on_click=_do_save,
              args=(sid, k, comment_key, None if what == END else what, crit, level, which == "mine"))


def _do_save(sid, k, comment_key, sentence, crit, level, mine) -> None:
    text = st.session_state.get(comment_key, "")
    if sentence is not None:
        parts = bank.sentences(text)
        text = parts[sentence] if sentence < len(parts) else ""
    try:
        bank.save_from_item(_common.connect(), sid, text, actor=_common.actor(), mine=mine, criterion=crit,
                            level=level)
        st.session_state[f"cb_result_{k}"] = ("success", t("Saved to the bank."))
    except FairMarkError as e:
        st.session_state[f"cb_result_{k}"] = ("error", said(e))   # core's Message in the reader's language


def _csv(course_id: int, k: str, banks: dict) -> None:
    st.markdown("**" + t("Import or export") + "**")
    names = ["mine", "course"] if banks["may_curate"] else ["mine"]
    which = st.selectbox(t("Bank"), names, key=f"cb_csv_bank_{k}",
                         format_func=lambda b: t("my bank") if b == "mine" else t("the course bank"))
    st.download_button(t("Export as CSV"), data=bank.to_csv(banks[which]), file_name="comment-bank.csv", mime="text/csv",
                       key=f"cb_export_{k}")
    upload = st.file_uploader(t("Import a CSV (columns text, criterion, level)"), type=["csv"], key=f"cb_upload_{k}")
    if upload is not None and st.button(t("Import"), key=f"cb_import_{k}"):
        try:
            text = upload.getvalue().decode("utf-8-sig")   # Excel's CSV starts with a BOM
            added = bank.import_csv(_common.connect(), course_id, text, actor=_common.actor(), mine=which == "mine")
            st.success(tn("Imported {count} comment (any already in the bank were skipped).",
                          "Imported {count} comments (any already in the bank were skipped).", added))
        except (FairMarkError, UnicodeDecodeError) as e:
            _common.show_error(e)
