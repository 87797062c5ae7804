"""One lesson (issue 17): the text with the judges' quoted issues highlighted, the votes, the
Stage 1 checks, the entropy flags, each proposed fix as a diff to accept or reject, approval,
export and the audit trail. Every button is bound to the lesson version it was drawn for."""
import pandas as pd
import streamlit as st

from core.errors import FairMarkError
from core.lessons import export, signoff, view
from core.text import escape_markdown, format_timestamp
from pages import _common

st.title("Lesson")
conn = _common.get_db()
me = _common.actor()
cid = _common.course_id()
if flash := st.session_state.pop("lesson_flash", None):
    st.success(flash)

wanted = _common.address_value("lesson")     # a deep link into another course chose that course
picked = st.session_state.get("lesson_pick")
data = view.lesson_page(conn, cid, picked if picked is not None else wanted, actor=me)  # the page's one read
queue = data["queue"]
ids = [lesson["id"] for lesson in queue]
if not ids:
    st.info("No lessons in this course: upload them on the Lessons page.")
    st.page_link("pages/lessons.py", label="Go to Lessons", icon=":material/menu_book:")
    st.stop()
titles = {lesson["id"]: lesson["title"] for lesson in queue}
if picked is not None and picked != data["lesson_id"]:
    st.session_state["lesson_pick"] = data["lesson_id"]   # no longer in this course's queue: the first one
start = 0 if "lesson_pick" in st.session_state else ids.index(data["lesson_id"])  # the state holds the choice
lesson_id = st.selectbox("Lesson (in queue order)", ids, index=start, format_func=titles.get, key="lesson_pick")
_common.set_address(lesson=lesson_id)
lesson, record, review = data["lesson"], data["record"], data["review"]
version = lesson["version"]


def act(fn, done: str, **kwargs) -> None:
    try:
        fn(conn, lesson_id, version=version, actor=_common.actor(), **kwargs)
    except FairMarkError as e:
        _common.show_error(e)
    else:
        st.session_state["lesson_flash"] = done
        st.rerun()


# --- where it stands ------------------------------------------------------------------------------
state = "Approved" if lesson["status"] == "approved" else (data["tier_label"] if lesson["status"] == "reviewed"
                                                           else {"failed": "Review failed"}.get(lesson["status"],
                                                                                                "Not reviewed yet"))
c1, c2, c3 = st.columns(3)
c1.metric("State", state)
c2.metric("Weighted score", "—" if lesson["score"] is None else f"{lesson['score']:.2f}",
          help="Factual integrity 35 %, pedagogical alignment 25 %, clarity & structure 20 %, engagement & tone 20 %; "
               "factual integrity under 0.6 or alignment under 0.5 fails the lesson whatever the total.")
c3.metric("Stage 1 score", f"{record.get('stage1_score', 0):.2f}" if record else "—")
if data["offline_label"]:
    st.warning(f"Reviewed by the {data['offline_label']}: only the Stage 1 checks ran.")
if review and review["error"]:
    _common.show_error(f"The review failed: {review['error']}")
if lesson["status"] == "reviewed" and any(f["status"] == "proposed" for f in data["fixes"]):
    st.caption("The tier is for the lesson with the proposed fixes below: accept or reject each one before you "
               "approve.")
for reason in record.get("tier_reasons", []):
    st.caption(escape_markdown(reason))
for note in record.get("notes", []):
    st.caption(escape_markdown(note))

# --- the text with the issues ----------------------------------------------------------------------
issues = data["issues"]
st.subheader("Lesson text")
text = lesson["original_text"] if issues else lesson["text"]
if issues and lesson["text"] != lesson["original_text"]:
    st.caption("Shown as reviewed (before the fixes you accepted), so the quoted issues line up.")


def marked(piece: str, i: int) -> str:
    """A quoted span, escaped, on an orange background, with its issue's number."""
    lines = piece.split("\n")
    return "\n".join(f":orange-background[{escape_markdown(x)}]" if x.strip() else x for x in lines) + f" **[{i + 1}]**"


parts = [escape_markdown(piece) if i is None else marked(piece, i) for piece, i in view.segments(text, issues)]
with st.container(border=True, height=420):
    st.markdown("".join(parts).replace("\n", "  \n"))
if issues:
    st.dataframe(pd.DataFrame([{"#": n + 1, "severity": i["severity"], "dimension": data["dimensions"][i["dimension"]],
                                "where": i["location"], "quote": i["quote"],
                                "found in text": "yes" if i["found"] else "NOT FOUND (check it)",
                                "suggested fix": i["fix"], "judge": i["judge"]} for n, i in enumerate(issues)]),
                 hide_index=True)

