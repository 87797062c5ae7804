"""AI quality: is the feedback AI good enough to use? The configuration in use and its eval
gate, the eval runs, the cases teachers saved, and blind pairwise comparisons of a variant."""
import pandas as pd
import streamlit as st

from core.courses import browse
from core.errors import FairMarkError
from core.evals import DIMENSION_LABELS, pairwise, views
from core.evals.runner import SOURCE_LABELS, STATUS_LABELS
from core.llm import default_provider
from core.evals import config as ai_config
from core.text import escape_markdown, format_timestamp
from pages import _common, _evals_widgets
from pages._i18n import N_, said, t, tn

SCOPES = {"assignment": N_("This assignment"), "course": N_("The whole course")}


def named(table: dict, code: str) -> str:
    """A code core names in `table` (N_), in the reader's language; an unknown code as it is."""
    return t(table[code]) if code in table else code

st.title(t("AI quality"))
st.caption(t("The feedback is judged on whether it gives the answer away, whether it is grounded, whether "
             "it fits the student's level and whether it teaches — never on how much students like it."))
conn = _common.get_db()
me = _common.actor()
db_path = _common.settings().db_path
if msg := st.session_state.pop("evals_flash", None):
    st.success(msg)
data = views.quality_view(  # the page's one read; the pickers' choices go down with it
    conn, course_id=_common.course_id(), provider=default_provider(_common.settings()), settings=_common.settings(),
    db_path=db_path, eval_run=st.session_state.get("q_eval_run"), comparison=st.session_state.get("q_cmp_pick"),
    actor=me)


def _pick(key: str, value) -> None:
    """A picker's choice no longer offered: the one the read fell back to."""
    if st.session_state.get(key, value) != value:
        st.session_state[key] = value


def _drafting(cid: int) -> None:
    """A progress bar per comparison being drafted, in a fragment that refreshes every second
    meanwhile; when the last one is done, the whole page runs once more (table and results).
    Drawn with the page, it shows the page's read; each refresh of its own reads again."""
    comps = st.session_state.pop("_cmp_read", None)
    if comps is None:
        comps = browse.comparisons_of(_common.connect(), cid, actor=_common.actor())
    drafting = [c for c in comps if c["status"] == "drafting"]
    for c in drafting:
        done = c["drafted"] + c["skipped"] + c["failed"]
        st.progress(done / c["sample_size"] if c["sample_size"] else 0.0,
                    text=t("Comparison {id}: drafting, {done} of {total} pairs done", id=c["id"], done=done,
                           total=c["sample_size"])
                         + (" (" + tn("{count} failed", "{count} failed", c["failed"]) + ")" if c["failed"] else ""))
        if c["skipped"]:
            st.caption(said(pairwise.skipped_note(c["skipped"])))
    if drafting:
        st.session_state["cmp_live"] = True
    elif st.session_state.pop("cmp_live", False):
        st.rerun(scope="app")


tab_gate, tab_saved, tab_cmp = st.tabs([t("Configuration and eval runs"), t("Saved eval cases"),
                                        t("Blind comparisons")])

with tab_gate:
    _evals_widgets.config_status(conn, key="quality", current=(data["config"], data["status"]))
    st.subheader(t("Eval runs"))
    _evals_widgets.eval_runs(data["runs"])
    runs = data["runs"]
    if runs:
        _pick("q_eval_run", data["eval_run"])
        rid = st.selectbox(t("Show the cases of eval run"), [r["id"] for r in runs], key="q_eval_run")
        report = data["report"]
        if report and report["id"] == rid:
            st.dataframe(pd.DataFrame([{
                t("case"): x["id"], t("dimension"): named(DIMENSION_LABELS, x["dimension"]),
                t("blocking"): x["blocking"], t("status"): named(STATUS_LABELS, x["status"]),
                t("comment"): named(SOURCE_LABELS, x["source"]),   # a check's name is the suite's, its detail core's Message
                t("checks"): "; ".join(f"{c['check']} {named(STATUS_LABELS, c['status'])}: {said(c['detail'])}"
                                       for c in x["checks"])}
                for x in report["report"]["results"]]), hide_index=True, width="stretch")
        else:
            st.caption(t("Only the latest run of each configuration keeps its per-case report here; run "
                         "`python -m core evals run` to see any run in full."))

with tab_saved:
    rows = data["saved"]
    if not rows:
        st.info(t("No saved cases yet. Teachers save a corrected item with 'Save as eval case' on the Review page."))
    else:
        st.dataframe(pd.DataFrame([{t("case"): r["case"]["id"], t("dimension"): named(DIMENSION_LABELS, r["dimension"]),
                                    t("requirement"): r["reason"], t("saved by"): _common.person(r["saved_by"]),
                                    t("when"): format_timestamp(r["saved_at"])}
                                   for r in rows]), hide_index=True, width="stretch")
        st.download_button(t("Download as JSONL (review, then add to data/evals/ and commit)"), data["jsonl"],
                           file_name="saved.jsonl", mime="application/jsonl")

