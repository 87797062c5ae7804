"""One lesson (issue 17): the text with the judges' quoted issues highlighted, the votes, the
Stage 1 checks, the entropy flags, each proposed fix as a diff to accept or reject, approval,
export and the audit trail. Every button is bound to the lesson version it was drawn for."""
import pandas as pd
import streamlit as st

from core.errors import FairMarkError
from core.language.interface import Message
from core.lessons import export, factcheck, signoff, tiers, view
from core.lessons.judge import SEVERITIES
from core.text import escape_markdown, format_timestamp
from pages import _common
from pages._i18n import N_, said, t, tn

FIX_STATUS = {"proposed": N_("proposed"), "accepted": N_("accepted"), "rejected": N_("rejected")}


def core_text(text) -> str:
    """What core wrote into the review: a Message in the teacher's language, an N_ label translated;
    the English of a review stored before stays as it is."""
    if isinstance(text, Message):
        return said(text)
    return t(text) if text else ""

st.title(t("Lesson"))
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
    st.info(t("No lessons in this course: upload them on the Lessons page."))
    st.page_link("pages/lessons.py", label=t("Go to Lessons"), icon=":material/menu_book:")
    st.stop()
titles = {lesson["id"]: lesson["title"] for lesson in queue}
if picked is not None and picked != data["lesson_id"]:
    st.session_state["lesson_pick"] = data["lesson_id"]   # no longer in this course's queue: the first one
start = 0 if "lesson_pick" in st.session_state else ids.index(data["lesson_id"])  # the state holds the choice
lesson_id = st.selectbox(t("Lesson (in queue order)"), ids, index=start, format_func=titles.get, key="lesson_pick")
_common.set_address(lesson=lesson_id)
lesson, record, review = data["lesson"], data["record"], data["review"]
dims = {key: t(label) for key, label in data["dimensions"].items()}   # the rubric's names (N_)
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
if lesson["status"] == "approved":
    state = t("Approved")
elif lesson["status"] == "reviewed":
    state = t(data["tier_label"])   # core's tier label (N_)
else:
    state = t("Review failed") if lesson["status"] == "failed" else t("Not reviewed yet")
c1, c2, c3 = st.columns(3)
c1.metric(t("State"), state)
c2.metric(t("Weighted score"), "—" if lesson["score"] is None else f"{lesson['score']:.2f}",
          help=t("Factual integrity 35 %, pedagogical alignment 25 %, clarity & structure 20 %, engagement & tone "
                 "20 %; factual integrity under 0.6 or alignment under 0.5 fails the lesson whatever the total."))
c3.metric(t("Stage 1 score"), f"{record.get('stage1_score', 0):.2f}" if record else "—")
if data["offline_label"]:
    st.warning(t("Reviewed by the {reviewer}: only the Stage 1 checks ran.", reviewer=t(data["offline_label"])))
if review and review["error"]:
    _common.show_error(t("The review failed: {error}", error=said(data["error"])))   # core's Message; the model's error as it is
if lesson["status"] == "reviewed" and any(f["status"] == "proposed" for f in data["fixes"]):
    st.caption(t("The tier is for the lesson with the proposed fixes below: accept or reject each one before "
                 "you approve."))
for reason in data["tier_reasons"]:   # core's Messages; a review stored before: its English, fixed ones translated
    st.caption(escape_markdown(core_text(reason)))
for note in data["notes"]:   # the judges' panel and the fact check: core's Messages (model names as they are)
    st.caption(escape_markdown(core_text(note)))

# --- the text with the issues ----------------------------------------------------------------------
issues = data["issues"]
st.subheader(t("Lesson text"))
text = lesson["original_text"] if issues else lesson["text"]
if issues and lesson["text"] != lesson["original_text"]:
    st.caption(t("Shown as reviewed (before the fixes you accepted), so the quoted issues line up."))