# --- votes, checks, uncertainty -----------------------------------------------------------------------
with st.expander("Judges' votes", expanded=False):
    if data["votes"]:
        votes = pd.DataFrame(data["votes"])
        table = votes.pivot_table(index=["judge", "tier"], columns="criterion", values="score").reset_index()
        st.dataframe(table.rename(columns=data["dimensions"]), hide_index=True)
        conf = votes.groupby("judge")["confidence"].first()
        st.caption("Confidence (share of the judge's sentences under the entropy threshold): " + ", ".join(
            f"{escape_markdown(j)} {'unknown' if pd.isna(c) else f'{c:.2f}'}" for j, c in conf.items()))
    else:
        st.caption("No judge voted on this lesson (Stage 1 settled it, or the offline baseline reviewed it).")
    for r in record.get("rounds", []):
        gain = "—" if r["gain"] is None else f"{r['gain']:+.3f}"
        st.caption(escape_markdown(f"Round {r['round']}: rewrote '{r['section']}' for {r['dimension']}; score "
                                   f"{r['score_before']:.2f} -> {r['score_after'] or 0:.2f} ({gain}). {r['note']}"))
with st.expander("Stage 1 checks", expanded=not issues):
    st.dataframe(pd.DataFrame([{"check": c["label"], "result": "passed" if c["passed"] else (
        "skipped" if c["severity"] == "info" else ("clear failure" if c["severity"] == "fail" else "problem")),
        "detail": c["detail"]} for c in record.get("heuristics", [])]), hide_index=True)
with st.expander("Uncertainty (token entropy)"):
    ent = record.get("entropy") or {}
    if ent.get("skipped"):
        st.caption(escape_markdown(ent["skipped"]))
    elif ent:
        flags = ent.get("flags", [])
        st.caption(f"{len(flags)} sentence(s) with a factual claim above {ent['threshold']:.2f} bits "
                   f"(model {escape_markdown(ent.get('model', ''))}).")
        if flags:
            st.dataframe(pd.DataFrame([{"sentence": f["sentence"], "bits": f["bits"], "fact check": f["verdict"],
                                        "evidence": f.get("evidence", "")} for f in flags]), hide_index=True)
    unsure = [u for a in (record.get("first") or {}).get("votes", []) for u in a.get("unsure", [])]
    if unsure:
        st.caption("Where the judges themselves were unsure:")
        st.dataframe(pd.DataFrame(unsure), hide_index=True)

# --- fixes ------------------------------------------------------------------------------------------
st.subheader("Proposed fixes")
fixes = [f for f in data["fixes"] if f["status"] != "discarded"]
if not fixes and (data["offline_label"] or (review is None and not _common.settings().llm_configured)):
    st.caption("No fixes were proposed: fixes are written by a language model, and the offline baseline (no LLM) "
               "runs only the Stage 1 checks. Set up a language model (Settings → Language model & prices), then "
               "review this lesson again.")
elif not fixes:
    st.caption("No fixes were proposed for this lesson.")
for f in fixes:
    gain = "" if f["gain"] is None else f", score {f['gain']:+.3f} when re-judged"
    st.markdown(escape_markdown(f"Round {f['round']}: {data['dimensions'][f['dimension']]} in '{f['section']}'{gain}"
                                f" — {f['status']}"))
    st.code(view.fix_diff(f["before"], f["after"]), language="diff")
    if f["status"] == "proposed" and lesson["status"] != "approved":
        b1, b2, _ = st.columns([1, 1, 4])
        if b1.button("Accept", key=f"accept_{f['id']}_{version}"):
            act(signoff.accept_fix, f"Accepted the fix of round {f['round']}.", fix_id=f["id"])
        if b2.button("Reject", key=f"reject_{f['id']}_{version}"):
            act(signoff.reject_fix, f"Rejected the fix of round {f['round']}.", fix_id=f["id"])

# --- approve and export -------------------------------------------------------------------------------
st.subheader("Sign-off")
if lesson["status"] == "approved":
    st.success(f"Approved by {escape_markdown(_common.person(lesson['approved_by']))} on "
               f"{format_timestamp(lesson['approved_at'])}.")
    d1, d2 = st.columns(2)
    for col, fmt, mime in ((d1, "md", "text/markdown"),
                           (d2, "docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document")):
        # built on the click (an export, like a button's action, checks itself), not on every render
        col.download_button(f"Download {fmt.upper()}",
                            lambda fmt=fmt: export.render(_common.connect(), lesson_id, fmt, actor=me),
                            file_name=export.file_name(lesson["title"], fmt), mime=mime, key=f"dl_{fmt}_{lesson_id}",
                            on_click="ignore")
elif lesson["status"] == "reviewed":
    verdict = st.radio("Your verdict on the lesson as it was uploaded", list(signoff.VERDICTS),
                       format_func=signoff.VERDICTS.get, index=None, key=f"verdict_{lesson_id}_{version}",
                       help="Compared with the judge's verdict on the Agreement page.")
    note = st.text_input("Note (optional)", key=f"note_{lesson_id}_{version}")
    if st.button("Approve lesson", type="primary", key=f"approve_{lesson_id}_{version}"):
        act(signoff.approve, "Approved. You can download it below.", verdict=verdict, note=note)
else:
    st.caption("Review the lesson on the Lessons page first.")

with st.expander("Audit trail"):
    st.dataframe(pd.DataFrame([{"when": format_timestamp(h["at"]), "who": _common.person(h["actor"]), "what": h["action"],
                                "why": h["reason"]} for h in data["history"]]), hide_index=True)
