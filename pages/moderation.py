"""Moderation: assign markers, draw the sample marked a second time (blind), see how the markers
agree, and settle the items whose marks differ by more than a level. Its own page rather than a
section of Agreement: Agreement reads the AI against references for any scope, while moderation
works on one assignment and writes (draws, assignments, settlements)."""
import streamlit as st

from core.errors import FairMarkError
from core.moderation import agreement, markers, marking, sample
from core.text import escape_markdown
from pages import _common
from pages._i18n import N_, t, tn

st.title(t("Moderation"))
st.caption(t("A sample of this assignment is marked a second time without seeing the first mark or the AI's draft. "
             "Marks more than a level apart wait for your settlement, which is released and becomes the reference "
             "for Agreement and Fairness; the sample's items are not released before."))
conn = _common.get_db()
aid = _common.require_assignment()
KINDS = {"share": N_("share"), "size": N_("size")}


def _pct(x) -> str:
    return "—" if x is None else f"{x:.0%}"


def _ci(ci, pct=False) -> str:
    if not ci:
        return t("no interval yet")
    return f"{ci[0]:.0%}–{ci[1]:.0%}" if pct else f"{ci[0]:.2f}–{ci[1]:.2f}"


def _figures(rows: list[dict], lead: dict) -> list[dict]:
    return [{**{k: v(r) for k, v in lead.items()}, t("Students"): r["students"],
             t("QWK"): "—" if r["qwk"] is None else f"{r['qwk']:.2f} ({_ci(r['qwk_ci'])})",
             t("Mean difference"): f"{r['mae']:.2f} ({_ci(r['mae_ci'])})",
             t("Same level"): f"{_pct(r['exact'])} ({_ci(r['exact_ci'], True)})",
             t("Within a level"): f"{_pct(r['adjacent'])} ({_ci(r['adjacent_ci'], True)})"} for r in rows]


