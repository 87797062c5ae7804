"""Assess: configure and start a run of the agents, watch its progress, see what it cost."""
import pandas as pd
import streamlit as st

from core.runs import assess_view
from core.runs import reflections as runs
from core.errors import FairMarkError
from core.offline import LABEL as OFFLINE_LABEL
from core.text import format_timestamp
from pages import _common, _evals_widgets, _offline_scorer
from pages._i18n import N_, said, t, tn

PROVIDERS = {"offline": N_("Offline baseline — no LLM (text features and templates)"),
             "openai": N_("Configured language model")}
STATE = {"queued": N_("waiting to start"), "running": N_("running"), "done": N_("finished"),
         "cancelled": N_("cancelled"), "failed": N_("stopped")}
STATUS = {"queued": N_("queued"), "running": N_("running"), "done": N_("done"), "cancelled": N_("cancelled"),
          "failed": N_("failed")}   # the Recent runs table's word for each


def _assignment_name(title: str | None, week) -> str:
    return (t("Week {week}: ", week=week) if week is not None else "") + (title or "")


st.title(t("Assess"))
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
c1, c2 = st.columns(2)
provider = c1.radio(t("Provider"), providers, format_func=lambda k: t(PROVIDERS[k]), key="assess_provider")
if not configured:
    c1.caption(t("No language model is configured (Settings page), so only the offline baseline is available."))
if aid is not None:
    _offline_scorer.panel(conn, aid, view["offline_scorer"])
course_name = view["course"]["name"]
assignment = view["assignment"]
a_name = _assignment_name(assignment["title"], assignment["week"]) if assignment else t("no assignment yet")
scopes = {"assignment": t("This assignment: {assignment} ({course})", assignment=_common.md(a_name),
                          course=_common.md(course_name)),
          "course": t("Every assignment of {course}", course=_common.md(course_name))}
scope = c2.radio(t("Assess"), list(scopes), key="assess_scope", format_func=scopes.get,
                 disabled=aid is None, help=t("Change the course and assignment in the sidebar."))
redo = c2.checkbox(t("Also re-draft items that already have a draft"), key="assess_redo",
                   help=t("Never touches items a teacher approved, rejected or released."))
batch = provider == "openai" and c1.checkbox(
    t("Use the provider's batch engine (half the price, answers within 24 hours)"), key="assess_batch",
    help=t("For large cohorts: the calls go to the endpoint's /v1/batches in waves (every Evaluator call, then the "
           "roles that depend on them). The run survives a restart of the app; resume it like any run."))
target = aid if scope == "assignment" else None
for key in KEPT:
    st.session_state[f"_kept_{key}"] = st.session_state[key]

if view["error"]:
    _common.show_error(view["error"])
    st.stop()
config, estimate = view["config"], view["estimate"]

with st.expander(t("Configuration: {label}", label=_common.md(config["label"])), expanded=False):
    st.dataframe(pd.DataFrame({t("role"): list(config["models"]), t("model"): list(config["models"].values())}),
                 hide_index=True)
    st.caption(t("Temperature {temperature}, {concurrency} submissions at a time, at most {rounds} revision rounds, "
                 "{retries} retries per call.", temperature=config["temperature"],
                 concurrency=config["concurrency"], rounds=config["max_rounds"], retries=config["max_retries"]))

m1, m2, m3 = st.columns(3)
m1.metric(t("Submissions to assess"), estimate["submissions"])
m2.metric(t("Estimated tokens (in / out)"),
          t("none (no LLM)") if provider == "offline" else f"{estimate['tokens_in']:,} / {estimate['tokens_out']:,}")
m3.metric(t("Estimated cost"), "$0 (" + t("offline") + ")" if provider == "offline" else
          f"${estimate['cost_usd'] * (runs.BATCH_PRICE if batch else 1):.4f}" + (" (" + t("batch rate") + ")" if batch else ""),
          help=None if provider == "offline" else
          t("Every agent and judge of the feedback per submission with its answer format, the Evaluator with the "
            "assignment's examples once calibrated, the part of each prompt all submissions share at the cached "
            "price where the provider caches it (at best), and the judge cascade's extra scoring calls ({source}: "
            "{samples} samples and {judges} judge calls per submission).", source=said(estimate["cascade"]["source"]),
            samples=f"{estimate['cascade']['samples_per_item']:g}",
            judges=f"{sum(estimate['cascade']['judges'].values()):g}"))
if estimate.get("unpriced"):
    st.warning(_common.md(t("No price for {models}: add it on the Settings page.",
                            models=", ".join(estimate["unpriced"]))))

recent = view["history"]
active = next((r for r in recent if r["status"] in ("queued", "running") and not r["resumable"]), None)

