"""Assess: configure and start a run of the agents, watch its progress, see what it cost."""
import pandas as pd
import streamlit as st

from core.runs import assess_view
from core.runs import reflections as runs
from core.errors import FairMarkError
from core.offline import LABEL as OFFLINE_LABEL
from core.text import format_timestamp
from pages import _common, _evals_widgets, _offline_scorer


def _assignment_name(title: str | None, week) -> str:
    return (f"Week {week}: " if week is not None else "") + (title or "")


st.title("Assess")
conn = _common.get_db()
me = _common.actor()
db_path = _common.settings().db_path
cid = _common.require_course()
if cid is None:
    st.stop()
aid = _common.assignment_id()

# --- configuration -----------------------------------------------------------------------
# Streamlit forgets a widget's value when its page is left; keep the choices (issue 11 item 13).
KEPT = ("assess_provider", "assess_scope", "assess_redo")
for key in KEPT:
    if key not in st.session_state and f"_kept_{key}" in st.session_state:
        st.session_state[key] = st.session_state[f"_kept_{key}"]
configured = _common.settings().llm_configured
if st.session_state.get("assess_provider") not in (["openai", "offline"] if configured else ["offline"]):
    st.session_state.pop("assess_provider", None)
providers = ["openai", "offline"] if configured else ["offline"]
# The options as the widgets below will return them (their state, else their first choice): the
# page's one read (core.runs.reflections.assess_view) is for these.
provider = st.session_state.get("assess_provider") or providers[0]
target = aid if st.session_state.get("assess_scope", "assignment") == "assignment" else None
view = assess_view.assess_page(conn, db_path, cid, actor=me, assignment_id=aid, provider=provider, target=target,
                               redo=bool(st.session_state.get("assess_redo", False)))
_common.know_people(view["people"])
labels = {"offline": "Offline baseline — no LLM (text features and templates)",
          "openai": "Configured language model"}
c1, c2 = st.columns(2)
provider = c1.radio("Provider", providers, format_func=labels.get, key="assess_provider")
if not configured:
    c1.caption("No language model is configured (Settings page), so only the offline baseline is available.")
if aid is not None:
    _offline_scorer.panel(conn, aid, view["offline_scorer"])
course_name = view["course"]["name"]
assignment = view["assignment"]
a_name = _assignment_name(assignment["title"], assignment["week"]) if assignment else "no assignment yet"
scope = c2.radio("Assess", ["assignment", "course"], key="assess_scope",
                 format_func={"assignment": f"This assignment: {_common.md(a_name)} ({_common.md(course_name)})",
                              "course": f"Every assignment of {_common.md(course_name)}"}.get,
                 disabled=aid is None, help="Change the course and assignment in the sidebar.")
redo = c2.checkbox("Also re-draft items that already have a draft", key="assess_redo",
                   help="Never touches items a teacher approved, rejected or released.")
batch = provider == "openai" and c1.checkbox(
    "Use the provider's batch engine (half the price, answers within 24 hours)", key="assess_batch",
    help="For large cohorts: the calls go to the endpoint's /v1/batches in waves (every Evaluator call, then the "
         "roles that depend on them). The run survives a restart of the app; resume it like any run.")
target = aid if scope == "assignment" else None
for key in KEPT:
    st.session_state[f"_kept_{key}"] = st.session_state[key]

if view["error"]:
    _common.show_error(view["error"])
    st.stop()
config, estimate = view["config"], view["estimate"]

with st.expander(f"Configuration: {_common.md(config['label'])}", expanded=False):
    st.dataframe(pd.DataFrame({"role": list(config["models"]), "model": list(config["models"].values())}),
                 hide_index=True)
    st.caption(f"Temperature {config['temperature']}, {config['concurrency']} submissions at a time, "
               f"at most {config['max_rounds']} revision rounds, {config['max_retries']} retries per call.")

m1, m2, m3 = st.columns(3)
m1.metric("Submissions to assess", estimate["submissions"])
m2.metric("Estimated tokens (in / out)",
          "none (no LLM)" if provider == "offline" else f"{estimate['tokens_in']:,} / {estimate['tokens_out']:,}")
m3.metric("Estimated cost", "$0 (offline)" if provider == "offline" else
          f"${estimate['cost_usd'] * (runs.BATCH_PRICE if batch else 1):.4f}" + (" (batch rate)" if batch else ""),
          help=None if provider == "offline" else
          "Every agent and judge of the feedback per submission with its answer format, the Evaluator with the "
          "assignment's examples once calibrated, the part of each prompt all submissions share at the cached "
          "price where the provider caches it (at best), "
          f"and the judge cascade's extra scoring calls ({estimate['cascade']['source']}: "
          f"{estimate['cascade']['samples_per_item']:g} samples and "
          f"{sum(estimate['cascade']['judges'].values()):g} judge calls per submission).")
if estimate.get("unpriced"):
    st.warning(_common.md("No price for " + ", ".join(estimate["unpriced"]) + ": add it on the Settings page."))

recent = view["history"]
active = next((r for r in recent if r["status"] in ("queued", "running") and not r["resumable"]), None)

