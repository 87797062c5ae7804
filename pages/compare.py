"""Compare: a teacher's blind pairwise judging of two AI configurations' comments. Pairs come
side by side in the comparison's random order, each with a random side for each configuration
and no label; the choices are stored per teacher. When all pairs are judged, the results."""
import pandas as pd
import streamlit as st

from core.errors import FairMarkError
from core.evals import pairwise, views
from core.text import format_timestamp
from pages import _common
from pages._i18n import N_, said, t, tn

SIDE = {"left": N_("Response 1"), "tie": N_("Equally good"), "right": N_("Response 2")}
TITLES = {"level": N_("Level fit"), "pedagogy": N_("Pedagogy")}   # pairwise.DIMENSIONS: core's questions (N_)
KEYS = {"level": N_("level"), "pedagogy": N_("pedagogy")}   # the per-teacher table's word for each


def show_results(r: dict) -> None:
    st.subheader(t("Results: how often configuration B was better"))
    st.caption(_common.md(t("Configuration A ({a}) is the one in use; B ({b}) is the variant '{variant}'. Win rate "
                            "of B = (B better + half the ties) / choices; 95 % CI resampling pairs.",
                            a=r["config_a"], b=r["config_b"], variant=r["variant_b"])))
    cols = st.columns(len(pairwise.DIMENSIONS))
    for col, (dim, w) in zip(cols, r["by_dimension"].items()):
        label = t("{dimension}: B's win rate", dimension=t(TITLES[dim]))
        if w["win_rate"] is None:
            col.metric(label, "—")
            continue
        col.metric(label, f"{w['win_rate']:.0%}",
                   help=tn("{count} choices on {pairs} pairs", "{count} choices on {pairs} pairs", w["n"],
                           pairs=w["pairs"]))
        col.caption((t("95 % CI") + f" {w['ci'][0]:.0%}–{w['ci'][1]:.0%}" if w["ci"] else said(w["ci_note"]))   # core's note (a Message)
                    + " · " + t("n = {n}", n=w["n"]))
        col.caption(t("B better {b}, A better {a}, equal {ties}", b=w["b_wins"], a=w["a_wins"], ties=w["ties"]))
    j = r["judge"]
    if j["agreement"] is None:
        st.caption(t("Pedagogy judge: {note}.", note=said(j["ci_note"])))
    elif j["trusted"]:
        st.caption(tn("Pedagogy judge agreed with the teachers on {agreement} of {count} choices (threshold "
                      "{threshold}: trusted for later changes).", "Pedagogy judge agreed with the teachers on "
                      "{agreement} of {count} choices (threshold {threshold}: trusted for later changes).", j["n"],
                      agreement=f"{j['agreement']:.0%}", threshold=f"{j['threshold']:.0%}"))
    else:
        st.caption(tn("Pedagogy judge agreed with the teachers on {agreement} of {count} choices (threshold "
                      "{threshold}: not trusted for later changes).", "Pedagogy judge agreed with the teachers on "
                      "{agreement} of {count} choices (threshold {threshold}: not trusted for later changes).", j["n"],
                      agreement=f"{j['agreement']:.0%}", threshold=f"{j['threshold']:.0%}"))
    with st.expander(t("Per teacher")):
        st.dataframe(pd.DataFrame([{t("teacher"): x["teacher"],
                                    t("dimension"): t(KEYS.get(x["dimension"], x["dimension"])), t("choices"): x["n"], t("B's win rate"): x["win_rate"], t("CI"): x["ci"]}
                                   for x in r["by_teacher"]]), hide_index=True, width="stretch")


st.title(t("Blind comparison"))
conn = _common.get_db()
cid = _common.require_course()
if cid is None:
    st.stop()
data = views.compare_view(conn, cid, comparison=st.session_state.get("cmp_pick"), actor=_common.actor())  # one read
comps, ready = data["comparisons"], data["ready"]
if not ready:
    st.info(t("No comparison to judge in this course yet. A coordinator starts one on the AI quality page.")
            + "".join(" " + t("Comparison {id}: {note}", id=c["id"], note=said(pairwise.skipped_note(c["skipped"])))
                      for c in comps if c["skipped"]))   # the note is core's
    st.stop()
ids = [c["id"] for c in ready]
names = {c["id"]: tn("Comparison {id} · {count} pairs · {when}", "Comparison {id} · {count} pairs · {when}",
                     c["drafted"], id=c["id"], when=format_timestamp(c["created_at"])) for c in ready}
if st.session_state.get("cmp_pick", data["comparison"]) != data["comparison"]:
    st.session_state["cmp_pick"] = data["comparison"]      # no longer offered: the first one
comparison_id = st.selectbox(t("Comparison"), ids, format_func=names.get, key="cmp_pick")
teacher = _common.actor()
st.caption(_common.md(t("Judging as {name}.", name=teacher.display_name)) + " " + t(
    "Two AI configurations wrote a comment for the same student; which one wrote which, and on which side, is hidden "
    "and drawn at random for every pair."))
prog = data["progress"]
st.progress(prog["judged"] / prog["pairs"] if prog["pairs"] else 0.0,
            text=tn("{judged} of {count} pairs judged", "{judged} of {count} pairs judged", prog["pairs"],
                    judged=prog["judged"]))
if prog["skipped"]:
    st.caption(said(pairwise.skipped_note(prog["skipped"])))
pair = data["pair"]
if pair is None:
    st.success(tn("You have judged all {count} pairs. Thank you.", "You have judged all {count} pairs. Thank you.",
                  prog["pairs"]))
    show_results(data["results"])
    st.stop()

st.subheader(t("Pair {number} of {count}", number=prog["judged"] + 1, count=prog["pairs"]))
with st.expander(t("The student's text"), expanded=True):
    st.text(pair["submission"])
left, right = st.columns(2, gap="large")
with left:
    st.markdown("**" + t("Response 1") + "**")
    with st.container(border=True):
        st.text(pair["left_comment"])
with right:
    st.markdown("**" + t("Response 2") + "**")
    with st.container(border=True):
        st.text(pair["right_comment"])


def _save(pair_id: int) -> None:
    """Saved in the button's callback, before the page runs again: the next run draws the next
    pair at once (no second run in which a quick click could be lost). Bound to this pair's id."""
    try:
        pairwise.choose(_common.connect(), pair_id, actor=_common.actor(), level=st.session_state.get(f"cmp_level_{pair_id}"),
                        pedagogy=st.session_state.get(f"cmp_pedagogy_{pair_id}"))
    except FairMarkError as e:
        st.session_state["cmp_error"] = e.args[0] if len(e.args) == 1 else str(e)   # its Message, for show_error


if err := st.session_state.pop("cmp_error", None):
    _common.show_error(err)
sides = {side: t(label) for side, label in SIDE.items()}   # translated now, in this run's language
with st.form(f"pair_{pair['pair_id']}"):
    st.radio(t(pairwise.DIMENSIONS["level"]), list(SIDE), format_func=sides.get, index=None, horizontal=True,
             key=f"cmp_level_{pair['pair_id']}")   # the questions are core's (N_)
    st.radio(t(pairwise.DIMENSIONS["pedagogy"]), list(SIDE), format_func=sides.get, index=None, horizontal=True,
             key=f"cmp_pedagogy_{pair['pair_id']}")
    st.form_submit_button(t("Save and next pair"), type="primary", on_click=_save, args=(pair["pair_id"],))