with tab_cmp:
    cid = _common.require_course()
    if cid is not None:
        aid = _common.assignment_id()
        variants = ai_config.list_variants()
        st.subheader(t("Start a comparison"))
        if not variants:
            st.info(t("No variant to compare: put the changed prompt files (and optionally variant.json with "
                      "models and temperature) in a folder under prompts/variants/."))
        else:
            offline = not _common.settings().llm_configured
            if offline:  # said before the form is filled in; core refuses it too (core's Message)
                st.info(said(pairwise.OFFLINE_SAME), icon=":material/block:")
            with st.form("new_comparison"):
                variant = st.selectbox(t("Configuration B (a folder under prompts/variants/)"), variants)
                scope = st.radio(t("Sample from"), list(SCOPES), horizontal=True, disabled=aid is None,
                                 format_func=lambda k: t(SCOPES[k]))
                n = st.number_input(t("Pairs (stratified by score band)"), min_value=2, max_value=500,
                                    value=pairwise.DEFAULT_SAMPLE, step=10)
                if st.form_submit_button(t("Draft the pairs"), disabled=offline):
                    try:
                        new = pairwise.create(conn, course_id=cid, variant_b=variant, sample_size=int(n),
                                              assignment_id=aid if scope == "assignment" else None,
                                              actor=me)
                        pairwise.start(db_path, new, actor=me)
                    except FairMarkError as e:
                        _common.show_error(e)
                    else:
                        st.session_state["evals_flash"] = t("Comparison {id} is being drafted; teachers judge it on "
                                                            "the Compare page.", id=new)
                        st.rerun()
        comps = data["comparisons"]
        st.session_state["_cmp_read"] = comps       # the fragment's first drawing shows the page's read
        st.fragment(_drafting, run_every=1.0 if any(c["status"] == "drafting" for c in comps) else None)(cid)
        if comps:
            st.subheader(t("Comparisons"))
            st.dataframe(pd.DataFrame([{t("comparison"): c["id"], t("B (variant)"): c["variant_b"],
                                        t("status"): named(pairwise.STATUS_LABELS, c["status"]),
                                        t("pairs drafted"): t("{done} of {total}", done=c["drafted"] + c["skipped"],
                                                              total=c["sample_size"]),
                                        t("skipped (same comment)"): c["skipped"],
                                        t("started"): format_timestamp(c["created_at"]),
                                        t("by"): _common.person(c["created_by"])}
                                       for c in comps]), hide_index=True, width="stretch")
            _pick("q_cmp_pick", data["comparison"])
            pick = st.selectbox(t("Results of"), [c["id"] for c in comps], key="q_cmp_pick")
            r = data["results"]
            if r["status"] == "failed":
                st.error(escape_markdown(next(c["error"] or "" for c in comps if c["id"] == pick)))
            if data["resumable"] and st.button(
                    t("Resume drafting"), key=f"cmp_resume_{pick}", help=t("The drafting stopped or its worker is "
                    "gone (e.g. a restart): continue with the pairs not drafted yet.")):
                try:
                    pairwise.resume(db_path, pick, actor=me)
                except FairMarkError as e:
                    _common.show_error(e)
                else:
                    st.session_state["evals_flash"] = t("Comparison {id}: drafting continues.", id=pick)
                    st.rerun()
            st.dataframe(pd.DataFrame([{t("dimension"): named(DIMENSION_LABELS, d), t("choices"): w["n"], t("B's win rate"): w["win_rate"],
                                        t("95 % CI"): w["ci"] or (w["ci_note"] and said(w["ci_note"])), t("B better"): w["b_wins"],
                                        t("A better"): w["a_wins"], t("equal"): w["ties"]}
                                       for d, w in r["by_dimension"].items()]), hide_index=True, width="stretch")
            j = r["judge"]
            st.caption(t("Pedagogy judge vs teachers: agreement {agreement} on {n} choices (CI {ci})",
                         agreement=f"{j['agreement']:.0%}", n=j["n"], ci=j["ci"])
                       if j["agreement"] is not None else t("Pedagogy judge vs teachers: {note}", note=said(j["ci_note"])))
        st.subheader(t("When the pedagogy judge is trusted"))
        trust = data["trust"]
        st.caption((t("Trusted for later changes: {why}.", why=said(trust["why"])) if trust["trusted"] else
                    t("Not trusted for later changes: {why}.", why=said(trust["why"]))) + " "
                   + t("A trusted judge's pedagogy cases block an AI change like leakage and grounding do."))
        with st.form("judge_trust") if data["may"]["settings"] else st.container():
            value = st.slider(t("Agreement with the teachers needed (admin)"), 0.5, 1.0, float(trust["threshold"]),
                              0.05)
            if data["may"]["settings"] and st.form_submit_button(t("Save threshold")):
                try:
                    pairwise.set_trust_threshold(conn, value, actor=me)
                except FairMarkError as e:
                    _common.show_error(e)
                else:
                    st.rerun()