cleared = _evals_widgets.assess_gate(conn, provider)   # has this AI configuration passed its eval cases?
if st.button("Start assessment", type="primary",
             disabled=estimate["submissions"] == 0 or active is not None or not cleared):
    try:
        run_id = runs.create(conn, course_id=cid, assignment_id=target, provider=provider, redo=redo,
                             batch=batch, actor=me)
        runs.start(db_path, run_id, actor=me)
        st.session_state["assess_run"] = run_id
        st.rerun()
    except FairMarkError as e:
        _common.show_error(e)
if estimate["submissions"] == 0 and active is None:
    st.caption("Nothing to assess here: every submission has a draft or a teacher's decision.")


# --- the current run ----------------------------------------------------------------------
# The run's progress as the page's read has it, for the fragment's first draw in this run; its
# own reruns (every second while the run is live) read it afresh.
_read = {r["run_id"]: r for r in recent}


def show_run(run_id: int) -> None:
    p = _read.pop(run_id, None) or runs.progress(_common.connect(), run_id, db_path, actor=_common.actor())
    state = {"queued": "waiting to start", "running": "running", "done": "finished", "cancelled": "cancelled",
             "failed": "stopped"}[p["status"]]
    if p["status"] in ("queued", "running") and p["resumable"]:
        state = "interrupted (its worker stopped)"
    label = OFFLINE_LABEL if p["provider"] == "offline" else p["provider"]
    what = (_assignment_name(p["assignment_title"], p["assignment_week"]) if p["assignment_id"] is not None
            else "every assignment of the course")
    st.subheader(f"Run {run_id}: {state}")
    st.caption(_common.md(f"Assessed: {what} · {label}")
               + (f" · batch engine: {p['batches']} batch file(s) so far, priced at the batch rate"
                  if "batches" in p else ""))
    st.progress(p["fraction"], text=f"{p['finished']} of {p['total']} submissions")
    a, b, c, d = st.columns(4)
    a.metric("Drafted", p["done"])
    b.metric("Needs attention", p["needs_attention"])
    c.metric("Failed", p["failed"])
    d.metric("Waiting", p["pending"])
    a.metric("Agent calls", p["calls"])
    b.metric("Cache hits", p["cache_hits"])
    c.metric("Tokens in / out", f"{p['tokens_in']:,} / {p['tokens_out']:,}")
    d.metric("Cost / time", f"${p['cost_usd']:.4f} / {p['seconds']:.0f} s")
    if p["error"]:
        _common.show_error(f"Run stopped: {p['error']}")
    if p["status"] == "done" and p["done"]:   # the drafts wait for a teacher
        st.page_link("pages/review.py", label="Go to Review", icon=":material/fact_check:")
    if p["failures"]:
        with st.expander(f"{p['failed']} submission(s) failed: they are in the review queue to regenerate "
                         "or mark by hand"):
            st.dataframe(pd.DataFrame(p["failures"]), hide_index=True)
    b1, b2 = st.columns(2)
    if p["status"] in ("queued", "running") and not p["resumable"]:
        if b1.button("Cancel run", key=f"cancel_{run_id}"):
            runs.cancel(db_path, run_id, actor=_common.actor())
            st.rerun()
    if p["resumable"]:
        if b2.button("Resume run", key=f"resume_{run_id}"):
            try:
                runs.resume(db_path, run_id, actor=_common.actor())
            except FairMarkError as e:
                _common.show_error(e)
            st.rerun()
    if p["status"] in ("cancelled", "failed", "done") or p["resumable"]:
        # A run that ended since the last full rerun: refresh the whole page once.
        if st.session_state.get("assess_live") == run_id:
            st.session_state["assess_live"] = None
            st.rerun(scope="app")
    else:
        st.session_state["assess_live"] = run_id


def _covers(r: dict) -> bool:
    """Whether a run belongs with what is selected: a course-wide run always; a run of one
    assignment only while that assignment is selected (or the whole course is)."""
    return r["assignment_id"] is None or scope == "course" or r["assignment_id"] == aid


shown = [r["run_id"] for r in recent if _covers(r)]
current = st.session_state.get("assess_run")
current = current if current in shown else (shown[0] if shown else None)
_common.set_address(run=current)
if current is not None:
    live = any(r["run_id"] == current and r["status"] in ("queued", "running") and not r["resumable"]
               for r in recent)
    st.fragment(show_run, run_every=1.0 if live else None)(current)
elif active is not None:
    st.info(_common.md(f"Run {active['run_id']} of "
                       f"{_assignment_name(active['assignment_title'], active['assignment_week'])} "
                       "is still running (see Recent runs); a new run can start when it ends."))

if recent:
    st.subheader("Recent runs")
    st.dataframe(pd.DataFrame([{
        "run": r["run_id"], "status": r["status"],
        "assignment": (_assignment_name(r["assignment_title"], r["assignment_week"]) if r["assignment_id"] is not None
                       else f"Every assignment of {course_name}"),
        "provider": OFFLINE_LABEL if r["provider"] == "offline" else r["provider"],
        "submissions": r["total"], "drafted": r["done"], "needs attention": r["needs_attention"],
        "failed": r["failed"], "calls": r["calls"], "cache hits": r["cache_hits"], "tokens in": r["tokens_in"],
        "tokens out": r["tokens_out"], "cost ($)": round(r["cost_usd"], 4), "seconds": r["seconds"],
        "started": format_timestamp(r["created_at"])} for r in recent]), hide_index=True)
