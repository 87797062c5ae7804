"""Calibrate: score a stratified set of this assignment's reflections blind, then see how the
AI compares. Nothing of the AI's draft is shown for an item until you have saved your scores."""
import streamlit as st

from core.calibration import blind, calibrate_view, draw, readiness
from core.errors import FairMarkError
from core.text import escape_markdown
from pages import _calibration, _common, _offline_scorer
from pages._i18n import said, t, tn

st.title(t("Calibrate"))
st.caption(t("Score a small, stratified set of reflections without seeing the AI's scores or comment. Your blind "
             "scores show whether the AI can be trusted on this assignment, and become its examples of what each "
             "level looks like here. A second teacher can score the same set: your agreement is the human ceiling."))
conn = _common.get_db()
aid = _common.require_assignment()


def _flash(message: str, kind: str = "success") -> None:
    st.session_state["cal_flash"] = (kind, message)


def _open(sid: int | None) -> None:
    st.session_state["cal_item"] = sid


def _score(conn, aid: int, sid: int, rubric, seen: dict) -> None:
    """One item (`seen`: core.calibration.blind.for_rater): the text and score pickers before
    saving; after, the AI beside your scores."""
    rater = _common.actor()
    if seen.get("elsewhere"):  # the sidebar moved to another assignment
        _open(None)
        st.rerun()
    if st.button("← " + t("Calibration set"), key="cal_back"):
        _open(None)
        st.rerun()
    left, right = st.columns([5, 4], gap="large")
    with left:
        st.subheader(t("Reflection") + " · " + tn("{count} word", "{count} words", seen["submission"]["word_count"]))
        box = {"border": True, **({"height": 480} if seen["submission"]["word_count"] > 220 else {})}
        with st.container(**box):
            st.text(seen["submission"]["text"])
    with right:
        if not seen["scored"]:
            st.subheader(t("Your blind scores"))
            st.caption(t("Scoring as {name} (each teacher's blind scores are kept apart). The AI's scores and "
                         "comment appear once you save; saved blind scores are final.",
                         name=escape_markdown(rater.display_name)))
            picked = {c.key: st.selectbox(_common.md(c.title), rubric.levels, index=None, key=f"cal_score_{sid}_{rater}_{c.key}",
                                          format_func=lambda lvl, c=c: f"{lvl} — {c.levels[lvl]}")
                      for c in rubric.criteria}
            if st.button(t("Save blind scores"), type="primary", key=f"cal_save_{sid}",
                         disabled=any(v is None for v in picked.values())):
                try:
                    blind.save(conn, sid, picked, actor=rater)
                except FairMarkError as e:
                    _common.show_error(e)
                else:
                    _flash(t("Saved. Here is how the AI scored it."))
                    st.rerun()
            return
        st.subheader(t("Your blind scores and the AI"))
        rows = [{t("Criterion"): c.title, t("You (blind)"): seen["mine"].get(c.key),
                 t("AI"): (seen["ai"] or {}).get("scores", {}).get(c.key),
                 **{t("{rater} (blind)", rater=r): s.get(c.key) for r, s in seen["others"].items()}}
                for c in rubric.criteria]
        st.dataframe(rows, hide_index=True, width="stretch")
        if seen["ai"]:
            st.caption(t("The AI's draft comment")
                       + (" · " + t("offline baseline — no LLM") if seen["ai"]["is_offline"] else ""))
            st.text(seen["ai"]["comment"] or "(" + t("no comment drafted") + ")")
        else:
            st.caption(t("This item has no AI draft to compare with."))