if aid is not None:
    me = _common.actor()
    try:
        view = agreement.moderation_view(conn, aid, actor=me)
    except FairMarkError as e:
        _common.show_error(e)
        st.stop()
    status, rubric = view["status"], view["rubric"]
    c1, c2, c3, c4 = st.columns(4)
    c1.metric(t("Drawn"), status["drawn"])
    c2.metric(t("Marked a second time"), status["marked"])
    c3.metric(t("Differing"), status["differing"])
    c4.metric(t("Settled"), status["settled"])

    with st.expander(t("Assign markers"), expanded=not view["assigned"]):
        if view["assigned"]:
            st.caption(t("Now: {assigned}", assigned=", ".join(f"{escape_markdown(_common.person(m))} {n}"
                                                                  for m, n in view["assigned"].items())))
        with st.form("mod_assign"):
            how = st.radio(t("Assign"), ["random", "section"], horizontal=True, key="mod_how",
                           format_func=lambda h: t("at random") if h == "random" else t("by section"))
            plan = {s: st.selectbox(t("Section {section}", section=s) if s else t("Without a section"), view["markers"],
                                    key=f"mod_sec_{s}",
                                    format_func=_common.person) for s in view["sections"]}
            if st.form_submit_button(t("Assign markers")):
                try:
                    done = markers.assign(conn, aid, how=how, markers=plan if how == "section" else None, actor=me)
                except FairMarkError as e:
                    _common.show_error(e)
                else:
                    st.success(t("Assigned: {assigned}", assigned=", ".join(f"{escape_markdown(_common.person(m))} {n}"
                                                                       for m, n in done["assigned"].items())))

    with st.form("mod_draw"):
        f1, f2, f3 = st.columns(3)
        kind = f1.radio(t("Sample by"), list(KINDS), key="mod_kind", horizontal=True,
                        format_func=lambda k: t(KINDS[k]))
        amount = f2.number_input(t("Share (0–1) or number of items"), min_value=0.01, value=0.1, key="mod_amount")
        seed = f3.number_input(t("Seed"), min_value=0, value=0, step=1, key="mod_seed")
        st.caption(t("Strata: the AI's predicted band and the first marker. Items drawn stay; a larger sample adds items."))
        if st.form_submit_button(t("Draw the sample") if not status["drawn"] else t("Add items to the sample")):
            how_many = {"share": float(amount)} if kind == "share" else {"size": int(amount)}
            try:
                out = sample.draw(conn, aid, seed=int(seed), actor=me, **how_many)
            except FairMarkError as e:
                _common.show_error(e)
            else:
                st.success(tn("The sample has {count} items.", "The sample has {count} items.", len(out["sample"])))
                st.rerun()

    st.subheader(t("Agreement between markers"))
    if view["agreement"]["criteria"]:
        st.dataframe(_figures(view["agreement"]["criteria"], {t("Criterion"): lambda r: r["title"]}),
                     hide_index=True, width="stretch")
        st.caption(t("Per pair of markers"))
        st.dataframe(_figures(view["agreement"]["pairs"], {
            t("Markers"): lambda r: (" " + t("and") + " ").join(_common.person(m) for m in r["markers"]),
            t("Criterion"): lambda r: r["title"]}), hide_index=True, width="stretch")
    else:
        st.caption(t("No item marked twice yet."))

    st.subheader(t("Marks that differ by more than a level"))
    if not view["differing"]:
        st.caption(t("None so far."))
    for d in view["differing"]:
        sid = d["submission_id"]
        with st.container(border=True):
            st.markdown(f"**{escape_markdown(d['student'])}** · "
                        + t("first marker {marker}", marker=escape_markdown(_common.person(d["first_marker"] or "—")))
                        + " · "
                        + t("second marker {marker}", marker=escape_markdown(_common.person(d["second_marker"]))))
            settled = d["settled"] or {}
            st.dataframe([{t("Criterion"): c.title, t("First"): (d["first"] or {}).get(c.key),
                           t("Second"): (d["second"] or {}).get(c.key),
                           t("Settled"): settled.get(c.key, {}).get("score")} for c in rubric.criteria],
                         hide_index=True, width="stretch")
            if settled:
                st.caption(t("Settled: {note}", note=escape_markdown(d["note"] or "")))
                continue
            with st.form(f"mod_settle_{sid}"):
                final = {c.key: st.selectbox(_common.md(c.title), rubric.levels, index=None,
                                             key=f"mod_final_{sid}_{c.key}") for c in rubric.criteria}
                note = st.text_input(t("Note (why these scores)"), key=f"mod_note_{sid}")
                if st.form_submit_button(t("Settle")):
                    try:
                        marking.settle(conn, sid, final, note=note, actor=me)
                    except FairMarkError as e:
                        _common.show_error(e)
                    else:
                        st.rerun()

    if view["sample"]:
        st.subheader(t("The sample"))
        # the AI's band: the stratum's first part, an N_ label (core.calibration.draw.BANDS)
        st.dataframe([{t("Student"): s["student"], t("AI's band"): t(s["stratum"].split(" · ")[0]),
                       t("First marker"): _common.person(s["first_marker"] or "—"),
                       t("Second marker"): _common.person(s["second_marker"]),
                       t("Second mark"): t("done") if s["marked"] else t("waiting")} for s in view["sample"]],
                     hide_index=True, width="stretch")
        waiting = {s["submission_id"]: s["student"] for s in view["sample"] if not s["marked"]}
        if waiting:
            c1, c2 = st.columns([4, 2], vertical_alignment="bottom")
            out = c1.selectbox(t("Take an item out before its second mark"), list(waiting), index=None,
                               format_func=waiting.get, key="mod_withdraw",
                               help=t("E.g. its second marker left: its release then no longer waits for it."))
            if c2.button(t("Take out"), key="mod_withdraw_go", disabled=out is None):
                try:
                    sample.withdraw(conn, out, actor=me)
                except FairMarkError as e:
                    _common.show_error(e)
                else:
                    st.rerun()