cleared = _evals_widgets.assess_gate(conn, provider)   # has this AI configuration passed its eval cases?
if st.button(t("Start assessment"), type="primary",
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
    st.caption(t("Nothing to assess here: every submission has a draft or a teacher's decision."))


# --- the current run ----------------------------------------------------------------------
# The run's progress as the page's read has it, for the fragment's first draw in this run; its
# own reruns (every second while the run is live) read it afresh.
_read = {r["run_id"]: r for r in recent}


def _why(items: list[dict]) -> pd.DataFrame:
    """Failed or skipped items with why: FairMark's words in the reader's language (core's
    Messages), a model's or an older item's English as it is."""
    return pd.DataFrame({t("submission"): [i["submission_id"] for i in items],
                         t("why"): [said(i["error"]) for i in items]})


def show_run(run_id: int) -> None:
    p = _read.pop(run_id, None) or runs.progress(_common.connect(), run_id, db_path, actor=_common.actor())
    if p["status"] in ("cancelled", "failed", "done") or p["resumable"]:
        # A run that ended since the last full rerun: refresh the whole page once, before drawing
        # anything. Drawn first, "finished" invites a click on the menu, and this rerun, asked
        # for after the click, would win over it: the teacher's click on Review would be lost.
        if st.session_state.get("assess_live") == run_id:
            st.session_state["assess_live"] = None
            st.rerun(scope="app")
    else:
        st.session_state["assess_live"] = run_id
    state = t(STATE[p["status"]])
    if p["status"] in ("queued", "running") and p["resumable"]:
        state = t("interrupted (its worker stopped)")
    label = t(OFFLINE_LABEL) if p["provider"] == "offline" else p["provider"]
    what = (_assignment_name(p["assignment_title"], p["assignment_week"]) if p["assignment_id"] is not None
            else t("every assignment of the course"))
    st.subheader(t("Run {run}: {state}", run=run_id, state=state))
    st.caption(_common.md(t("Assessed: {what} · {provider}", what=what, provider=label))
               + (" · " + tn("batch engine: {count} batch file so far, priced at the batch rate",
                             "batch engine: {count} batch files so far, priced at the batch rate", p["batches"])
                  if "batches" in p else ""))
    st.progress(p["fraction"], text=tn("{finished} of {count} submissions", "{finished} of {count} submissions",
                                       p["total"], finished=p["finished"]))
    a, b, c, d = st.columns(4)
    a.metric(t("Drafted"), p["done"])
    b.metric(t("Needs attention"), p["needs_attention"])
    c.metric(t("Failed"), p["failed"])
    d.metric(t("Waiting"), p["pending"])
    a.metric(t("Agent calls"), p["calls"])
    b.metric(t("Cache hits"), p["cache_hits"])
    c.metric(t("Tokens in / out"), f"{p['tokens_in']:,} / {p['tokens_out']:,}")
    d.metric(t("Cost / time"), f"${p['cost_usd']:.4f} / " + t("{seconds} s", seconds=f"{p['seconds']:.0f}"))
    if p["error"]:
        _common.show_error(t("Run stopped: {error}", error=said(p["error"])))
    if p["status"] == "done" and p["done"]:   # the drafts wait for a teacher
        st.page_link("pages/review.py", label=t("Go to Review"), icon=":material/fact_check:")
    if p["failures"]:
        with st.expander(tn("{count} submission(s) failed: they are in the review queue to regenerate or mark by hand",
                            "{count} submission(s) failed: they are in the review queue to regenerate or mark by hand",
                            p["failed"])):
            st.dataframe(_why(p["failures"]), hide_index=True)
    if p.get("skips"):
        with st.expander(tn("{count} submission skipped", "{count} submissions skipped", p["skipped"])):
            st.dataframe(_why(p["skips"]), hide_index=True)
    b1, b2 = st.columns(2)
    if p["status"] in ("queued", "running") and not p["resumable"]:
        if b1.button(t("Cancel run"), key=f"cancel_{run_id}"):
            runs.cancel(db_path, run_id, actor=_common.actor())
            st.rerun()
    if p["resumable"]:
        if b2.button(t("Resume run"), key=f"resume_{run_id}"):
            try:
                runs.resume(db_path, run_id, actor=_common.actor())
            except FairMarkError as e:
                _common.show_error(e)
            st.rerun()


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
    st.info(_common.md(t("Run {run} of {assignment} is still running (see Recent runs); a new run can start when "
                         "it ends.", run=active["run_id"],
                         assignment=_assignment_name(active["assignment_title"], active["assignment_week"]))))

if recent:
    st.subheader(t("Recent runs"))
    st.dataframe(pd.DataFrame([{
        t("run"): r["run_id"], t("status"): t(STATUS[r["status"]]) if r["status"] in STATUS else r["status"],
        t("assignment"): (_assignment_name(r["assignment_title"], r["assignment_week"])
                          if r["assignment_id"] is not None else t("Every assignment of {course}", course=course_name)),
        t("provider"): t(OFFLINE_LABEL) if r["provider"] == "offline" else r["provider"],
        t("submissions"): r["total"], t("drafted"): r["done"], t("needs attention"): r["needs_attention"],
        t("failed"): r["failed"], t("calls"): r["calls"], t("cache hits"): r["cache_hits"],
        t("tokens in"): r["tokens_in"], t("tokens out"): r["tokens_out"], t("cost ($)"): round(r["cost_usd"], 4),
        t("seconds"): r["seconds"], t("started"): format_timestamp(r["created_at"])} for r in recent]),
        hide_index=True)