def _set(conn, aid: int, rubric, view: dict) -> None:
    me = _common.actor()
    state = view["set"]
    c1, c2, c3, c4 = st.columns(4)
    c1.metric(t("In the set"), len(state.items))
    c2.metric(t("Scored blind"), state.scored)
    c3.metric(t("Waiting (draft hidden)"), state.pending)
    c4.metric(t("Double-scored"), state.double_scored)
    may_draw = "assess" in view["may"]
    with st.form("cal_draw") if may_draw else st.container():
        attrs = view["attributes"]
        f1, f2 = st.columns(2)
        size = f1.number_input(t("Set size"), min_value=1, max_value=draw.MAX_SIZE,
                               value=max(draw.DEFAULT_SIZE, len(state.items)), step=1, key="cal_size",
                               help=t("Items already drawn stay; a larger size adds items."))
        group_by = f2.selectbox(t("Also stratify by"), [None, *attrs], key="cal_group",
                                format_func=lambda a: "— " + t("no group") + " —" if a is None else a)
        st.caption(t("Strata: the AI's predicted band, length (shorter/longer half) and the group.") + " "
                   + tn("{count} drafted reflections nobody has opened yet can be drawn.",
                        "{count} drafted reflections nobody has opened yet can be drawn.", state.available))
        if may_draw and st.form_submit_button(
                t("Draw the calibration set") if not state.items else t("Add items to the set")):
            try:
                after = draw.draw(conn, aid, size=int(size), group_by=group_by, actor=me)
            except FairMarkError as e:
                _common.show_error(e)
            else:
                _flash(tn("The set has {count} items.", "The set has {count} items.", len(after.items)))
                st.rerun()
    for item in state.items:
        raters = [r for r in (item["raters"] or "").split(", ") if r]
        with st.container(border=True):
            c1, c2, c3 = st.columns([4, 4, 2], vertical_alignment="center")
            c1.markdown(f"**{escape_markdown(item['name'] or item['external_id'])}** · "
                        + tn("{count} word", "{count} words", item["word_count"]))
            if item["stratum"]:  # without the AI's band until you scored it (core.calibration.draw.seen_by)
                c1.caption(escape_markdown(_calibration.stratum(item["stratum"])))
            mine = me in raters
            c2.caption((t("You scored it") if mine else t("Not scored by you yet")) + " · "
                       + (t("scored by {raters}", raters=escape_markdown(", ".join(map(_common.person, raters))))
                          if raters else t("draft hidden until a blind score is saved")))
            c3.button(t("Open") if mine else t("Score blind"), key=f"cal_open_{item['submission_id']}", on_click=_open,
                      args=(item["submission_id"],))
            if not raters:
                if c3.button(t("Take out"), key=f"cal_skip_{item['submission_id']}",
                             help=t("Leave this item out (e.g. you know this student's work too well).")):
                    try:
                        draw.skip(conn, aid, item["submission_id"], actor=me)
                    except FairMarkError as e:
                        _common.show_error(e)
                    else:
                        st.rerun()


if aid is not None:
    kind, message = st.session_state.pop("cal_flash", (None, None))
    if message:
        getattr(st, kind)(message)
    sid = st.session_state.get("cal_item")
    view = calibrate_view.calibrate_page(conn, aid, actor=_common.actor(), item=None if sid is None else int(sid))
    _common.know_people(view["people"])
    rubric = view["rubric"]
    if sid is not None:
        try:
            if view["item"].get("error"):
                raise FairMarkError(view["item"]["error"])
            _score(conn, aid, int(sid), rubric, view["item"])
        except FairMarkError as e:
            _common.show_error(e)
            _open(None)
    else:
        r = _calibration.banner(view["readiness"])
        _calibration.offsets(view["offsets"])
        with st.expander(t("The AI against your blind scores, per criterion"), expanded=r["students"] > 0):
            st.dataframe(_calibration.table(r), hide_index=True, width="stretch")
            st.caption(t("The bar (set by an admin in Settings): {bar}. Intervals resample students. Items used as "
                         "the AI's examples are never scored on themselves.", bar=said(readiness.Bar(**r["bar"]).text())))
            _offline_scorer.summary(view["offline_scorer"])
        st.subheader(t("Calibration set"))
        _set(conn, aid, rubric, view)
