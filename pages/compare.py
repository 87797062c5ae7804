"""Compare: a teacher's blind pairwise judging of two AI configurations' comments. Pairs come
side by side in the comparison's random order, each with a random side for each configuration
and no label; the choices are stored per teacher. When all pairs are judged, the results."""
import pandas as pd
import streamlit as st

from core.errors import FairMarkError
from core.evals import pairwise, views
from core.text import format_timestamp
from pages import _common

SIDE = {"left": "Response 1", "tie": "Equally good", "right": "Response 2"}


def show_results(r: dict) -> None:
    st.subheader("Results: how often configuration B was better")
    st.caption(_common.md(f"Configuration A ({r['config_a']}) is the one in use; B ({r['config_b']}) is the variant "
                          f"'{r['variant_b']}'. Win rate of B = (B better + half the ties) / choices; 95 % CI "
                          "resampling pairs."))
    cols = st.columns(len(pairwise.DIMENSIONS))
    for col, (dim, w) in zip(cols, r["by_dimension"].items()):
        title = {"level": "Level fit", "pedagogy": "Pedagogy"}[dim]
        if w["win_rate"] is None:
            col.metric(f"{title}: B's win rate", "—")
            continue
        col.metric(f"{title}: B's win rate", f"{w['win_rate']:.0%}", help=f"{w['n']} choices on {w['pairs']} pairs")
        col.caption(f"95 % CI {w['ci'][0]:.0%}–{w['ci'][1]:.0%} · n = {w['n']}" if w["ci"]
                    else f"{w['ci_note']} · n = {w['n']}")
        col.caption(f"B better {w['b_wins']}, A better {w['a_wins']}, equal {w['ties']}")
    j = r["judge"]
    if j["agreement"] is None:
        st.caption(f"Pedagogy judge: {j['ci_note']}.")
    else:
        trusted = "trusted" if j["trusted"] else "not trusted"
        st.caption(f"Pedagogy judge agreed with the teachers on {j['agreement']:.0%} of {j['n']} choices "
                   f"(threshold {j['threshold']:.0%}: {trusted} for later changes).")
    with st.expander("Per teacher"):
        st.dataframe(pd.DataFrame([{"teacher": t["teacher"], "dimension": t["dimension"], "choices": t["n"],
                                    "B's win rate": t["win_rate"], "CI": t["ci"]} for t in r["by_teacher"]]),
                     hide_index=True, width="stretch")


st.title("Blind comparison")
conn = _common.get_db()
cid = _common.require_course()
if cid is None:
    st.stop()
data = views.compare_view(conn, cid, comparison=st.session_state.get("cmp_pick"), actor=_common.actor())  # one read
comps, ready = data["comparisons"], data["ready"]
if not ready:
    st.info("No comparison to judge in this course yet. A coordinator starts one on the AI quality page."
            + "".join(f" Comparison {c['id']}: {pairwise.skipped_note(c['skipped'])}" for c in comps if c["skipped"]))
    st.stop()
ids = [c["id"] for c in ready]
names = {c["id"]: f"Comparison {c['id']} · {c['drafted']} pairs · {format_timestamp(c['created_at'])}" for c in ready}
if st.session_state.get("cmp_pick", data["comparison"]) != data["comparison"]:
    st.session_state["cmp_pick"] = data["comparison"]      # no longer offered: the first one
comparison_id = st.selectbox("Comparison", ids, format_func=names.get, key="cmp_pick")
teacher = _common.actor()
st.caption(_common.md(f"Judging as {teacher.display_name}.") + " Two AI configurations wrote a comment for the same "
           "student; which one wrote which, and on which side, is hidden and drawn at random for every pair.")
prog = data["progress"]
st.progress(prog["judged"] / prog["pairs"] if prog["pairs"] else 0.0,
            text=f"{prog['judged']} of {prog['pairs']} pairs judged")
if prog["skipped"]:
    st.caption(pairwise.skipped_note(prog["skipped"]))
pair = data["pair"]
if pair is None:
    st.success(f"You have judged all {prog['pairs']} pairs. Thank you.")
    show_results(data["results"])
    st.stop()

st.subheader(f"Pair {prog['judged'] + 1} of {prog['pairs']}")
with st.expander("The student's text", expanded=True):
    st.text(pair["submission"])
left, right = st.columns(2, gap="large")
with left:
    st.markdown("**Response 1**")
    with st.container(border=True):
        st.text(pair["left_comment"])
with right:
    st.markdown("**Response 2**")
    with st.container(border=True):
        st.text(pair["right_comment"])


def _save(pair_id: int) -> None:
    """Saved in the button's callback, before the page runs again: the next run draws the next
    pair at once (no second run in which a quick click could be lost). Bound to this pair's id."""
    try:
        pairwise.choose(_common.connect(), pair_id, actor=_common.actor(), level=st.session_state.get(f"cmp_level_{pair_id}"),
                        pedagogy=st.session_state.get(f"cmp_pedagogy_{pair_id}"))
    except FairMarkError as e:
        st.session_state["cmp_error"] = str(e)


if err := st.session_state.pop("cmp_error", None):
    _common.show_error(err)
with st.form(f"pair_{pair['pair_id']}"):
    st.radio(pairwise.DIMENSIONS["level"], list(SIDE), format_func=SIDE.get, index=None, horizontal=True,
             key=f"cmp_level_{pair['pair_id']}")
    st.radio(pairwise.DIMENSIONS["pedagogy"], list(SIDE), format_func=SIDE.get, index=None, horizontal=True,
             key=f"cmp_pedagogy_{pair['pair_id']}")
    st.form_submit_button("Save and next pair", type="primary", on_click=_save, args=(pair["pair_id"],))