def marked(piece: str, i: int) -> str:
    """A quoted span, escaped, on an orange background, with its issue's number."""
    lines = piece.split("\n")
    return "\n".join(f":orange-background[{escape_markdown(x)}]" if x.strip() else x for x in lines) + f" **[{i + 1}]**"


parts = [escape_markdown(piece) if i is None else marked(piece, i) for piece, i in view.segments(text, issues)]
with st.container(border=True, height=420):
    st.markdown("".join(parts).replace("\n", "  \n"))
if issues:
    st.dataframe(pd.DataFrame([{"#": n + 1,
                                t("severity"): t(SEVERITIES[i["severity"]]) if i["severity"] in SEVERITIES else i["severity"],
                                t("dimension"): dims[i["dimension"]], t("where"): i["location"], t("quote"): i["quote"],
                                t("found in text"): t("yes") if i["found"] else t("NOT FOUND (check it)"),
                                t("suggested fix"): i["fix"], t("judge"): i["judge"]} for n, i in enumerate(issues)]),
                 hide_index=True)

# --- votes, checks, uncertainty -----------------------------------------------------------------------
with st.expander(t("Judges' votes"), expanded=False):
    if data["votes"]:
        votes = pd.DataFrame(data["votes"])
        pivot = votes.pivot_table(index=["judge", "tier"], columns="criterion", values="score")
        headers = {**dims, "judge": t("judge"), "tier": t("tier")}   # the criteria: the rubric's names
        table = pivot.reset_index().rename(columns=headers)
        st.dataframe(table, hide_index=True)
        conf = votes.groupby("judge")["confidence"].first()
        each = ", ".join(f"{escape_markdown(j)} {t('unknown') if pd.isna(c) else f'{c:.2f}'}" for j, c in conf.items())
        st.caption(t("Confidence (share of the judge's sentences under the entropy threshold)") + ": " + each)
    else:
        st.caption(t("No judge voted on this lesson (Stage 1 settled it, or the offline baseline reviewed it)."))
    for r in data["rounds"]:
        gain = "—" if r["gain"] is None else f"{r['gain']:+.3f}"
        dimension = t(tiers.LOWER[r["dimension"]]) if r["dimension"] in tiers.LOWER else r["dimension"]
        st.caption(escape_markdown(t("Round {round}: rewrote '{section}' for {dimension}; score {before} -> {after} "
                                     "({gain}).", round=r["round"], section=r["section"], dimension=dimension,
                                     before=f"{r['score_before']:.2f}", after=f"{r['score_after'] or 0:.2f}",
                                     gain=gain) + " " + core_text(r["note"])))   # the round's note: core's Message
with st.expander(t("Stage 1 checks"), expanded=not issues):
    st.dataframe(pd.DataFrame([{t("check"): core_text(c["label"]), t("result"): t("passed") if c["passed"] else (
        t("skipped") if c["severity"] == "info" else (t("clear failure") if c["severity"] == "fail" else t("problem"))),
        t("detail"): core_text(c["detail"])} for c in data["checks"]]), hide_index=True)   # core's Messages, values in them
with st.expander(t("Uncertainty (token entropy)")):
    ent = data["entropy"]
    if ent.get("skipped"):
        st.caption(escape_markdown(core_text(ent["skipped"])))   # core's note (N_ or a Message); the call's error as it is
    elif ent:
        flags = ent.get("flags", [])
        st.caption(tn("{count} sentence(s) with a factual claim above {threshold} bits (model {model}).",
                      "{count} sentence(s) with a factual claim above {threshold} bits (model {model}).", len(flags),
                      threshold=f"{ent['threshold']:.2f}", model=escape_markdown(ent.get("model", ""))))
        if flags:
            st.dataframe(pd.DataFrame([{t("sentence"): f["sentence"], t("bits"): f["bits"],
                                        t("fact check"): t(factcheck.VERDICTS.get(f["verdict"], f["verdict"])),
                                        t("evidence"): f.get("evidence", "")}
                                       for f in flags]), hide_index=True)
    unsure = [u for a in (record.get("first") or {}).get("votes", []) for u in a.get("unsure", [])]
    if unsure:
        st.caption(t("Where the judges themselves were unsure") + ":")
        st.dataframe(pd.DataFrame([{t("sentence"): u["sentence"], t("bits"): u["bits"]} for u in unsure]),
                     hide_index=True)   # the judges' own sentences, as they wrote them

# --- fixes ------------------------------------------------------------------------------------------
st.subheader(t("Proposed fixes"))
fixes = [f for f in data["fixes"] if f["status"] != "discarded"]
if not fixes and (data["offline_label"] or (review is None and not _common.settings().llm_configured)):
    st.caption(t("No fixes were proposed: fixes are written by a language model, and the offline baseline (no LLM) "
                 "runs only the Stage 1 checks. Set up a language model (Settings → Language model & prices), then "
                 "review this lesson again."))
elif not fixes:
    st.caption(t("No fixes were proposed for this lesson."))
for f in fixes:
    gain = "" if f["gain"] is None else ", " + t("score {gain} when re-judged", gain=f"{f['gain']:+.3f}")
    st.markdown(escape_markdown(t("Round {round}: {dimension} in '{section}'", round=f["round"],
                                  dimension=dims[f["dimension"]], section=f["section"])
                                + gain + " — " + t(FIX_STATUS.get(f["status"], f["status"]))))
    st.code(view.fix_diff(f["before"], f["after"]), language="diff")
    if f["status"] == "proposed" and lesson["status"] != "approved":
        b1, b2, _ = st.columns([1, 1, 4])
        if b1.button(t("Accept"), key=f"accept_{f['id']}_{version}"):
            act(signoff.accept_fix, t("Accepted the fix of round {round}.", round=f["round"]), fix_id=f["id"])
        if b2.button(t("Reject"), key=f"reject_{f['id']}_{version}"):
            act(signoff.reject_fix, t("Rejected the fix of round {round}.", round=f["round"]), fix_id=f["id"])

# --- approve and export -------------------------------------------------------------------------------
st.subheader(t("Sign-off"))
if lesson["status"] == "approved":
    st.success(t("Approved by {name} on {when}.", name=escape_markdown(_common.person(lesson["approved_by"])),
                 when=format_timestamp(lesson["approved_at"])))
    d1, d2 = st.columns(2)
    for col, fmt, mime in ((d1, "md", "text/markdown"),
                           (d2, "docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document")):
        # built on the click (an export, like a button's action, checks itself), not on every render
        col.download_button(t("Download {format}", format=fmt.upper()),
                            lambda fmt=fmt: export.render(_common.connect(), lesson_id, fmt, actor=me),
                            file_name=export.file_name(lesson["title"], fmt), mime=mime, key=f"dl_{fmt}_{lesson_id}",
                            on_click="ignore")
elif lesson["status"] == "reviewed":
    verdict = st.radio(t("Your verdict on the lesson as it was uploaded"), list(signoff.VERDICTS),
                       format_func={k: t(v) for k, v in signoff.VERDICTS.items()}.get, index=None, key=f"verdict_{lesson_id}_{version}",
                       help=t("Compared with the judge's verdict on the Agreement page."))   # the verdicts: core's
    note = st.text_input(t("Note (optional)"), key=f"note_{lesson_id}_{version}")
    if st.button(t("Approve lesson"), type="primary", key=f"approve_{lesson_id}_{version}"):
        act(signoff.approve, t("Approved. You can download it below."), verdict=verdict, note=note)
else:
    st.caption(t("Review the lesson on the Lessons page first."))

with st.expander(t("Audit trail")):
    st.dataframe(pd.DataFrame([{t("when"): format_timestamp(h["at"]), t("who"): _common.person(h["actor"]),
                                t("what"): h["action"], t("why"): h["reason"]} for h in data["history"]]),
                 hide_index=True)
